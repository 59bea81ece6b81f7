// Adds up doubles: each work group sums WORKGROUP_SIZE x uPerInvocation consecutive inputs (each
// invocation its share, then workgroup.glsl's reduction, in a fixed order) into one output. The
// host repeats the pass until one sum remains.
// Files before this one: workgroup.glsl, body_layout.glsl, tree_common.glsl.

layout(local_size_x = WORKGROUP_SIZE) in;

uniform uint uCount;
uniform uint uPerInvocation;

layout(std430, binding = B_SUM_IN) readonly buffer SumIn { double sumIn[]; };
layout(std430, binding = B_SUM_OUT) writeonly buffer SumOut { double sumOut[]; };

shared double partial[WORKGROUP_SIZE];

void addPartial(uint into, uint from) { partial[into] += partial[from]; }
WORKGROUP_REDUCE(sumPartials, addPartial)

void main() {
  uint group = linearGroupId();
  double sum = 0.0;
  for (uint k = 0u; k < uPerInvocation; ++k) {
    uint i = shareElement(group, uPerInvocation, k);
    if (i < uCount) sum += sumIn[i];
  }
  partial[gl_LocalInvocationID.x] = sum;
  sumPartials();
  if (gl_LocalInvocationID.x == 0u) sumOut[group] = partial[0];
}
