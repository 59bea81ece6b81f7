#include "render/camera.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <glm/geometric.hpp>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/trigonometric.hpp>

#include "render/mass_centre.h"
#include "util/std_compat.h"

namespace nbody {
namespace {

constexpr float kFitMargin = 1.05f;          // the sprites at the rim have a size too
constexpr float kNearPlaneFraction = 1e-3f;  // of the distance: bodies nearer than this are cut

}  // namespace

BoundingSphere boundingSphere(const State& bodies, const Ranks& ranks) {
  const MassCentre found = massCentreOf(bodies, ranks);
  if (found.bodies == 0) return {};
  const glm::dvec3 centre = found.mass > 0.0 ? found.position : found.meanPosition;
  double radius = 0.0;
  for (const glm::vec4& p : bodies.positionMass)
    radius = std::max(radius, glm::length(glm::dvec3(p) - centre));
  // A distance's bits, as an integer, order as the distances do (>= 0): the largest of every part.
  radius = bit_cast<double>(ranks.maximum(bit_cast<std::int64_t>(radius)));
  return {glm::vec3(centre), radius > 0.0 ? float(radius) : 1.0f};
}

glm::vec3 Camera::forward() const {
  const float yaw = glm::radians(yawDegrees), pitch = glm::radians(pitchDegrees);
  return -glm::vec3(std::cos(pitch) * std::sin(yaw), std::sin(pitch),
                    std::cos(pitch) * std::cos(yaw));
}

// Built from yaw alone, so it stays defined looking straight down or up (pitch = +-90).
glm::vec3 Camera::right() const {
  const float yaw = glm::radians(yawDegrees);
  return glm::vec3(std::cos(yaw), 0.0f, -std::sin(yaw));
}

glm::vec3 Camera::up() const { return glm::cross(right(), forward()); }

glm::vec3 Camera::eye() const { return target - distance * forward(); }

glm::mat4 Camera::view() const { return glm::lookAt(eye(), target, up()); }

glm::mat4 Camera::projection(float aspect) const {
  return glm::infinitePerspective(glm::radians(verticalFovDegrees), aspect,
                                  kNearPlaneFraction * distance);
}

void Camera::orbit(float yawChangeDegrees, float pitchChangeDegrees) {
  yawDegrees = std::remainder(yawDegrees + yawChangeDegrees, 360.0f);
  pitchDegrees = std::clamp(pitchDegrees + pitchChangeDegrees, -90.0f, 90.0f);
}

void Camera::pan(glm::vec2 pictureFraction) {
  const float pictureHeight = 2.0f * distance * std::tan(0.5f * glm::radians(verticalFovDegrees));
  target += pictureHeight * (pictureFraction.x * right() + pictureFraction.y * up());
}

void Camera::zoom(float factor) {
  if (factor > 0.0f && std::isfinite(factor)) distance /= factor;
}

void Camera::fit(const BoundingSphere& sphere, float aspect) {
  const float halfVertical = 0.5f * glm::radians(verticalFovDegrees);
  const float halfHorizontal = std::atan(std::tan(halfVertical) * aspect);
  target = sphere.centre;
  distance = kFitMargin * sphere.radius / std::sin(std::min(halfVertical, halfHorizontal));
}

const std::vector<CameraPreset>& cameraPresets() {
  static const std::vector<CameraPreset> presets{{"default", 30.0f, 20.0f},
                                                 {"front", 0.0f, 0.0f},
                                                 {"side", 90.0f, 0.0f},
                                                 {"top", 0.0f, 90.0f}};
  return presets;
}

const CameraPreset* findCameraPreset(std::string_view name) {
  const auto& presets = cameraPresets();
  auto found = std::find_if(presets.begin(), presets.end(),
                            [&](const CameraPreset& p) { return p.name == name; });
  return found == presets.end() ? nullptr : &*found;
}

}  // namespace nbody
