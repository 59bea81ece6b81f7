#include "app/live/parts_calls.h"

#include <stdexcept>

#include "app/live/live_simulation.h"
#include "app/live/order_bytes.h"
#include "parallel/ranks.h"
#include "render/state_textures.h"

namespace nbody {
namespace {

// Every field of RenderSettings, in one order for writing and reading (a field added there is
// added here).
template <typename Settings, typename Visit>
void eachField(Settings& s, Visit&& visit) {
  visit(s.pointSize), visit(s.brightness), visit(s.colormap), visit(s.colorBy);
  visit(s.colorRange), visit(s.logScale), visit(s.centre), visit(s.componentColors);
  visit(s.hiddenComponents), visit(s.presentComponents), visit(s.background);
  visit(s.trailHalfLife), visit(s.overlays), visit(s.cellDepth), visit(s.density);
  visit(s.smoothing), visit(s.fittedSmoothing);
}

// Rank 0 of a distributed run: announces `call` with what `write` writes.
template <typename Write>
void announceWith(WindowCall call, Write&& write) {
  if (!ranks().distributed() || !ranks().leader()) return;
  OrderWriter out;
  write(out);
  announce(call, out.take());
}

}  // namespace

void announce(WindowCall call, std::vector<std::byte> payload) {
  if (!ranks().distributed()) return;
  payload.push_back(std::byte(call));  // last: the payload stays where it is
  ranks().broadcast(payload);
}

Announced receiveAnnounced() {
  std::vector<std::byte> bytes;
  ranks().broadcast(bytes);
  if (bytes.empty()) throw std::logic_error("an announcement without its call");
  const auto call = WindowCall(bytes.back());
  bytes.pop_back();
  return {call, std::move(bytes)};
}

std::optional<StartOfParts> startOfParts(LiveSimulation& simulation, const WindowOptions& options) {
  if (!simulation.holdsPartsApart() || !options.play.empty()) return std::nullopt;
  const State own = simulation.engine().downloadPart().rows;
  return StartOfParts{boundingSphere(own, ranks()),
                      resolveRenderSettings(options.render, own, simulation.time(), {}, ranks())};
}

BoundingSphere sphereOfParts(Engine& engine) {
  announceWith(WindowCall::sphere, [](OrderWriter&) {});
  return boundingSphere(engine.downloadPart().rows, ranks());
}

void measureParts(RenderSettings& settings, bool automatic, double time, Engine& engine) {
  announceWith(WindowCall::colours, [&](OrderWriter& out) {
    eachField(settings, out);
    out.plain(automatic);
    out.plain(time);
  });
  const State own = engine.downloadPart().rows;
  if (automatic)
    settings.colorRange = autoColorRange(own, settings.colorBy, settings.logScale, {}, ranks());
  measureBodies(settings, own, time, ranks());
}

std::optional<std::size_t> firstNonFiniteOfParts(LiveSimulation& simulation) {
  announceWith(WindowCall::nonFinite, [](OrderWriter&) {});
  return simulation.firstNonFiniteBody();
}

Histogram histogramOfParts(Engine& engine, const AppSettings::HistogramChoice& choice, int bins,
                           long long step) {
  announceWith(WindowCall::histogram, [&](OrderWriter& out) {
    out.plain(choice);
    out.plain(bins);
    out.plain(step);
  });
  return histogramOf(engine.downloadPart().rows, choice.quantity, choice.logScale, bins, step, {},
                     ranks());
}

void drawParts(PointSpriteRenderer& renderer, Engine& engine, const PartsPicture& picture) {
  announceWith(WindowCall::draw, [&](OrderWriter& out) {
    out.plain(picture.camera);
    eachField(picture.settings, out);
    out.plain(picture.time);
    out.plain(picture.size);
  });
  renderer.compositeAcross(&ranks());
  try {
    renderer.draw(ownBodiesOf(engine), picture.camera, picture.settings, picture.time);
  } catch (...) {
    renderer.compositeAcross(nullptr);
    throw;
  }
  renderer.compositeAcross(nullptr);
}

void PartsFollower::carryOut(const Announced& announced) {
  OrderReader in(announced.payload);
  Engine& engine = simulation_.engine();
  try {
    switch (announced.call) {
      case WindowCall::sphere:
        (void)sphereOfParts(engine);
        return;
      case WindowCall::colours: {
        RenderSettings settings;
        eachField(settings, in);
        const bool automatic = in.plain<bool>();
        measureParts(settings, automatic, in.plain<double>(), engine);
        return;
      }
      case WindowCall::nonFinite:
        (void)firstNonFiniteOfParts(simulation_);
        return;
      case WindowCall::histogram: {
        const auto choice = in.plain<AppSettings::HistogramChoice>();
        const int bins = in.plain<int>();
        (void)histogramOfParts(engine, choice, bins, in.plain<long long>());
        return;
      }
      case WindowCall::draw: {
        PartsPicture picture;
        picture.camera = in.plain<Camera>();
        eachField(picture.settings, in);
        picture.time = in.plain<double>();
        picture.size = in.plain<glm::ivec2>();
        draw(picture);
        return;
      }
      default:
        break;
    }
  } catch (const std::invalid_argument&) {  // e.g. an empty colour range: rank 0's panel says so
    return;
  }  // any other failure ends this rank, as it would end rank 0, and so every rank
  throw std::logic_error("a window's call out of place");
}

void PartsFollower::carryOutUntilSteps() {
  for (Announced next = receiveAnnounced(); next.call != WindowCall::proceed;
       next = receiveAnnounced())
    carryOut(next);
}

void PartsFollower::draw(const PartsPicture& picture) {
  if (!renderer_) renderer_.emplace();
  if (!target_ || target_->size() != picture.size) {
    target_.reset();
    target_.emplace(picture.size);
  }
  target_->draw([&] { drawParts(*renderer_, simulation_.engine(), picture); });
}

}  // namespace nbody
