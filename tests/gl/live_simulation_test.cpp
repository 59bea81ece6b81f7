// The window's switching logic (LiveSimulation), on the headless context: switching engine, method
// or engine variant mid-run keeps the state bit for bit; changing the scene starts it over; a
// saved snapshot loaded into a fresh simulation goes on bit for bit, and a damaged one changes
// nothing.

#include <cstring>
#include <fstream>

#include "app/commands/run_command.h"
#include "app/live/live_simulation.h"
#include "app/live/series_playback.h"
#include "app/live/window_options.h"
#include "gl/gl_test.h"
#include "io/csv.h"
#include "physics/scenes.h"
#include "render/picking.h"
#include "render/selection.h"
#include "render/state_textures.h"
#include "support/cli_runner.h"
#include "support/test_support.h"

namespace nbody {
namespace {

using test::GlTest;

class LiveSimulationTest : public GlTest {
 protected:
  static AppSettings small() {
    AppSettings settings;
    settings.run.scene.options.bodyCount =
        700;  // not a whole number of texture rows: padding bodies too
    settings.run.scene.options.seed = 3;
    settings.run.step.softening = 0.05;
    return settings;
  }
};

// Equal bit for bit (NaN-safe, -0 distinct from +0): what "the state moved across exactly" means.
void expectSameBits(const State& before, const State& after, const std::string& what) {
  ASSERT_EQ(before.size(), after.size()) << what;
  EXPECT_EQ(std::memcmp(before.positionMass.data(), after.positionMass.data(),
                        before.size() * sizeof(glm::vec4)),
            0)
      << what << ": positions or masses changed";
  EXPECT_EQ(
      std::memcmp(before.velocity.data(), after.velocity.data(), before.size() * sizeof(glm::vec4)),
      0)
      << what << ": velocities changed";
}

TEST_F(LiveSimulationTest, SwitchingEngineKeepsTheStateBitForBit) {
  AppSettings settings = small();
  LiveSimulation simulation(settings);
  EXPECT_EQ(simulation.engine().name(), "fragment");
  simulation.advance(settings, 5);
  long long steps = 5;
  std::vector<std::string> sequence;  // every other engine in turn, then back to the first
  for (const std::string& name : engineNames())
    if (name != settings.run.engine) sequence.push_back(name);
  sequence.push_back(settings.run.engine);
  for (const std::string& engine : sequence) {
    const State before = simulation.engine().download();
    settings.run.engine = engine;
    const auto changes = simulation.apply(settings);
    EXPECT_TRUE(changes.engineSwitched) << engine;
    EXPECT_FALSE(changes.sceneRegenerated) << engine;
    EXPECT_EQ(simulation.engine().name(), engine);
    EXPECT_EQ(simulation.stepCount(), steps) << engine;
    expectSameBits(before, simulation.engine().download(), "switch to " + engine);
    // The new engine's own choices are what the panel now shows.
    std::map<std::string, std::string> choices;
    for (const EngineOption& option : simulation.engine().options())
      choices[option.name] = option.value;
    EXPECT_EQ(settings.run.engineSettings, choices) << engine;
    simulation.advance(settings, 2);  // and it carries on
    steps += 2;
  }
}

// The window reads its picked bodies back by their place in the state textures (render/picking.h):
// the tree engine sorts copies of its own, and a switch moves the state across in order, so the
// bodies read there stay those of the picked IDs, as download() names them. The IDs run backwards
// here, so a body's ID is not its place.
TEST_F(LiveSimulationTest, PickedBodiesStayTheirIdsThroughTreeStepsAndEngineSwitches) {
  AppSettings settings = small();
  settings.run.engine = "tree";
  LiveSimulation simulation(settings);
  Snapshot snapshot;
  snapshot.state = simulation.engine().download();
  const std::size_t count = snapshot.state.size();
  snapshot.state.id.resize(count);
  for (std::size_t i = 0; i < count; ++i) snapshot.state.id[i] = 5000 - i;
  simulation.continueFrom(settings, snapshot);
  Selection selection;
  selection.pick(simulation.engine().download(), {3, 350, count - 1}, false);
  UploadedStateTextures storage;
  BodyReader reader;
  for (const std::string engine : {"tree", "compute", "cpu", "fragment", "tree"}) {
    settings.run.engine = engine;
    simulation.apply(settings);
    simulation.advance(settings, 4);
    selection.follow(reader.read(gpuStateOf(simulation.engine(), storage), selection.indices()));
    const State now = simulation.engine().download();
    for (const SelectedBody& body : selection.bodies()) {
      std::size_t j = 0;
      while (j < now.size() && bodyId(now, j) != body.id) ++j;
      ASSERT_LT(j, now.size()) << body.id;
      EXPECT_EQ(body.position, glm::vec3(now.positionMass[j])) << engine << ": body " << body.id;
      EXPECT_EQ(body.velocity, glm::vec3(now.velocity[j])) << engine << ": body " << body.id;
      EXPECT_EQ(body.orbit.back(), body.position);
    }
  }
  EXPECT_GE(selection.bodies()[0].orbit.size(), 5u) << "a point a frame it moved";
}

TEST_F(LiveSimulationTest, SwitchingEveryVariantKeepsTheStateBitForBit) {
  for (const std::string& engine : engineNames()) {
    AppSettings settings = small();
    settings.run.engine = engine;
    LiveSimulation simulation(settings);
    simulation.advance(settings, 3);
    for (const EngineOption& option : simulation.engine().options())
      for (const std::string& choice : option.choices) {
        const State before = simulation.engine().download();
        settings.run.engineSettings[option.name] = choice;
        const auto changes = simulation.apply(settings);
        EXPECT_FALSE(changes.sceneRegenerated);
        EXPECT_EQ(settings.run.engineSettings.at(option.name), choice);
        expectSameBits(before, simulation.engine().download(),
                       engine + ": " + option.name + "=" + choice);
        simulation.advance(settings, 1);
      }
  }
}

TEST_F(LiveSimulationTest, SwitchingMethodOrStepParametersKeepsTheState) {
  AppSettings settings = small();
  LiveSimulation simulation(settings);
  simulation.advance(settings, 3);
  const State before = simulation.engine().download();
  settings.run.method = "rk4";
  settings.run.step.dt = 2e-3;
  settings.run.step.softening = 0.1;
  settings.run.step.gravity = 2.0;
  const auto changes = simulation.apply(settings);
  EXPECT_FALSE(changes.engineSwitched || changes.variantChanged || changes.sceneRegenerated);
  expectSameBits(before, simulation.engine().download(), "method and step parameters");
  simulation.advance(settings, 1);
  EXPECT_EQ(simulation.stepCount(), 4);
}

TEST_F(LiveSimulationTest, AnUnknownVariantIsRefusedAndTheStateKept) {
  AppSettings settings = small();
  LiveSimulation simulation(settings);
  simulation.advance(settings, 2);
  const State before = simulation.engine().download();
  const auto choices = settings.run.engineSettings;
  settings.run.engineSettings["unroll"] = "3x7";
  EXPECT_THROW(simulation.apply(settings), UsageError);
  EXPECT_EQ(settings.run.engineSettings, choices);
  expectSameBits(before, simulation.engine().download(), "refused variant");
}

TEST_F(LiveSimulationTest, NewNSceneSeedOrResetStartsTheSceneOver) {
  AppSettings settings = small();
  LiveSimulation simulation(settings);
  simulation.advance(settings, 2);
  settings.run.scene.options.bodyCount = 300;
  EXPECT_TRUE(simulation.apply(settings).sceneRegenerated);
  EXPECT_EQ(simulation.engine().bodyCount(), 300u);
  EXPECT_EQ(simulation.stepCount(), 0);
  expectSameBits(findScene("plummer")->generate(300, 3), simulation.engine().download(), "new N");
  settings.run.scene.name = "uniform-sphere";
  settings.run.scene.options.seed = 9;
  EXPECT_TRUE(simulation.apply(settings).sceneRegenerated);
  simulation.advance(settings, 1);
  settings.requests.ask(Request::Reset);
  EXPECT_TRUE(simulation.apply(settings).sceneRegenerated);
  EXPECT_FALSE(settings.requests.asked(Request::Reset));
  expectSameBits(findScene("uniform-sphere")->generate(300, 9), simulation.engine().download(),
                 "reset");
}

// A run with every setting away from the defaults, so that a load must carry each one.
AppSettings unusual(const std::string& engine) {
  AppSettings settings;
  settings.run.engine = engine;
  settings.run.method = "rk2";
  settings.run.scene.options.bodyCount = 700;
  settings.run.scene.options.seed = 3;
  settings.run.step = {0.002, 0.05, 1.5};
  return settings;
}

TEST_F(LiveSimulationTest, SaveThenLoadGoesOnBitForBit) {
  test::ScratchFolder scratch("live-save-load");
  for (const std::string& engine : test::gpuEngineNames()) {
    const auto file = scratch / (engine + ".nbody");
    AppSettings first = unusual(engine);
    LiveSimulation uninterrupted(first);
    uninterrupted.advance(first, 4);
    uninterrupted.save(first, file);
    uninterrupted.advance(first, 4);
    const State expected = uninterrupted.engine().download();

    AppSettings second;  // the defaults: N, method, dt, softening, G and seed all differ
    second.run.engine = engine;
    second.run.scene.options.bodyCount = 300;
    LiveSimulation resumed(second);
    resumed.load(second, file);
    EXPECT_EQ(resumed.stepCount(), 4) << engine;
    EXPECT_EQ(resumed.time(), 4 * 0.002) << engine;
    EXPECT_EQ(second.run.method, "rk2") << engine;
    EXPECT_EQ(second.run.step.dt, 0.002) << engine;
    EXPECT_EQ(second.run.step.softening, 0.05) << engine;
    EXPECT_EQ(second.run.step.gravity, 1.5) << engine;
    EXPECT_EQ(second.run.scene.options.seed, 3u) << engine;
    EXPECT_EQ(second.run.scene.options.bodyCount, 700u) << engine;
    // The window applies its settings every frame: the loaded bodies must not be regenerated.
    const auto changes = resumed.apply(second);
    EXPECT_FALSE(changes.sceneRegenerated || changes.engineSwitched) << engine;
    resumed.advance(second, 4);
    EXPECT_EQ(resumed.stepCount(), uninterrupted.stepCount()) << engine;
    EXPECT_EQ(resumed.time(), uninterrupted.time()) << engine;
    expectSameBits(expected, resumed.engine().download(), engine + " after save and load");
    EXPECT_FALSE(test::sameBits(expected, resumed.initialState()))
        << "the steps after the load moved nothing";
  }
}

TEST_F(LiveSimulationTest, ResetAfterALoadGoesBackToTheLoadedStateAndANewSeedMakesAScene) {
  test::ScratchFolder scratch("live-reset-load");
  AppSettings settings = unusual("fragment");
  LiveSimulation simulation(settings);
  simulation.advance(settings, 3);
  simulation.save(settings, scratch / "run.nbody");
  const State saved = simulation.engine().download();
  simulation.load(settings, scratch / "run.nbody");
  simulation.advance(settings, 5);
  settings.run.step.dt = 0.004;  // what the user changed since stays
  settings.requests.ask(Request::Reset);
  EXPECT_TRUE(simulation.apply(settings).sceneRegenerated);
  expectSameBits(saved, simulation.engine().download(), "reset after a load");
  EXPECT_EQ(simulation.stepCount(), 3);
  EXPECT_EQ(simulation.time(), 3 * 0.002);
  EXPECT_EQ(settings.run.step.dt, 0.004);

  ++settings.run.scene.options.seed;  // another scene: made anew, and a later reset makes it again
  simulation.apply(settings);
  const State scene =
      findScene(settings.run.scene.name)
          ->generate(settings.run.scene.options.bodyCount, settings.run.scene.options.seed);
  expectSameBits(scene, simulation.engine().download(), "a new seed after a load");
  simulation.advance(settings, 2);
  settings.requests.ask(Request::Reset);
  simulation.apply(settings);
  expectSameBits(scene, simulation.engine().download(), "reset of the new scene");
  EXPECT_EQ(simulation.stepCount(), 0);
}

TEST_F(LiveSimulationTest, SavedSnapshotCarriesTheRun) {
  test::ScratchFolder scratch("live-save");
  AppSettings settings = unusual("fragment");
  LiveSimulation simulation(settings);
  simulation.advance(settings, 3);
  simulation.save(settings, scratch / "run.nbody");
  const Snapshot saved = readSnapshotFile(scratch / "run.nbody");
  EXPECT_EQ(saved.step, 3);
  EXPECT_EQ(saved.time, 3 * 0.002);
  ASSERT_TRUE(saved.settings);
  EXPECT_EQ(saved.settings->method, "rk2");
  EXPECT_EQ(saved.settings->step.softening, 0.05);
  EXPECT_EQ(saved.settings->step.gravity, 1.5);
  EXPECT_EQ(saved.settings->seed, 3u);
  expectSameBits(simulation.engine().download(), saved.state, "saved state");
}

TEST_F(LiveSimulationTest, ACsvFileBringsItsBodiesAndKeepsTheSettings) {
  test::ScratchFolder scratch("live-load-csv");
  const State bodies = findScene("disk")->generate(257, 5);
  {
    std::ofstream out(scratch / "disk.csv");
    writeStateCsv(bodies, out);
  }
  AppSettings settings = unusual("fragment");
  LiveSimulation simulation(settings);
  simulation.advance(settings, 2);
  simulation.load(settings, scratch / "disk.csv");
  EXPECT_EQ(settings.run.scene.options.bodyCount, 257u);
  EXPECT_EQ(settings.run.method, "rk2");
  EXPECT_EQ(settings.run.step.dt, 0.002);
  EXPECT_EQ(settings.run.scene.options.seed, 3u);
  EXPECT_EQ(simulation.stepCount(), 0);
  EXPECT_EQ(simulation.time(), 0.0);
  expectSameBits(bodies, simulation.engine().download(), "loaded CSV");
  EXPECT_FALSE(simulation.apply(settings).sceneRegenerated);
}

// The window's Load with GADGET's two-galaxy file: its bodies with their IDs and components, and
// the G of its units; a galaxies run saved as GADGET HDF5 and loaded again: the run's own G back.
TEST_F(LiveSimulationTest, AGadgetFileBringsItsBodiesIdentitiesAndG) {
  test::ScratchFolder scratch("live-load-gadget");
  AppSettings settings = small();
  settings.run.engine = "tree";
  LiveSimulation simulation(settings);
  const std::filesystem::path galaxy =
      std::filesystem::path(NBODY_GADGET_SAMPLES) / "galaxy_littleendian.dat";
  simulation.load(settings, galaxy);
  const Snapshot sample = readSnapshotFile(galaxy);
  EXPECT_EQ(settings.run.scene.options.bodyCount, 60000u);
  EXPECT_EQ(settings.run.step.gravity, sample.units->gravity);
  const State loaded = simulation.engine().download();
  EXPECT_TRUE(test::sameBits(loaded, sample.state));
  simulation.advance(settings, 1);
  EXPECT_TRUE(test::sameIdentity(simulation.engine().download(), sample.state));

  AppSettings other = small();
  other.run.scene.name = "galaxies";
  LiveSimulation run(other);
  run.advance(other, 2);
  writeSnapshotFile({run.engine().download(), run.time(), run.stepCount(),
                     RunSettings{other.run.method, other.run.step, other.run.scene.options.seed}},
                    scratch / "run.hdf5");
  const State before = run.engine().download();
  other.run.step.gravity = 7.0;  // what the load must set back
  run.load(other, scratch / "run.hdf5");
  EXPECT_EQ(other.run.step.gravity, 1.0);
  EXPECT_EQ(run.time(), 2 * other.run.step.dt);
  const State after = run.engine().download();
  ASSERT_EQ(after.size(), before.size());
  EXPECT_TRUE(test::sameIdentity(
      after, before));  // galaxies' components in order 1 then 2: the file's order
}

TEST_F(LiveSimulationTest, ADamagedFileChangesNothingAndSaysWhy) {
  test::ScratchFolder scratch("live-load-damaged");
  AppSettings settings = unusual("fragment");
  LiveSimulation simulation(settings);
  simulation.advance(settings, 2);
  simulation.save(settings, scratch / "good.nbody");
  const std::string good = test::readWholeFile(scratch / "good.nbody");
  const auto writeFile = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(scratch / name, std::ios::binary) << bytes;
    return scratch / name;
  };
  std::string flipped = good;
  flipped[200] ^= 0x10;  // inside the bodies: only the checksum notices
  const std::pair<std::filesystem::path, std::string> damaged[] = {
      {writeFile("truncated.nbody", good.substr(0, good.size() - 20)), "truncated"},
      {writeFile("flipped.nbody", flipped), "checksum"},
      {writeFile("header.nbody", good.substr(0, 50)), "header"},
      {scratch / "missing.nbody", "cannot read"},
  };

