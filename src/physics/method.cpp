#include "physics/method.h"

#include "util/named_table.h"

#include <algorithm>

namespace nbody {
namespace {

// Row `stage + 1` of a tableau, or its b for the last stage, padded to stage + 1 entries (rows of
// a are stored without their trailing zeros).
std::vector<double> outputRow(const std::vector<std::vector<double>>& a, const std::vector<double>& b,
                              int stage) {
  const bool lastStage = stage + 1 == int(b.size());
  std::vector<double> weights = lastStage ? b : a[stage + 1];
  weights.resize(stage + 1, 0.0);
  return weights;
}

double entry(const std::vector<double>& row, int column) {
  return column < int(row.size()) ? row[column] : 0.0;
}

}  // namespace

std::vector<double> Method::positionWeights(int stage) const { return outputRow(a, b, stage); }

std::vector<double> Method::velocityWeights(int stage) const {
  return aVelocity.empty() ? positionWeights(stage) : outputRow(aVelocity, bVelocity, stage);
}

bool Method::needsForce(int stage) const {
  for (int pass = stage; pass < stageCount(); ++pass)
    if (velocityWeights(pass)[stage] != 0.0) return true;
  return false;
}

bool Method::storesForce(int stage) const {
  if (stage == stageCount() - 1) return firstSameAsLast();
  for (int pass = stage + 1; pass < stageCount(); ++pass)
    if (velocityWeights(pass)[stage] != 0.0) return true;
  return false;
}

bool Method::firstSameAsLast() const {
  const int last = stageCount() - 1;
  if (last == 0 || !needsForce(0) || !needsForce(last)) return false;
  // The last stage's positions (built by the pass before it) against the step's result.
  const std::vector<double> lastStagePositions = positionWeights(last - 1);
  const std::vector<double> result = positionWeights(last);
  for (int j = 0; j <= last; ++j)
    if (entry(lastStagePositions, j) != result[j]) return false;
  return true;
}

int Method::forceEvaluations() const {
  int count = 0;
  for (int stage = 0; stage < stageCount(); ++stage) count += needsForce(stage);
  return count - (firstSameAsLast() ? 1 : 0);
}

const std::vector<Method>& allMethods() {
  static const std::vector<Method> methods{
      {"euler", "explicit Euler: x += h v, v += h a(x)", 1, {{}}, {1.0}, {}, {}},
      {"rk2", "second-order Runge-Kutta, midpoint rule", 2, {{}, {0.5}}, {0.0, 1.0}, {}, {}},
      {"rk4", "classic fourth-order Runge-Kutta", 4,
       {{}, {0.5}, {0.0, 0.5}, {0.0, 0.0, 1.0}},
       {1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0}, {}, {}},
      // Kick then drift: stage 1 only carries the kicked velocity v + h a(x) to the drift.
      {"symplectic-euler", "symplectic Euler, kick then drift: v += h a(x), x += h v", 1,
       {{}, {0.0}}, {0.0, 1.0},
       {{}, {1.0}}, {1.0, 0.0}},
      // Kick-drift-kick: stage 1 carries the half-kicked velocity, stage 2 the drifted positions,
      // whose force closes the step and (FSAL) opens the next one.
      {"leapfrog", "leapfrog (velocity Verlet), kick-drift-kick, one force evaluation per step", 2,
       {{}, {0.0}, {0.0, 1.0}}, {0.0, 1.0, 0.0},
       {{}, {0.5}, {0.5, 0.0}}, {0.5, 0.0, 0.5}},
  };
  return methods;
}

const Method* findMethod(std::string_view name) { return findByName(allMethods(), name); }

std::vector<std::string> methodNames() { return namesOf(allMethods()); }

}  // namespace nbody
