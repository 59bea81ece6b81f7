#pragma once
// Barnes-Hut on the GPU (engines/tree/tree_gravity.h), the GPU-engine skeleton's third user: a
// stage's force is the tree's, rebuilt from the stage positions at every evaluation and written
// into the stage's acceleration texture; the compute update pass then advances every body. The
// state stays in the shared textures, so methods, snapshots, the renderer, diagnostics and engine
// switches work unchanged; the tree's own buffers are the engine's.
// Options: theta (opening angle, any number from 0 to 1; 0 sums directly), order (1: monopoles,
// 2: quadrupoles), group-size (bodies sharing one interaction list; auto: from N and the GPU),
// leaf-size, bodies-per-thread, distribute (under mpiexec: every rank builds the whole tree and
// walks a share of it, or each rank a segment of it and advances the bodies it holds,
// tree/tree_decomposed.h; the same bits).

#include <memory>
#include <optional>

#include "engines/gpu_capacity.h"
#include "engines/gpu_engine.h"
#include "engines/tree/tree_decomposed.h"
#include "engines/tree/tree_gravity.h"
#include "engines/tree/tree_settings.h"
#include "engines/tree/tree_share.h"

namespace nbody {

class TreeEngine final : public GpuEngine {
 public:
  TreeEngine();  // needs a current OpenGL 4.3+ context with compute shaders; throws otherwise

  std::string name() const override { return "tree"; }
  // What the lists held per body (body-body plus cell interactions), times N.
  double interactionsPerForceEvaluation() override;
  std::vector<std::pair<std::string, double>> lastTimeSplit() override;
  // Above this many bodies the diagnostics take the potential through the tree: the direct pair
  // pass grows as N^2 (docs/tree-gravity.md).
  static constexpr std::size_t kDirectPotentialLimit = 65536;
  bool estimatesPotential() const override { return bodyCount() > kDirectPotentialLimit; }
  std::optional<double> potentialEnergy(const StepParams& params) override;

  // The tree's settings for `bodies` bodies: the options, with auto resolved for this GPU.
  TreeSettings settingsFor(std::size_t bodies) const;
  // Whether a distributed evaluation of `bodies` bodies decomposes the tree rather than
  // replicating it: the option; auto decomposes where one GPU cannot hold the replicated tree
  // (docs/several-gpus.md), every rank alike.
  bool decomposes(std::size_t bodies) const;

 private:
  void optionsChanged() override;
  bool holdsOwnBodies(std::size_t bodies) const override;
  void evaluateForce(const StagePass& pass) override;
  void runUpdate(const StagePass& pass) override;
  void checkLayout(std::size_t bodies, glm::ivec2 size) const override;
  double extraBytes(std::size_t bodies) const override;
  // The records the tree's arrays are sized for with `bodies` bodies: N, or a decomposed rank's.
  std::size_t arrayRecords(std::size_t bodies) const;
  void offerGroupSizesThatFit();
  // Whether a GPU of `limits` (the ranks' agreed: limitsForSharing) holds the replicated tree of
  // `bodies` bodies: the whole state in one texture, the exchange and the tree's arrays within its
  // limits, and both within nine tenths of its memory (all of it, which every GPU of a kind has
  // alike; the free memory differs between ranks).
  bool replicatedTreeFits(std::size_t bodies, const gl::Limits& limits) const;

  TreeSettings chosen_;  // the options; groupSize 0 for auto
  int multiprocessors_ = 16;
  TreeGravity gravity_;
  std::unique_ptr<tree::TreeShare> share_;            // distributed runs only
  std::unique_ptr<tree::DecomposedTree> decomposed_;  // distributed runs with distribute=decompose
  std::string distribute_ = "auto";
  // auto's last choice, for the N and limits it was made for: asked at every stage, it throws and
  // catches where the replicated tree does not fit.
  struct AutoChoice {
    std::size_t bodies = 0;
    SharingLimits limits;
    bool decomposes = false;
  };
  mutable std::optional<AutoChoice> autoChoice_;
  // Interactions per body in the lists, read once after a change of options: they change slowly as
  // the bodies move, and reading them waits for the GPU.
  std::optional<double> interactionsPerBody_;
};

}  // namespace nbody
