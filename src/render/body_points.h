#pragma once
// One point per body, read by the bound program straight from the state textures (gl_VertexID the
// body: shaders/body_fetch.glsl), each fragment's output added to the target (blending ONE, ONE):
// the sprites' light and the projected density's mass alike.

#include "engines/engine.h"

namespace nbody {

// Binds the state's textures to the two units, sets program point sizes and additive blending (the
// caller's state guard puts them back), and draws. Nothing for no bodies.
void drawBodiesAdding(const GpuStateView& bodies, GLuint positionMassUnit, GLuint velocityUnit);

}  // namespace nbody
