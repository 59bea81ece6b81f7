#include "engines/registry.h"

#include "util/named_table.h"

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

const EngineEntry* findEngine(std::string_view name) { return findByName(engineRegistry(), name); }

std::vector<std::string> engineNames() { return namesOf(engineRegistry()); }

}  // namespace nbody
