#include "render/state_textures.h"

#include <algorithm>

#include "engines/fragment_engine.h"

namespace nbody {
namespace {

gl::Texture makeTexture(glm::ivec2 size, const std::vector<glm::vec4>& texels) {
  gl::Texture texture = gl::Texture::create();
  glTextureStorage2D(texture.id(), 1, GL_RGBA32F, size.x, size.y);
  glTextureParameteri(texture.id(), GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTextureParameteri(texture.id(), GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTextureSubImage2D(texture.id(), 0, 0, 0, size.x, size.y, GL_RGBA, GL_FLOAT, texels.data());
  return texture;
}

}  // namespace

void UploadedStateTextures::upload(const State& state) {
  GLint largest = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &largest);
  // The same layout as the fragment engine's: padding texels are massless bodies at the origin.
  size_ = FragmentEngine::textureSizeFor(state.size(), largest);
  bodyCount_ = state.size();
  const std::size_t texels = std::size_t(size_.x) * std::size_t(size_.y);
  std::vector<glm::vec4> positionMass(texels, glm::vec4(0.0f)), velocity(texels, glm::vec4(0.0f));
  std::copy(state.positionMass.begin(), state.positionMass.end(), positionMass.begin());
  std::copy(state.velocity.begin(), state.velocity.end(), velocity.begin());
  positionMass_ = makeTexture(size_, positionMass);
  velocity_ = makeTexture(size_, velocity);
}

GpuStateView UploadedStateTextures::view() const {
  return GpuStateView{positionMass_.id(), velocity_.id(), size_, bodyCount_};
}

GpuStateView gpuStateOf(Engine& engine, UploadedStateTextures& storage) {
  if (auto view = engine.gpuState()) return *view;
  storage.upload(engine.download());
  return storage.view();
}

}  // namespace nbody
