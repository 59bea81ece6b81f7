#include "app/live/window_options.h"

namespace nbody {

AppSettings initialAppSettings(const WindowOptions& options) {
  AppSettings settings;
  settings.run = options.run.choice;
  settings.stepsPerFrame = options.stepsPerFrame == "auto" ? 0 : std::stoi(options.stepsPerFrame);
  settings.render = options.render.settings;
  settings.vsync = !options.noVsync;
  settings.showPanel = !options.hidePanel;
  return settings;
}

}  // namespace nbody
