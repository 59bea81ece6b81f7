#include "app/window/recording_panel.h"

#include <imgui.h>

namespace nbody {
namespace {

const ImVec4 kRecordingRed(1.0f, 0.3f, 0.25f, 1.0f);

void recordingTime(const PanelFigures& figures) {
  const int seconds = int(figures.recordingSeconds);
  ImGui::TextColored(kRecordingRed, "REC %d:%02d", seconds / 60, seconds % 60);
}

}  // namespace

void trailsAndRecordingSection(AppSettings& settings, const PanelFigures& figures) {
  float& halfLife = settings.render.trailHalfLife;
  ImGui::SliderFloat("trails", &halfLife, 0.0f, 10.0f, halfLife > 0.0f ? "%.3g" : "off",
                     ImGuiSliderFlags_Logarithmic);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "half-life of the trails' light in simulated time (0: off); "
        "a turning camera smears them");
  if (!figures.files) return;
  const bool recording = figures.recordingSeconds >= 0.0;
  if (ImGui::Button(recording ? "Stop recording (M)" : "Record (M)"))
    settings.requests.ask(Request::ToggleRecording);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("films the window into nbody-YYYYMMDD-HHMMSS.mp4 in the current folder");
  ImGui::SameLine();
  if (recording) {
    recordingTime(figures);
  } else {
    ImGui::Checkbox("with the panel", &settings.recordPanel);
  }
}

void recordingBadge(const PanelFigures& figures) {
  if (figures.recordingSeconds < 0.0) return;
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowPos(ImVec2(display.x - 10, 10), ImGuiCond_Always, ImVec2(1, 0));
  ImGui::SetNextWindowBgAlpha(0.5f);
  ImGui::Begin("recording", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                   ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoFocusOnAppearing |
                   ImGuiWindowFlags_NoInputs);
  recordingTime(figures);
  ImGui::End();
}

}  // namespace nbody
