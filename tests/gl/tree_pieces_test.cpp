// The tree's pieces on their own (src/engines/tree/): the sort keeps every body in a stable order,
// the counted lists give the evaluation's figures, the time split arrives without waiting, capacity
// and storage blocks are checked before anything runs, and where arrays and stacks live, how the
// walk is cut and how prefix sums are taken change no bit; settings and sizes are refused clearly.

#include <bit>

#include "engines/tree/tree_decomposed.h"
#include "engines/tree_engine.h"
#include "gl/tree_test_support.h"

namespace nbody {
namespace {

using namespace tree_test;

// ---- The pieces: sort, statistics, timing, capacity, settings.

// Each body's potential (colouring by specific energy) against the double-precision direct sum
// of -G m_j / sqrt(r^2 + eps^2) over j != i: at the defaults within the force's error bounds, with
// every cell opened within float32 rounding; and its sum 1/2 sum m_i phi_i is the potential energy.
TEST_F(TreeGravityTest, BodyPotentialsMatchTheDirectSum) {
  const State state = findScene("plummer")->generate(3000, 8);
  StepParams params = softened(0.01);
  params.gravity = 2.0;
  std::vector<double> direct(state.size(), 0.0);
  for (std::size_t i = 0; i < state.size(); ++i)
    for (std::size_t j = 0; j < state.size(); ++j) {
      if (i == j) continue;
      const glm::dvec3 d = glm::dvec3(state.positionMass[j]) - glm::dvec3(state.positionMass[i]);
      direct[i] -=
          params.gravity * double(state.positionMass[j].w) / std::sqrt(glm::dot(d, d) + 1e-4);
    }
  TreeGravity tree;
  const GpuBodies bodies = upload(state);
  TreeSettings everyCellOpened;
  everyCellOpened.theta = 0.0;
  for (const TreeSettings& settings : {TreeSettings{}, everyCellOpened}) {
    tree.bodyPotentials(bodies.positionMass.id(), bodies.size, bodies.count, params, settings,
                        bodies.acceleration.id());
    const std::vector<glm::vec4> texels = readTexels(bodies);
    std::vector<double> errors;
    double energy = 0;
    for (std::size_t i = 0; i < state.size(); ++i) {
      EXPECT_EQ(glm::vec3(texels[i].y, texels[i].z, texels[i].w), glm::vec3(0.0f)) << i;
      errors.push_back(std::abs(double(texels[i].x) - direct[i]) / std::abs(direct[i]));
      energy += 0.5 * double(state.positionMass[i].w) * double(texels[i].x);
    }
    std::sort(errors.begin(), errors.end());
    const double median = errors[errors.size() / 2], worst = errors.back();
    std::printf("body potentials, theta %g: median %.3g, max %.3g\n", settings.theta, median,
                worst);
    EXPECT_LE(median, settings.theta == 0.0 ? 1e-6 : 3e-5);
    EXPECT_LE(worst, settings.theta == 0.0 ? 1e-5 : 5e-4);
    EXPECT_NEAR(energy / tree.potentialEnergy(bodies.positionMass.id(), bodies.size, bodies.count,
                                              params, settings),
                1.0, 1e-6);
  }
}

// Each body's local density against the analytic density of uniform balls: two balls of 4000
// bodies each, the second of half the radius (8x as dense) far from the first. The estimate (the
// mass of the smallest cell of at least 32 bodies over its largest side cubed) reads the density
// of each ball to within a factor of 3 at the median, and tells the two apart by their ratio.
TEST_F(TreeGravityTest, BodyDensitiesFollowTheDensityOfUniformBalls) {
  const float massEach = 1.0f / 8000.0f;
  const State sparseBall = uniformBall(4000, 3, glm::vec3(0.0f), 1.0f, massEach);
  const State denseBall = uniformBall(4000, 4, glm::vec3(20.0f, 0.0f, 0.0f), 0.5f, massEach);
  State state;
  state.resize(8000);
  std::copy(sparseBall.positionMass.begin(), sparseBall.positionMass.end(),
            state.positionMass.begin());
  std::copy(denseBall.positionMass.begin(), denseBall.positionMass.end(),
            state.positionMass.begin() + 4000);
  TreeGravity tree;
  const GpuBodies bodies = upload(state);
  tree.bodyDensities(bodies.positionMass.id(), bodies.size, bodies.count, TreeSettings{},
                     bodies.acceleration.id());
  const std::vector<glm::vec4> texels = readTexels(bodies);
  const auto medianOf = [&](std::size_t first, std::size_t last) {
    std::vector<float> values;
    for (std::size_t i = first; i < last; ++i) values.push_back(texels[i].x);
    std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
    return double(values[values.size() / 2]);
  };
  const double pi = 3.141592653589793;
  const double sparse = 4000 * massEach / (4.0 / 3.0 * pi), packed = 8 * sparse;
  const double sparseMedian = medianOf(0, 4000), packedMedian = medianOf(4000, 8000);
  std::printf("densities: %.4g (analytic %.4g), %.4g (analytic %.4g)\n", sparseMedian, sparse,
              packedMedian, packed);
  EXPECT_GT(sparseMedian, sparse / 3);
  EXPECT_LT(sparseMedian, sparse * 3);
  EXPECT_GT(packedMedian, packed / 3);
  EXPECT_LT(packedMedian, packed * 3);
  EXPECT_GT(packedMedian / sparseMedian, 5.0);
  EXPECT_LT(packedMedian / sparseMedian, 13.0);
  // A lone body has no neighbours: 0.
  State lone;
  lone.resize(1);
  lone.positionMass[0] = glm::vec4(1.0f, 2.0f, 3.0f, 1.0f);
  const GpuBodies one = upload(lone);
  tree.bodyDensities(one.positionMass.id(), one.size, one.count, TreeSettings{},
                     one.acceleration.id());
  EXPECT_EQ(readTexels(one)[0].x, 0.0f);
}

TEST_F(TreeGravityTest, SortOrdersKeysStablyAndKeepsEveryBody) {
  State state = findScene("plummer")->generate(5000, 8);
  for (std::size_t i = 100; i < 400; ++i)
    state.positionMass[i] = state.positionMass[99];  // equal keys
  TreeGravity tree;
  treeAccelerations(tree, state, softened(0.01), TreeSettings{});
  const std::vector<std::uint32_t> order = tree.sortedBodies();
  const std::vector<std::uint64_t> keys = tree.sortedKeys();
  ASSERT_EQ(order.size(), state.size());
  std::vector<int> seen(state.size(), 0);
  for (std::size_t k = 0; k < order.size(); ++k) {
    ASSERT_LT(order[k], state.size());
    ++seen[order[k]];
    if (k > 0) {
      ASSERT_LE(keys[k - 1], keys[k]) << k;
      if (keys[k - 1] == keys[k]) {
        ASSERT_LT(order[k - 1], order[k]) << "ties in body order, at " << k;
      }
    }
  }
  for (std::size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], 1) << "body " << i;
}

TEST_F(TreeGravityTest, CountingListsGivesTheEvaluationsFigures) {
  const State state = findScene("plummer")->generate(8192, 2);
  const GpuBodies bodies = upload(state);
  TreeGravity tree;
  tree.evaluate(bodies.positionMass.id(), bodies.size, bodies.count, softened(0.01), TreeSettings{},
                bodies.acceleration.id());
  const TreeGravity::ListStatistics evaluated = tree.listStatistics();
  const std::vector<glm::dvec3> accelerations = readAccelerations(bodies);
  const TreeGravity::ListStatistics counted = tree.countLists(
      bodies.positionMass.id(), bodies.size, bodies.count, softened(0.01), TreeSettings{});
  EXPECT_TRUE(readAccelerations(bodies) == accelerations)
      << "counting wrote into the evaluation's accelerations";
  EXPECT_EQ(evaluated.bodyInteractionsPerBody, counted.bodyInteractionsPerBody);
  EXPECT_EQ(evaluated.cellInteractionsPerBody, counted.cellInteractionsPerBody);
  EXPECT_EQ(evaluated.nodesTestedPerGroup, counted.nodesTestedPerGroup);
  EXPECT_GT(counted.cellInteractionsPerBody, 10.0);
  EXPECT_LT(counted.bodyInteractionsPerBody + counted.cellInteractionsPerBody, 8192.0);
}

TEST_F(TreeGravityTest, TimeSplitArrivesWithoutWaiting) {
  const State state = findScene("plummer")->generate(4096, 2);
  const GpuBodies bodies = upload(state);
  TreeGravity tree;
  EXPECT_FALSE(tree.lastTimeSplit().has_value());
  tree.evaluate(bodies.positionMass.id(), bodies.size, bodies.count, softened(0.01), TreeSettings{},
                bodies.acceleration.id());
  glFinish();
  const std::optional<TreeGravity::TimeSplit> split = tree.lastTimeSplit();
  ASSERT_TRUE(split.has_value());
  EXPECT_GT(split->build, 0.0);
  EXPECT_GT(split->moments, 0.0);
  EXPECT_GT(split->walk, 0.0);
  EXPECT_FALSE(tree.lastTimeSplit().has_value());  // each measurement is given once
}

TEST_F(TreeGravityTest, CapacityIsCheckedBeforeAnythingRuns) {
  TreeGravity tree;
  EXPECT_GT(TreeGravity::bytesPerBody(), 100u);
  EXPECT_LT(TreeGravity::bytesPerBody(), 250u);  // 64M bodies in ~11 GB
  GLint64 largestBlock = 0;
  glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &largestBlock);
  // Past one block the node records move into textures; the values stay in a buffer, 4 bytes a
  // body.
  EXPECT_NO_THROW(tree.checkCapacity(std::size_t(largestBlock) / 16 + 1, TreeSettings{}));
  const std::size_t tooMany = std::size_t(largestBlock) / 4 + 1;
  try {
    tree.checkCapacity(tooMany, TreeSettings{});
    FAIL() << "no refusal for " << tooMany << " bodies";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("shader storage block"), std::string::npos) << e.what();
  }
  // Textures of 64 texels a row and at most 32 rows: the parents' 2N records fill them at N = 1024.
  TreeGravity small(tree::ArrayLimits{std::size_t(largestBlock), 1024, 64, 32});
  EXPECT_NO_THROW(small.checkCapacity(1024, TreeSettings{}));
  try {
    small.checkCapacity(1025, TreeSettings{});
    FAIL() << "no refusal for 1025 bodies in 32 rows";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("64 x 33 texels, over this GPU's 32 rows"),
              std::string::npos)
        << e.what();
  }
}

