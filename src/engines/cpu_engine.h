#pragma once
// The reference engine: double precision, all cores, the same Butcher tableaux as the GPU engines.

#include <vector>

#include <glm/vec3.hpp>

#include "engines/engine.h"
#include "engines/reused_force.h"

namespace nbody {

class CpuEngine final : public Engine {
 public:
  explicit CpuEngine(unsigned threadCount = 0);  // 0: one thread per core

  std::string name() const override { return "cpu"; }
  std::string device() const override;
  bool runsOnGl() const override { return false; }
  void upload(const State& state) override;
  void uploadDoubles(const DoubleState& bodies) override;
  State download() override;
  std::size_t bodyCount() const override { return mass_.size(); }
  void checkCapacity(std::size_t bodies) const override;
  void step(const Method& method, const StepParams& params, int steps = 1) override;
  std::optional<DoubleBodies> doubleState() const override {
    return DoubleBodies{mass_, position_, velocity_};
  }
  std::vector<glm::dvec3> currentAccelerations(const StepParams& params) override;

  // Double-precision access for tests that compare against analytic results.
  const std::vector<glm::dvec3>& positions() const { return position_; }
  const std::vector<glm::dvec3>& velocities() const { return velocity_; }

  // Force evaluations (accelerations of every body) since construction: what FSAL saves shows here.
  long long forceEvaluationCount() const { return forceEvaluations_; }

  // a_i = G sum_j m_j (r_j - r_i) / (|r_j - r_i|^2 + eps^2)^(3/2), into `out`.
  void accelerations(const std::vector<glm::dvec3>& positions, const StepParams& params,
                     std::vector<glm::dvec3>& out) const;

 private:
  void singleStep(const Method& method, const StepParams& params);
  void evaluateStageForce(const Method& method, const StepParams& params, int stage,
                          bool reuseLastForce);

  unsigned threadCount_;
  std::vector<double> mass_;
  std::vector<glm::dvec3> position_, velocity_;
  // The IDs and components uploaded, which download() returns as they came.
  std::vector<std::uint64_t> ids_;
  std::vector<std::uint8_t> components_;
  // Per-stage derivatives and the stage state, kept between steps to avoid reallocating.
  std::vector<std::vector<glm::dvec3>> stageVelocity_, stageAcceleration_;
  std::vector<glm::dvec3> stagePosition_;
  ReusedForce reusedForce_;
  long long forceEvaluations_ = 0;
};

}  // namespace nbody
