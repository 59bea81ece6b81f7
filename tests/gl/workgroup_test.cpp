// The work-group primitives of shaders/workgroup.glsl (prefix sums, the fixed-order reduction,
// the histogram), run by shaders/workgroup_check.comp on known inputs and checked against the
// same computations on the CPU: the scans and counts exactly, the float reduction bit for bit
// against the same halving order emulated in float. Work-group sizes that are powers of two and
// some that are not, element counts that fill the last group and some that do not; the shared-
// memory scan always, the subgroup scan where the GPU offers it for the group's width.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gl/gl_test.h"
#include "gl/limits.h"
#include "gl/shader_program.h"

namespace nbody {
namespace {

using test::GlTest;

constexpr int kBins = 37;  // not a power of two, and fewer than some groups' invocations

struct Inputs {
  std::vector<std::uint32_t> values;
  std::vector<float> floats;
};

Inputs randomInputs(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<std::uint32_t> value(0, 100000);
  std::uniform_real_distribution<float> number(-1000.0f, 1000.0f);
  Inputs inputs;
  for (std::size_t i = 0; i < count; ++i) {
    inputs.values.push_back(value(random));
    inputs.floats.push_back(number(random));
  }
  return inputs;
}

struct Outputs {
  std::vector<std::uint32_t> scanned;  // (sum of values before, elements before) per element
  std::vector<std::uint32_t> totals;   // per group: two scan totals, float sum bits, largest value
  std::vector<std::uint32_t> counts;   // per group, kBins
};

gl::Buffer storage(const void* data, std::size_t bytes) {
  gl::Buffer buffer = gl::Buffer::create();
  glNamedBufferStorage(buffer.id(), GLsizeiptr(std::max<std::size_t>(bytes, 4)), data,
                       GL_DYNAMIC_STORAGE_BIT);
  return buffer;
}

std::vector<std::uint32_t> readBack(const gl::Buffer& buffer, std::size_t words) {
  std::vector<std::uint32_t> data(words);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  glGetNamedBufferSubData(buffer.id(), 0, GLsizeiptr(words * 4), data.data());
  return data;
}

Outputs runPrimitives(const Inputs& inputs, int groupSize, bool subgroups) {
  const std::size_t count = inputs.values.size(),
                    groups = (count + groupSize - 1) / std::size_t(groupSize);
  const gl::UniformProgram program(
      gl::buildProgram({{GL_COMPUTE_SHADER, {"workgroup.glsl", "workgroup_check.comp"}}},
                       {{"WORKGROUP_SIZE", groupSize},
                        {"SUBGROUP_SCAN", subgroups ? 1 : 0},
                        {"HISTOGRAM_BINS", kBins}}));
  const gl::Buffer values = storage(inputs.values.data(), count * 4),
                   floats = storage(inputs.floats.data(), count * 4),
                   scanned = storage(nullptr, count * 8), totals = storage(nullptr, groups * 16),
                   counts = storage(nullptr, groups * kBins * 4);
  const GLuint bindings[] = {values.id(), floats.id(), scanned.id(), totals.id(), counts.id()};
  for (GLuint b = 0; b < 5; ++b) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, b, bindings[b]);
  glUseProgram(program.id());
  program.setUint("uCount", count);
  glDispatchCompute(GLuint(groups), 1, 1);
  glUseProgram(0);
  return {readBack(scanned, count * 2), readBack(totals, groups * 4),
          readBack(counts, groups * kBins)};
}

// The reduction's order on the CPU: entry k takes k + half, then k + half / 2, ..., where half is
// the largest power of two below the group's size, entries past the size taking no part.
float halvingSum(std::vector<float> entries) {
  const std::size_t size = entries.size();
  for (std::size_t live = size > 1 ? std::bit_floor(size - 1) : 0; live > 0; live >>= 1)
    for (std::size_t k = 0; k < live && k + live < size; ++k) entries[k] += entries[k + live];
  return entries[0];
}

std::uint32_t bitsOf(float value) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, 4);
  return bits;
}

void expectPrimitivesAgree(std::size_t count, int groupSize, bool subgroups) {
  const std::string what = std::to_string(count) + " elements in groups of " +
                           std::to_string(groupSize) +
                           (subgroups ? ", subgroup scan" : ", shared-memory scan");
  const Inputs inputs = randomInputs(count, count * 31 + std::size_t(groupSize));
  const Outputs out = runPrimitives(inputs, groupSize, subgroups);
  for (std::size_t first = 0, g = 0; first < count; first += std::size_t(groupSize), ++g) {
    const std::size_t end = std::min(count, first + std::size_t(groupSize));
    std::uint32_t sum = 0, largest = 0;
    std::vector<float> entries(std::size_t(groupSize), 0.0f);
    std::vector<std::uint32_t> counts(kBins, 0);
    for (std::size_t i = first; i < end; ++i) {
      ASSERT_EQ(out.scanned[2 * i], sum) << what << ": sum before element " << i;
      ASSERT_EQ(out.scanned[2 * i + 1], i - first) << what << ": elements before element " << i;
      sum += inputs.values[i];
      largest = std::max(largest, inputs.values[i]);
      entries[i - first] = inputs.floats[i];
      ++counts[inputs.values[i] % kBins];
    }
    EXPECT_EQ(out.totals[4 * g], sum) << what << ", group " << g;
    EXPECT_EQ(out.totals[4 * g + 1], end - first) << what << ", group " << g;
    EXPECT_EQ(out.totals[4 * g + 2], bitsOf(halvingSum(entries)))
        << what << ": float sum of group " << g;
    EXPECT_EQ(out.totals[4 * g + 3], largest) << what << ", group " << g;
    for (int bin = 0; bin < kBins; ++bin)
      ASSERT_EQ(out.counts[g * kBins + std::size_t(bin)], counts[std::size_t(bin)])
          << what << ", group " << g;
  }
}

class WorkgroupTest : public GlTest {};

TEST_F(WorkgroupTest, SharedMemoryPathAgreesWithTheCpu) {
  for (int groupSize : {1, 16, 64, 96, 100, 256})
    for (std::size_t count :
         {std::size_t(1), std::size_t(groupSize), std::size_t(5 * groupSize), std::size_t(1000)})
      expectPrimitivesAgree(count, groupSize, false);
}

// The order of the reduction is what makes float sums the same bits every run: the CPU's
// halving sum and a plain left-to-right sum differ for these inputs, so the comparison above
// could tell them apart.
TEST_F(WorkgroupTest, ReductionOrderIsVisibleInTheBits) {
  const Inputs inputs = randomInputs(256, 7);
  float leftToRight = 0.0f;
  for (float value : inputs.floats) leftToRight += value;
  EXPECT_NE(bitsOf(leftToRight), bitsOf(halvingSum(inputs.floats)));
}

// Where the GPU offers subgroup arithmetic for the group's width (NVIDIA does, llvmpipe not), the
// subgroup scan gives the same prefix sums; where it does not, the limits say so.
TEST_F(WorkgroupTest, SubgroupPathAgreesWhereOffered) {
  const int size = gl::limits().computeSubgroupSize;
  if (size == 0) {
    std::printf(
        "no subgroup arithmetic in compute shaders here: only the shared-memory path runs\n");
    return;
  }
  for (int groupSize : {size, 2 * size, 3 * size, 8 * size})
    for (std::size_t count : {std::size_t(groupSize), std::size_t(7 * groupSize + 5)})
      expectPrimitivesAgree(count, groupSize, true);
}

}  // namespace
}  // namespace nbody
