// Accelerations on all SMs: work groups of GROUP_SIZE threads, each thread accumulating BODIES
// bodies; the bodies j pass through shared memory in tiles of GROUP_SIZE, so each one fetched from
// the texture serves GROUP_SIZE x BODIES bodies. Work group (x, y) takes the bodies i of block x
// and the slice y of the j-loop: splitting the j-loop puts more threads to work when N is small
// (seed 002). With one slice (FUSED) the kernel advances its bodies itself; otherwise it writes
// partial sums and reduce.comp adds them up.
// Files before this one: body_layout.glsl, gravity.glsl, external_potential.glsl and, when FUSED,
// rk_combine.glsl and compute_store.glsl. Split, reduce.comp adds the external potential's force.

layout(local_size_x = GROUP_SIZE) in;

uniform sampler2D uStagePositionMass;
uniform int uBodyCount;    // bodies that exist
uniform int uPaddedCount;  // texels: bodies plus massless padding
uniform int uSliceLength;  // bodies j per slice of the j-loop, a multiple of GROUP_SIZE
uniform float uGravity;
uniform int uFirstBody;    // of this dispatch's blocks: 0, or a distributed run's rank's share

#if !FUSED
layout(std430, binding = 0) writeonly buffer PartialSums { vec4 partialSums[]; };  // [slice][i]
#endif

shared vec4 tile[GROUP_SIZE];

// The tile of bodies j from t, loaded into `tile`, for this invocation's bodies i.
void addTile(inout vec3 sums[BODIES], vec3 ri[BODIES], int t, int blockFirst, int local) {
#if CONTACTS
  // The tiles of the group's own bodies (tiles and blocks start at multiples of GROUP_SIZE: a
  // rank's share is whole blocks) hold each invocation's body k at m = local, and leave it out of
  // its own contact screen. Only the 32 entries about it test m: one chunk for a warp of 32
  // (GROUP_SIZE is a multiple of 32; where a warp is not 32 wide the branch splits it, slower,
  // never wrong).
  if (t >= blockFirst && t < blockFirst + GROUP_SIZE * BODIES) {
    int k = (t - blockFirst) / GROUP_SIZE;
    for (int chunk = 0; chunk < GROUP_SIZE; chunk += 32) {  // loops of 32: unrolled
      if (chunk == (local & ~31)) {
        for (int n = 0; n < 32; ++n)
          addBodyBesides(sums, ri, tile[chunk + n], chunk + n == local ? k : -1);
      } else {
        for (int n = 0; n < 32; ++n) addBody(sums, ri, tile[chunk + n]);
      }
    }
    return;
  }
#endif
  for (int m = 0; m < GROUP_SIZE; ++m) addBody(sums, ri, tile[m]);
}

void main() {
  int width = textureSize(uStagePositionMass, 0).x;
  int local = int(gl_LocalInvocationID.x);
  int firstBody = uFirstBody + int(gl_WorkGroupID.x) * GROUP_SIZE * BODIES + local;
  vec4 bodies[BODIES];
  vec3 ri[BODIES];
  vec3 sums[BODIES];
  for (int k = 0; k < BODIES; ++k) {
    int i = firstBody + k * GROUP_SIZE;
    bodies[k] = i < uPaddedCount ? texelFetch(uStagePositionMass, texelOfBody(i, width), 0) : vec4(0.0);
    ri[k] = bodies[k].xyz;
    sums[k] = vec3(0.0);
  }
#if CONTACTS
  beginContacts(bodies);
#endif
  int begin = int(gl_WorkGroupID.y) * uSliceLength;
  int end = min(begin + uSliceLength, uPaddedCount);
  int blockFirst = firstBody - local;  // this work group's bodies: GROUP_SIZE x BODIES from here
  for (int t = begin; t < end; t += GROUP_SIZE) {
    int j = t + local;
    // Past the end: a massless body at the origin (with CONTACTS, far away), which adds exactly
    // zero.
    tile[local] = contactBody(j < end ? texelFetch(uStagePositionMass, texelOfBody(j, width), 0) : vec4(0.0));
    barrier();
    addTile(sums, ri, t, blockFirst, local);
    barrier();
  }
  for (int k = 0; k < BODIES; ++k) {
    int i = firstBody + k * GROUP_SIZE;
#if CONTACTS
    reportContact(contactFound(k));
#endif
#if FUSED
#if POTENTIAL_COMPONENTS > 0
    if (i < uBodyCount)
      storeAdvancedBody(texelOfBody(i, width), uGravity * sums[k] + externalAcceleration(ri[k]));
#else
    if (i < uBodyCount) storeAdvancedBody(texelOfBody(i, width), uGravity * sums[k]);
#endif
#else
    if (i < uPaddedCount)
      partialSums[int(gl_WorkGroupID.y) * uPaddedCount + i] = vec4(sums[k], 0.0);
#endif
  }
}
