// Advances one body per invocation without evaluating forces: the first stage of an FSAL method
// (the last step stored its acceleration) or a force-free stage. The compute twin of update.frag.
// Files before this one: group_rows.glsl, body_layout.glsl, rk_combine.glsl (ACCELERATION_INPUTS =
// STAGE + 1 when this stage's acceleration is stored, STAGE for a force-free stage),
// compute_store.glsl (WRITE_ACCELERATION 0: a stored acceleration is in place already, a
// force-free one is never read).

layout(local_size_x = 256) in;

uniform int uBodyCount;
uniform int uFirstBody;  // of this dispatch's range: 0, or a distributed run's rank's share
uniform int uLastBody;   // the range's end (its rows of work groups may run past it)

void main() {
  int i = uFirstBody + int(invocationInRows(gl_WorkGroupSize.x));
  if (i >= uLastBody || i >= uBodyCount) return;  // padding keeps the massless state StageTextures::upload cleared
  ivec2 texel = texelOfBody(i, textureSize(uBasePositionMass, 0).x);
#if ACCELERATION_INPUTS > STAGE
  vec3 acceleration = storedAcceleration(uStageAcceleration[STAGE], texel);
#else
  vec3 acceleration = vec3(0.0);
#endif
  storeAdvancedBody(texel, acceleration);
}
