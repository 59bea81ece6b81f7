#pragma once
// The Dear ImGui panel: shows the live figures and edits AppSettings. It makes ImGui calls only (no
// GL, no engine): the window app applies what changed.

#include "app/live/app_settings.h"
#include "app/live/panel_figures.h"

namespace nbody {

void drawControlPanel(AppSettings& settings, const PanelFigures& figures);

}  // namespace nbody
