#include "render/state_textures.h"

#include "gl/limits.h"

namespace nbody {

void UploadedStateTextures::upload(const State& state) {
  textures_.allocate(StageTextures::sizeFor(state.size(), gl::limits().maxTextureSize));
  textures_.upload(state);
  bodyCount_ = state.size();
}

GpuStateView gpuStateOf(Engine& engine, UploadedStateTextures& storage) {
  if (auto view = engine.gpuState()) return *view;
  storage.upload(engine.download());
  return storage.view();
}

}  // namespace nbody
