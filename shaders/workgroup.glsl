// Work-group primitives over shared memory: prefix sums, a reduction in a fixed order, and a
// histogram, for a kernel of WORKGROUP_SIZE invocations in x. The first of a kernel's files: the
// subgroup path's #extension lines must come before any code.
//
// Defines: WORKGROUP_SIZE (the kernel's local_size_x: a define, so that arrays can be sized by it
// before the kernel's layout line); SUBGROUP_SCAN (default 0; 1: WORKGROUP_SCAN through subgroup
// arithmetic, GL_KHR_shader_subgroup, where subgroups tile the work group); HISTOGRAM_BINS
// (default 0: no histogram).
//
// GLSL has no generics and passes no shared arrays to functions, so the scan and the reduction
// are macros that define a function over the caller's shared array; the kernel expands them once,
// after declaring that array.

#ifndef SUBGROUP_SCAN
#define SUBGROUP_SCAN 0
#endif
#if SUBGROUP_SCAN
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif
#ifndef HISTOGRAM_BINS
#define HISTOGRAM_BINS 0
#endif

// This invocation's place in the order of WORKGROUP_SCAN's sums: its index in the work group, or
// with subgroups its subgroup's place and then its own in it (the same on NVIDIA;
// GL_KHR_shader_subgroup does not promise it).
uint workgroupRank() {
#if SUBGROUP_SCAN
  return gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
#else
  return gl_LocalInvocationID.x;
#endif
}

// WORKGROUP_SCAN(name, T, buffer) defines
//   T name(T value, out T total)
// which returns the exclusive prefix sums of `value` over the work group in the order of
// workgroupRank(), and sets `total` to the sum of all. T is an integer scalar or vector: any order
// of adding gives the same result. `buffer` is the caller's shared T[2][WORKGROUP_SIZE]
// (Hillis-Steele's two buffers, a barrier a step), or with SUBGROUP_SCAN a shared T[1][n] with an
// entry for each subgroup: each subgroup then sums its own values without a barrier, its last
// invocation's inclusive sum being its total, and each invocation adds the totals of the subgroups
// before its own. Call in uniform control flow. It starts with a barrier and returns past another,
// so the caller may overwrite anything it read before the call, and a second call may follow at
// once.
#if SUBGROUP_SCAN
#define WORKGROUP_SCAN(name, T, buffer)                                                   \
  T name(T value, out T total) {                                                          \
    barrier();                                                                            \
    T inclusive = subgroupInclusiveAdd(value);                                            \
    if (gl_SubgroupInvocationID == gl_SubgroupSize - 1u) buffer[0][gl_SubgroupID] = inclusive; \
    barrier();                                                                            \
    T before = T(0u);                                                                     \
    total = T(0u);                                                                        \
    for (uint s = 0u; s < gl_NumSubgroups; ++s) {                                         \
      T sum = buffer[0][s];                                                               \
      if (s < gl_SubgroupID) before += sum;                                               \
      total += sum;                                                                       \
    }                                                                                     \
    return before + inclusive - value;                                                    \
  }
#else
#define WORKGROUP_SCAN(name, T, buffer)                                                   \
  T name(T value, out T total) {                                                          \
    uint scanIndex = gl_LocalInvocationID.x;                                              \
    barrier();                                                                            \
    buffer[0][scanIndex] = value;                                                         \
    barrier();                                                                            \
    uint source = 0u;                                                                     \
    for (uint offset = 1u; offset < uint(WORKGROUP_SIZE); offset <<= 1) {                 \
      T sum = buffer[source][scanIndex];                                                  \
      if (scanIndex >= offset) sum += buffer[source][scanIndex - offset];                 \
      buffer[1u - source][scanIndex] = sum;                                               \
      source = 1u - source;                                                               \
      barrier();                                                                          \
    }                                                                                     \
    total = buffer[source][WORKGROUP_SIZE - 1];                                           \
    return buffer[source][scanIndex] - value;                                             \
  }
#endif

// The first step of WORKGROUP_REDUCE: the largest power of two below WORKGROUP_SIZE.
uint workgroupHalfSpan() {
  return WORKGROUP_SIZE > 1 ? 1u << uint(findMSB(uint(WORKGROUP_SIZE - 1))) : 0u;
}

// WORKGROUP_REDUCE(name, combine) defines
//   void name()
// which folds entries 0 .. WORKGROUP_SIZE - 1 of the caller's shared arrays into entry 0, by the
// caller's `void combine(uint into, uint from)` (it merges entry `from` into entry `into`), in
// halving steps: for 128 entries, entry k takes entry k + 64, then k + 32, ..., then 1; for any
// other count the first step takes what lies past the largest power of two below it. The order is
// the same every run, so float sums come out the same bits. Each invocation writes its own entry
// before the call (in uniform control flow); after it, every invocation may read entry 0. Without
// subgroup operations GLSL promises nothing about lockstep, so every step keeps its barrier (seed
// 000's unrolled last warp relies on lockstep and is left out).
#define WORKGROUP_REDUCE(name, combine)                                                   \
  void name() {                                                                           \
    uint reduceIndex = gl_LocalInvocationID.x;                                            \
    memoryBarrierShared();                                                                \
    barrier();                                                                            \
    for (uint live = workgroupHalfSpan(); live > 0u; live >>= 1) {                        \
      if (reduceIndex < live && reduceIndex + live < uint(WORKGROUP_SIZE))                \
        combine(reduceIndex, reduceIndex + live);                                         \
      memoryBarrierShared();                                                              \
      barrier();                                                                          \
    }                                                                                     \
  }

// The k-th element of this invocation's share when work group `group` takes a span of
// `perInvocation` x WORKGROUP_SIZE consecutive elements: consecutive invocations read consecutive
// elements (coalesced), WORKGROUP_SIZE apart from one k to the next.
uint shareElement(uint group, uint perInvocation, uint k) {
  return (group * perInvocation + k) * uint(WORKGROUP_SIZE) + gl_LocalInvocationID.x;
}

#if HISTOGRAM_BINS > 0
// A histogram of HISTOGRAM_BINS bins in shared memory, counted with integer atomics, so that the
// counts do not depend on the order they land in. Use: clearHistogram(); histogramAdd(bin) for
// each item; finishHistogram(); then read histogram[bin].
shared uint histogram[HISTOGRAM_BINS];

// Empties every bin. Call in uniform control flow: it returns past a barrier.
void clearHistogram() {
  for (uint bin = gl_LocalInvocationID.x; bin < uint(HISTOGRAM_BINS); bin += uint(WORKGROUP_SIZE))
    histogram[bin] = 0u;
  memoryBarrierShared();
  barrier();
}

void histogramAdd(uint bin) { atomicAdd(histogram[bin], 1u); }

// Every invocation's counts have landed. Call in uniform control flow.
void finishHistogram() {
  memoryBarrierShared();
  barrier();
}
#endif
