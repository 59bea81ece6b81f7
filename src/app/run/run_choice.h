#pragma once
// What one run is: everything that decides what is computed, and how fast. The command line fills
// it (run_options.h) and the window edits it (app_settings.h), so a new scene parameter or engine
// setting reaches both by construction.

#include <string>

#include "engines/engine.h"
#include "engines/registry.h"
#include "physics/scenes.h"
#include "physics/state.h"

namespace nbody {

struct RunChoice {
  std::string engine = defaultEngineName();  // the paper's method
  EngineSettings engineSettings;             // --set NAME=VALUE, the panel's option choices
  std::string method = "euler";
  SceneChoice scene;  // the scene, N, seed and scene parameters
  StepParams step;
};

}  // namespace nbody