  simulation.advance(settings, 3);
  const State before = simulation.engine().download();
  const AppSettings settingsBefore = settings;
  for (const auto& [path, problem] : damaged) {
    AppSettings attempt = settings;
    attempt.run.method = "euler";  // nothing of the file's or of this may stick
    try {
      simulation.load(attempt, path);
      ADD_FAILURE() << path << " loaded";
    } catch (const std::runtime_error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(path.filename().string()), std::string::npos) << message;
      EXPECT_NE(message.find(problem), std::string::npos) << message;
    }
    EXPECT_EQ(attempt.run.method, "euler") << path;
    EXPECT_EQ(attempt.run.scene.options.bodyCount, settingsBefore.run.scene.options.bodyCount)
        << path;
    EXPECT_EQ(attempt.run.step.dt, settingsBefore.run.step.dt) << path;
    EXPECT_EQ(attempt.run.scene.options.seed, settingsBefore.run.scene.options.seed) << path;
    EXPECT_EQ(simulation.stepCount(), 5) << path;
    EXPECT_EQ(simulation.time(), 2 * 0.002 + 3 * 0.002) << path;
    expectSameBits(before, simulation.engine().download(), path.string());
    EXPECT_FALSE(simulation.apply(settings).sceneRegenerated) << path;
  }
}

