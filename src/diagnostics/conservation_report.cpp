#include "diagnostics/conservation_report.h"

#include <glm/geometric.hpp>

namespace nbody {

void writeConservationJson(JsonWriter& json, const ConservationCheck& check) {
  json.beginObject("conservation");
  json.field("energy_before", check.before.total());
  json.field("energy_after", check.after.total());
  json.field("relative_energy_drift", relativeEnergyError(check.before, check.after));
  json.field("momentum_drift", glm::length(check.after.momentum - check.before.momentum));
  json.field("angular_momentum_drift",
             glm::length(check.after.angularMomentum - check.before.angularMomentum));
  json.endObject();
}

}  // namespace nbody
