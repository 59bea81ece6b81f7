#include "engines/tree_engine.h"

#include "engines/compute_passes.h"
#include "gl/limits.h"
#include "parallel/ranks.h"

namespace nbody {
namespace {

std::string openingName(TreeSettings::Opening opening) {
  return opening == TreeSettings::Opening::relative ? "relative" : "geometric";
}

std::vector<std::string> numbers(std::initializer_list<int> values) {
  std::vector<std::string> text;
  for (int value : values) text.push_back(std::to_string(value));
  return text;
}

}  // namespace

TreeEngine::TreeEngine()
    : GpuEngine(
          {{"theta",
            "opening angle: a cell is used whole only when the group is farther than its size / "
            "theta "
            "(smaller: more accurate, slower; 0: every cell opened, direct summation); with the "
            "relative opening a bound, the accuracy deciding",
            {"0", "0.3", "0.35", "0.4", "0.43", "0.5", "0.6", "0.7", "0.8", "0.9", "1"},
            formatNumber(TreeSettings{}.theta),
            EngineOption::Range{0.0, 1.0}},
           {"opening",
            "geometric: theta alone (set theta too: 0.43 keeps the median error near 2e-4); "
            "relative: also opened where a cell's error would exceed accuracy x the "
            "acceleration of the group's bodies",
            {"geometric", "relative"},
            openingName(TreeSettings{}.opening)},
           {"accuracy",
            "relative opening: the largest error a cell may leave, as a fraction of |a|",
            {"0.0002", "0.0005", "0.00065", "0.001", "0.002", "0.005"},
            formatNumber(TreeSettings{}.accuracy),
            EngineOption::Range{1e-5, 0.1}},
           {"order",
            "expansion order of the cells: 1 monopoles, 2 quadrupoles",
            {"1", "2"},
            std::to_string(TreeSettings{}.expansionOrder)},
           {"group-size",
            "bodies that share one interaction list (auto: from N and the GPU)",
            {"auto", "16", "32", "64", "128", "256"},
            "auto"},
           {"leaf-size", "an opened cell of at most this many bodies gives its bodies to the list",
            numbers({1, 2, 4, 8, 16, 32, 64}), std::to_string(TreeSettings{}.leafSize)},
           {"bodies-per-thread",
            "bodies each walk invocation evaluates: each list entry read serves them all",
            {"1", "2"},
            std::to_string(TreeSettings{}.bodiesPerThread)},
           {"distribute",
            "under mpiexec: replicate (every rank builds the whole tree, walks a share) or "
            "decompose (each rank sorts, builds and walks a segment of it and exchanges local "
            "essential trees); the same bits; auto: decompose where one GPU cannot hold the "
            "replicated tree, else replicate (faster wherever measured)",
            {"auto", "replicate", "decompose"},
            "auto"}}) {
  multiprocessors_ = gl::limits().multiprocessors > 0 ? gl::limits().multiprocessors : 16;
  optionsChanged();
  offerGroupSizesThatFit();
}

// Groups whose walk needs more shared memory than this GPU has (256 bodies on the 32 KB OpenGL
// promises) are not offered: every choice the panel and `bench --sweep` show must run.
void TreeEngine::offerGroupSizesThatFit() {
  EngineOption& groupSize = mutableOption("group-size");
  std::erase_if(groupSize.choices, [&](const std::string& choice) {
    if (choice == "auto") return false;
    TreeSettings settings = settingsFor(1);
    settings.groupSize = std::stoi(choice);
    try {
      gravity_.checkCapacity(1, settings);
      return false;
    } catch (const std::exception&) {
      return true;
    }
  });
}

void TreeEngine::optionsChanged() {
  chosen_.theta = numberChoice(option("theta"));
  chosen_.opening = option("opening").value == openingName(TreeSettings::Opening::relative)
                        ? TreeSettings::Opening::relative
                        : TreeSettings::Opening::geometric;
  chosen_.accuracy = numberChoice(option("accuracy"));
  chosen_.expansionOrder = integerChoice(option("order"));
  chosen_.groupSize = integerOrAuto(option("group-size")).value_or(0);
  chosen_.leafSize = integerChoice(option("leaf-size"));
  chosen_.bodiesPerThread = integerChoice(option("bodies-per-thread"));
  distribute_ = option("distribute").value;
  interactionsPerBody_.reset();
}

TreeSettings TreeEngine::settingsFor(std::size_t bodies) const {
  TreeSettings settings = resolveTreeSettings(bodies, multiprocessors_);
  settings.theta = chosen_.theta;
  settings.opening = chosen_.opening;
  settings.accuracy = chosen_.accuracy;
  settings.expansionOrder = chosen_.expansionOrder;
  if (chosen_.groupSize > 0) settings.groupSize = chosen_.groupSize;
  settings.leafSize = chosen_.leafSize;
  settings.bodiesPerThread = chosen_.bodiesPerThread;
  return settings;
}

bool TreeEngine::decomposes(std::size_t bodies) const {
  if (bodies < 2 || distribute_ == "replicate") return false;
  if (distribute_ == "decompose") return true;
  const SharingLimits limits = sharingLimits();
  if (!autoChoice_ || autoChoice_->bodies != bodies || !(autoChoice_->limits == limits))
    autoChoice_ = AutoChoice{bodies, limits, !replicatedTreeFits(bodies, limitsForSharing())};
  return autoChoice_->decomposes;
}

bool TreeEngine::replicatedTreeFits(std::size_t bodies, const gl::Limits& limits) const {
  if (!StageTextures::fits(bodies, limits.maxTextureSize)) return false;
  try {
    tree::TreeShare::checkFits(bodies, limits);
    tree::checkArraysFit(bodies, tree::arrayLimitsOf(limits));
  } catch (const std::runtime_error&) {  // past a limit of the GPU
    return false;
  }
  const glm::ivec2 size = StageTextures::sizeFor(bodies, limits.maxTextureSize);
  return limits.memoryBytes <= 0.0 || oneStageTextureBytes(size, accelerationLayout().slices) +
                                              double(TreeGravity::bytesFor(bodies)) <=
                                          0.9 * limits.memoryBytes;
}

bool TreeEngine::holdsOwnBodies(std::size_t bodies) const {
  return ranks().distributed() && decomposes(bodies);
}

// Distributed, each rank walks its share of the groups and the ranks exchange what they walked
// (tree/tree_share.h), the update then advancing every body on every rank; or each rank walks its
// segment of a decomposed tree and advances the bodies it holds (its walker's).
void TreeEngine::evaluateForce(const StagePass& pass) {
  const TreeSettings settings = settingsFor(bodyCount());
  const GLuint acceleration = textures().acceleration(pass.stage);
  if (!exchange()) {
    gravity_.evaluate(textures().stagePositionMass(pass.stage), textures().size(), bodyCount(),
                      pass.params, settings, acceleration);
    return;
  }
  if (decomposes(bodyCount())) {
    if (!decomposed_) decomposed_ = std::make_unique<tree::DecomposedTree>(ranks());
    decomposed_->evaluate(*heldBodies(), pass.stage, bodyCount(), pass.params, settings,
                          *exchange());
    return;
  }
  if (!share_) share_ = std::make_unique<tree::TreeShare>();
  const TreeGravity::GroupRange groups =
      share_->groupsOf(bodyCount(), std::size_t(settings.groupSize));
  share_->beginExchange(gravity_, acceleration, bodyCount(), std::size_t(settings.groupSize),
                        *exchange());
  gravity_.evaluate(textures().stagePositionMass(pass.stage), textures().size(), bodyCount(),
                    pass.params, settings, acceleration, groups, share_->walkParts(gl::limits()));
  share_->finishExchange();
}

void TreeEngine::runUpdate(const StagePass& pass) {
  runComputeUpdate(kernels(), textures(), pass, workingCount());
}

void TreeEngine::checkLayout(std::size_t bodies, glm::ivec2) const {
  if (ranks().distributed() && !decomposes(bodies))
    tree::TreeShare::checkFits(bodies, gl::limits());
  if (holdsOwnBodies(bodies)) tree::DecomposedTree::checkFits(bodies, ranks().count());
  try {
    // A decomposed rank's arrays hold its walker's records, not N.
    gravity_.checkCapacity(arrayRecords(bodies), settingsFor(bodies));
  } catch (const std::invalid_argument& e) {  // settings the tree refuses: the option's fault
    throw std::runtime_error(e.what());
  }
}

std::size_t TreeEngine::arrayRecords(std::size_t bodies) const {
  if (!holdsOwnBodies(bodies)) return bodies;
  return tree::DecomposedTree::plannedRecords(bodies, ranks().count());
}

double TreeEngine::extraBytes(std::size_t bodies) const {
  // A decomposed rank's arrays, and its tables by ID (the migration's, the held IDs: 8 bytes a
  // body).
  const double tables = holdsOwnBodies(bodies) ? 8.0 * double(bodies) : 0.0;
  return double(TreeGravity::bytesFor(arrayRecords(bodies))) + tables;
}

double TreeEngine::interactionsPerForceEvaluation() {
  if (holdsOwnBodies(bodyCount()))  // the last evaluation's, across the ranks (none yet: 0)
    return decomposed_ ? double(decomposed_->lastInteractions()) : 0.0;
  if (share_ && !share_->counts().empty())
    return share_->interactions(bodyCount(), std::size_t(settingsFor(bodyCount()).groupSize));
  if (!interactionsPerBody_) {
    const TreeGravity::ListStatistics lists = gravity_.listStatistics();  // of the last evaluation
    if (lists.groups == 0) return 0.0;                                    // none yet
    interactionsPerBody_ = lists.bodyInteractionsPerBody + lists.cellInteractionsPerBody;
  }
  return *interactionsPerBody_ * double(bodyCount());
}

std::vector<std::pair<std::string, double>> TreeEngine::lastTimeSplit() {
  if (decomposed_ && holdsOwnBodies(bodyCount()))
    return decomposed_->lastTimeSplit().value_or(std::vector<std::pair<std::string, double>>{});
  const auto split = gravity_.lastTimeSplit();
  if (!split) return {};
  std::vector<std::pair<std::string, double>> parts{{"tree build", split->build},
                                                    {"moments", split->moments}};
  if (opensRelative(settingsFor(bodyCount()))) parts.emplace_back("estimate", split->estimate);
  parts.emplace_back("walk", split->walk);
  return parts;
}

std::optional<double> TreeEngine::potentialEnergy(const StepParams& params) {
  const GpuStateView state = *gpuState();
  return gravity_.potentialEnergy(state.positionMassTexture, state.size, state.bodyCount, params,
                                  settingsFor(state.bodyCount));
}

}  // namespace nbody