// The most records the tree's arrays hold (what a decomposed walker may grow to): the count
// checkArraysFit takes and one more it refuses, in buffers (one block) and in textures (their
// rows).
TEST_F(TreeGravityTest, TheMostRecordsAreWhatTheArraysHoldAndNoMore) {
  GLint64 largestBlock = 0;
  glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &largestBlock);
  const std::size_t block = std::size_t(largestBlock);
  for (const tree::ArrayLimits& limits :
       {tree::arrayLimitsOf(gl::limits()), tree::ArrayLimits{block, 1024, 64, 32},
        tree::ArrayLimits{block, 4096, 64, 54}}) {
    const tree::ArrayStorage storage = tree::storageFor(block, limits);
    const std::size_t most = tree::mostRecords(storage, limits);
    ASSERT_GT(most, 0u);
    EXPECT_NO_THROW(tree::checkArraysFit(most, limits)) << most;
    EXPECT_THROW(tree::checkArraysFit(most + 1, limits), std::runtime_error) << most;
  }
}

// The decomposed tree moves a rank's bodies in pieces where one texture's would pass a storage
// block, makes its table by ID a window of IDs at a time and gathers the state in pieces, so no
// storage block bounds N: only its 32-bit IDs and node indices do, at 2^31 - 1 bodies on any
// number of ranks (one line, saying so).
TEST(DecomposedTreeBounds, OnlyThirtyTwoBitIdsBoundTheBodies) {
  constexpr std::size_t most = (std::size_t(1) << 31) - 1;
  EXPECT_NO_THROW(tree::DecomposedTree::checkFits(most, 2));
  for (const int ranks : {2, 4}) {
    try {
      tree::DecomposedTree::checkFits(most + 1, ranks);
      FAIL() << "no refusal for 2^31 bodies on " << ranks << " ranks";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("at most 2147483647 bodies"), std::string::npos)
          << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
  }
}

