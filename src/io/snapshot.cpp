#include "io/snapshot.h"

#include <cmath>
#include <stdexcept>

#include "io/csv.h"

namespace nbody {
namespace {

bool isFinite(const glm::vec4& v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z) && std::isfinite(v.w);
}

}  // namespace

void checkRadii(const std::vector<double>& radii, std::size_t bodies, const std::string& source) {
  if (radii.size() != bodies)
    throw std::runtime_error(source + ": " + std::to_string(radii.size()) + " radii for " +
                             std::to_string(bodies) + " bodies");
  for (std::size_t i = 0; i < radii.size(); ++i)
    if (!(std::isfinite(radii[i]) && radii[i] >= 0.0))
      throw std::runtime_error(source + ": body " + std::to_string(i) + "'s radius is " +
                               formatDouble(radii[i]) + "; a radius is finite and >= 0");
}

void refuseUnwritable(const Snapshot& snapshot) {
  // The last line of defence: the commands say which steps went wrong before they get here.
  if (!std::isfinite(snapshot.time))
    throw std::runtime_error("refusing to write a state whose time is not finite");
  for (std::size_t i = 0; i < snapshot.state.size(); ++i)
    if (!isFinite(snapshot.state.positionMass[i]) ||
        !isFinite(glm::vec4(glm::vec3(snapshot.state.velocity[i]), 0.0f)))
      throw std::runtime_error("refusing to write a state that is not finite (body " +
                               std::to_string(i) + ")");
  if (snapshot.radii) checkRadii(*snapshot.radii, snapshot.state.size(), "refusing to write");
  if (snapshot.step < 0 || snapshot.step > kLargestStep)
    throw std::runtime_error("refusing to write step " + std::to_string(snapshot.step) +
                             ": a snapshot holds steps 0 to " + std::to_string(kLargestStep));
}

double runGravityOf(const Snapshot& snapshot) {
  if (snapshot.settings) return snapshot.settings->step.gravity;
  return snapshot.units ? snapshot.units->gravity : 1.0;
}

std::string takeFileGravity(const Snapshot& snapshot, const std::string& source, bool gravityGiven,
                            StepParams& step) {
  if (!snapshot.units || snapshot.settings || gravityGiven) return {};
  step.gravity = snapshot.units->gravity;
  return "G = " + formatDouble(step.gravity) + " from " + source + ": " + snapshot.units->origin +
         " (--gravity sets another)";
}

void checkBodies(const State& state, const std::string& source) {
  if (state.size() == 0) throw std::runtime_error(source + ": no bodies");
  checkPartBodies(state, source, {});
}

void checkPartBodies(const State& state, const std::string& source,
                     std::span<const std::uint64_t> names) {
  const auto name = [&](std::size_t i) { return names.empty() ? std::uint64_t(i) : names[i]; };
  if (state.velocity.size() != state.size() ||
      (!state.id.empty() && state.id.size() != state.size()) ||
      (!state.component.empty() && state.component.size() != state.size()))
    throw std::logic_error(source + ": the state's lists differ in length");
  for (std::size_t i = 0; i < state.component.size(); ++i)
    if (state.component[i] >= kComponentCount)
      throw std::runtime_error(source + ": body " + std::to_string(name(i)) + ": component " +
                               std::to_string(int(state.component[i])) + " is not one of 0 to " +
                               std::to_string(kComponentCount - 1));
  for (std::size_t i = 0; i < state.size(); ++i) {
    const auto where = [&] { return source + ": body " + std::to_string(name(i)) + ": "; };
    if (!isFinite(state.positionMass[i]))
      throw std::runtime_error(where() + "position or mass is not finite");
    if (!isFinite(state.velocity[i])) throw std::runtime_error(where() + "velocity is not finite");
    if (state.positionMass[i].w < 0.0f) throw std::runtime_error(where() + "negative mass");
  }
}

}  // namespace nbody
