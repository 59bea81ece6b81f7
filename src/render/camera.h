#pragma once
// An orbit camera: it looks at a target from a direction given by yaw and pitch and from a
// distance. The window drags it around (orbit, pan, zoom); `shot` places it from the command line.
// Y is up; yaw turns about the Y axis (yaw 0, pitch 0 looks from +Z towards -Z), pitch raises the
// eye above the XZ plane (90: straight down from +Y).

#include <string>
#include <string_view>
#include <vector>

#include <glm/mat4x4.hpp>
#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "parallel/ranks.h"
#include "physics/state.h"

namespace nbody {

struct BoundingSphere {
  glm::vec3 centre{0.0f};
  float radius = 1.0f;
};

// Centred on the centre of mass (so that a few far-flung bodies do not push the cluster off the
// middle of the picture; on the bodies' mean position where they have no mass) and large enough
// to hold every body. Of every rank's part (`bodies` this rank's; render/mass_centre.h): the same
// bits for one process and for any number of ranks holding parts. Every rank calls it alike.
BoundingSphere boundingSphere(const State& bodies, const Ranks& ranks = processAlone());

struct Camera {
  glm::vec3 target{0.0f};
  float yawDegrees = 30.0f;
  float pitchDegrees = 20.0f;  // kept in [-90, 90]
  float distance = 5.0f;       // from the eye to the target, > 0
  float verticalFovDegrees = 40.0f;

  glm::vec3 eye() const;
  glm::vec3 forward() const;  // unit vector from the eye towards the target
  glm::vec3 right() const;    // unit vector to the right in the picture
  glm::vec3 up() const;       // unit vector up in the picture
  glm::mat4 view() const;
  // Perspective with no far plane: the bodies may be anywhere behind the target.
  glm::mat4 projection(float aspect) const;

  void orbit(float yawChangeDegrees, float pitchChangeDegrees);
  // Moves the target (and the eye with it) in the picture's plane, by fractions of the height of
  // the picture at the target's distance: pan({0.5, 0}) aims half a picture further right, so the
  // bodies shift left on the screen.
  void pan(glm::vec2 pictureFraction);
  // Moves towards the target (factor > 1) or away from it (factor < 1).
  void zoom(float factor);
  // Aims at the sphere's centre from the distance where the sphere just fills the picture (with a
  // small margin), keeping yaw and pitch.
  void fit(const BoundingSphere& sphere, float aspect);
};

// Named directions for the command line (and later the window's menu).
struct CameraPreset {
  std::string name;
  float yawDegrees, pitchDegrees;
};
const std::vector<CameraPreset>& cameraPresets();
const CameraPreset* findCameraPreset(std::string_view name);

}  // namespace nbody
