#include "engines/registry.h"

#include <cstdio>

#include "engines/compute_engine.h"
#include "engines/cpu_engine.h"
#include "engines/fragment_engine.h"
#include "engines/tree_engine.h"
#include "util/named_table.h"

namespace nbody {

const std::vector<EngineEntry>& engineRegistry() {
  static const std::vector<EngineEntry> entries {
    {.name = "fragment",
     .description = "fragment shaders, render-to-texture with multiple render targets (GPU)",
     .needsGl = true,
     .create = [] { return std::make_unique<FragmentEngine>(); },
     .papersMethod = true,
     .largestInteractiveBodies = 131072,
     .largestBenchedBodies = 262144,
     .screenedSettings = {{"bodies-per-fragment", "8"}, {"slices", "8"}}},
// The web page (tools/web.cmake) has no compute shaders and no threads: the fragment engine alone.
#if !defined(__EMSCRIPTEN__)
        {.name = "compute",
         .description = "compute shaders on every SM, shared-memory tiles, split j-loop (GPU)",
         .needsGl = true,
         .create = [] { return std::make_unique<ComputeEngine>(); },
         .fallback = "fragment",
         .largestInteractiveBodies = 262144,
         .largestBenchedBodies = 1048576},
        {.name = "tree",
         .description =
             "Barnes-Hut tree on the GPU, rebuilt at every force evaluation (compute "
             "shaders; approximate)",
         .needsGl = true,
         .create = [] { return std::make_unique<TreeEngine>(); },
         .approximate = true,
         .exactSettings = {{"theta", "0"}}},
        {.name = "cpu",
         .description = "double-precision reference on all CPU cores",
         .needsGl = false,
         .create = [] { return std::make_unique<CpuEngine>(); },
         .largestInteractiveBodies = 4096,
         .largestBenchedBodies = 8192},
#endif
  };
  return entries;
}

const EngineEntry* findEngine(std::string_view name) { return findByName(engineRegistry(), name); }

std::vector<std::string> engineNames() { return namesOf(engineRegistry()); }

const std::string& defaultEngineName() {
  static const std::string name = [] {
    for (const EngineEntry& entry : engineRegistry())
      if (entry.papersMethod) return entry.name;
    return engineRegistry().front().name;
  }();
  return name;
}

std::unique_ptr<Engine> createEngine(const std::string& name, const EngineSettings& settings) {
  const EngineEntry* entry = findEngine(name);
  if (!entry) throw UsageError("unknown engine " + name);
  std::unique_ptr<Engine> engine;
  try {
    engine = entry->create();
  } catch (const std::runtime_error& e) {
    if (entry->fallback.empty()) throw;
    std::fprintf(stderr, "nbody: the %s engine is not available (%s); using the %s engine\n",
                 entry->name.c_str(), e.what(), entry->fallback.c_str());
    engine = findEngine(entry->fallback)->create();
  }
  applySettings(*engine, settings);
  return engine;
}

void applyScreenedSettings(Engine& engine, const EngineSettings& given) {
  const EngineEntry* entry = findEngine(engine.name());
  if (!entry) return;
  for (const auto& [name, value] : entry->screenedSettings)
    if (!given.count(name)) engine.setOption(name, value);
}

}  // namespace nbody
