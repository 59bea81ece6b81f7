#pragma once
// An integration method is data: the Butcher tableau of an explicit Runge-Kutta scheme applied to
// dY/dt = f(Y) with Y = (positions, velocities) and f(Y) = (velocities, accelerations(positions)).
// Every engine drives its one force evaluation from these coefficients; no engine knows a method
// by name.

#include <string>
#include <string_view>
#include <vector>

namespace nbody {

struct Method {
  std::string name;
  std::string description;
  int order = 1;                            // global order of accuracy
  std::vector<std::vector<double>> a;       // a[i][j], j < i: stage i combines earlier stages j
  std::vector<double> b;                    // weights of the stages in the step

  int stageCount() const { return static_cast<int>(b.size()); }
  // The coefficients that build what pass `stage` writes: the state of stage + 1, or of the next
  // step for the last stage. Entry j weighs the derivative of stage j (j <= stage).
  std::vector<double> outputWeights(int stage) const;
};

const std::vector<Method>& allMethods();
const Method* findMethod(std::string_view name);
std::vector<std::string> methodNames();

}  // namespace nbody
