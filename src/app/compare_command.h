#pragma once
// `nbody compare`: do two pictures agree within thresholds? Prints what differs, optionally writes
// a picture of the differences, exits 0 (they agree) or 1 (they do not).

#include "app/compare_options.h"

namespace nbody {

int runCompare(const CompareOptions& options);

}  // namespace nbody