// A distributed run exchanges 12 bytes a body through one storage block: past it, a clear refusal
// before anything runs (178M bodies on NVIDIA; 11M on llvmpipe's 128 MiB).
TEST_F(TreeGravityTest, DistributedExchangesOverOneStorageBlockAreRefused) {
  const gl::Limits& limits = gl::limits();
  const std::size_t most = std::size_t(limits.maxShaderStorageBlockBytes) / 12;
  EXPECT_NO_THROW(tree::TreeShare::checkFits(most, limits));
  try {
    tree::TreeShare::checkFits(most + 1, limits);
    FAIL() << "no refusal for " << most + 1 << " bodies";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("at most " + std::to_string(most) +
                                         " bodies in a replicated tree run"),
              std::string::npos)
        << e.what();
  }
}

// `distribute=auto` decomposes the tree where one GPU cannot hold it replicated, and only there:
// past the largest texture, past one storage block of exchanged accelerations, past the GPU's
// memory (all of it, the same on every rank; here lowered to 64 MiB, which 1000 bodies fit and
// 1M do not); an unknown memory (llvmpipe) bounds nothing. `replicate` and `decompose` are kept
// at any N (but one body). The driver's memory, where it says, is at least what is free.
TEST_F(TreeGravityTest, AutoDecomposesWhereOneGpuCannotHoldTheReplicatedTree) {
  const gl::Limits& limits = gl::limits();
  if (std::optional<double> free = limits.availableMemoryBytes()) {
    EXPECT_GE(limits.memoryBytes, *free);
    EXPECT_GT(*free, 0.0);
  } else {
    EXPECT_EQ(limits.memoryBytes, 0.0);
  }
  const std::size_t mostShared = std::size_t(limits.maxShaderStorageBlockBytes) / 12;
  TreeEngine engine;
  const auto decomposes = [&](const char* distribute, std::size_t bodies, double memory,
                              int texture) {
    gl::Limits lowered = gl::limits();
    lowered.memoryBytes = memory;
    lowered.maxTextureSize = texture;
    gl::replaceLimits(lowered);
    engine.setOption("distribute", distribute);
    const bool decomposed = engine.decomposes(bodies);
    gl::forgetLimits();
    return decomposed;
  };
  const int texture = limits.maxTextureSize;
  const double memory = 64.0 * 1024 * 1024;
  EXPECT_FALSE(decomposes("auto", 1000, memory, texture));
  EXPECT_TRUE(decomposes("auto", 1000000, memory, texture));
  EXPECT_FALSE(decomposes("auto", 1000000, 0.0, texture));
  EXPECT_FALSE(decomposes("auto", 2916, 0.0, 54));
  EXPECT_TRUE(decomposes("auto", 2917, 0.0, 54));
  EXPECT_FALSE(decomposes("auto", mostShared, 0.0, texture));
  EXPECT_TRUE(decomposes("auto", mostShared + 1, 0.0, texture));
  EXPECT_FALSE(decomposes("replicate", 1000000, memory, 54));
  EXPECT_TRUE(decomposes("decompose", 2, 0.0, texture));
  EXPECT_FALSE(decomposes("decompose", 1, 0.0, texture));
}

