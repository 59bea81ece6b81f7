#include "engines/registry.h"

#include <algorithm>

#include "engines/compute_engine.h"
#include "engines/cpu_engine.h"
#include "engines/fragment_engine.h"

namespace nbody {

const std::vector<EngineEntry>& engineRegistry() {
  static const std::vector<EngineEntry> entries{
      {"fragment", "fragment shaders, render-to-texture with multiple render targets (GPU)", true,
       [] { return std::make_unique<FragmentEngine>(); }, ""},
      {"compute", "compute shaders on every SM, shared-memory tiles, split j-loop (GPU)", true,
       [] { return std::make_unique<ComputeEngine>(); }, "fragment"},
      {"cpu", "double-precision reference on all CPU cores", false,
       [] { return std::make_unique<CpuEngine>(); }, ""},
  };
  return entries;
}

const EngineEntry* findEngine(std::string_view name) {
  const auto& entries = engineRegistry();
  auto found = std::find_if(entries.begin(), entries.end(),
                            [&](const EngineEntry& e) { return e.name == name; });
  return found == entries.end() ? nullptr : &*found;
}

std::vector<std::string> engineNames() {
  std::vector<std::string> names;
  for (const EngineEntry& e : engineRegistry()) names.push_back(e.name);
  return names;
}

}  // namespace nbody
