#pragma once
// Scripted clicks on the panel's own widgets, for tests of the window (NBODY_PANEL_CLICKS names the
// script). Each line is `FRAME WINDOW > LABEL > ... > LABEL`: at that frame the widget whose ID the
// path gives (each label as the panel's code names it: a PushID(int) as #N, a tree node or a
// combo's popup, "##Combo_00", as a level) is activated through Dear ImGui's navigation, as Enter
// on a focused widget would: a button is pressed, a checkbox or radio button flips, a tree node or
// combo opens, a selectable is chosen. A click that no widget takes (the path names nothing shown
// then) throws: a test then fails on the line, not on a picture. Dear ImGui 1.86's navigation
// presses a disabled widget too, so a script must not click one. A widget in a child window
// (BeginChild, a scrolling table) is named from that window; a label holding '>' cannot be named.
// The last click is checked at the frame after it: script it before the last frame. Lines starting
// with # and blank lines are skipped.

#include <cstdint>
#include <string>
#include <vector>

namespace nbody {

struct PanelClick {
  long long frame = 0;
  std::vector<std::string> path;  // window name first
  std::string text;               // as the script wrote it
};

// The script's clicks in order of frame; throws std::invalid_argument naming the line that is
// wrong.
std::vector<PanelClick> parsePanelClicks(const std::string& script);

class PanelClicks {
 public:
  // From the file NBODY_PANEL_CLICKS names; none where it is not set.
  static PanelClicks fromEnvironment();
  explicit PanelClicks(std::vector<PanelClick> clicks = {}) : clicks_(std::move(clicks)) {}

  // Before Dear ImGui's new frame `frame`: checks that the last click was taken and activates the
  // click due now, if any.
  void beforeFrame(long long frame);
  std::size_t taken() const { return taken_; }
  // Once the run is over after `frames` frames: throws where a click's frame never came (a script
  // asking for more than the run does).
  void afterLastFrame(long long frames) const;
  std::size_t size() const { return clicks_.size(); }

 private:
  std::vector<PanelClick> clicks_;
  std::size_t next_ = 0, taken_ = 0;
  const PanelClick* pending_ = nullptr;
  std::uint32_t pendingId_ = 0;
};

}  // namespace nbody