// The arrays in textures (as past one storage block: 67M bodies on NVIDIA), here 64 texels a row
// with the last rows part filled: the accelerations, the potential, the lists and the sort are
// those of the buffers, bit for bit, at the N that grew them and at a smaller one after.
TEST_F(TreeGravityTest, ArraysInTexturesChangeNoBit) {
  GLint64 largestBlock = 0;
  GLint largestTexture = 0;
  glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &largestBlock);
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &largestTexture);
  TreeGravity inBuffers,
      inTextures(tree::ArrayLimits{std::size_t(largestBlock), 4096, 64, largestTexture});
  const StepParams params = softened(0.01);
  for (const State& state : {withDenseCore(findScene("plummer")->generate(6001, 5)),
                             findScene("galaxies")->generate(2500, 2)}) {
    const std::vector<glm::dvec3> expected =
        treeAccelerations(inBuffers, state, params, TreeSettings{});
    EXPECT_TRUE(treeAccelerations(inTextures, state, params, TreeSettings{}) == expected)
        << state.size();
    EXPECT_EQ(inTextures.sortedKeys(), inBuffers.sortedKeys());
    EXPECT_EQ(inTextures.sortedBodies(), inBuffers.sortedBodies());
    const TreeGravity::ListStatistics textureLists = inTextures.listStatistics(),
                                      bufferLists = inBuffers.listStatistics();
    EXPECT_EQ(textureLists.nodesTestedPerGroup, bufferLists.nodesTestedPerGroup);
    EXPECT_EQ(textureLists.bodyInteractionsPerBody, bufferLists.bodyInteractionsPerBody);
    EXPECT_EQ(textureLists.cellInteractionsPerBody, bufferLists.cellInteractionsPerBody);
    const GpuBodies bodies = upload(state);
    EXPECT_EQ(inTextures.potentialEnergy(bodies.positionMass.id(), bodies.size, bodies.count,
                                         params, TreeSettings{}),
              inBuffers.potentialEnergy(bodies.positionMass.id(), bodies.size, bodies.count, params,
                                        TreeSettings{}));
  }
}