// The window starts from what the command line chose, scene parameters included: a kepler pair of
// eccentricity 0.9 starts 1 - e = 0.1 apart (it used to start at the default 0.5, 0.5 apart).
TEST_F(LiveSimulationTest, StartsFromTheCommandLinesSceneParameters) {
  CLI::App app;
  WindowOptions options;
  addWindowOptions(*app.add_subcommand("run"), options);
  app.parse("run --scene kepler --eccentricity 0.9 --engine cpu --set nothing-here=1", false);
  AppSettings settings = initialAppSettings(options);
  EXPECT_EQ(settings.run.scene.options.eccentricity, 0.9);
  EXPECT_THROW(LiveSimulation refused(settings), UsageError) << "--set reaches the engine";
  settings.run.engineSettings.clear();
  LiveSimulation simulation(settings);
  const State start = simulation.engine().download();
  const double separation =
      glm::length(glm::dvec3(start.positionMass[1]) - glm::dvec3(start.positionMass[0]));
  EXPECT_NEAR(separation, 0.1, 1e-6);
}

// A series played into the simulation: each snapshot shown is the file's state, step and time bit
// for bit (N changing on the way), the run does not step while the series is open, Space and N
// play, pause and step it, and "continue from here" runs on from the snapshot shown.
TEST_F(LiveSimulationTest, APlayedSeriesShowsEachSnapshotAndRunsOnFromTheOneShown) {
  test::ScratchFolder scratch("live-series");
  std::vector<Snapshot> written;
  for (const std::size_t bodies : {300u, 700u, 500u}) {
    Snapshot snapshot;
    snapshot.state = findScene("disk")->generate(bodies, unsigned(bodies));
    snapshot.step = 1000 * static_cast<long long>(written.size() + 1);
    snapshot.time = double(bodies) / 8;
    snapshot.settings.emplace().method = "rk2";
    written.push_back(snapshot);
    writeSnapshotFile(snapshot, scratch / ("at-" + std::to_string(snapshot.step) + ".nbody"));
  }
  const auto showsWritten = [&](LiveSimulation& simulation, std::size_t index) {
    expectSameBits(written[index].state, simulation.engine().download(),
                   "snapshot " + std::to_string(index));
    EXPECT_EQ(simulation.stepCount(), written[index].step);
    EXPECT_EQ(simulation.time(), written[index].time);
  };
  AppSettings settings = small();
  LiveSimulation simulation(settings);
  SeriesPlayback series((scratch / "at-*.nbody").string(), 1.0, true);
  settings.paused = true;
  series.follow(settings, simulation, 0.0);
  showsWritten(simulation, 0);
  EXPECT_EQ(series.figures().size, 3u);
  EXPECT_TRUE(series.figures().playing);
  series.follow(settings, simulation, 1.0);
  showsWritten(simulation, 1);
  EXPECT_EQ(settings.run.scene.options.bodyCount, 700u);
  // Space (the run unpaused) pauses the series; the run stays paused and nothing moves.
  settings.paused = false;
  series.follow(settings, simulation, 5.0);
  EXPECT_TRUE(settings.paused);
  EXPECT_FALSE(series.figures().playing);
  showsWritten(simulation, 1);
  // N (a single step) shows the next snapshot instead of stepping the run.
  settings.requests.ask(Request::SingleStep);
  series.follow(settings, simulation, 0.0);
  EXPECT_FALSE(settings.requests.asked(Request::SingleStep));
  showsWritten(simulation, 2);
  settings.requests.ask(Request::SeekSeries, 0);
  series.follow(settings, simulation, 0.0);
  showsWritten(simulation, 0);
  settings.requests.ask(Request::ContinueHere);
  const SeriesPlayback::Outcome outcome = series.follow(settings, simulation, 0.0);
  EXPECT_FALSE(series.open());
  EXPECT_FALSE(settings.paused);
  EXPECT_NE(outcome.message.find("at-1000.nbody"), std::string::npos) << outcome.message;
  simulation.advance(settings, 2);
  EXPECT_EQ(simulation.stepCount(), written[0].step + 2);
  EXPECT_FALSE(test::sameBits(simulation.engine().download(), written[0].state));
}

