#pragma once
// The engines the program offers, and what the app needs to know about each: the app, the
// benchmark and the tests loop over this table and ask it, instead of naming engines.

#include <cstddef>
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
  std::string fallback{};  // the engine to use when create() fails for want of a GPU feature
  // The paper's own method (render-to-texture fragment shaders): the default engine, and the one
  // bench sets beside the paper's figures by variant (its table 3).
  bool papersMethod = false;
  // The largest N at which the engine keeps an interactive pace on a large GPU (the window offers
  // it up to here) and the largest `bench --engine all` times it at (about a second a step on a
  // large GPU); 0: any N.
  std::size_t largestInteractiveBodies = 0;
  std::size_t largestBenchedBodies = 0;
  // An engine whose forces approximate direct summation (a tree): bench and the accuracy report
  // judge its force error, and these settings make it sum directly (for tests that compare it
  // with the exact engines at their tolerance).
  bool approximate = false;
  EngineSettings exactSettings{};
  // What a run that screens for contacts (--collisions) sets where --set leaves it: the layout
  // whose force pass screens fastest, where that is not the default (docs/collisions.md).
  EngineSettings screenedSettings{};

  bool interactiveAt(std::size_t bodies) const {
    return !largestInteractiveBodies || bodies <= largestInteractiveBodies;
  }
  bool benchedAt(std::size_t bodies) const {
    return !largestBenchedBodies || bodies <= largestBenchedBodies;
  }
};

const std::vector<EngineEntry>& engineRegistry();
const EngineEntry* findEngine(std::string_view name);
std::vector<std::string> engineNames();
// The engine commands use when none is named: the paper's method.
const std::string& defaultEngineName();

// Makes engine `name` (in the current OpenGL context where it needs one), falling back to the
// registry's fallback engine, with a message on stderr, where the GPU lacks a feature; then sets
// `settings`. Throws UsageError for an unknown engine or a bad setting.
std::unique_ptr<Engine> createEngine(const std::string& name, const EngineSettings& settings = {});
// Sets `engine`'s screenedSettings, each where `given` (the --set settings) leaves it unset.
void applyScreenedSettings(Engine& engine, const EngineSettings& given);

}  // namespace nbody
