#include "app/commands/simulate_command.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <optional>
#include <stdexcept>

#include "app/run/collision_watch.h"
#include "app/run/engine_session.h"
#include "app/run/output_plan.h"
#include "app/run/rank_agreement.h"
#include "app/run/snapshot_parts.h"
#include "app/run/snapshot_share.h"
#include "app/run/stepping.h"
#include "app/run/stop_signals.h"
#include "diagnostics/diagnostics_log.h"
#include "diagnostics/engine_diagnostics.h"
#include "engines/registry.h"
#include "io/output_file.h"
#include "io/snapshot_series.h"
#include "parallel/ranks.h"
#include "util/checked_arithmetic.h"
#include "util/printable_text.h"

namespace nbody {
namespace {

CLI::Validator containsStepPlaceholder() {
  return CLI::Validator(
      [](std::string& pattern) -> std::string {
        if (pattern.find(kStepPlaceholder) == std::string::npos)
          return "must contain {step}, which becomes the step number";
        return {};
      },
      "PATTERN");
}

// The XDMF index an HDF5 series of snapshots keeps beside them, where the run writes one.
std::optional<std::string> xdmfIndexOf(const SimulateOptions& options) {
  if (options.snapshotEvery <= 0 || options.snapshotPath.empty()) return std::nullopt;
  if (outputFormatFor(options.snapshotPath) != SnapshotFormat::gadgetHdf5) return std::nullopt;
  return xdmfIndexPathFor(options.snapshotPath).string();
}

bool inParts(const SimulateOptions& options) { return options.snapshotFiles == "ranks"; }

// The file this rank writes of the output `path` names.
std::string ownFileOf(const SimulateOptions& options, const std::string& path) {
  return inParts(options) ? ownPartPath(path).string() : path;
}

// What a message calls the snapshot `path` names: the file, or its parts.
std::string writtenName(const SimulateOptions& options, const std::string& path) {
  if (!inParts(options)) return path;
  const int files = ranks().count();
  return gadgetPartPath(path, 0).string() +
         (files > 1 ? " ... " + gadgetPartPath(path, files - 1).string() : "");
}

// Parts are GADGET HDF5 files: the one format that numbers the files of a snapshot.
void checkPartsFormat(const SimulateOptions& options) {
  if (!inParts(options)) return;
  for (const auto& [option, path] : {std::pair{"--output", options.output},
                                     std::pair{"--snapshot-path", options.snapshotPath}}) {
    if (option == std::string("--snapshot-path") && options.snapshotEvery == 0) continue;
    if (outputFormatFor(path) != SnapshotFormat::gadgetHdf5)
      throw UsageError(std::string(option) + " " + withoutControlCharacters(path) +
                       ": --snapshot-files ranks writes GADGET HDF5 files (.hdf5, .h5), not " +
                       formatName(outputFormatFor(path)));
  }
}

// The first multiple of `every` after `step`; never for every = 0 (or where it would not fit).
long long nextMultiple(long long step, long long every) {
  if (every <= 0) return std::numeric_limits<long long>::max();
  return nextMultipleAfter(step, every).value_or(std::numeric_limits<long long>::max());
}

// The snapshots written so far: what a run that fails or stops keeps.
struct SnapshotsWritten {
  long long count = 0;
  std::string last;

  std::string kept() const {
    if (count == 0) return "";
    if (count == 1) return "; the snapshot written before stays (" + last + ")";
    return "; the " + std::to_string(count) + " snapshots written before stay (the last: " + last +
           ")";
  }
};

// One simulate run: its outputs, engine, settings and progress.
class SimulateRun {
 public:
  explicit SimulateRun(const SimulateOptions& options);
  int run();

 private:
  void openOutputs();
  void prepare();
  bool readsInShares() const;
  void leaveBodiesWithTheirRanks();
  void atBoundary(long long step);
  void writeSnapshot(long long step);
  void writeSnapshotInParts(long long step, const std::string& path);
  void writeFinalState();
  void advanceAll(ChunkedStepper& stepper);
  void watchCollisions(ChunkedStepper& stepper);
  std::optional<std::vector<double>> radiiToWrite() const;
  void sayWhereRadiiAreLeftOut() const;
  static void throwIfHalted(std::optional<CollisionHalt> halt);
  void finish(double elapsed);
  double timeAt(long long step) const {
    return start_.snapshot.time + double(step - firstStep_) * settings_.step.dt;
  }
  std::string unwritten() const;
  [[noreturn]] void stopped(long long step) const;

