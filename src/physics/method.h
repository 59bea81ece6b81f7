#pragma once
// An integration method is data: the Butcher tableau of an explicit Runge-Kutta scheme applied to
// dY/dt = f(Y) with Y = (positions, velocities) and f(Y) = (velocities, accelerations(positions)).
// Every engine drives its one force evaluation from these coefficients; no engine knows a method
// by name.
//
// Stage i has positions X_i = x + h sum_j a[i][j] V_j and velocities V_i = v + h sum_j
// aVelocity[i][j] A_j, where A_j = a(X_j) is the force evaluation of stage j; the step ends at
// x + h sum_j b[j] V_j, v + h sum_j bVelocity[j] A_j. A partitioned method (the symplectic ones)
// weighs velocities and accelerations with different coefficients; the others leave aVelocity and
// bVelocity empty, which means "the same as a and b". Two properties follow from the numbers and
// save work in every engine:
//   - a stage whose acceleration no coefficient weighs needs no force evaluation (force-free);
//   - first same as last (FSAL): when the last stage's positions are the step's result, its force
//   is
//     the next step's first force, which need not be evaluated again.

#include <string>
#include <string_view>
#include <vector>

namespace nbody {

struct Method {
  std::string name;
  std::string description;
  int order = 1;                               // global order of accuracy
  std::vector<std::vector<double>> a;          // a[i][j], j < i: stage i combines earlier stages j
  std::vector<double> b;                       // weights of the stages in the step
  std::vector<std::vector<double>> aVelocity;  // partitioned methods: the weights of the
  std::vector<double> bVelocity;               // accelerations; empty: a and b

  int stageCount() const { return static_cast<int>(b.size()); }
  // The coefficients that build what pass `stage` writes: the state of stage + 1, or of the next
  // step for the last stage. Entry j weighs the velocity (position weights) or the acceleration
  // (velocity weights) of stage j, j <= stage.
  std::vector<double> positionWeights(int stage) const;
  std::vector<double> velocityWeights(int stage) const;
  // One entry of those: the weight pass `pass` gives stage `column`'s velocity or acceleration
  // (zero where the tableau has none).
  double positionWeight(int pass, int column) const;
  double velocityWeight(int pass, int column) const;

  // The fraction of the step at which `stage` evaluates its force: c_i = sum_j a[i][j] (the
  // positions' weights), 0 for the first stage.
  double stageFraction(int stage) const;
  // True when some coefficient weighs the acceleration of `stage`.
  bool needsForce(int stage) const;
  // True when a later stage reads the acceleration of `stage`, or the next step does (FSAL).
  bool storesForce(int stage) const;
  bool firstSameAsLast() const;
  // Force evaluations per step, once an FSAL method runs (its first step takes one more).
  int forceEvaluations() const;
};

const std::vector<Method>& allMethods();
const Method* findMethod(std::string_view name);
std::vector<std::string> methodNames();

}  // namespace nbody
