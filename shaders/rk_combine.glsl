// What a Runge-Kutta stage writes, shared by every engine: the tableau's combination of the stage
// derivatives (velocity, acceleration) added to the state at the start of the step. It gives the
// next stage's state, or for the last stage the next step's state. Positions and velocities have
// their own weights (partitioned methods, physics/method.h); the velocity's w (the body's
// component, stage_textures.h) is the base velocity's. Terms of weight zero are left out,
// so equal rows of weights give equal bits and a force-free stage's acceleration is never read.
//
// Defines: STAGE (0-based index of this stage), ACCELERATION_INPUTS (how many stages'
//          accelerations are read from uStageAcceleration: STAGE when the caller computed this
//          stage's acceleration itself, STAGE + 1 when it is stored too), ACCELERATION_LAYERS
//          (layers of the acceleration array textures: body at texel (x, y) is at
//          (x / LAYERS, y, layer x % LAYERS)), ACCELERATION_SLICES (partial sums stacked below
//          each other, H rows apart, that add up to the acceleration).

uniform sampler2D uBasePositionMass;          // the state at the start of the step
uniform sampler2D uBaseVelocity;
uniform sampler2D uStageVelocity[STAGE + 1];  // velocity of stages 0..STAGE (0 is the base)
#if ACCELERATION_INPUTS > 0
uniform sampler2DArray uStageAcceleration[ACCELERATION_INPUTS];
#endif
uniform float uPositionWeight[STAGE + 1];     // dt times the tableau weight of each stage
uniform float uVelocityWeight[STAGE + 1];

#if ACCELERATION_INPUTS > 0
// A stage's acceleration, `stage` one of uStageAcceleration: GLSL ES 3.00 indexes an array of
// samplers with constants alone, so the callers name the element.
vec3 storedAcceleration(sampler2DArray stage, ivec2 texel) {
  ivec3 at = ivec3(texel.x / ACCELERATION_LAYERS, texel.y, texel.x % ACCELERATION_LAYERS);
  int height = textureSize(uBasePositionMass, 0).y;
  vec3 sum = vec3(0.0);
  for (int slice = 0; slice < ACCELERATION_SLICES; ++slice)
    sum += texelFetch(stage, at + ivec3(0, slice * height, 0), 0).xyz;
  return sum;
}
#endif

// The terms of the earlier stage j, a constant (the stages are unrolled below for that reason).
#define ADD_EARLIER_STAGE(j)                                                               \
  if (uPositionWeight[j] != 0.0)                                                           \
    positionChange += uPositionWeight[j] * texelFetch(uStageVelocity[j], texel, 0).xyz;    \
  if (uVelocityWeight[j] != 0.0)                                                           \
    velocityChange += uVelocityWeight[j] * storedAcceleration(uStageAcceleration[j], texel);
#if STAGE > 8
#error rk_combine.glsl adds up to 8 earlier stages
#endif

// `acceleration` is this stage's (G included).
void combineStages(ivec2 texel, vec3 acceleration, out vec4 positionMass, out vec4 velocity) {
  vec3 positionChange = vec3(0.0);
  vec3 velocityChange = vec3(0.0);
#if STAGE > 0
  ADD_EARLIER_STAGE(0)
#endif
#if STAGE > 1
  ADD_EARLIER_STAGE(1)
#endif
#if STAGE > 2
  ADD_EARLIER_STAGE(2)
#endif
#if STAGE > 3
  ADD_EARLIER_STAGE(3)
#endif
#if STAGE > 4
  ADD_EARLIER_STAGE(4)
#endif
#if STAGE > 5
  ADD_EARLIER_STAGE(5)
#endif
#if STAGE > 6
  ADD_EARLIER_STAGE(6)
#endif
#if STAGE > 7
  ADD_EARLIER_STAGE(7)
#endif
  if (uPositionWeight[STAGE] != 0.0)
    positionChange += uPositionWeight[STAGE] * texelFetch(uStageVelocity[STAGE], texel, 0).xyz;
  if (uVelocityWeight[STAGE] != 0.0) velocityChange += uVelocityWeight[STAGE] * acceleration;
  vec4 base = texelFetch(uBasePositionMass, texel, 0);
  positionMass = vec4(base.xyz + positionChange, base.w);
  vec4 baseVelocity = texelFetch(uBaseVelocity, texel, 0);
  velocity = vec4(baseVelocity.xyz + velocityChange, baseVelocity.w);  // w: the body's component
}
