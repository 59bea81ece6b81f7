#pragma once
// The window of a distributed run whose ranks hold their bodies apart (the decomposed tree with
// gathering deferred: LiveSimulation::holdsPartsApart), at any N: what rank 0's session measures
// from every rank's bodies, and its picture, each rank drawing its own bodies and the light added
// up across the ranks (sort-last compositing, as shot and record draw: SpriteSplat's exact sums,
// so the picture is one process's, bit for bit).
//
// Each function is a collective. On rank 0 it first announces itself, with its arguments, to the
// other ranks; they wait in PartsFollower::carryOut, which calls the same function with them. So
// rank 0 alone decides when each happens, and every rank takes part in the same order. In one
// process each is the process's own work.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include <glm/vec2.hpp>

#include "app/live/app_settings.h"
#include "app/live/histogram.h"
#include "app/live/window_options.h"
#include "render/camera.h"
#include "render/offscreen.h"
#include "render/point_sprite_renderer.h"
#include "render/render_settings.h"

namespace nbody {

class Engine;
class LiveSimulation;

// What rank 0 broadcasts to the other ranks of a window: a frame's order (frame_orders.h), the
// word that its frame's steps may begin, or one of the collectives below.
enum class WindowCall : std::uint8_t {
  order,
  proceed,
  sphere,
  colours,
  nonFinite,
  histogram,
  draw
};
struct Announced {
  WindowCall call;
  std::vector<std::byte> payload;
};
// Rank 0: sends `call` and its payload to every other rank (nothing in one process).
void announce(WindowCall call, std::vector<std::byte> payload = {});
// A rank other than 0: what rank 0 announced next.
Announced receiveAnnounced();

// The look a window whose ranks hold the bodies apart starts with: the sphere around every rank's
// bodies and the render options resolved from them (resolveRenderSettings over the parts); nothing
// where the bodies are not apart or a series plays (its snapshots are read whole). Not announced:
// every rank calls it alike as it makes its simulation (LiveSession, followWindow).
struct StartOfParts {
  BoundingSphere sphere;
  RenderSettings settings;
};
std::optional<StartOfParts> startOfParts(LiveSimulation& simulation, const WindowOptions& options);
// The sphere around every rank's bodies (the camera's fit).
BoundingSphere sphereOfParts(Engine& engine);
// `settings`' colour range fitted to every rank's bodies (where `automatic`), and what is measured
// of them (the centre, the components present): resolveRenderSettings's measures.
void measureParts(RenderSettings& settings, bool automatic, double time, Engine& engine);
// The first body whose state is not finite, of every rank's.
std::optional<std::size_t> firstNonFiniteOfParts(LiveSimulation& simulation);
// The histogram of every rank's bodies (a quantity that needs no field).
Histogram histogramOfParts(Engine& engine, const AppSettings::HistogramChoice& choice, int bins,
                           long long step);

struct PartsPicture {
  Camera camera;
  RenderSettings settings;
  double time = 0.0;
  glm::ivec2 size{0};
};
// Every rank's bodies as one picture, into the bound framebuffer's viewport of `picture.size`
// (sprites by compute shaders only: not the density, nor a colour that needs a field).
void drawParts(PointSpriteRenderer& renderer, Engine& engine, const PartsPicture& picture);

// A rank other than 0: takes part in what rank 0 announces, drawing into a picture of its own.
class PartsFollower {
 public:
  explicit PartsFollower(LiveSimulation& simulation) : simulation_(simulation) {}
  // One announced collective (not an order). What rank 0's session catches (a bad colour range:
  // std::invalid_argument) is caught alike; anything else ends this rank, and so every rank.
  void carryOut(const Announced& announced);
  // Those announced until rank 0 says its frame's steps begin.
  void carryOutUntilSteps();

 private:
  void draw(const PartsPicture& picture);

  LiveSimulation& simulation_;
  std::optional<PointSpriteRenderer> renderer_;  // made at the first picture
  std::optional<OffscreenTarget> target_;
};

}  // namespace nbody
