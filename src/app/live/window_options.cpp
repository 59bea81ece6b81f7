#include "app/live/window_options.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "util/number_text.h"

namespace nbody {

AppSettings initialAppSettings(const WindowOptions& options) {
  AppSettings settings;
  settings.run = options.run.choice;
  settings.stepsPerFrame = options.stepsPerFrame == "auto" ? 0 : std::stoi(options.stepsPerFrame);
  settings.render = options.render.settings;
  settings.vsync = !options.noVsync;
  settings.showPanel = !options.hidePanel;
  settings.paused = options.paused;
  settings.followSelection = options.follow;
  if (const auto quantity = findColorBy(options.histogram)) settings.histogram = {true, *quantity, false};
  return settings;
}


std::vector<std::uint64_t> parseIdList(const std::string& text) {
  std::vector<std::uint64_t> ids;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    std::uint64_t id = 0;
    const std::string complaint = readInteger(text.substr(at, comma - at), std::uint64_t(0), UINT64_MAX, id);
    if (!complaint.empty()) throw std::invalid_argument(complaint);
    ids.push_back(id);
    at = comma + 1;
  }
  return ids;
}

std::optional<Snapshot> startingSnapshot(const WindowOptions& options) {
  if (options.run.input.empty()) return std::nullopt;
  Snapshot start = readSnapshotFile(options.run.input);
  if (start.settings) start.settings = withGivenSettings(*start.settings, options.run.given, options.run.choice);
  if (options.run.given.gravity) start.units.reset();  // --gravity wins over the file's units
  return start;
}

}  // namespace nbody
