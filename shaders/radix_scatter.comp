// One pass of the radix sort, step 3: each block moves its keys and values to their place in the
// output, stably. A key's place: the keys of smaller digits (digit totals), plus those of its digit
// in earlier blocks (the scanned block counts), plus those of its digit earlier in its block. The
// last comes without subgroup operations: for each chunk of SORT_THREADS keys, every invocation
// sets its bit in a 256-bit mask of its digit (integer atomicOr in shared memory: the mask does
// not depend on the order), and counts the bits below its own. Files before this one:
// tree_common.glsl.

layout(local_size_x = SORT_THREADS) in;

uniform uint uCount;
uniform uint uBlockCount;
uniform uint uShift;

layout(std430, binding = B_KEYS_IN) readonly buffer KeysIn { uvec2 keysIn[]; };
layout(std430, binding = B_VALUES_IN) readonly buffer ValuesIn { uint valuesIn[]; };
layout(std430, binding = B_KEYS_OUT) writeonly buffer KeysOut { uvec2 keysOut[]; };
layout(std430, binding = B_VALUES_OUT) writeonly buffer ValuesOut { uint valuesOut[]; };
layout(std430, binding = B_BLOCK_COUNTS) readonly buffer BlockCounts { uint blockCounts[]; };
layout(std430, binding = B_DIGIT_TOTALS) readonly buffer DigitTotals { uint digitTotals[]; };

const uint WORDS = uint(SORT_THREADS) / 32u;  // mask words per digit

shared uint digitStart[2][RADIX];  // scan of the digit totals, then the next free place per digit
shared uint masks[RADIX * WORDS];

// Where digit `local`'s keys of this block start: exclusive scan of the totals plus this block's
// offset in the digit's row.
void startPlaces(uint block, uint local) {
  uint total = digitTotals[local];
  digitStart[0][local] = total;
  barrier();
  uint source = 0u;
  for (uint offset = 1u; offset < RADIX; offset <<= 1) {
    uint value = digitStart[source][local];
    if (local >= offset) value += digitStart[source][local - offset];
    digitStart[1u - source][local] = value;
    source = 1u - source;
    barrier();
  }
  uint start = digitStart[source][local] - total + blockCounts[local * uBlockCount + block];
  barrier();
  digitStart[0][local] = start;
  for (uint w = 0u; w < WORDS; ++w) masks[local * WORDS + w] = 0u;
  barrier();
}

// Keys before this invocation's in the chunk that share its digit.
uint rankInChunk(uint digit, uint local) {
  uint word = local / 32u, rank = bitCount(masks[digit * WORDS + word] & ((1u << (local % 32u)) - 1u));
  for (uint w = 0u; w < word; ++w) rank += bitCount(masks[digit * WORDS + w]);
  return rank;
}

void main() {
  uint block = linearGroupId();
  if (block >= uBlockCount) return;
  uint local = gl_LocalInvocationID.x;
  startPlaces(block, local);
  for (uint k = 0u; k < SORT_ITEMS; ++k) {
    uint chunk = block * SORT_BLOCK + k * uint(SORT_THREADS);
    if (chunk >= uCount) break;  // the same for the whole group: its barriers stay uniform
    uint i = chunk + local;
    bool valid = i < uCount;
    uvec2 key = valid ? keysIn[i] : uvec2(0u);
    uint digit = digitOf(key, uShift);
    if (valid) atomicOr(masks[digit * WORDS + local / 32u], 1u << (local % 32u));
    barrier();
    if (valid) {
      uint place = digitStart[0][digit] + rankInChunk(digit, local);
      keysOut[place] = key;
      valuesOut[place] = valuesIn[i];
    }
    barrier();
    // Invocation `local` owns digit `local`: advance its place past this chunk, clear its mask.
    uint chunkCount = 0u;
    for (uint w = 0u; w < WORDS; ++w) {
      chunkCount += bitCount(masks[local * WORDS + w]);
      masks[local * WORDS + w] = 0u;
    }
    digitStart[0][local] += chunkCount;
    barrier();
  }
}
