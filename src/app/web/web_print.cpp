#include "app/web/web_print.h"

#include <chrono>
#include <sstream>

#include "app/live/live_simulation.h"
#include "io/csv.h"

namespace nbody {
namespace {

// The panel's way of switching an engine option: into the settings, applied at the next frame.
void switchOption(AppSettings& settings, LiveSimulation& simulation, const std::string& setting) {
  const auto [name, value] = parseEngineSetting(setting);
  settings.run.engineSettings[name] = value;
  simulation.apply(settings);
}

std::string stateText(const char* title, const LiveSimulation& simulation, const State& state) {
  std::ostringstream text;
  text << "# " << title << " state, step " << simulation.stepCount() << ", "
       << simulation.engine().name() << " (" << simulation.engine().variant() << ")\n";
  writeStateCsv(state, text);
  return text.str();
}

}  // namespace

std::string printRun(const WebOptions& options, const gl::ContextInfo& context) {
  AppSettings settings = initialAppSettings(options.window);
  LiveSimulation simulation(settings);
  if (const auto start = startingRun(options.window, false))
    simulation.continueFrom(settings, *start);
  std::string text = "# renderer: " + context.renderer + " (" + context.version +
                     ")\n# engine: " + simulation.engine().name() + ", " + settings.run.method +
                     "\n";
  text += stateText("initial", simulation, simulation.engine().download());
  const long long firstHalf = options.switchSetting.empty() ? options.steps : options.steps / 2;
  const auto start = std::chrono::steady_clock::now();
  simulation.advance(settings, int(firstHalf));
  if (!options.switchSetting.empty()) {
    switchOption(settings, simulation, options.switchSetting);
    simulation.advance(settings, int(options.steps - firstHalf));
  }
  const State final = simulation.engine().download();  // a browser's glFinish need not wait
  const std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;
  text += stateText("final", simulation, final);
  text += "# stepping: " + std::to_string(options.steps) + " steps in " +
          std::to_string(seconds.count()) + " s\n";
  return text;
}

}  // namespace nbody
