#include "diagnostics/conservation_report.h"

namespace nbody {

nlohmann::json conservationJson(const ConservationCheck& check) {
  return {{"energy_before", check.before.total()},
          {"energy_after", check.after.total()},
          {"relative_energy_drift", relativeEnergyError(check.before, check.after)},
          {"momentum_drift", momentumDrift(check.before, check.after)},
          {"angular_momentum_drift", angularMomentumDrift(check.before, check.after)}};
}

}  // namespace nbody
