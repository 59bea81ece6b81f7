#include "physics/method.h"

#include "util/named_table.h"

#include <algorithm>

namespace nbody {

std::vector<double> Method::outputWeights(int stage) const {
  const bool lastStage = stage + 1 == stageCount();
  std::vector<double> weights = lastStage ? b : a[stage + 1];
  weights.resize(stage + 1, 0.0);  // rows of a are stored without their trailing zeros
  return weights;
}

const std::vector<Method>& allMethods() {
  static const std::vector<Method> methods{
      {"euler", "explicit Euler: x += h v, v += h a(x)", 1, {{}}, {1.0}},
      {"rk2", "second-order Runge-Kutta, midpoint rule", 2, {{}, {0.5}}, {0.0, 1.0}},
      {"rk4", "classic fourth-order Runge-Kutta", 4,
       {{}, {0.5}, {0.0, 0.5}, {0.0, 0.0, 1.0}},
       {1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0}},
  };
  return methods;
}

const Method* findMethod(std::string_view name) { return findByName(allMethods(), name); }

std::vector<std::string> methodNames() { return namesOf(allMethods()); }

}  // namespace nbody
