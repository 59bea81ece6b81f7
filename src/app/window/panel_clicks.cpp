#include "app/window/panel_clicks.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <imgui.h>
#include <imgui_internal.h>

#include "io/input_file.h"
#include "util/comma_list.h"
#include "util/number_text.h"
#include "util/printable_text.h"

namespace nbody {
namespace {

std::vector<std::string> pathOf(const std::string& text) {
  std::vector<std::string> path;
  for (const std::string_view level : separatedBy(text, '>')) path.emplace_back(trimmed(level));
  return path;
}

bool isIntLevel(const std::string& level) {
  return level.size() > 1 && level[0] == '#' && level[1] != '#' &&
         std::all_of(level.begin() + 1, level.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The number of a level #N, where an int holds it.
std::optional<int> intLevel(const std::string& level) {
  int number = 0;
  if (!readInteger(level.substr(1), 0, INT_MAX, number).empty()) return std::nullopt;
  return number;
}

// The ID Dear ImGui gives the widget at `path` below `window`, as ImGuiWindow::GetID does with the
// window's ID stack: each level hashed into the one before.
ImGuiID widgetId(ImGuiWindow* window, const std::vector<std::string>& path) {
  ImGuiID id = window->ID;
  for (std::size_t k = 1; k < path.size(); ++k) {
    if (isIntLevel(path[k])) {
      const int number = intLevel(path[k]).value_or(0);  // parsePanelClicks refused any other
      id = ImHashData(&number, sizeof number, id);
    } else {
      id = ImHashStr(path[k].c_str(), 0, id);
    }
  }
  return id;
}

}  // namespace

std::vector<PanelClick> parsePanelClicks(const std::string& script) {
  std::vector<PanelClick> clicks;
  std::istringstream lines(script);
  int number = 0;
  const auto refuse = [&number](const std::string& what) {
    throw std::invalid_argument("panel clicks, line " + std::to_string(number) + ": " + what);
  };
  for (std::string line; std::getline(lines, line);) {
    ++number;
    line = std::string(trimmed(line));
    if (line.empty() || line[0] == '#') continue;
    PanelClick click;
    std::istringstream fields(line);
    std::string frame, rest;
    if (!(fields >> frame) || !std::getline(fields, rest)) refuse("expected FRAME WINDOW > LABEL");
    if (const std::string problem = readInteger(frame, 0LL, LLONG_MAX, click.frame);
        !problem.empty())
      refuse("its frame " + problem);
    click.text = std::string(trimmed(rest));
    click.path = pathOf(click.text);
    if (click.path.size() < 2 ||
        std::any_of(click.path.begin(), click.path.end(), [](const auto& s) { return s.empty(); }))
      refuse("expected FRAME WINDOW > LABEL");
    for (const std::string& level : click.path)
      if (isIntLevel(level) && !intLevel(level))
        refuse("the level " + printable(level, 40) +
               " is beyond the numbers Dear ImGui's IDs take (#0 to #2147483647)");
    if (!clicks.empty() && click.frame <= clicks.back().frame)
      refuse("one click a frame, frames rising");
    clicks.push_back(std::move(click));
  }
  return clicks;
}

PanelClicks PanelClicks::fromEnvironment() {
  const char* file = std::getenv("NBODY_PANEL_CLICKS");
  if (file == nullptr || *file == '\0') return PanelClicks();
  return PanelClicks(parsePanelClicks(readInputFileHere(file)));  // rank 0 alone runs the panel
}

void PanelClicks::beforeFrame(long long frame) {
  ImGuiContext& context = *ImGui::GetCurrentContext();
  if (pending_ != nullptr) {
    if (context.LastActiveId != pendingId_)
      throw std::runtime_error("panel click at frame " + std::to_string(pending_->frame) +
                               ": no widget took \"" + printable(pending_->text, 200) + "\"");
    ++taken_;
    pending_ = nullptr;
  }
  if (next_ >= clicks_.size() || clicks_[next_].frame > frame) return;
  const PanelClick& click = clicks_[next_++];
  ImGuiWindow* window = ImGui::FindWindowByName(click.path[0].c_str());
  if (window == nullptr)
    throw std::runtime_error("panel click at frame " + std::to_string(click.frame) +
                             ": no window \"" + printable(click.path[0], 200) + "\"");
  pending_ = &click;
  pendingId_ = widgetId(window, click.path);
  ImGui::ClearActiveID();  // the widget of the click before may still be active: taken anew, it
                           // counts
  context.LastActiveId = 0;
  // Focused as keyboard navigation focuses it, the widget is drawn and takes the activation even
  // where the panel's height clips it (the user would scroll to it).
  ImGui::FocusWindow(window);
  ImGui::SetFocusID(pendingId_, window);
  ImGui::ActivateItem(pendingId_);
}

void PanelClicks::afterLastFrame(long long frames) const {
  if (next_ < clicks_.size())
    throw std::runtime_error("panel click at frame " + std::to_string(clicks_[next_].frame) +
                             " never came: the run ended after frame " + std::to_string(frames));
}

}  // namespace nbody
