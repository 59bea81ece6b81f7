#pragma once
// JSON has no NaN or infinity: every report writes a figure that was not measured, or is not
// finite, as null.

#include <cmath>

#include <nlohmann/json.hpp>

namespace nbody {

inline nlohmann::json jsonNumber(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json();
}

}  // namespace nbody