// A decomposed walker's host writes, reads and moves of records (the frontier, the straddling
// nodes, its own bodies shifted past what its LETs bring) against a model in host memory: in
// buffers and in textures of 64 texels a row alike, with runs that start and end mid-row, cross
// rows, and moves whose ranges overlap either way.
TEST_F(TreeGravityTest, RecordsWrittenReadAndMovedAsAModelOfThemInHostMemory) {
  GLint64 largestBlock = 0;
  GLint largestTexture = 0;
  glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &largestBlock);
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &largestTexture);
  constexpr std::size_t kRecords = 1000;
  for (const tree::ArrayLimits& limits :
       {tree::arrayLimitsOf(gl::limits()),
        tree::ArrayLimits{std::size_t(largestBlock), 4096, 64, largestTexture}}) {
    tree::TreeBuffers buffers;
    buffers.reserve(kRecords, limits);
    EXPECT_EQ(buffers.storage().inTextures, limits.textureWidth == 64);
    for (const tree::Binding binding : {tree::kSortedBodies, tree::kNodeTest, tree::kParents}) {
      const std::size_t words = tree::textureArrayOf(binding)->recordBytes / 4;
      std::vector<std::uint32_t> model(kRecords * words);
      for (std::size_t i = 0; i < model.size(); ++i)  // a finite float's bits, unlike its index's
        model[i] = std::bit_cast<std::uint32_t>(float(i) * 0.25f + 1.0f);
      buffers.writeRecords(binding, 0, model);
      const auto move = [&](std::size_t from, std::size_t to, std::size_t count) {
        buffers.moveRecords(binding, from, to, count);
        const std::vector<std::uint32_t> moved(
            model.begin() + std::ptrdiff_t(from * words),
            model.begin() + std::ptrdiff_t((from + count) * words));
        std::copy(moved.begin(), moved.end(), model.begin() + std::ptrdiff_t(to * words));
      };
      move(3, 70, 500);   // forward, overlapping
      move(400, 7, 333);  // back, overlapping
      move(62, 125, 5);   // a few, across a row at both ends (a scratch row of 8)
      const std::vector<std::uint32_t> few(5 * words, 0x40400000u);  // 62..66: across a row
      buffers.writeRecords(binding, 62, few);
      std::copy(few.begin(), few.end(), model.begin() + std::ptrdiff_t(62 * words));
      EXPECT_EQ(buffers.readRecords(binding, 61, 5),
                std::vector<std::uint32_t>(model.begin() + std::ptrdiff_t(61 * words),
                                           model.begin() + std::ptrdiff_t(66 * words)));
      const std::vector<std::uint32_t> run(80 * words, 0x3f000000u);  // 60..139, across rows
      buffers.writeRecords(binding, 60, run);
      std::copy(run.begin(), run.end(), model.begin() + std::ptrdiff_t(60 * words));
      EXPECT_EQ(buffers.readRecords(binding, 65, 130),
                std::vector<std::uint32_t>(model.begin() + std::ptrdiff_t(65 * words),
                                           model.begin() + std::ptrdiff_t(195 * words)));
      EXPECT_EQ(buffers.readRecords(binding, 0, kRecords), model) << binding;
      EXPECT_EQ(buffers.readRecord(binding, 127),
                std::vector<std::uint32_t>(model.begin() + std::ptrdiff_t(127 * words),
                                           model.begin() + std::ptrdiff_t(128 * words)));
    }
  }
}

// Where the stack's nodes are kept changes no bit: a ring of 4 rows that spills most of a deep
// tree's stack to GPU memory gives what a stack that never spills gives.
TEST_F(TreeGravityTest, SpillingTheStackChangesNoBit) {
  const State state = withDenseCore(findScene("plummer")->generate(6000, 5));
  const StepParams params = softened(1e-8);
  TreeGravity tree;
  for (int group : {16, 64}) {
    TreeSettings spilling =
        group == 64 ? thetaAlone() : TreeSettings{};  // theta 0.43: deep enough to spill
    spilling.groupSize = group;
    TreeSettings roomy = spilling;  // the ring: the least, 4 rows; spilling to GPU memory
    roomy.stackSize = 4096;
    roomy.stackNodes = 4096;
    const std::vector<glm::dvec3> expected = treeAccelerations(tree, state, params, roomy);
    const TreeGravity::ListStatistics roomyLists = tree.listStatistics();
    const std::vector<glm::dvec3> spilled = treeAccelerations(tree, state, params, spilling);
    const TreeGravity::ListStatistics spilledLists = tree.listStatistics();
    EXPECT_EQ(roomyLists.stackOverflows + roomyLists.stackRowsSpilled, 0u) << "group " << group;
    EXPECT_GT(spilledLists.stackRowsSpilled, 0u) << "group " << group << ": nothing was spilled";
    EXPECT_EQ(spilledLists.stackOverflows, 0u) << "group " << group;
    EXPECT_EQ(spilledLists.nodesTestedPerGroup, roomyLists.nodesTestedPerGroup)
        << "group " << group;
    EXPECT_TRUE(expected == spilled) << "group " << group << ": spilling changed the accelerations";
  }
}

// The automatic ring, tuned on the first evaluation (above 4M bodies; here made to at any N),
// changes no bit: the tuning evaluation, the next ones and either fixed ring agree.
TEST_F(TreeGravityTest, TuningTheRingChangesNoBit) {
  const State state = withDenseCore(findScene("plummer")->generate(6000, 5));
  const StepParams params = softened(1e-8);
  TreeSettings automatic;
  automatic.groupSize = 64;
  TreeGravity fixed;
  TreeSettings least = automatic, deepest = automatic;
  least.stackSize = 4 * 64;
  deepest.stackSize = 4096;
  const std::vector<glm::dvec3> expected = treeAccelerations(fixed, state, params, least);
  EXPECT_TRUE(treeAccelerations(fixed, state, params, deepest) == expected);
  TreeGravity tuned;
  tuned.tuneRingAbove(1000);
  EXPECT_FALSE(tuned.tunedRing(state.size(), automatic));
  EXPECT_TRUE(treeAccelerations(tuned, state, params, automatic) == expected)
      << "the tuning evaluation";
  const std::optional<int> ring = tuned.tunedRing(state.size(), automatic);
  ASSERT_TRUE(ring);
  EXPECT_TRUE(*ring == 4 * 64 || *ring == 4096) << *ring;
  EXPECT_TRUE(treeAccelerations(tuned, state, params, automatic) == expected)
      << "with the tuned ring " << *ring;
}

