#pragma once
// Dear ImGui's context and its OpenGL 3 renderer backend, in the current OpenGL context: made after
// the context, gone before it. A front-end adds its platform's input (GLFW's backend, or the
// viewers' messages of `nbody serve`).

namespace nbody {

class ImGuiLayer {
 public:
  ImGuiLayer();
  ~ImGuiLayer();
  ImGuiLayer(const ImGuiLayer&) = delete;
  ImGuiLayer& operator=(const ImGuiLayer&) = delete;

  // The renderer backend's NewFrame; the platform's and ImGui::NewFrame follow.
  void beginRendererFrame();
  // Renders the frame's panel into the bound framebuffer.
  void draw();
};

}  // namespace nbody
