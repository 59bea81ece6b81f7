#include "render/state_textures.h"

#include <stdexcept>

#include "engines/held_bodies.h"
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

GpuStateView ownBodiesOf(Engine& engine) {
  HeldBodies* held = engine.heldParts();
  if (!held) throw std::logic_error("the ranks hold no parts of the state: no own bodies to draw");
  return held->textures().view(held->count());
}

}  // namespace nbody
