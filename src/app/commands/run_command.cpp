#include "app/commands/run_command.h"

#include <cstdlib>

#include "app/live/series_player.h"

namespace nbody {
CommandFiles windowFiles(const WindowOptions& options) {
  CommandFiles files{{{"--screenshot", options.screenshot}, {"--record", options.record}},
                     {{"--load", options.run.input}, {"--camera-path", options.cameraPath}}};
  if (const char* clicks = std::getenv("NBODY_PANEL_CLICKS"))
    files.inputs.push_back({"NBODY_PANEL_CLICKS", clicks});
  addSeriesInputs(files, "--play", options.play);
  return files;
}

}  // namespace nbody
