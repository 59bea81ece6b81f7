#include "render/overlay_painter.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include <imgui.h>

#include "gl/shader_program.h"
#include "gl/state_guard.h"
#include "render/colormap.h"
#include "render/overlay_layout.h"
#include "render/picking.h"

namespace nbody {
namespace {

constexpr GLuint kAtlasUnit = 0;
constexpr float kFontPixels = 13.0f;  // Dear ImGui's own font, drawn at whole multiples of its size
constexpr int kBarSegments = 64;      // the colour bar's gradient: straight pieces between samples

// Makes `context` current for its lifetime, then the one current before.
class ContextScope {
 public:
  explicit ContextScope(ImGuiContext* context) : previous_(ImGui::GetCurrentContext()) {
    ImGui::SetCurrentContext(context);
  }
  ~ContextScope() { ImGui::SetCurrentContext(previous_); }
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;

 private:
  ImGuiContext* previous_;
};

ImU32 colourOf(glm::vec3 rgb, float alpha = 1.0f) {
  return ImGui::ColorConvertFloat4ToU32(ImVec4(rgb.x, rgb.y, rgb.z, alpha));
}

const ImU32 kInk = IM_COL32(235, 235, 235, 255);
const ImU32 kShadow = IM_COL32(0, 0, 0, 200);

// What every overlay draws with: the list, the font at the picture's scale, and the picture's size.
struct Pen {
  ImDrawList& list;
  ImFont& font;
  float scale;  // overlayScale: pixels of the 13-pixel font's pixel
  ImVec2 picture;

