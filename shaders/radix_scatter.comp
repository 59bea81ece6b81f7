// One pass of the radix sort, step 3: each block moves its keys and values to their place in the
// output, stably. A key's place: the keys of smaller digits (digit totals), plus those of its digit
// in earlier blocks (the scanned block counts), plus those of its digit earlier in its block.
//
// The block first sorts itself by digit in shared memory, then writes in that order: consecutive
// invocations then write consecutive places (a block's keys of one digit, ~8 on average, are one
// run), where writing in input order would spread a warp's writes over up to 32 digits, each a
// partly written memory sector. Only each key's place in the block is kept in shared memory (the
// keys and values are read again, from the cache, to be written), so that it fits llvmpipe's 32 KB.
//
// The rank among the keys of its digit in a chunk of SORT_THREADS keys comes without subgroup
// operations: every invocation sets its bit in a SORT_THREADS-bit mask of its digit (integer atomicOr in
// shared memory: the mask does not depend on the order), and counts the bits below its own.
// Files before this one: workgroup.glsl, group_rows.glsl, body_layout.glsl, tree_common.glsl.

layout(local_size_x = WORKGROUP_SIZE) in;  // SORT_THREADS, an invocation a digit

uniform uint uCount;
uniform uint uBlockCount;
uniform uint uShift;

READ_ARRAY(B_KEYS_IN, KeysIn, uvec2, keysIn, usampler2D, .xy, keyAt)
layout(std430, binding = B_VALUES_IN) readonly buffer ValuesIn { uint valuesIn[]; };
WRITE_ARRAY(B_KEYS_OUT, I_KEYS_OUT, KeysOut, uvec2, keysOut, uimage2D, rg32ui, setKeyOut)
layout(std430, binding = B_VALUES_OUT) writeonly buffer ValuesOut { uint valuesOut[]; };
layout(std430, binding = B_BLOCK_COUNTS) readonly buffer BlockCounts { uint blockCounts[]; };
layout(std430, binding = B_DIGIT_TOTALS) readonly buffer DigitTotals { uint digitTotals[]; };

const uint WORDS = uint(SORT_THREADS) / 32u;  // mask words per digit

shared uvec2 scanned[2][RADIX];  // the scan's buffers: (digit totals, this block's digit counts)
shared uint outputStart[RADIX];  // where digit d's keys of this block start in the output
shared uint blockStart[RADIX];   // and in the block sorted by digit
shared uint nextInBlock[RADIX];  // the next free place of digit d in the block sorted by digit
shared uint masks[RADIX * WORDS];
shared uint sourceOf[SORT_BLOCK];  // the block sorted by digit: each place's key, as its index in the block

WORKGROUP_SCAN(exclusiveScan, uvec2, scanned)

// Invocation `local` finds where digit `local` starts, in the output and in the block: exclusive
// scans of the digit totals and of this block's counts.
void startPlaces(uint block, uint local) {
  uint row = local * uBlockCount;
  uint before = blockCounts[row + block];  // keys of digit `local` in earlier blocks
  uint after = block + 1u < uBlockCount ? blockCounts[row + block + 1u] : digitTotals[local];
  uvec2 total;
  uvec2 start = exclusiveScan(uvec2(digitTotals[local], after - before), total);
  outputStart[local] = start.x + before;
  blockStart[local] = start.y;
  nextInBlock[local] = start.y;
  for (uint w = 0u; w < WORDS; ++w) masks[local * WORDS + w] = 0u;
  barrier();
}

// Keys before this invocation's in the chunk that share its digit.
uint rankInChunk(uint digit, uint local) {
  uint word = local / 32u, rank = bitCount(masks[digit * WORDS + word] & ((1u << (local % 32u)) - 1u));
  for (uint w = 0u; w < word; ++w) rank += bitCount(masks[digit * WORDS + w]);
  return rank;
}

// Sorts the block by digit into sourceOf, chunk by chunk (stable: chunks in order, and by rank in
// each). Returns the keys the block holds.
uint sortBlock(uint first, uint local) {
  uint keys = min(uint(SORT_BLOCK), uCount - first);
  for (uint chunk = 0u; chunk < keys; chunk += uint(SORT_THREADS)) {  // uniform: barriers stay so
    uint k = chunk + local;
    bool valid = k < keys;
    uint digit = valid ? digitOf(keyAt(first + k), uShift) : 0u;
    if (valid) atomicOr(masks[digit * WORDS + local / 32u], 1u << (local % 32u));
    barrier();
    if (valid) sourceOf[nextInBlock[digit] + rankInChunk(digit, local)] = k;
    barrier();
    // Invocation `local` owns digit `local`: advance its place past this chunk, clear its mask.
    uint chunkCount = 0u;
    for (uint w = 0u; w < WORDS; ++w) {
      chunkCount += bitCount(masks[local * WORDS + w]);
      masks[local * WORDS + w] = 0u;
    }
    nextInBlock[local] += chunkCount;
    barrier();
  }
  return keys;
}

void main() {
  uint block = linearGroupId();
  if (block >= uBlockCount) return;
  uint local = gl_LocalInvocationID.x;
  uint first = block * SORT_BLOCK;
  startPlaces(block, local);
  uint keys = sortBlock(first, local);
  for (uint p = local; p < keys; p += uint(SORT_THREADS)) {
    uint source = first + sourceOf[p];
    uvec2 key = keyAt(source);
    uint digit = digitOf(key, uShift);
    uint place = outputStart[digit] + (p - blockStart[digit]);
    setKeyOut(place, key);
    valuesOut[place] = valuesIn[source];
  }
}
