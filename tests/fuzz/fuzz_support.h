#pragma once
// What every loader fuzzer checks of a snapshot a loader accepted.

#include <cmath>
#include <cstdlib>

#include "io/snapshot.h"

namespace nbody::fuzz {

inline void require(bool condition) {
  if (!condition) std::abort();  // libFuzzer reports the input that got here
}

// Finite numbers, no negative mass, at least one body. Massless bodies are test particles
// (io/snapshot.h): a state of them only loads, and a run without an external potential refuses it.
inline void requireSaneBodies(const State& state) {
  for (std::size_t i = 0; i < state.size(); ++i) {
    for (int k = 0; k < 4; ++k) require(std::isfinite(state.positionMass[i][k]));
    for (int k = 0; k < 3; ++k) require(std::isfinite(state.velocity[i][k]));
    require(state.positionMass[i].w >= 0.0f);
  }
  require(state.size() > 0);
}

}  // namespace nbody::fuzz