TEST_F(LiveSimulationTest, ASeriesOpenedFromThePanelSaysWhatBecameOfIt) {
  test::ScratchFolder scratch("live-series-open");
  AppSettings settings = small();
  LiveSimulation simulation(settings);
  SeriesPlayback series;
  settings.series.pattern = (scratch / "none-*.nbody").string();
  settings.requests.ask(Request::OpenSeries);
  SeriesPlayback::Outcome outcome = series.follow(settings, simulation, 0.0);
  EXPECT_FALSE(outcome.opened);
  EXPECT_NE(outcome.message.find("no snapshot file matches " + settings.series.pattern),
            std::string::npos)
      << outcome.message;
  EXPECT_FALSE(settings.requests.asked(Request::OpenSeries));  // carried out once
  EXPECT_FALSE(series.open());
  Snapshot one;
  one.state = findScene("plummer")->generate(64, 1);
  one.settings.emplace().method = "euler";
  writeSnapshotFile(one, scratch / "none-1.nbody");
  settings.requests.ask(Request::OpenSeries);
  outcome = series.follow(settings, simulation, 0.0);
  EXPECT_TRUE(outcome.opened);
  EXPECT_EQ(outcome.message, "opened " + settings.series.pattern + ": 1 file");
  EXPECT_TRUE(settings.paused);
  expectSameBits(one.state, simulation.engine().download(), "the series' only snapshot");
}

}  // namespace
}  // namespace nbody
