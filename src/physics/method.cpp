#include "physics/method.h"

#include "util/named_table.h"

namespace nbody {
namespace {

// Entry `column` of what pass `pass` combines: row pass + 1 of a tableau, or its b for the last
// pass; zero past a row's end (rows of a are stored without their trailing zeros).
double outputWeight(const std::vector<std::vector<double>>& a, const std::vector<double>& b,
                    int pass, int column) {
  const std::vector<double>& row = pass + 1 == int(b.size()) ? b : a[pass + 1];
  return column < int(row.size()) ? row[column] : 0.0;
}

}  // namespace

double Method::positionWeight(int pass, int column) const {
  return outputWeight(a, b, pass, column);
}

double Method::velocityWeight(int pass, int column) const {
  return aVelocity.empty() ? positionWeight(pass, column)
                           : outputWeight(aVelocity, bVelocity, pass, column);
}

double Method::stageFraction(int stage) const {
  double sum = 0.0;
  if (stage > 0 && stage < stageCount())
    for (double weight : a[std::size_t(stage)]) sum += weight;
  return sum;
}

std::vector<double> Method::positionWeights(int stage) const {
  std::vector<double> weights;
  for (int j = 0; j <= stage; ++j) weights.push_back(positionWeight(stage, j));
  return weights;
}

std::vector<double> Method::velocityWeights(int stage) const {
  std::vector<double> weights;
  for (int j = 0; j <= stage; ++j) weights.push_back(velocityWeight(stage, j));
  return weights;
}

bool Method::needsForce(int stage) const {
  for (int pass = stage; pass < stageCount(); ++pass)
    if (velocityWeight(pass, stage) != 0.0) return true;
  return false;
}

bool Method::storesForce(int stage) const {
  if (stage == stageCount() - 1) return firstSameAsLast();
  for (int pass = stage + 1; pass < stageCount(); ++pass)
    if (velocityWeight(pass, stage) != 0.0) return true;
  return false;
}

bool Method::firstSameAsLast() const {
  const int last = stageCount() - 1;
  if (last == 0 || !needsForce(0) || !needsForce(last)) return false;
  // The last stage's positions (built by the pass before it) against the step's result.
  for (int j = 0; j <= last; ++j)
    if (positionWeight(last - 1, j) != positionWeight(last, j)) return false;
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
      {"rk4",
       "classic fourth-order Runge-Kutta",
       4,
       {{}, {0.5}, {0.0, 0.5}, {0.0, 0.0, 1.0}},
       {1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0},
       {},
       {}},
      // Kick then drift: stage 1 only carries the kicked velocity v + h a(x) to the drift.
      {"symplectic-euler",
       "symplectic Euler, kick then drift: v += h a(x), x += h v",
       1,
       {{}, {0.0}},
       {0.0, 1.0},
       {{}, {1.0}},
       {1.0, 0.0}},
      // Kick-drift-kick: stage 1 carries the half-kicked velocity, stage 2 the drifted positions,
      // whose force closes the step and (FSAL) opens the next one.
      {"leapfrog",
       "leapfrog (velocity Verlet), kick-drift-kick, one force evaluation per step",
       2,
       {{}, {0.0}, {0.0, 1.0}},
       {0.0, 1.0, 0.0},
       {{}, {0.5}, {0.5, 0.0}},
       {0.5, 0.0, 0.5}},
  };
  return methods;
}

const Method* findMethod(std::string_view name) { return findByName(allMethods(), name); }

std::vector<std::string> methodNames() { return namesOf(allMethods()); }

}  // namespace nbody
