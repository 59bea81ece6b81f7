#pragma once
// `nbody engines`: the engines, their options and the choices each offers. It takes no options.

#include <CLI/CLI.hpp>

#include "app/run/output_plan.h"

namespace nbody {

struct EnginesOptions {};

inline void addEnginesOptions(CLI::App&, EnginesOptions&) {}
inline CommandFiles enginesFiles(const EnginesOptions&) { return {}; }
int runEngines(const EnginesOptions& options);

}  // namespace nbody