// A walk in parts (dispatches of a few groups, the CPU waiting between them; above 16384 groups on
// any GPU) changes no bit of the accelerations, the lists or the potential, spilling included.
TEST_F(TreeGravityTest, WalkingInPartsChangesNoBit) {
  const State state = withDenseCore(findScene("plummer")->generate(6000, 5));
  const StepParams params = softened(1e-8);
  TreeSettings settings;
  settings.groupSize = 16;  // 375 groups
  TreeGravity whole, parts;
  parts.walkInPartsOf(7);
  const std::vector<glm::dvec3> expected = treeAccelerations(whole, state, params, settings);
  const TreeGravity::ListStatistics wholeLists = whole.listStatistics();
  EXPECT_TRUE(treeAccelerations(parts, state, params, settings) == expected);
  const TreeGravity::ListStatistics partLists = parts.listStatistics();
  EXPECT_GT(partLists.stackRowsSpilled, 0u) << "the test should spill";
  EXPECT_EQ(partLists.stackRowsSpilled, wholeLists.stackRowsSpilled);
  EXPECT_EQ(partLists.nodesTestedPerGroup, wholeLists.nodesTestedPerGroup);
  EXPECT_EQ(partLists.bodyInteractionsPerBody, wholeLists.bodyInteractionsPerBody);
  const GpuBodies bodies = upload(state);
  EXPECT_EQ(
      parts.potentialEnergy(bodies.positionMass.id(), bodies.size, bodies.count, params, settings),
      whole.potentialEnergy(bodies.positionMass.id(), bodies.size, bodies.count, params, settings));
}

// heavyFirstOrder puts each part's groups of over four times its mean weight first, heaviest
// first (ties by index), the others after them in index order, and leaves the groups below the
// range in place: a permutation of each part.
TEST(HeavyFirstOrder, PutsEachPartsHeaviestGroupsFirstAndKeepsTheRestInOrder) {
  std::vector<double> weights(41, 1.0);
  weights[5] = 150, weights[9] = 300, weights[14] = 80;  // part [1, 21): mean 27.3
  weights[25] = 90, weights[30] = 90;                    // part [21, 41): mean 9.9
  const std::vector<std::uint32_t> order =
      tree::heavyFirstOrder({1, 41}, 20, [&](std::size_t g) { return weights.at(g); });
  std::vector<std::uint32_t> expected = {0, 9, 5};
  for (std::uint32_t g = 1; g < 21; ++g)
    if (g != 5 && g != 9) expected.push_back(g);  // 80 is under four times the mean
  expected.insert(expected.end(), {25, 30});
  for (std::uint32_t g = 21; g < 41; ++g)
    if (g != 25 && g != 30) expected.push_back(g);
  EXPECT_EQ(order, expected);
}

// The walk's groups taken heaviest first within each part (NBODY_WALK_ORDER=heavy-first) give the
// bits, the lists and the potential of the walk in index order, whole and of a range of groups;
// the order did move groups (a dense core makes a few groups far heavier than the rest).
TEST_F(TreeGravityTest, TakingTheHeaviestGroupsFirstChangesNoBit) {
  const State state = withDenseCore(findScene("plummer")->generate(6000, 5));
  const StepParams params = softened(1e-8);
  TreeSettings settings;
  settings.groupSize = 16;  // 375 groups, coarse groups of 128 bodies
  TreeGravity plain, ordered;
  plain.walkHeavyFirst(false);
  ordered.walkHeavyFirst(true);
  ordered.walkInPartsOf(100);
  const std::vector<glm::dvec3> expected = treeAccelerations(plain, state, params, settings);
  EXPECT_TRUE(treeAccelerations(ordered, state, params, settings) == expected);
  EXPECT_GT(ordered.groupsMovedLastWalk(), 0u);
  EXPECT_EQ(ordered.listStatistics().interactions, plain.listStatistics().interactions);
  const GpuBodies bodies = upload(state);
  ordered.evaluate(bodies.positionMass.id(), bodies.size, bodies.count, params, settings,
                   bodies.acceleration.id(), {37, 301});
  EXPECT_GT(ordered.groupsMovedLastWalk(), 0u);
  const std::vector<std::uint32_t> sorted = ordered.sortedBodies();
  const std::vector<glm::dvec3> part = readAccelerations(bodies);
  for (std::size_t k = 37 * 16; k < 301 * 16; ++k)
    ASSERT_TRUE(part[sorted[k]] == expected[sorted[k]]) << "sorted body " << k;
  EXPECT_EQ(
      ordered.potentialEnergy(bodies.positionMass.id(), bodies.size, bodies.count, params,
                              settings),
      plain.potentialEnergy(bodies.positionMass.id(), bodies.size, bodies.count, params, settings));
}

