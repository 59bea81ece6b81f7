// Adds up doubles: each work group sums 256 x uPerInvocation consecutive inputs (each invocation
// its share, then a shared-memory tree in a fixed order) into one output. The host repeats the
// pass until one sum remains. Files before this one: tree_common.glsl.

layout(local_size_x = 256) in;

uniform uint uCount;
uniform uint uPerInvocation;

layout(std430, binding = B_SUM_IN) readonly buffer SumIn { double sumIn[]; };
layout(std430, binding = B_SUM_OUT) writeonly buffer SumOut { double sumOut[]; };

shared double partial[256];

void main() {
  uint group = linearGroupId();
  uint local = gl_LocalInvocationID.x;
  uint first = group * 256u * uPerInvocation + local;
  double sum = 0.0;
  for (uint k = 0u; k < uPerInvocation; ++k) {
    uint i = first + k * 256u;
    if (i < uCount) sum += sumIn[i];
  }
  partial[local] = sum;
  barrier();
  for (uint live = 128u; live > 0u; live >>= 1) {
    if (local < live) partial[local] += partial[local + live];
    barrier();
  }
  if (local == 0u) sumOut[group] = partial[0];
}
