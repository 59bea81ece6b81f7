#pragma once
// The engines the program offers. The app, the benchmark and the tests loop over this table.

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engines/engine.h"

namespace nbody {

struct EngineEntry {
  std::string name;
  std::string description;
  bool needsGl;  // create() then needs a current OpenGL 4.5 context
  std::function<std::unique_ptr<Engine>()> create;
  std::string fallback;  // the engine to use when create() fails for want of a GPU feature
};

const std::vector<EngineEntry>& engineRegistry();
const EngineEntry* findEngine(std::string_view name);
std::vector<std::string> engineNames();

}  // namespace nbody
