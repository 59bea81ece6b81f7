#include "app/window/imgui_layer.h"

#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <string>

#include "gl/level.h"

namespace nbody {

ImGuiLayer::ImGuiLayer() {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini left in the user's folder
  ImGui::StyleColorsDark();
  ImGui_ImplOpenGL3_Init(std::string(gl::glTarget().version).c_str());
}

ImGuiLayer::~ImGuiLayer() {
  ImGui_ImplOpenGL3_Shutdown();
  ImGui::DestroyContext();
}

void ImGuiLayer::beginRendererFrame() { ImGui_ImplOpenGL3_NewFrame(); }

void ImGuiLayer::draw() {
  ImGui::Render();
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

}  // namespace nbody
