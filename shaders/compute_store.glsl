// Stores what a compute kernel advanced: the combined next state of one body and, when a later
// stage reads it, this stage's acceleration. Files before this one: body_layout.glsl,
// rk_combine.glsl.
// Defines: WRITE_ACCELERATION.

layout(rgba32f) writeonly uniform image2D uOutPositionMass;
layout(rgba32f) writeonly uniform image2D uOutVelocity;
#if WRITE_ACCELERATION
layout(rgba32f) writeonly uniform image2DArray uOutAcceleration;  // one layer
#endif

void storeAdvancedBody(ivec2 texel, vec3 acceleration) {
  vec4 positionMass, velocity;
  combineStages(texel, acceleration, positionMass, velocity);
  imageStore(uOutPositionMass, texel, positionMass);
  imageStore(uOutVelocity, texel, velocity);
#if WRITE_ACCELERATION
  imageStore(uOutAcceleration, ivec3(texel, 0), vec4(acceleration, 0.0));
#endif
}