  const SimulateOptions& options_;
  OutputGroup outputs_;
  OutputFile* final_ = nullptr;
  OutputFile* diagnosticsFile_ = nullptr;
  EngineSession session_;
  RunStart start_;  // the input or scene, then what the final state is written from
  RunSettings settings_;
  const Method* method_ = nullptr;
  long long firstStep_ = 0, lastStep_ = 0;
  std::optional<DiagnosticsLog> log_;
  EngineDiagnostics diagnostics_;
  std::optional<FiniteWatch> watch_;
  SnapshotsWritten snapshots_;
  SnapshotSeriesWriter series_{options_.snapshotPath};
  CollisionSettings collisionSettings_;  // --collisions, with the input's radii where it has them
  std::optional<CollisionWatch> collisions_;
  std::optional<CollisionHalt> halt_;
};

// Thrown out of the steps where --collisions halt found a contact.
struct CollisionHalted {
  CollisionHalt halt;
};

SimulateRun::SimulateRun(const SimulateOptions& options) : options_(options) {}

// Unwritable paths fail before any work (two outputs that are one file failed at parsing).
void SimulateRun::openOutputs() {
  onEveryRankAlike([&] {
    final_ = &outputs_.open(ownFileOf(options_, options_.output),
                            inParts(options_) ? OutputWriter::everyRank : OutputWriter::leader);
    if (!options_.diagnostics.empty()) diagnosticsFile_ = &outputs_.open(options_.diagnostics);
  });
}

// The input first: its step names the snapshots, and every output, snapshots included, is
// checked against the inputs and each other before anything is opened or made.
void SimulateRun::prepare() {
  checkPartsFormat(options_);
  if (!options_.run.input.empty()) start_ = readRunStart(options_.run.input, readsInShares());
  collisionSettings_ = withInputRadii(options_.collisions, start_.snapshot);
  checkCollisionSettings(collisionSettings_);
  const std::string source = problemSource(options_.run);
  firstStep_ = start_.snapshot.step;
  lastStep_ = addOrThrow(firstStep_, options_.steps,
                         source + ": step " + std::to_string(firstStep_) + " plus --steps");
  if (lastStep_ > kLargestStep)  // the final state could not be loaded again
    throw std::runtime_error(source + ": step " + std::to_string(firstStep_) + " plus --steps " +
                             std::to_string(options_.steps) + " goes past step " +
                             std::to_string(kLargestStep) + ", the largest a snapshot holds");
  if (options_.snapshotEvery > 0) {
    const SnapshotSeries series{"--snapshot-path",
                                ownFileOf(options_, options_.snapshotPath),
                                firstStep_,
                                lastStep_,
                                options_.snapshotEvery,
                                xdmfIndexOf(options_).value_or(""),
                                inParts(options_) ? OutputWriter::everyRank : OutputWriter::leader};
    checkDistinctOutputs(simulateFiles(options_), series);
    onEveryRankAlike([&] {
      probeSnapshotPaths(series);  // rank 0's, where the snapshots go; in parts each rank's
      if (const std::string refusal = series_.continueFrom(firstStep_); !refusal.empty())
        throw UsageError("--snapshot-path " + options_.snapshotPath + ": " + refusal);
    });
  }
  openOutputs();
  sayWhereRadiiAreLeftOut();
  session_ = openEngine(options_.run.choice.engine, options_.run.choice.engineSettings, nullptr,
                        false, options_.quiet);
  if (collisionSettings_.enabled())
    applyScreenedSettings(*session_.engine, options_.run.choice.engineSettings);
  if (options_.run.input.empty()) {  // deferred before its capacity is checked: see apartRunStart
    Engine& engine = *session_.engine;
    engine.deferGathering(readsInShares() &&
                          engine.holdsParts(options_.run.choice.scene.bodyCount()));
    start_ = sceneRunStart(engine, options_.run, engine.gatheringDeferred());
  }
  leaveBodiesWithTheirRanks();
  session_.engine->checkCapacity(start_.bodies);
  settings_ = resolveRunSettings(options_.run, start_.snapshot, start_.holders());
  start_.snapshot.settings = settings_;
  method_ = &methodOf(settings_, source);
  if (diagnosticsFile_) log_.emplace(*diagnosticsFile_, session_.engine->name(), method_->name);
  watch_.emplace(firstStep_);
}

// A run that writes its states in parts and reads nothing whole (no diagnostics rows, no
// collision watch) leaves each rank's bodies with it (Engine::deferGathering) where the ranks hold
// parts: no rank holds the whole state at any step, and the steps gather nothing. Its input's
// files are read a share a rank, where they are GADGET HDF5, and its scene made a part a rank
// (app/run/snapshot_share.h).
bool SimulateRun::readsInShares() const {
  return ranks().distributed() && inParts(options_) && options_.diagnostics.empty() &&
         !options_.collisions.enabled();
}

// Where the engine does not hold the ranks' parts after all (another engine, or too few bodies for
// the decomposed tree to hold them apart), a share read is given up for the whole.
void SimulateRun::leaveBodiesWithTheirRanks() {
  Engine& engine = *session_.engine;
  engine.deferGathering(inParts(options_) && !diagnosticsFile_ && !collisionSettings_.enabled() &&
                        engine.holdsParts(start_.bodies));
  wholeUnlessHeld(start_, engine.gatheringDeferred(), options_.run);
}

// What a run that fails now leaves: none of its outputs (those written in place got what was
// written so far), and the snapshots written before.
std::string SimulateRun::unwritten() const {
  std::vector<std::string> files;
  for (const OutputFile* file : {final_, diagnosticsFile_})
    if (file && !file->inPlace()) files.push_back(file->target().string());
  const std::string written = files.empty() ? "No file was written"
                              : files.size() == 1
                                  ? files[0] + " was not written"
                                  : "Neither " + files[0] + " nor " + files[1] + " was written";
  return written + snapshots_.kept();
}

void SimulateRun::stopped(long long step) const {
  throw Stopped(stopRequested(), "at step " + std::to_string(step) + " (of " +
                                     std::to_string(firstStep_) + " to " +
                                     std::to_string(lastStep_) + "). " + unwritten());
}

// What is due at `step`: a check for non-finite values before anything is written, a snapshot, a
// diagnostics row.
void SimulateRun::atBoundary(long long step) {
  Engine& engine = *session_.engine;
  const bool snapshotDue =
      options_.snapshotEvery > 0 && step % options_.snapshotEvery == 0 && step > firstStep_;
  const bool rowDue =
      log_ && (step % options_.diagnosticsEvery == 0 || step == lastStep_ || step == firstStep_);
  if (snapshotDue || rowDue || step % options_.checkEvery == 0 || step == lastStep_)
    watch_->check(engine, step, timeAt(step), [this] { return unwritten(); });
  if (snapshotDue) writeSnapshot(step);
  if (rowDue) log_->record(step, timeAt(step), diagnostics_.measure(engine, settings_.step));
}

void SimulateRun::writeSnapshot(long long step) {
  const std::string path = snapshotPathFor(options_.snapshotPath, step);
  if (inParts(options_)) return writeSnapshotInParts(step, path);
  Snapshot snapshot{session_.engine->download(), timeAt(step), step, settings_};
  snapshot.doubles = session_.engine->doublesBeyond(snapshot.state);
  snapshot.radii = radiiToWrite();
  series_.write(snapshot, path);
  ++snapshots_.count;
  snapshots_.last = path;
}

// Each rank its part, published once every rank's is written whole.
void SimulateRun::writeSnapshotInParts(long long step, const std::string& path) {
  const SnapshotPart part =
      snapshotPartOf(*session_.engine, Snapshot{{}, timeAt(step), step, settings_}, radiiToWrite());
  writeOnEveryRank(part, ownPartPath(path));
  series_.index(xdmfEntryForParts(path, series_.indexPath(), part));
  ++snapshots_.count;
  snapshots_.last = writtenName(options_, path);
}

// The radii the outputs keep: the watch's where the run's bodies have radii of their own (a
// merger's survivor grown), none where --radius or --density stood in for the input's, else the
// input's (start_.snapshot holds them until finish() writes what this returns).
std::optional<std::vector<double>> SimulateRun::radiiToWrite() const {
  if (collisions_ && !collisions_->settings().radii.empty()) return collisions_->settings().radii;
  if (collisionSettings_.enabled() && collisionSettings_.radii.empty()) return std::nullopt;
  return start_.snapshot.radii;
}

// One line for each output whose format holds no radii, where the bodies have them.
void SimulateRun::sayWhereRadiiAreLeftOut() const {
  if (options_.quiet || !radiiToWrite()) return;
  for (const std::string& path : {options_.output, options_.snapshotPath}) {
    if (path.empty() || (path == options_.snapshotPath && options_.snapshotEvery == 0)) continue;
    const SnapshotFormat format = outputFormatFor(path);
    if (!formatHoldsRadii(format))
      std::fprintf(stderr, "simulate: %s (%s) holds no radii: the bodies' radii are left out\n",
                   withoutControlCharacters(path).c_str(), formatName(format).c_str());
  }
}

// Contacts at every step boundary, the first included: merged as they come, or a halt.
void SimulateRun::watchCollisions(ChunkedStepper& stepper) {
  if (!collisionSettings_.enabled()) return;
  collisions_.emplace(collisionSettings_, *session_.engine,
                      [this](long long step) { return timeAt(step); });
  if (!options_.quiet)
    collisions_->onMerger = [](const std::string& line) {
      std::fprintf(stderr, "  collision: %s\n", line.c_str());
    };
  throwIfHalted(collisions_->look(settings_.step, firstStep_));
  stepper.stepChunk = [this](long long step, long long steps) {
    throwIfHalted(collisions_->advance(*method_, settings_.step, step, steps));
  };
}

void SimulateRun::throwIfHalted(std::optional<CollisionHalt> halt) {
  if (halt) throw CollisionHalted{std::move(*halt)};
}

int SimulateRun::run() {
  prepare();
  Engine& engine = *session_.engine;
  if (!options_.quiet)
    std::fprintf(stderr,
                 "simulate: %s engine (%s) on %s, %s, N = %zu, steps %lld to %lld of dt = %g\n",
                 engine.name().c_str(), engine.variant().c_str(), engine.device().c_str(),
                 method_->name.c_str(), start_.bodies, firstStep_, lastStep_, settings_.step.dt);
  uploadRunStart(start_, engine);
  if (engine.gatheringDeferred()) {  // the ranks hold the bodies from here on, each its part
    start_.snapshot.state = State{};
    start_.snapshot.doubles = std::nullopt;
  }
  if (log_) atBoundary(firstStep_);
  const auto start = std::chrono::steady_clock::now();
  ChunkedStepper stepper(engine, *method_, settings_.step);
  if (!options_.quiet)
    stepper.onProgress = [this](long long step, double rate) {
      std::fprintf(stderr, "  step %lld / %lld, %.1f steps/s\n", step, lastStep_, rate);
    };
  try {
    watchCollisions(stepper);
    advanceAll(stepper);
  } catch (CollisionHalted& halted) {  // the run ends there, as if --steps had said so
    halt_ = std::move(halted.halt);
    lastStep_ = halt_->step;
    if (lastStep_ > firstStep_) atBoundary(lastStep_);  // the first had its row
  }
  throwIfStopped(
      [&] { return "at the last step, " + std::to_string(lastStep_) + ". " + unwritten(); });
  finish(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  if (!halt_) return 0;
  std::fprintf(stderr, "simulate: %s: halted (--collisions halt)\n", halt_->what.c_str());
  return 3;
}

// The steps, with what is due at each boundary. A snapshot or diagnostics row that cannot be
// written ends the run; the message says what it leaves.
void SimulateRun::advanceAll(ChunkedStepper& stepper) {
  const long long rowsEvery = log_ ? options_.diagnosticsEvery : 0;
  try {
    for (long long step = firstStep_; step < lastStep_;) {
      const long long target =
          std::min({lastStep_, nextMultiple(step, options_.snapshotEvery),
                    nextMultiple(step, rowsEvery), nextMultiple(step, options_.checkEvery)});
      if (!stepper.advance(step, target)) stopped(step);
      atBoundary(step);
    }
  } catch (const OutputError& e) {
    throw OutputError(std::string(e.what()) + ". " + unwritten());
  }
}

// The final state into final_, rank 0's (a run in parts writes each rank's part as it publishes).
void SimulateRun::writeFinalState() {
  start_.snapshot.state = session_.engine->download();
  start_.snapshot.doubles = session_.engine->doublesBeyond(start_.snapshot.state);
  start_.snapshot.radii = radiiToWrite();
  start_.snapshot.step = lastStep_;
  start_.snapshot.time = timeAt(lastStep_);
  start_.snapshot.settings = settings_;  // with the steps its clock counted
  nbody::writeSnapshot(start_.snapshot, outputFormatFor(options_.output), final_->stream());
}

void SimulateRun::finish(double elapsed) {
  if (firstStep_ == lastStep_)
    watch_->check(*session_.engine, lastStep_, timeAt(lastStep_), [this] { return unwritten(); });
  const auto stopCheck = [this] {
    throwIfStopped([this] {
      return "while writing the state of step " + std::to_string(lastStep_) + ". " + unwritten();
    });
  };
  if (inParts(options_)) {
    const SnapshotPart part = snapshotPartOf(
        *session_.engine, Snapshot{{}, timeAt(lastStep_), lastStep_, settings_}, radiiToWrite());
    writeOnEveryRank(part, *final_, outputs_, stopCheck);
  } else {
    writeFinalState();
    outputs_.commit(stopCheck);
  }
  if (!options_.quiet)
    std::fprintf(stderr, "simulate: %lld steps in %.3f s; wrote %s\n", lastStep_ - firstStep_,
                 elapsed, withoutControlCharacters(writtenName(options_, options_.output)).c_str());
}

}  // namespace

CommandFiles simulateFiles(const SimulateOptions& options) {
  CommandFiles files{{{"--output", ownFileOf(options, options.output)}},
                     {{"--input", options.run.input}}};
  if (!options.diagnostics.empty()) files.outputs.push_back({"--diagnostics", options.diagnostics});
  if (const auto index = xdmfIndexOf(options))
    files.outputs.push_back({"--snapshot-path's XDMF index", *index});
  return files;
}

void addSimulateOptions(CLI::App& command, SimulateOptions& options) {
  addRunOptions(command, options.run, {.inputOption = "--input"});
  addIntegerOption(command, "--steps", options.steps,
                   "number of steps K (more, after an input snapshot)", 0LL, kLargestStepCount);
  addIntegerOption(
      command, "--check-every", options.checkEvery,
      "steps between checks for NaN or infinite values (on the GPU for GPU engines); the state "
      "is checked before every snapshot, diagnostics row and the final write as well",
      1LL, kLargestStepCount);
  command
      .add_option("--output,-o", options.output, "file for the final state: " + outputFormatsHelp())
      ->check(outputPath())
      ->capture_default_str();
  CLI::Option* every =
      addIntegerOption(command, "--snapshot-every", options.snapshotEvery,
                       "also write a snapshot whenever the step number is a multiple of K "
                       "(step numbers go on from an input snapshot's)",
                       1LL, kLargestStepCount, false);
  command
      .add_option(
          "--snapshot-path", options.snapshotPath,
          "where --snapshot-every writes: {step} becomes the step number, 9 digits; " +
              outputFormatsHelp() +
              " (.hdf5: with an XDMF index, NAME.xmf, for ParaView, beside them or in the folder "
              "above a folder a snapshot)")
      ->check(containsStepPlaceholder())
      ->check(outputPath())
      ->needs(every)
      ->capture_default_str();
  command
      .add_option("--snapshot-files", options.snapshotFiles,
                  "one: the final state and each snapshot one file (rank 0 writes the whole "
                  "state); ranks: in parts, a GADGET HDF5 file a rank of the bodies it holds, "
                  "NAME.hdf5 as NAME.0.hdf5 ... NAME.K-1.hdf5 (GADGET's NumFilesPerSnapshot: nbody "
                  "reads any of them back as the whole, under any number of ranks; yt and h5py "
                  "as one snapshot)")
      ->check(CLI::IsMember({"one", "ranks"}))
      ->capture_default_str();
  CLI::Option* diagnostics =
      command
          .add_option("--diagnostics", options.diagnostics,
                      "write kinetic, potential and total energy, the relative energy error, "
                      "momentum, angular "
                      "momentum and centre of mass to this CSV file at the first step, every "
                      "--diagnostics-every steps and at the last step (on the GPU for GPU engines)")
          ->check(outputPath());
  addIntegerOption(
      command, "--diagnostics-every", options.diagnosticsEvery,
      "steps between rows of --diagnostics (each row costs about one force evaluation)", 1LL,
      kLargestStepCount)
      ->needs(diagnostics);
  addCollisionOptions(command, options.collisions);
  command.add_flag("--quiet,-q", options.quiet, "print nothing but errors");
}

int runSimulate(const SimulateOptions& options) { return SimulateRun(options).run(); }

}  // namespace nbody