// A walk of a contiguous range of groups (how a distributed engine shares the walk out) writes
// exactly the accelerations of those groups' bodies, the bits a whole walk gives them, and leaves
// every other body's untouched; each group's counts are those of the whole walk.
TEST_F(TreeGravityTest, WalkingAGroupRangeWritesExactlyItsBodies) {
  const State state = withDenseCore(findScene("plummer")->generate(3000, 6));
  const StepParams params = softened(1e-8);
  TreeSettings settings;
  settings.groupSize = 16;
  const std::size_t groups = TreeGravity::groupCount(state.size(), settings);
  ASSERT_EQ(groups, (state.size() + 15) / 16);
  TreeGravity tree;
  tree.walkInPartsOf(5);  // the range's parts do not start at a multiple of the part size
  const std::vector<glm::dvec3> whole = treeAccelerations(tree, state, params, settings);
  const std::vector<tree::GroupCounts> wholeCounts = tree.groupCounts();
  ASSERT_EQ(wholeCounts.size(), groups);
  const std::vector<std::uint32_t> order = tree.sortedBodies();
  const std::size_t cuts[] = {0, 1, 37, 38, 200, groups};
  for (std::size_t c = 0; c + 1 < std::size(cuts); ++c) {
    const GpuBodies bodies = upload(state);  // accelerations NaN until written
    tree.evaluate(bodies.positionMass.id(), bodies.size, bodies.count, params, settings,
                  bodies.acceleration.id(), {cuts[c], cuts[c + 1]});
    const std::vector<glm::dvec3> part = readAccelerations(bodies);
    std::vector<bool> inRange(state.size(), false);
    for (std::size_t k = cuts[c] * 16; k < std::min(cuts[c + 1] * 16, state.size()); ++k)
      inRange[order[k]] = true;
    for (std::size_t i = 0; i < state.size(); ++i) {
      if (inRange[i])
        ASSERT_TRUE(part[i] == whole[i])
            << "body " << i << ", groups " << cuts[c] << " to " << cuts[c + 1];
      else
        ASSERT_TRUE(std::isnan(part[i].x))
            << "body " << i << " written outside groups " << cuts[c] << " to " << cuts[c + 1];
    }
    const std::vector<tree::GroupCounts> counts = tree.groupCounts();
    ASSERT_EQ(counts.size(), cuts[c + 1] - cuts[c]);
    for (std::size_t g = 0; g < counts.size(); ++g) {
      const tree::GroupCounts& expected = wholeCounts[cuts[c] + g];
      EXPECT_EQ(counts[g].bodyInteractions, expected.bodyInteractions) << "group " << cuts[c] + g;
      EXPECT_EQ(counts[g].cellInteractions, expected.cellInteractions) << "group " << cuts[c] + g;
      EXPECT_EQ(counts[g].nodesTested, expected.nodesTested) << "group " << cuts[c] + g;
    }
    EXPECT_EQ(tree.listStatistics().groups, cuts[c + 1] - cuts[c]);
  }
  const GpuBodies bodies = upload(state);
  EXPECT_THROW(tree.evaluate(bodies.positionMass.id(), bodies.size, bodies.count, params, settings,
                             bodies.acceleration.id(), {groups + 1, groups + 2}),
               std::invalid_argument);
  EXPECT_THROW(tree.evaluate(bodies.positionMass.id(), bodies.size, bodies.count, params, settings,
                             bodies.acceleration.id(), {5, 4}),
               std::invalid_argument);
}

