#pragma once
// How well a run conserved what physics conserves, between two measurements: for `bench --json`.

#include <nlohmann/json.hpp>

#include "diagnostics/diagnostics.h"

namespace nbody {

struct ConservationCheck {
  Diagnostics before, after;
};

// Energy before and after, the relative energy drift (E - E0) / |E0|, and the drift |P - P0| of
// the momentum and |L - L0| of the angular momentum.
nlohmann::json conservationJson(const ConservationCheck& check);

}  // namespace nbody
