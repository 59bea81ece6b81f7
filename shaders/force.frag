// Accelerations of BODIES bodies per fragment, the optimisation the paper proposed: each position
// fetched from the texture serves BODIES bodies, so texture fetches drop BODIES-fold. Fragment
// (x, y + s H) handles the bodies at texels (BODIES x + k, y), k < BODIES, over slice s of the
// j-loop (rows [s H / SLICES, (s + 1) H / SLICES) of the position texture: more fragments in
// flight when N is small), and writes body k's partial acceleration (G included) to render
// target k, a layer of this stage's acceleration array, which is SLICES times as tall.
// Files before this one: gravity.glsl, external_potential.glsl, texture_sum.glsl. update.frag then advances each body.
// Defines: SLICES.

layout(location = 0) out vec4 outAcceleration[BODIES];

uniform sampler2D uStagePositionMass;
uniform float uGravity;

void main() {
  int height = textureSize(uStagePositionMass, 0).y;
  int slice = int(gl_FragCoord.y) / height;
  ivec2 first = ivec2(int(gl_FragCoord.x) * BODIES, int(gl_FragCoord.y) - slice * height);
  int rowsPerSlice = (height + SLICES - 1) / SLICES;
  vec4 bodies[BODIES];
  vec3 ri[BODIES];
  vec3 sums[BODIES];
  for (int k = 0; k < BODIES; ++k) {
    bodies[k] = texelFetch(uStagePositionMass, first + ivec2(k, 0), 0);
    ri[k] = bodies[k].xyz;
    sums[k] = vec3(0.0);
  }
#if CONTACTS
  beginContacts(bodies);
#endif
  int firstRow = min(slice * rowsPerSlice, height), endRow = min((slice + 1) * rowsPerSlice, height);
  sumOverRows(sums, ri, uStagePositionMass, firstRow, endRow, first);
  // Padding bodies get a finite acceleration here; update.frag never moves them.
  vec4 accelerations[BODIES];
  for (int k = 0; k < BODIES; ++k) {
#if CONTACTS
    reportContact(contactFound(k));
#endif
    vec3 acceleration = uGravity * sums[k];
#if POTENTIAL_COMPONENTS > 0
    if (slice == 0) acceleration += externalAcceleration(ri[k]);  // once, with the first slice
#endif
    accelerations[k] = vec4(acceleration, 0.0);
  }
  // GLSL ES 3.00 indexes an array of outputs with constants alone.
  outAcceleration[0] = accelerations[0];
#if BODIES > 1
  outAcceleration[1] = accelerations[1];
#endif
#if BODIES > 2
  outAcceleration[2] = accelerations[2];
  outAcceleration[3] = accelerations[3];
#endif
#if BODIES > 4
  outAcceleration[4] = accelerations[4];
  outAcceleration[5] = accelerations[5];
  outAcceleration[6] = accelerations[6];
  outAcceleration[7] = accelerations[7];
#endif
#if BODIES != 1 && BODIES != 2 && BODIES != 4 && BODIES != 8
#error force.frag writes 1, 2, 4 or 8 bodies a fragment
#endif
}
