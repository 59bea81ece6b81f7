#pragma once
// The state of an engine that keeps it off the GPU (the CPU engine), uploaded into the textures the
// GPU engines use (StageTextures), so the renderer draws every engine the same way.

#include "engines/engine.h"
#include "engines/stage_textures.h"
#include "physics/state.h"

namespace nbody {

class UploadedStateTextures {
 public:
  UploadedStateTextures() = default;  // upload() needs a current OpenGL context
  void upload(const State& state);
  GpuStateView view() const { return textures_.view(bodyCount_); }

 private:
  StageTextures textures_;
  std::size_t bodyCount_ = 0;
};

// The engine's own textures when it has them; otherwise its downloaded state, uploaded into
// `storage`.
GpuStateView gpuStateOf(Engine& engine, UploadedStateTextures& storage);
// Where the ranks hold parts of the state (Engine::heldParts): this rank's own bodies, in place.
GpuStateView ownBodiesOf(Engine& engine);

}  // namespace nbody
