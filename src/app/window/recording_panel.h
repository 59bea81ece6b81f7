#pragma once
// The panel's trails and recording controls, and the badge that says the window is being filmed
// while the panel is hidden. ImGui calls only, like the rest of the panel.

#include "app/live/app_settings.h"
#include "app/live/panel_figures.h"

namespace nbody {

// The trails' half-life slider, the Record button (key M) and whether the panel is filmed.
void trailsAndRecordingSection(AppSettings& settings, const PanelFigures& figures);
// A small "REC m:ss" in the top right corner, for when the panel is hidden.
void recordingBadge(const PanelFigures& figures);

}  // namespace nbody
