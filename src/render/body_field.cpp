#include "render/body_field.h"

#include "engines/tree/tree_settings.h"
#include "gl/desktop_calls.h"
#include "gl/limits.h"
#include "gl/texture_rows.h"

namespace nbody {
namespace {

gl::Texture makeFieldTexture(glm::ivec2 size) {
  gl::Texture texture = gl::nearestTexture(GL_TEXTURE_2D_ARRAY, GL_RGBA32F, {size.x, size.y, 1});
  gl::clearTexture(texture.id(), GL_TEXTURE_2D_ARRAY, {size.x, size.y, 1});
  return texture;
}

}  // namespace

bool needsBodyField(ColorBy colorBy) { return bodyFieldOf(colorBy) != BodyFieldKind::none; }

BodyField::BodyField() = default;
BodyField::~BodyField() = default;
BodyField::BodyField(BodyField&&) noexcept = default;
BodyField& BodyField::operator=(BodyField&&) noexcept = default;

void BodyField::measure(const GpuStateView& bodies, ColorBy colorBy, const StepParams& params) {
  if (!needsBodyField(colorBy) || bodies.bodyCount == 0) return;
  if (!tree_) tree_ = std::make_unique<TreeGravity>();
  if (bodies.size != size_) {
    texture_ = makeFieldTexture(bodies.size);
    size_ = bodies.size;
  }
  bodyCount_ = bodies.bodyCount;
  const int multiprocessors = gl::limits().multiprocessors > 0 ? gl::limits().multiprocessors : 16;
  const TreeSettings settings = resolveTreeSettings(bodies.bodyCount, multiprocessors);
  if (bodyFieldOf(colorBy) == BodyFieldKind::potential)
    tree_->bodyPotentials(bodies.positionMassTexture, bodies.size, bodies.bodyCount, params,
                          settings, texture_.id());
  else
    tree_->bodyDensities(bodies.positionMassTexture, bodies.size, bodies.bodyCount, settings,
                         texture_.id());
  glUseProgram(0);
}

GpuStateView BodyField::attachedTo(GpuStateView bodies) const {
  if (texture_.id() && bodies.size == size_) bodies.fieldTexture = texture_.id();
  return bodies;
}

std::vector<float> BodyField::values() const {
  if (bodyCount_ == 0) return {};
  std::vector<float> texels(std::size_t(size_.x) * std::size_t(size_.y) * 4);
  gl::memoryBarrier(gl::barrier::textureUpdate);
  gl::readTextureRows(texture_.id(), {{size_.x, size_.y, 1}, GL_RGBA, GL_FLOAT, 16}, texels.data());
  std::vector<float> values(bodyCount_);
  for (std::size_t i = 0; i < bodyCount_; ++i) values[i] = texels[4 * i];
  return values;
}

}  // namespace nbody