// Subgroup prefix sums (where the GPU has them; NVIDIA does, llvmpipe not) build the same lists as
// the shared-memory ones: the same counts, and accelerations that differ at most by float32
// summation order. Where they are missing, automatic leaves them out and asking for them is
// refused. (Automatic is what every other test here runs, so on NVIDIA they all run the subgroup
// path.)
TEST_F(TreeGravityTest, SubgroupPrefixSumsBuildTheSameLists) {
  const State state = findScene("plummer")->generate(8192, 4);
  const StepParams params = softened(0.01);
  TreeGravity tree;
  TreeSettings shared;
  shared.groupSize = 128;
  shared.prefixSums = TreeSettings::PrefixSums::sharedMemory;
  // theta alone: the relative opening's estimates differ by rounding between the two, and a cell at
  // the criterion's edge may then go either way.
  shared.opening = TreeSettings::Opening::geometric;
  TreeSettings subgroups = shared;
  subgroups.prefixSums = TreeSettings::PrefixSums::subgroups;
  TreeSettings automatic = shared;
  automatic.prefixSums = TreeSettings::PrefixSums::automatic;
  const int size = gl::limits().computeSubgroupSize;
  if (size == 0 || 128 % size != 0) {
    EXPECT_FALSE(tree.usesSubgroups(automatic));
    EXPECT_THROW(treeAccelerations(tree, state, params, subgroups), std::runtime_error);
    return;
  }
  EXPECT_TRUE(tree.usesSubgroups(automatic));
  const std::vector<glm::dvec3> viaShared = treeAccelerations(tree, state, params, shared);
  const TreeGravity::ListStatistics sharedLists = tree.listStatistics();
  const std::vector<glm::dvec3> viaSubgroups = treeAccelerations(tree, state, params, subgroups);
  const TreeGravity::ListStatistics subgroupLists = tree.listStatistics();
  EXPECT_EQ(subgroupLists.bodyInteractionsPerBody, sharedLists.bodyInteractionsPerBody);
  EXPECT_EQ(subgroupLists.cellInteractionsPerBody, sharedLists.cellInteractionsPerBody);
  EXPECT_EQ(subgroupLists.nodesTestedPerGroup, sharedLists.nodesTestedPerGroup);
  const ForceErrorPercentiles difference = percentilesOf(relativeErrors(viaSubgroups, viaShared));
  EXPECT_LT(difference.max, 1e-5) << describe(difference);
}

TEST_F(TreeGravityTest, BadSettingsAndSizesAreRefused) {
  TreeGravity tree;
  const State state = uniformBall(100, 1);
  const GpuBodies bodies = upload(state);
  const auto evaluate = [&](const TreeSettings& s, std::size_t count) {
    tree.evaluate(bodies.positionMass.id(), bodies.size, count, softened(0.01), s,
                  bodies.acceleration.id());
  };
  TreeSettings s;
  s.theta = 1.5;
  EXPECT_THROW(evaluate(s, 100), std::invalid_argument);
  s = TreeSettings{};
  s.groupSize = 48;
  EXPECT_THROW(evaluate(s, 100), std::invalid_argument);
  s = TreeSettings{};
  s.expansionOrder = 3;
  EXPECT_THROW(evaluate(s, 100), std::invalid_argument);
  s = TreeSettings{};
  s.tileSize = 96;
  EXPECT_THROW(evaluate(s, 100), std::invalid_argument);
  s = TreeSettings{};
  s.stackSize = 2 * s.groupSize;  // under 4 rows
  EXPECT_THROW(evaluate(s, 100), std::invalid_argument);
  s.stackSize = 4 * s.groupSize + 64;  // not a power of two
  EXPECT_THROW(evaluate(s, 100), std::invalid_argument);
  s = TreeSettings{};
  s.stackNodes = -64;
  EXPECT_THROW(evaluate(s, 100), std::invalid_argument);
  s.stackNodes = 100;  // not whole rows
  EXPECT_THROW(evaluate(s, 100), std::invalid_argument);
  s.stackNodes = 2 * TreeSettings::kMostStackNodes;
  EXPECT_THROW(evaluate(s, 100), std::invalid_argument);
  for (const double accuracy : {0.0, -1e-3, 2.0, std::nan("")}) {
    s = TreeSettings{};
    s.accuracy = accuracy;
    EXPECT_THROW(evaluate(s, 100), std::invalid_argument) << accuracy;
  }
  s = TreeSettings{};
  s.estimateTheta = 0.0;
  EXPECT_THROW(evaluate(s, 100), std::invalid_argument);
  s.estimateTheta = 5.0;
  EXPECT_THROW(evaluate(s, 100), std::invalid_argument);
  s = TreeSettings{};
  s.estimateGroupSize = 96;
  EXPECT_THROW(evaluate(s, 100), std::invalid_argument);
  EXPECT_THROW(evaluate(TreeSettings{}, 0), std::invalid_argument);
  EXPECT_THROW(
      evaluate(TreeSettings{}, std::size_t(bodies.size.x) * std::size_t(bodies.size.y) + 1),
      std::invalid_argument);
}

TEST(TreeSettingsTest, SmallNGetsSmallerGroups) {
  EXPECT_EQ(resolveTreeSettings(1u << 24, 132).groupSize, 64);
  EXPECT_EQ(resolveTreeSettings(65536, 132).groupSize, 64);
  EXPECT_EQ(resolveTreeSettings(16384, 132).groupSize, 32);
  EXPECT_EQ(resolveTreeSettings(16384, 16).groupSize, 64);
}

}  // namespace
}  // namespace nbody
