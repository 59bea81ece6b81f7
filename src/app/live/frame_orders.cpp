#include "app/live/frame_orders.h"

#include <cstdio>
#include <memory>
#include <optional>

#include "app/live/live_simulation.h"
#include "app/live/order_bytes.h"
#include "app/live/parts_calls.h"
#include "app/run/engine_session.h"
#include "app/run/rank_agreement.h"
#include "diagnostics/force_accuracy.h"
#include "engines/gpu_capacity.h"
#include "io/gadget.h"
#include "parallel/ranks.h"
#include "render/camera_path.h"

namespace nbody {
namespace {

// Rank 0's save while the ranks hold the bodies apart (LiveSession's): this rank's part, under the
// name rank 0 chose (none where it could choose none); a load in the same frame reads them.
void followSaveInParts(LiveSimulation& simulation, AppSettings& settings) {
  const std::string path = ranks().gatherText("")[0];
  if (path.empty()) return;
  try {
    simulation.saveParts(settings, path);
    settings.snapshotPath = gadgetPartPath(path, 0).string();
  } catch (const std::exception&) {  // rank 0's panel says why
  }
}

// A follower's frame: what rank 0's frame does with the same settings, failures caught alike; the
// collectives rank 0 announces before its steps (parts_calls.h) come between.
void carryOut(LiveSimulation& simulation, AppSettings& settings, const FrameOrder& order,
              PartsFollower& follower) {
  settings = order.settings;
  const bool save = settings.requests.take(Request::SaveSnapshot);
  const bool load = settings.requests.take(Request::LoadSnapshot);
  const bool checkAccuracy = settings.requests.take(Request::CheckAccuracy);
  try {
    simulation.apply(settings);
  } catch (const std::exception&) {  // rank 0's panel says why
  }
  if (save && simulation.holdsPartsApart()) followSaveInParts(simulation, settings);
  try {
    if (load) simulation.load(settings, settings.snapshotPath);
  } catch (const std::exception&) {
  }
  try {
    if (checkAccuracy)
      (void)measureAccuracy(simulation.engine(), simulation.stepNow(settings),
                            {.allUpTo = 4096, .bodies = 4096});
  } catch (const std::exception&) {
  }
  follower.carryOutUntilSteps();
  if (order.steps == 0) return;
  simulation.advance(settings, order.steps);
  (void)describeRanks(simulation.engine(), order.steps);
}

void writeStep(OrderWriter& out, const StepParams& step) {
  out.plain(step.dt);
  out.plain(step.softening);
  out.plain(step.gravity);
  out.text(step.potential ? step.potential->spec() : std::string());
  out.plain(step.startTime);
  out.plain(step.stepsDone);
  out.plain(step.stageFraction);
}

// The same potential as the last order's where its text is the same: an engine takes the force a
// step ended with into the next step only for the same potential (engines/reused_force.h).
SharedPotential potentialOf(const std::string& text, double gravity) {
  static SharedPotential last;
  if (text.empty()) return nullptr;
  if (!last || last->spec() != text)
    last = std::make_shared<const ExternalPotential>(ExternalPotential::parse(text, gravity));
  return last;
}

StepParams readStep(OrderReader& in) {
  StepParams step;
  step.dt = in.plain<double>();
  step.softening = in.plain<double>();
  step.gravity = in.plain<double>();
  step.potential = potentialOf(in.text(), step.gravity);
  step.startTime = in.plain<double>();
  step.stepsDone = in.plain<long long>();
  step.stageFraction = in.plain<double>();
  return step;
}

}  // namespace

std::vector<std::byte> encodeOrder(const FrameOrder& order) {
  OrderWriter out;
  const RunChoice& run = order.settings.run;
  out.text(run.engine);
  out.plain(run.engineSettings.size());
  for (const auto& [name, value] : run.engineSettings) {
    out.text(name);
    out.text(value);
  }
  out.text(run.method);
  out.text(run.scene.name);
  out.plain(run.scene.options);
  writeStep(out, run.step);
  const std::vector<Requests::Entry>& requests = order.settings.requests.entries();
  out.plain(requests.size());
  for (const Requests::Entry& request : requests) {
    out.plain(request.kind);
    out.plain(request.value);
  }
  out.text(order.settings.snapshotPath);
  out.text(order.settings.potentialText);
  out.plain(order.steps);
  out.plain(order.quit);
  return out.take();
}

FrameOrder decodeOrder(const std::vector<std::byte>& bytes) {
  OrderReader in(bytes);
  FrameOrder order;
  RunChoice& run = order.settings.run;
  run.engine = in.text();
  for (auto settings = in.plain<std::size_t>(); settings > 0; --settings) {
    std::string name = in.text();
    run.engineSettings[name] = in.text();
  }
  run.method = in.text();
  run.scene.name = in.text();
  run.scene.options = in.plain<SceneOptions>();
  run.step = readStep(in);
  for (auto requests = in.plain<std::size_t>(); requests > 0; --requests) {
    const auto kind = in.plain<Request>();
    order.settings.requests.ask(kind, in.plain<std::int64_t>());
  }
  order.settings.snapshotPath = in.text();
  order.settings.potentialText = in.text();
  order.steps = in.plain<int>();
  order.quit = in.plain<bool>();
  return order;
}

void sendOrder(const FrameOrder& order) { announce(WindowCall::order, encodeOrder(order)); }

std::string describeRanks(Engine& engine, int steps) {
  const auto times = engine.exchangeTimes();
  if (!times || steps == 0) return {};
  const double perStep = 1e3 / double(steps);
  const std::string device = rankDevice().empty() ? "the GPU that draws" : rankDevice();
  char own[256];
  std::snprintf(own, sizeof own, "rank %d (%s): %.2f | %.2f, %.2f, %.2f", ranks().rank(),
                device.c_str(), times->compute * perStep, times->download * perStep,
                times->mpi * perStep, times->upload * perStep);
  engine.clearExchangeTimes();
  std::string text = std::to_string(ranks().count()) + " ranks, exchange through " +
                     ranks().gatherPath() + "; ms a step (force | down, MPI, up):";
  for (const std::string& line : ranks().gatherText(own)) text += "\n" + line;
  return text;
}

int followWindow(const WindowOptions& options) {
  std::optional<RunStart> start;
  std::unique_ptr<gl::HeadlessContext> context;
  std::unique_ptr<LiveSimulation> simulation;
  AppSettings settings = initialAppSettings(options);
  onEveryRankAlike([&] {  // as rank 0 reads its inputs and opens its window
    start = startingRun(options, true);
    if (start) settings.run.scene.options.bodyCount = start->bodies;
    if (!options.cameraPath.empty())
      readCameraPathFile(options.cameraPath);  // its read is collective
    context = openHeadlessContext();
  });
  agreeLimitsAcrossRanks();  // as rank 0 does once its window's context is made
  onEveryRankAlike([&] {     // as rank 0 makes its simulation and the look it starts with
    simulation = std::make_unique<LiveSimulation>(settings, drawsFromParts(options.render));
    continueFromInput(*simulation, settings, start, options);
    startOfParts(*simulation, options);
  });
  reportRanksOnce(context->info().device, context->info().renderer);
  PartsFollower follower(*simulation);
  for (;;) {
    const Announced next = receiveAnnounced();
    if (next.call != WindowCall::order) {
      follower.carryOut(next);
      continue;
    }
    const FrameOrder order = decodeOrder(next.payload);
    if (order.quit) return 0;
    carryOut(*simulation, settings, order, follower);
  }
}

}  // namespace nbody
