#include "diagnostics/conservation_report.h"

namespace nbody {

void writeConservationJson(JsonWriter& json, const ConservationCheck& check) {
  json.beginObject("conservation");
  json.field("energy_before", check.before.total());
  json.field("energy_after", check.after.total());
  json.field("relative_energy_drift", relativeEnergyError(check.before, check.after));
  json.field("momentum_drift", momentumDrift(check.before, check.after));
  json.field("angular_momentum_drift", angularMomentumDrift(check.before, check.after));
  json.endObject();
}

}  // namespace nbody
