#pragma once
// Paints the overlays RenderSettings::overlays switches on (overlay_layout.h lists them) over a
// picture the point-sprite renderer drew: the window, `shot` and `record` alike. The shapes and
// text are Dear ImGui draw lists of a context of the painter's own (so the window's panel keeps
// its own), drawn by the painter's program, so that a picture made without a window draws them
// the same way.

#include <vector>

#include <glm/vec3.hpp>

#include "gl/objects.h"
#include "gl/shader_program.h"
#include "render/camera.h"
#include "render/render_settings.h"
#include "render/tree_cells.h"

struct ImGuiContext;
struct ImDrawData;

namespace nbody {

// A body the user follows: a ring where it is, and the line of the orbit it drew (oldest first).
struct MarkedBody {
  glm::vec3 position{0.0f};
  const std::vector<glm::vec3>* orbit = nullptr;  // none: no line
};

// What the clock shows, the bodies marked (whatever the overlay switches say), and the tree's cells
// for the cells overlay (treeCellsOf; none: no boxes).
struct OverlayFacts {
  double time = 0.0;
  long long step = 0;
  std::vector<MarkedBody> marked;
  const std::vector<TreeCell>* cells = nullptr;
};

class OverlayPainter {
 public:
  OverlayPainter();  // needs a current OpenGL 4.5 context
  ~OverlayPainter();
  OverlayPainter(const OverlayPainter&) = delete;
  OverlayPainter& operator=(const OverlayPainter&) = delete;

  // Paints the switched-on overlays and the marked bodies over the current viewport of the bound
  // draw framebuffer (neither: nothing is touched). Every piece of GL state it changes is put back,
  // and the ImGui context current before is current again. Throws std::invalid_argument as the
  // renderer does for an unknown colormap or a colour range a colour bar cannot show.
  void paint(const Camera& camera, const RenderSettings& settings, const OverlayFacts& facts);

 private:
  void submit(const ImDrawData& drawData, int width, int height);

  ImGuiContext* context_ = nullptr;
  gl::UniformProgram program_;
  gl::Texture atlas_;
  gl::VertexArray vertexArray_;
  gl::Buffer vertices_, indices_;
};

}  // namespace nbody
