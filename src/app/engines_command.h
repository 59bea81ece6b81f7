#pragma once
// `nbody engines`: the engines, their options and the choices each offers.

#include <CLI/CLI.hpp>

namespace nbody {

CLI::App* addEnginesCommand(CLI::App& app);
int runEngines();

}  // namespace nbody
