#include "engines/cpu_engine.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <thread>

#include <unistd.h>

#include <glm/geometric.hpp>

#include "util/parallel_for.h"
#include "util/system_limits.h"

namespace nbody {
namespace {

constexpr std::size_t kBodiesPerThread = 64;  // at least, a thread

}  // namespace

CpuEngine::CpuEngine(unsigned threadCount)
    : threadCount_(threadCount ? threadCount : std::max(1u, std::thread::hardware_concurrency())) {}

void CpuEngine::checkCapacity(std::size_t bodies) const {
  // Double-precision state, stage derivatives and the float32 copy it exchanges: ~300 bytes a body.
  const double bytes = double(bodies) * 300.0;
  const double available = double(::sysconf(_SC_AVPHYS_PAGES)) * double(::sysconf(_SC_PAGESIZE));
  const std::string need = std::to_string(bodies) + " bodies need about " + bytesText(bytes);
  if (available > 0 && bytes > available)
    throw std::runtime_error(need + "; " + bytesText(available) + " of memory are free");
  if (bytes > addressSpaceLeft())
    throw std::runtime_error(need + "; " + limitText(RLIMIT_AS) + ", which leaves " +
                             bytesText(addressSpaceLeft()));
}

std::string CpuEngine::device() const {
  return "CPU, double precision, " + std::to_string(threadCount_) + " threads";
}

void CpuEngine::upload(const State& state) {
  reusedForce_.forget();
  const std::size_t n = state.size();
  ids_ = state.id;
  components_ = state.component;
  mass_.resize(n);
  position_.resize(n);
  velocity_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    mass_[i] = state.positionMass[i].w;
    position_[i] = glm::dvec3(state.positionMass[i]);
    velocity_[i] = glm::dvec3(state.velocity[i]);
  }
}

void CpuEngine::uploadDoubles(const DoubleState& bodies) {
  if (bodies.size() != mass_.size() || bodies.position.size() != mass_.size() ||
      bodies.velocity.size() != mass_.size())
    throw std::logic_error("doubles of " + std::to_string(bodies.size()) +
                           " bodies for a state of " + std::to_string(mass_.size()));
  reusedForce_.forget();
  mass_ = bodies.mass;
  position_ = bodies.position;
  velocity_ = bodies.velocity;
}

State CpuEngine::download() {
  State state;
  state.id = ids_;
  state.component = components_;
  state.resize(mass_.size());
  for (std::size_t i = 0; i < mass_.size(); ++i) {
    state.positionMass[i] = glm::vec4(glm::vec3(position_[i]), float(mass_[i]));
    state.velocity[i] = glm::vec4(glm::vec3(velocity_[i]), 0.0f);
  }
  return state;
}

namespace {

// The potential's acceleration at each position, at the time of `params`.
void addExternal(const ExternalPotential& potential, const std::vector<glm::dvec3>& positions,
                 const StepParams& params, std::vector<glm::dvec3>& out) {
  const double time = params.time();
  for (std::size_t i = 0; i < positions.size(); ++i)
    out[i] += potential.acceleration(positions[i], time, params.gravity);
}

}  // namespace

void CpuEngine::accelerations(const std::vector<glm::dvec3>& positions, const StepParams& params,
                              std::vector<glm::dvec3>& out) const {
  const std::size_t n = positions.size();
  const double softening2 = params.softening * params.softening;
  out.resize(n);
  parallelFor(n, threadCount_, kBodiesPerThread, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      glm::dvec3 sum(0.0);
      for (std::size_t j = 0; j < n; ++j) {
        const glm::dvec3 d = positions[j] - positions[i];
        const double r2 = glm::dot(d, d) + softening2;
        // r2 == 0 only for j == i (or coincident bodies with eps = 0): that term is zero.
        const double inverseR = r2 > 0.0 ? 1.0 / std::sqrt(r2) : 0.0;
        sum += mass_[j] * inverseR * inverseR * inverseR * d;
      }
      out[i] = params.gravity * sum;
    }
  });
  if (params.potential) addExternal(*params.potential, positions, params, out);
}

std::vector<glm::dvec3> CpuEngine::currentAccelerations(const StepParams& params) {
  std::vector<glm::dvec3> out;
  accelerations(position_, params, out);
  return out;
}

void CpuEngine::step(const Method& method, const StepParams& params, int steps) {
  for (int s = 0; s < steps; ++s) singleStep(method, params.atStage(s, 0.0));
}

void CpuEngine::evaluateStageForce(const Method& method, const StepParams& params, int stage,
                                   bool reuseLastForce) {
  std::vector<glm::dvec3>& acceleration = stageAcceleration_[stage];
  switch (stageForce(method, stage, reuseLastForce)) {
    case StageForce::reused:  // the last step left it here
      return;
    case StageForce::none:  // never weighed
      acceleration.assign(mass_.size(), glm::dvec3(0.0));
      return;
    case StageForce::evaluated:
      accelerations(stagePosition_, params, acceleration);
      ++forceEvaluations_;
  }
}

void CpuEngine::singleStep(const Method& method, const StepParams& params) {
  const int stages = method.stageCount();
  const std::size_t n = mass_.size();
  const bool reuseLastForce = reusedForce_.available(method, params);
  stageVelocity_.resize(stages);
  stageAcceleration_.resize(stages);
  stagePosition_ = position_;
  std::vector<glm::dvec3> nextPosition = position_, nextVelocity = velocity_;
  std::vector<glm::dvec3> stageVelocity = velocity_;
  for (int stage = 0; stage < stages; ++stage) {
    stageVelocity_[stage] = stageVelocity;
    evaluateStageForce(method, params.atStage(0, method.stageFraction(stage)), stage,
                       reuseLastForce);
    // Build what comes next from the stage derivatives: the next stage, or the step's result.
    // Terms the method does not weigh are left out, so equal rows give equal bits (FSAL).
    const std::vector<double> positionWeights = method.positionWeights(stage);
    const std::vector<double> velocityWeights = method.velocityWeights(stage);
    const bool last = stage + 1 == stages;
    std::vector<glm::dvec3>& outPosition = last ? nextPosition : stagePosition_;
    std::vector<glm::dvec3>& outVelocity = last ? nextVelocity : stageVelocity;
    for (std::size_t i = 0; i < n; ++i) {
      glm::dvec3 dx(0.0), dv(0.0);
      for (int j = 0; j <= stage; ++j) {
        if (positionWeights[j] != 0.0) dx += positionWeights[j] * stageVelocity_[j][i];
        if (velocityWeights[j] != 0.0) dv += velocityWeights[j] * stageAcceleration_[j][i];
      }
      outPosition[i] = position_[i] + params.dt * dx;
      outVelocity[i] = velocity_[i] + params.dt * dv;
    }
  }
  position_ = std::move(nextPosition);
  velocity_ = std::move(nextVelocity);
  if (method.firstSameAsLast()) std::swap(stageAcceleration_[0], stageAcceleration_[stages - 1]);
  reusedForce_.afterStep(method, params);
}

}  // namespace nbody
