#pragma once
// How well a run conserved what physics conserves, between two measurements: for `bench --json`.

#include "diagnostics/diagnostics.h"
#include "io/json_writer.h"

namespace nbody {

struct ConservationCheck {
  Diagnostics before, after;
};

// An object "conservation": energy before and after, the relative energy drift (E - E0) / |E0|,
// and the drift |P - P0| of the momentum and |L - L0| of the angular momentum.
void writeConservationJson(JsonWriter& json, const ConservationCheck& check);

}  // namespace nbody
