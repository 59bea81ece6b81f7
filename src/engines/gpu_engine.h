#pragma once
// The skeleton every GPU engine is built on. It owns the state (StageTextures: the layout every
// GPU engine shares, so the renderer, readback, diagnostics and an engine switch need no
// conversion), the cache of compiled stage kernels, the step loop over a method's stages with the
// force a first-same-as-last method reuses, upload and download, the engine's options with their
// rollback, and the capacity checks. A concrete engine supplies only its passes and its layout:
//   - evaluateForce(pass): stage pass.stage's acceleration at the stage positions, where its
//     runUpdate will read it;
//   - runUpdate(pass): advances every body by the tableau from the accelerations (pass.force says
//     whether this stage's was just evaluated, is the last step's, or the stage is force-free);
//   - runFusedStage(pass): force and update in one pass, where the engine has one for its layout;
//   - optionsChanged(), accelerationLayout(), checkLayout(), extraBytes(): its typed options and
//     what they ask of the GPU;
//   - shareGranule(): in a distributed run (parallel/ranks.h), the unit in which the ranks share
//     the bodies: each rank's passes then compute only ownBodies() and the skeleton exchanges the
//     stage's positions (and, after the last stage, velocities) so that every rank holds the whole
//     state; 0 for an engine that shares its force work itself (a tree, by groups) and updates
//     every body on every rank;
//   - holdsOwnBodies(): in a distributed run, each rank holds and advances only its bodies
//     (HeldBodies, laid out anew by the engine's force), and the skeleton gathers the whole state
//     after each call of step(), so that outputs, pictures and diagnostics read it as ever.

#include <memory>
#include <optional>
#include <string_view>

#include "engines/engine.h"
#include "engines/held_bodies.h"
#include "engines/rank_exchange.h"
#include "engines/reused_force.h"
#include "engines/stage_kernel.h"
#include "engines/stage_textures.h"
#include "gl/limits.h"
#include "gl/storage_words.h"

namespace nbody {

// One stage of one step, as an engine's passes see it.
struct StagePass {
  const Method& method;
  const StepParams& params;
  int stage;
  StageForce force;  // evaluated by this stage's passes, reused from the last step, or none
  bool storesForce;  // an evaluated force must be stored in the stage's acceleration texture

  int stageCount() const { return method.stageCount(); }
  // Accelerations an update reads from the stage textures: the earlier stages' and, unless the
  // stage is force-free, its own.
  int storedAccelerations() const { return stage + (force == StageForce::none ? 0 : 1); }
};

class GpuEngine : public Engine {
 public:
  // The shader storage binding of the contact screen's flags (shaders/gravity.glsl).
  static constexpr GLuint kContactFlagsBinding = 20;

  std::string device() const override;
  bool runsOnGl() const override { return true; }
  void upload(const State& state) override;
  void uploadPart(const StatePart& part, std::size_t total) override;
  State download() override;
  StatePart downloadPart() override;
  std::size_t bodyCount() const override { return bodyCount_; }
  void checkCapacity(std::size_t bodies) const override;
  void step(const Method& method, const StepParams& params, int steps = 1) override;
  void finish() override;
  void deferGathering(bool deferred) override;
  bool gatheringDeferred() const override { return gatherDeferred_; }
  bool holdsParts(std::size_t bodies) const override { return holdsOwnBodies(bodies); }
  std::vector<EngineOption> options() const override { return options_; }
  // A change that gives a layout the GPU cannot run with the state loaded is a UsageError that
  // changes nothing.
  void setOption(const std::string& name, const std::string& value) override;
  std::optional<GpuStateView> gpuState() const override;
  // One force evaluation of the current state, stored and read back (the state is unchanged).
  std::vector<glm::dvec3> currentAccelerations(const StepParams& params) override;
  std::vector<glm::dvec3> currentAccelerationsOf(const StepParams& params,
                                                 std::span<const std::uint32_t> ids) override;
  HeldBodies* heldParts() override { return held_.get(); }
  std::optional<RankExchange::Times> exchangeTimes() const override;
  void clearExchangeTimes() override;
  bool screenContacts(const std::optional<ContactScreenPass>& bodies) override;
  std::vector<ContactScreen> contactScreens() override;
  // The words behind them: at each boundary, how many bodies counted another (a body whose
  // partners lie in several slices of the j-loop, once for each, and again in a walk that the
  // tree's ring tuner repeats; in a distributed run, the most of any rank). Waits for the GPU.
  std::vector<std::int64_t> contactCounts();
  ContactScreen screenCurrentState(const StepParams& params) override;
  void keepState() override;
  void restoreKeptState() override;

 protected:
  // How the stage accelerations are laid out (stage_textures.h): layers, and partial sums.
  struct AccelerationLayout {
    int layers = 1, slices = 1;
  };

  // `options`: what the engine offers, at their defaults. The concrete engine's constructor calls
  // optionsChanged() once (a base constructor cannot reach the override).
  explicit GpuEngine(std::vector<EngineOption> options);