  float fontSize() const { return kFontPixels * scale; }
  ImVec2 textSize(const std::string& text) const {
    return font.CalcTextSizeA(fontSize(), FLT_MAX, 0.0f, text.c_str());
  }
  // Text with a dark shadow one font pixel down and right, readable over bright bodies.
  void text(ImVec2 at, const std::string& text, ImU32 colour = kInk) const {
    const ImVec2 whole(std::round(at.x), std::round(at.y));
    list.AddText(&font, fontSize(), ImVec2(whole.x + scale, whole.y + scale), kShadow,
                 text.c_str());
    list.AddText(&font, fontSize(), whole, colour, text.c_str());
  }
  void line(ImVec2 from, ImVec2 to, ImU32 colour, float thickness = 1.0f) const {
    list.AddLine(ImVec2(from.x + scale, from.y + scale), ImVec2(to.x + scale, to.y + scale),
                 kShadow, thickness * scale);
    list.AddLine(from, to, colour, thickness * scale);
  }
};

void paintClock(const Pen& pen, const OverlayFacts& facts) {
  const std::string text = clockText(facts.time, facts.step);
  pen.text(ImVec2((pen.picture.x - pen.textSize(text).x) / 2.0f, 6.0f * pen.scale), text);
}

// The colormap as a vertical bar at the right edge, low end at the bottom, its round values to its
// left; on a log scale the title says so (the density's always is).
void paintColourScale(const Pen& pen, const RenderSettings& settings) {
  const Colormap* colormap = findColormap(settings.colormap);
  if (!colormap) throw std::invalid_argument("unknown colormap " + settings.colormap);
  const float s = pen.scale, right = pen.picture.x - 10.0f * s, left = right - 12.0f * s;
  const float top = std::round(0.3f * pen.picture.y), bottom = std::round(0.7f * pen.picture.y);
  // Labels at least half a line apart.
  const std::vector<Tick> ticks = colourBarTicks(settings.colorRange, settings.logColours(),
                                                 1 + int((bottom - top) / (1.5f * pen.fontSize())));
  for (int k = 0; k < kBarSegments; ++k) {
    const float low = float(k) / kBarSegments, high = float(k + 1) / kBarSegments;
    const ImU32 lowColour = colourOf(sampleColormap(*colormap, low));
    const ImU32 highColour = colourOf(sampleColormap(*colormap, high));
    pen.list.AddRectFilledMultiColor(ImVec2(left, bottom - high * (bottom - top)),
                                     ImVec2(right, bottom - low * (bottom - top)), highColour,
                                     highColour, lowColour, lowColour);
  }
  pen.list.AddRect(ImVec2(left - 1.0f, top - 1.0f), ImVec2(right + 1.0f, bottom + 1.0f), kInk);
  for (const Tick& tick : ticks) {
    const float y = std::round(bottom - tick.fraction * (bottom - top));
    pen.line(ImVec2(left - 4.0f * s, y), ImVec2(left, y), kInk);
    const ImVec2 size = pen.textSize(tick.label);
    pen.text(ImVec2(left - 6.0f * s - size.x, y - size.y / 2.0f), tick.label);
  }
  const std::string title = settings.density ? std::string("surface density")
                                             : std::string(colorByName(settings.colorBy)) +
                                                   (settings.logScale ? " (log)" : "");
  pen.text(ImVec2(right - pen.textSize(title).x, top - pen.fontSize() - 6.0f * s), title);
}

// Colouring by component: the colour and name of each component shown and present, down the right
// edge.
void paintComponentLegend(const Pen& pen, const RenderSettings& settings) {
  const float s = pen.scale, right = pen.picture.x - 10.0f * s;
  float y = std::round(0.3f * pen.picture.y);
  for (int k = 0; k < kComponentCount; ++k) {
    if ((settings.hiddenComponents & (1u << k)) || !(settings.presentComponents & (1u << k)))
      continue;
    const float box = pen.fontSize() - 3.0f * s;
    pen.list.AddRectFilled(ImVec2(right - box, y + 1.5f * s), ImVec2(right, y + 1.5f * s + box),
                           colourOf(settings.componentColors[std::size_t(k)]));
    const std::string name = std::to_string(k) + " " + std::string(componentName(k));
    pen.text(ImVec2(right - box - 5.0f * s - pen.textSize(name).x, y), name);
    y += pen.fontSize() + 4.0f * s;
  }
}

// A bar of a round length at the bottom left, with end marks and its length above it.
void paintScaleBar(const Pen& pen, const Camera& camera) {
  const float s = pen.scale;
  const ScaleBar bar = scaleBarFor(camera, int(pen.picture.y), 0.25f * pen.picture.x);
  const float left = 12.0f * s, right = left + std::round(bar.pixels),
              y = pen.picture.y - 12.0f * s;
  pen.line(ImVec2(left, y), ImVec2(right, y), kInk, 2.0f);
  for (float x : {left, right})
    pen.line(ImVec2(x, y - 4.0f * s), ImVec2(x, y + 3.0f * s), kInk, 2.0f);
  pen.text(ImVec2((left + right - pen.textSize(bar.label).x) / 2.0f, y - pen.fontSize() - 5.0f * s),
           bar.label);
}

// The scene's axes as arrows from one point at the bottom right, the farthest drawn first.
void paintAxes(const Pen& pen, const Camera& camera) {
  const float s = pen.scale, length = 24.0f * s;
  const ImVec2 origin(pen.picture.x - 40.0f * s, pen.picture.y - 40.0f * s);
  const ImU32 colours[3] = {IM_COL32(255, 95, 95, 255), IM_COL32(110, 230, 110, 255),
                            IM_COL32(120, 160, 255, 255)};
  for (const AxisArrow& arrow : axisArrows(camera)) {
    const ImVec2 tip(origin.x + arrow.direction.x * length, origin.y + arrow.direction.y * length);
    const ImU32 colour = colours[arrow.name - 'x'];
    pen.line(origin, tip, colour, 2.0f);
    const std::string name(1, arrow.name);
    const ImVec2 size = pen.textSize(name);
    const float beyond = 8.0f * s;  // the label just past the tip, centred on its line
    pen.text(ImVec2(tip.x + arrow.direction.x * beyond - size.x / 2.0f,
                    tip.y + arrow.direction.y * beyond - size.y / 2.0f),
             name, colour);
  }
}

// Each marked body's orbit as a line (broken where it passes behind the camera), then a ring
// where it is now.
void paintMarked(const Pen& pen, const Camera& camera, const std::vector<MarkedBody>& marked) {
  const ImU32 orbitColour = IM_COL32(90, 220, 255, 170), ringColour = IM_COL32(90, 220, 255, 255);
  const glm::vec2 size(pen.picture.x, pen.picture.y);
  for (const MarkedBody& body : marked) {
    if (!body.orbit) continue;
    std::vector<ImVec2> line;
    const auto flush = [&] {
      if (line.size() >= 2)
        pen.list.AddPolyline(line.data(), int(line.size()), orbitColour, ImDrawFlags_None,
                             1.5f * pen.scale);
      line.clear();
    };
    for (const glm::vec3& point : *body.orbit) {
      if (const auto placed = pictureOf(camera, size, point))
        line.emplace_back(placed->x, placed->y);
      else
        flush();
    }
    flush();
  }
  for (const MarkedBody& body : marked)
    if (const auto placed = pictureOf(camera, size, body.position)) {
      pen.list.AddCircle(ImVec2(placed->x + pen.scale, placed->y + pen.scale), 7.0f * pen.scale,
                         kShadow, 0, 1.5f * pen.scale);
      pen.list.AddCircle(ImVec2(placed->x, placed->y), 7.0f * pen.scale, ringColour, 0,
                         1.5f * pen.scale);
    }
}

// Each cell's box as its twelve edges, the deeper levels fainter; a box reaching behind the
// camera is left out.
void paintCells(const Pen& pen, const Camera& camera, const std::vector<TreeCell>& cells) {
  const glm::vec2 size(pen.picture.x, pen.picture.y);
  for (const TreeCell& cell : cells) {
    ImVec2 corners[8];
    bool inFront = true;
    for (int k = 0; k < 8 && inFront; ++k) {
      const glm::vec3 corner((k & 4) ? cell.high.x : cell.low.x, (k & 2) ? cell.high.y : cell.low.y,
                             (k & 1) ? cell.high.z : cell.low.z);
      const auto placed = pictureOf(camera, size, corner);
      inFront = placed.has_value();
      if (placed) corners[k] = ImVec2(placed->x, placed->y);
    }
    if (!inFront) continue;
    const ImU32 colour = IM_COL32(120, 255, 170, std::max(50, 230 - 60 * (cell.level - 1)));
    for (int k = 0; k < 8; ++k)
      for (int axis : {1, 2, 4})  // each edge once, from its corner with the bit clear
        if (!(k & axis)) pen.list.AddLine(corners[k], corners[k | axis], colour, pen.scale);
  }
}

void paintOverlays(const Pen& pen, const Camera& camera, const RenderSettings& settings,
                   const OverlayFacts& facts) {
  if (settings.shows(Overlay::Cells) && facts.cells) paintCells(pen, camera, *facts.cells);
  paintMarked(pen, camera, facts.marked);
  if (settings.shows(Overlay::ColourBar)) {
    if (settings.colorBy == ColorBy::Component && !settings.density)
      paintComponentLegend(pen, settings);
    else
      paintColourScale(pen, settings);
  }
  if (settings.shows(Overlay::ScaleBar)) paintScaleBar(pen, camera);
  if (settings.shows(Overlay::Axes)) paintAxes(pen, camera);
  if (settings.shows(Overlay::Clock)) paintClock(pen, facts);
}

}  // namespace

OverlayPainter::OverlayPainter()
    : program_(gl::buildProgram(
          {{GL_VERTEX_SHADER, {"overlay.vert"}}, {GL_FRAGMENT_SHADER, {"overlay.frag"}}})),
      atlas_(gl::Texture::create()),
      vertexArray_(gl::VertexArray::create()),
      vertices_(gl::Buffer::create()),
      indices_(gl::Buffer::create()) {
  ContextScope scope(nullptr);  // CreateContext makes the new context current only where none is
  context_ = ImGui::CreateContext();
  ImGui::SetCurrentContext(context_);
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.LogFilename = nullptr;
  if (gl::hasBaseVertex()) io.BackendFlags |= ImGuiBackendFlags_RendererHasVtxOffset;
  io.Fonts->Flags |=
      ImFontAtlasFlags_NoBakedLines;  // lines as triangles: the atlas is sampled nearest
  io.Fonts->AddFontDefault();
  unsigned char* pixels = nullptr;
  int width = 0, height = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &width, &height);
  gl::allocateTexture(atlas_.id(), GL_TEXTURE_2D, GL_RGBA8, {width, height, 1});
  gl::writeTexture2D(atlas_.id(), {0, 0}, {width, height}, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
  // Nearest: the font is drawn at whole multiples of its size, so each of its pixels stays sharp.
  gl::setTextureParameter(atlas_.id(), GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  gl::setTextureParameter(atlas_.id(), GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  io.Fonts->SetTexID(ImTextureID(std::intptr_t(atlas_.id())));

  gl::describeVertices(vertexArray_.id(), vertices_.id(), sizeof(ImDrawVert),
                       {{0, 2, GL_FLOAT, false, GLuint(offsetof(ImDrawVert, pos))},
                        {1, 2, GL_FLOAT, false, GLuint(offsetof(ImDrawVert, uv))},
                        {2, 4, GL_UNSIGNED_BYTE, true, GLuint(offsetof(ImDrawVert, col))}},
                       indices_.id());
  program_.setUnit("uAtlas", kAtlasUnit);
}

OverlayPainter::~OverlayPainter() {
  ImGuiContext* previous = ImGui::GetCurrentContext();
  ImGui::DestroyContext(context_);
  ImGui::SetCurrentContext(previous == context_ ? nullptr : previous);
}

void OverlayPainter::paint(const Camera& camera, const RenderSettings& settings,
                           const OverlayFacts& facts) {
  if (settings.overlays == 0 && facts.marked.empty()) return;
  GLint viewport[4] = {0, 0, 0, 0};
  glGetIntegerv(GL_VIEWPORT, viewport);
  if (viewport[2] <= 0 || viewport[3] <= 0) return;
  ContextScope scope(context_);
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(float(viewport[2]), float(viewport[3]));
  io.DeltaTime = 1.0f / 60.0f;
  ImGui::NewFrame();
  const Pen pen{*ImGui::GetBackgroundDrawList(), *io.Fonts->Fonts[0],
                float(overlayScale(viewport[3])), io.DisplaySize};
  try {
    paintOverlays(pen, camera, settings, facts);
  } catch (...) {
    ImGui::EndFrame();
    throw;
  }
  ImGui::Render();
  submit(*ImGui::GetDrawData(), viewport[2], viewport[3]);
}

// Draws the lists as Dear ImGui's OpenGL backend would, over the whole viewport (the overlays never
// clip, so no scissor), with the painter's own program and buffers.
void OverlayPainter::submit(const ImDrawData& drawData, int width, int height) {
  gl::StateGuard guard({kAtlasUnit});
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_SCISSOR_TEST);
  glDisable(GL_CULL_FACE);
  gl::writeLinearColour();
  glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
  glEnable(GL_BLEND);
  glBlendEquation(GL_FUNC_ADD);
  glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  glUseProgram(program_.id());
  program_.setVec2("uPictureSize", {float(width), float(height)});
  glBindVertexArray(vertexArray_.id());
  glBindSampler(kAtlasUnit, 0);
  gl::bindTextureToUnit(kAtlasUnit, GL_TEXTURE_2D, atlas_.id());
  const GLenum indexType = sizeof(ImDrawIdx) == 2 ? GL_UNSIGNED_SHORT : GL_UNSIGNED_INT;
  for (int n = 0; n < drawData.CmdListsCount; ++n) {
    const ImDrawList& list = *drawData.CmdLists[n];
    gl::fillBuffer(vertices_.id(), std::size_t(list.VtxBuffer.Size) * sizeof(ImDrawVert),
                   list.VtxBuffer.Data, GL_STREAM_DRAW);
    gl::fillBuffer(indices_.id(), std::size_t(list.IdxBuffer.Size) * sizeof(ImDrawIdx),
                   list.IdxBuffer.Data, GL_STREAM_DRAW);
    for (const ImDrawCmd& command : list.CmdBuffer) {
      if (command.UserCallback != nullptr || command.ElemCount == 0) continue;
      gl::drawElementsFrom(GL_TRIANGLES, GLsizei(command.ElemCount), indexType,
                           std::size_t(command.IdxOffset) * sizeof(ImDrawIdx),
                           GLint(command.VtxOffset));
    }
  }
}

}  // namespace nbody
