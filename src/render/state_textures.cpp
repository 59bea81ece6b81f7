#include "render/state_textures.h"

namespace nbody {

void UploadedStateTextures::upload(const State& state) {
  GLint largest = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &largest);
  textures_.allocate(StageTextures::sizeFor(state.size(), largest));
  textures_.upload(state);
  bodyCount_ = state.size();
}

GpuStateView gpuStateOf(Engine& engine, UploadedStateTextures& storage) {
  if (auto view = engine.gpuState()) return *view;
  storage.upload(engine.download());
  return storage.view();
}

}  // namespace nbody