  virtual void evaluateForce(const StagePass& pass) = 0;
  virtual void runUpdate(const StagePass& pass) = 0;
  virtual bool runFusedStage(const StagePass&) { return false; }
  // Parses the options' text into the engine's typed members, after every change.
  virtual void optionsChanged() = 0;
  virtual AccelerationLayout accelerationLayout() const { return {}; }
  // Throws std::runtime_error naming the option to change, where the GPU cannot run the current
  // options for `bodies` bodies in state textures of `size` (work-group counts, buffer sizes).
  virtual void checkLayout(std::size_t /*bodies*/, glm::ivec2 /*size*/) const {}
  // GPU memory the engine needs for `bodies` bodies besides the stage textures.
  virtual double extraBytes(std::size_t /*bodies*/) const { return 0.0; }
  // Before a call's steps: GL state and buffers the passes rely on.
  virtual void beginSteps() {}
  // The stage textures were allocated anew (e.g. framebuffers that name them are stale).
  virtual void texturesReallocated() {}
  // Bodies per unit of a rank's share, for an engine whose passes compute a range of bodies; 0:
  // the engine shares its force work itself (ranks()).
  virtual std::size_t shareGranule() const { return 0; }

  // In a distributed run of `bodies` bodies, whether each rank's passes run on the bodies it holds
  // (heldBodies()).
  virtual bool holdsOwnBodies(std::size_t /*bodies*/) const { return false; }
  HeldBodies* heldBodies() { return held_.get(); }
  // How many bodies the passes advance: those this rank holds, else every body.
  std::size_t workingCount() const { return held_ ? held_->count() : bodyCount_; }

  // In a distributed run of an engine that shares by bodies: the bodies this rank's passes
  // compute (texture order, padding included); nothing: every body.
  std::optional<BodyRange> ownBodies() const;
  // The exchange of a distributed run (nothing in a single process), for an engine that shares
  // its work itself.
  RankExchange* exchange() { return exchange_.get(); }

  const EngineOption& option(std::string_view name) const;
  // For an engine that offers fewer choices on a smaller GPU (set in its constructor).
  EngineOption& mutableOption(std::string_view name);
  // What the passes run on: the held bodies' textures where this rank holds its own, else every
  // body's.
  const StageTextures& textures() const { return held_ ? held_->textures() : textures_; }
  StageKernelCache& kernels() { return kernels_; }
  std::size_t paddedCount() const { return textures_.texelCount(); }

 private:
  void runStage(const StagePass& pass);
  // In a distributed run: what the stage wrote for this rank's bodies, to every rank.
  void exchangeStage(const StagePass& pass);
  std::vector<BodyRange> bodyShares() const;
  EngineOption* findOption(std::string_view name);
  // Before and after a call's passes: the acceleration layout, engine state and bindings.
  void beginPasses();
  void endPasses();
  std::vector<glm::dvec3> readAccelerations(int stage) const;
  // One force evaluation of the current state into the first stage's acceleration (the state is
  // unchanged; the reused force is forgotten).
  void evaluateCurrentForce(const StepParams& params);
  // Contact screening: the flags of a call of `steps` steps cleared, and the stage's parameters
  // with the boundary it screens, if any (stage 0 evaluated: the step's start; the last stage of
  // an FSAL method: its end).
  void beginContactScreens(int steps);
  void screenBoundary(const Method& method, int stage, int step, StepParams& stageParams);
  // What a change of options must still fit once a state is loaded: the stacked accelerations
  // and the engine's layout (not memory: the loaded state's textures already take theirs).
  void checkFits(std::size_t bodies, glm::ivec2 size) const;
  // An upload's start: checks `bodies` fit, forgets what the last state held, and returns the
  // whole state's texture size.
  glm::ivec2 replaceState(std::size_t bodies);
  // The whole state's texture size for `bodies`: none ({0, 0}) where it would fit no texture of
  // this GPU and the ranks keep their bodies apart (`apart`: held, gathering deferred), so that
  // nothing ever makes it; else StageTextures::sizeFor's, refused past the largest texture.
  glm::ivec2 wholeSizeFor(std::size_t bodies, bool apart) const;
  bool keptApart(std::size_t bodies) const { return holdsOwnBodies(bodies) && gatherDeferred_; }

  // Where the passes run (textures()), mutable.
  StageTextures& working() { return held_ ? held_->textures() : textures_; }
  // Makes or drops the held bodies as holdsOwnBodies() says.
  void holdAsAsked();
  // Every rank's held bodies into textures_ (a collective), now or when no longer deferred.
  void gatherHeld();
  // While gathering is deferred, the whole state's textures are freed (gatherHeld makes them).
  void releaseWholeState();
  void checkGathered() const;

  std::vector<EngineOption> options_;
  StageTextures textures_;  // every body (in a run whose ranks hold their own: gathered)
  std::unique_ptr<HeldBodies> held_;
  bool gatherDeferred_ = false, ungathered_ = false;  // deferGathering's
  StageKernelCache kernels_;
  ReusedForce reusedForce_;
  std::size_t bodyCount_ = 0;
  std::unique_ptr<RankExchange> exchange_;  // distributed runs only
  // The bodies' IDs as uploaded: the state textures keep the bodies in upload order (an engine
  // that reorders, the tree, sorts copies of its own), so download() returns them as they came.
  // The components travel in the textures (stage_textures.h).
  std::vector<std::uint64_t> ids_;
  std::optional<ContactScreenPass> screen_;
  gl::StorageWords contactFlags_;  // a word for each boundary of the last step() call
  std::vector<bool> screened_;     // which boundaries a pass screened
};

}  // namespace nbody
