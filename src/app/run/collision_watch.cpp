#include "app/run/collision_watch.h"

#include <map>

#include <CLI/CLI.hpp>

#include "app/run/run_options.h"
#include "io/csv.h"
#include "util/printable_text.h"

namespace nbody {

void addCollisionOptions(CLI::App& command, CollisionSettings& settings, bool mergeOnly) {
  std::map<std::string, CollisionMode> modes{{"merge", CollisionMode::merge}};
  if (!mergeOnly) modes.emplace("halt", CollisionMode::halt);
  CLI::Option* mode = command.add_option(
      "--collisions", settings.mode,
      mergeOnly ? "merge: time the steps with bodies that touch (overlap and approach) at a step "
                  "boundary merged, as simulate makes them; off without it. Needs --radius or "
                  "--density"
                : "what bodies that touch (overlap and approach) at a step boundary do: merge "
                  "(into the heaviest; mass, momentum and centre of mass kept) or halt (the run "
                  "ends at that step, exit status 3); off without it. Needs --radius, --density "
                  "or an input with each body's radius (a CSV radius column; .nbody, GADGET "
                  "HDF5)");
  const std::string names = mergeOnly ? "merge (bench times no halt)" : "merge, halt";
  mode->transform(CLI::Validator(
      [modes, names](std::string& name) {  // the name becomes the number CLI11 stores
        const auto found = modes.find(CLI::detail::to_lower(name));
        if (found == modes.end()) return printable(name, 40) + " is not one of " + names;
        name = std::to_string(int(found->second));
        return std::string();
      },
      mergeOnly ? "merge" : "merge|halt"));
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
  if (settings.enabled() && !settings.sizedByOptions() && settings.radii.empty())
    throw UsageError(
        "--collisions needs the bodies' size: --radius R, --density RHO, or an input with a "
        "radius for each body (a CSV radius column; .nbody and GADGET HDF5 files keep them)");
}

CollisionSettings withInputRadii(CollisionSettings settings, const Snapshot& input) {
  if (settings.enabled() && !settings.sizedByOptions() && input.radii)
    settings.radii = *input.radii;
  return settings;
}

std::string collisionsText(const CollisionSettings& settings) {
  if (!settings.enabled()) return "";
  const std::string mode = settings.mode == CollisionMode::merge ? "merge" : "halt";
  if (settings.radius > 0.0) return mode + ", radius " + formatDouble(settings.radius);
  if (settings.density > 0.0) return mode + ", density " + formatDouble(settings.density);
  return mode + ", radii from the input";
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

CollisionWatch::CollisionWatch(const CollisionSettings& settings, Engine& engine, TimeAt timeAt,
                               bool screen)
    : settings_(settings), engine_(engine), timeAt_(std::move(timeAt)) {
  screens_ = screen && engine_.screenContacts(settings_.screenedBodies());
}

CollisionWatch::~CollisionWatch() {
  if (screens_) engine_.screenContacts(std::nullopt);
}

std::optional<CollisionHalt> CollisionWatch::look(const StepParams& params, long long step) {
  lastUnscreened_ = false;
  if (screens_ && engine_.screenCurrentState(params) == ContactScreen::clear) return std::nullopt;
  return check(params, step);
}

std::optional<CollisionHalt> CollisionWatch::advance(const Method& method, StepParams& params,
                                                     long long from, long long steps) {
  if (!screens_) return advanceOnHost(method, params, from, steps);
  for (long long done = 0; done < steps;) {
    const long long window = std::min(window_, steps - done);
    engine_.keepState();
    engine_.step(method, params, int(window));
    const std::vector<ContactScreen> screens = engine_.contactScreens();
    const std::optional<long long> first = firstToLook(screens);
    if (!first) {
      params.stepsDone += window;
      done += window;
      lastUnscreened_ = screens.back() == ContactScreen::unscreened;
      window_ = std::min(2 * window_, kLongestWindow);
      continue;
    }
    if (*first < window) {  // back to the kept state, and up to that boundary again (same bits)
      engine_.restoreKeptState();
      if (*first > 0) engine_.step(method, params, int(*first));
    }
    params.stepsDone += *first;
    done += *first;
    window_ = 1;
    lastUnscreened_ = false;
    if (auto halt = check(params, from + done)) return halt;
  }
  if (lastUnscreened_) return look(params, from + steps);
  return std::nullopt;
}

std::optional<long long> CollisionWatch::firstToLook(
    const std::vector<ContactScreen>& screens) const {
  const long long end = (long long)screens.size() - 1;
  for (long long b = lastUnscreened_ ? 0 : 1; b <= end; ++b) {
    const ContactScreen screen = screens[std::size_t(b)];
    if (screen == ContactScreen::possible || (screen == ContactScreen::unscreened && b < end))
      return b;
  }
  return std::nullopt;
}

std::optional<CollisionHalt> CollisionWatch::advanceOnHost(const Method& method, StepParams& params,
                                                           long long from, long long steps) {
  for (long long k = 1; k <= steps; ++k) {
    engine_.step(method, params, 1);
    params.stepsDone += 1;
    if (auto halt = check(params, from + k)) return halt;
  }
  return std::nullopt;
}

std::optional<CollisionHalt> CollisionWatch::check(const StepParams& params, long long step) {
  Engine& engine = engine_;
  const double time = timeAt_(step);
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
  std::vector<double>* radii = settings_.radii.empty() ? nullptr : &settings_.radii;
  // Merged until no two bodies touch: a survivor may reach bodies none of its members touched, and
  // a run resumed from this boundary's snapshot, which looks here again, must find nothing more.
  std::vector<Merger> merged;
  for (;;) {
    const auto round = mergeTouching({bodies.mass, bodies.position, bodies.velocity, ids, radii},
                                     settings_, params.gravity, params.softening);
    if (round.empty()) break;
    merged.insert(merged.end(), round.begin(), round.end());
  }
  if (merged.empty()) return std::nullopt;
  loadMerged(engine, state, bodies);
  if (screens_ && radii) engine.screenContacts(settings_.screenedBodies());  // a larger body
  mergers_ += (long long)merged.size();
  if (onMerger)
    for (const Merger& merger : merged) onMerger(mergerLine(merger, step, time));
  return std::nullopt;
}

}  // namespace nbody
