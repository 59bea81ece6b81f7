#include "app/run/collision_watch.h"

#include <map>

#include <CLI/CLI.hpp>

#include "app/run/run_options.h"
#include "io/csv.h"

namespace nbody {

void addCollisionOptions(CLI::App& command, CollisionSettings& settings) {
  const std::map<std::string, CollisionMode> modes{{"merge", CollisionMode::merge},
                                                   {"halt", CollisionMode::halt}};
  CLI::Option* mode = command.add_option(
      "--collisions", settings.mode,
      "what bodies that touch (overlap and approach) at a step boundary do: merge "
      "(into the heaviest; mass, momentum and centre of mass kept) or halt (the run "
      "ends at that step, exit status 3); off without it. Needs --radius or --density");
  mode->transform(CLI::CheckedTransformer(modes, CLI::ignore_case));
  CLI::Option* radius = addNumberOption(command, "--radius", settings.radius,
                                        "every body's radius, for --collisions", positive());
  CLI::Option* density =
      addNumberOption(command, "--density", settings.density,
                      "radius from mass, (3 m / (4 pi RHO))^(1/3), for --collisions: merged "
                      "bodies keep the volume",
                      positive());
  radius->excludes(density)->needs(mode);
  density->needs(mode);
}

void checkCollisionSettings(const CollisionSettings& settings) {
  if (settings.enabled() && !(settings.radius > 0.0) && !(settings.density > 0.0))
    throw UsageError("--collisions needs the bodies' size: --radius R or --density RHO");
}

namespace {

// The engine's bodies in double: its own where it keeps them so, else its float32 state's.
DoubleState bodiesInDouble(Engine& engine, const State& state) {
  if (const auto doubles = engine.doubleState()) return copyOf(*doubles);
  DoubleState bodies;
  for (std::size_t i = 0; i < state.size(); ++i) {
    bodies.mass.push_back(state.positionMass[i].w);
    bodies.position.emplace_back(state.positionMass[i]);
    bodies.velocity.emplace_back(state.velocity[i]);
  }
  return bodies;
}

std::string mergerLine(const Merger& merger, long long step, double time) {
  std::string line = "step " + std::to_string(step) + " (t = " + formatDouble(time) + "): bodies";
  for (std::size_t k = 0; k < merger.ids.size(); ++k)
    line += (k ? ", " : " ") + std::to_string(merger.ids[k]) + " (m " +
            formatDouble(merger.masses[k]) + ")";
  return line + " merged into " + std::to_string(merger.survivor) + " (m " +
         formatDouble(merger.mass) + "), energy change " + formatDouble(merger.energyChange);
}

// The merged bodies into the engine: float32 where it keeps float32 (the others' bits unchanged),
// doubles where it keeps doubles.
void loadMerged(Engine& engine, State& state, const DoubleState& bodies) {
  for (std::size_t i = 0; i < state.size(); ++i) {
    state.positionMass[i] = glm::vec4(glm::vec3(bodies.position[i]), float(bodies.mass[i]));
    state.velocity[i] = glm::vec4(glm::vec3(bodies.velocity[i]), state.velocity[i].w);
  }
  engine.uploadWithDoubles(state, engine.doubleState() ? std::optional(bodies) : std::nullopt);
}

}  // namespace

std::optional<CollisionHalt> CollisionWatch::check(Engine& engine, const StepParams& params,
                                                   long long step, double time) {
  State state = engine.download();
  completeIdentity(state);  // IDs 1..N where the state has none
  DoubleState bodies = bodiesInDouble(engine, state);
  const std::vector<std::uint64_t>& ids = state.id;
  if (settings_.mode == CollisionMode::halt) {
    const auto contact = firstContact(bodies.view(), settings_);
    if (!contact) return std::nullopt;
    return CollisionHalt{step, contactText(*contact, ids) + " touch at step " +
                                   std::to_string(step) + " (t = " + formatDouble(time) + ")"};
  }
  const auto merged = mergeTouching({bodies.mass, bodies.position, bodies.velocity, ids}, settings_,
                                    params.gravity, params.softening);
  if (merged.empty()) return std::nullopt;
  loadMerged(engine, state, bodies);
  mergers_ += (long long)merged.size();
  if (onMerger)
    for (const Merger& merger : merged) onMerger(mergerLine(merger, step, time));
  return std::nullopt;
}

}  // namespace nbody
