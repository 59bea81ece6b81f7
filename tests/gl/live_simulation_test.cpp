// The window's switching logic (LiveSimulation), on the headless context: switching engine, method
// or engine variant mid-run keeps the state bit for bit; changing the scene starts it over.

#include <cstring>

#include "app/live_simulation.h"
#include "gl/gl_test.h"
#include "physics/scenes.h"

namespace nbody {
namespace {

using test::GlTest;

class LiveSimulationTest : public GlTest {
 protected:
  static AppSettings small() {
    AppSettings settings;
    settings.bodies = 700;  // not a whole number of texture rows: padding bodies too
    settings.seed = 3;
    settings.step.softening = 0.05;
    return settings;
  }
};

// Equal bit for bit (NaN-safe, -0 distinct from +0): what "the state moved across exactly" means.
void expectSameBits(const State& before, const State& after, const std::string& what) {
  ASSERT_EQ(before.size(), after.size()) << what;
  EXPECT_EQ(std::memcmp(before.positionMass.data(), after.positionMass.data(), before.size() * sizeof(glm::vec4)), 0)
      << what << ": positions or masses changed";
  EXPECT_EQ(std::memcmp(before.velocity.data(), after.velocity.data(), before.size() * sizeof(glm::vec4)), 0)
      << what << ": velocities changed";
}

TEST_F(LiveSimulationTest, SwitchingEngineKeepsTheStateBitForBit) {
  AppSettings settings = small();
  LiveSimulation simulation(settings);
  EXPECT_EQ(simulation.engine().name(), "fragment");
  simulation.advance(settings, 5);
  long long steps = 5;
  for (const char* engine : {"compute", "cpu", "fragment"}) {
    const State before = simulation.engine().download();
    settings.engine = engine;
    const auto changes = simulation.apply(settings);
    EXPECT_TRUE(changes.engineSwitched) << engine;
    EXPECT_FALSE(changes.sceneRegenerated) << engine;
    EXPECT_EQ(simulation.engine().name(), engine);
    EXPECT_EQ(simulation.stepCount(), steps) << engine;
    expectSameBits(before, simulation.engine().download(), std::string("switch to ") + engine);
    // The new engine's own choices are what the panel now shows.
    std::map<std::string, std::string> choices;
    for (const EngineOption& option : simulation.engine().options()) choices[option.name] = option.value;
    EXPECT_EQ(settings.engineOptions, choices) << engine;
    simulation.advance(settings, 2);  // and it carries on
    steps += 2;
  }
}

TEST_F(LiveSimulationTest, SwitchingEveryVariantKeepsTheStateBitForBit) {
  AppSettings settings = small();
  LiveSimulation simulation(settings);
  simulation.advance(settings, 3);
  for (const EngineOption& option : simulation.engine().options())
    for (const std::string& choice : option.choices) {
      const State before = simulation.engine().download();
      settings.engineOptions[option.name] = choice;
      const auto changes = simulation.apply(settings);
      EXPECT_FALSE(changes.sceneRegenerated);
      EXPECT_EQ(settings.engineOptions.at(option.name), choice);
      expectSameBits(before, simulation.engine().download(), option.name + "=" + choice);
      simulation.advance(settings, 1);
    }
}

TEST_F(LiveSimulationTest, SwitchingMethodOrStepParametersKeepsTheState) {
  AppSettings settings = small();
  LiveSimulation simulation(settings);
  simulation.advance(settings, 3);
  const State before = simulation.engine().download();
  settings.method = "rk4";
  settings.step.dt = 2e-3;
  settings.step.softening = 0.1;
  settings.step.gravity = 2.0;
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
  const auto choices = settings.engineOptions;
  settings.engineOptions["unroll"] = "3x7";
  EXPECT_THROW(simulation.apply(settings), UsageError);
  EXPECT_EQ(settings.engineOptions, choices);
  expectSameBits(before, simulation.engine().download(), "refused variant");
}

TEST_F(LiveSimulationTest, NewNSceneSeedOrResetStartsTheSceneOver) {
  AppSettings settings = small();
  LiveSimulation simulation(settings);
  simulation.advance(settings, 2);
  settings.bodies = 300;
  EXPECT_TRUE(simulation.apply(settings).sceneRegenerated);
  EXPECT_EQ(simulation.engine().bodyCount(), 300u);
  EXPECT_EQ(simulation.stepCount(), 0);
  expectSameBits(findScene("plummer")->generate(300, 3), simulation.engine().download(), "new N");
  settings.scene = "uniform-sphere";
  settings.seed = 9;
  EXPECT_TRUE(simulation.apply(settings).sceneRegenerated);
  simulation.advance(settings, 1);
  settings.reset = true;
  EXPECT_TRUE(simulation.apply(settings).sceneRegenerated);
  EXPECT_FALSE(settings.reset);
  expectSameBits(findScene("uniform-sphere")->generate(300, 9), simulation.engine().download(), "reset");
}

}  // namespace
}  // namespace nbody
