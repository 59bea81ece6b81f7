// The decomposed tree's pieces under mpiexec (docs/decomposed-tree-design.md, section 7), one mode
// a step of its build order: each rank checks what it holds against what it can work out alone,
// says on stderr what differs, and the ranks agree on the outcome. Exit 0 when every rank found
// what it expected (rank 0 then prints one line), 1 otherwise, 2 for a bad command line.
// Modes:
//   collectives              step 1: Ranks::sum over a span, Ranks::allToAll, exactSumOnEveryRank
//   sort STATE N             steps 2 and 3: the global box and the homes' keys, the segment cut,
//                            the exchange and the walkers' sort, against one process's TreeGravity
//                            (STATE: plummer, uniform, dense-core, one-point, signed-zeros)
//   topology STATE N         step 4: the walker's links, straddling nodes marked, and parents
//   straddling STATE N       steps 4 and 5: the straddling nodes found alike on every rank, as
//                            one process links them, and written into each walker's arrays
//   moments STATE N          step 7: each walker's local moments pass, the frontier gathered, the
//                            top pass: one process's records for its nodes and the straddling ones
//   let STATE N [SETTINGS]   steps 2 to 9 through tree::DecomposedTree: each rank's local essential
//                            trees selected (tree_let.comp), sent and placed, in two rounds under
//                            the relative opening; each walker's groups walked and the
//                            accelerations shared: one process's, for every body on every rank.
//                            Prints each rank's LET sizes on stderr
//   slots STATE N            step 6, one process: a tree rearranged as a walker of the middle third
//                            holds it walks that third to one process's accelerations
//   diagnostics STATE N      the GPU's diagnostics of each rank's own bodies, summed across ranks:
//                            one GPU's of every body, bit for bit (STATE also: wide)
//   start-parts STATE N      a run started from each rank's part of the state (Engine::uploadPart)
//                            steps to the bits of one started from the whole: the tree decomposed,
//                            the fragment engine
//   past-texture STATE N     a state that fits no one texture (the largest lowered) kept apart by
//                            the decomposed tree: checked, held and stepped to the bits of a run
//                            under the GPU's limits, started from the parts or the whole; its
//                            gathering refused in words
//   agree-limits STATE N     ranks whose GPUs offer different limits agree on the least, and the
//                            tree's distribute=auto chooses alike on every rank
// SETTINGS (let): the tree's defaults for N changed by key=value,... (walkSettings).

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/run/snapshot_share.h"
#include "diagnostics/force_error.h"
#include "diagnostics/gpu_diagnostics.h"
#include "engines/fragment_engine.h"
#include "engines/gpu_capacity.h"
#include "engines/held_bodies.h"
#include "engines/rank_exchange.h"
#include "engines/registry.h"
#include "engines/stage_textures.h"
#include "engines/tree/tree_build.h"
#include "engines/tree/tree_decompose.h"
#include "engines/tree/tree_decomposed.h"
#include "engines/tree/tree_gravity.h"
#include "engines/tree/tree_let.h"
#include "engines/tree/tree_sort.h"
#include "engines/tree/tree_straddling.h"
#include "engines/tree/tree_walk.h"
#include "gl/desktop_calls.h"
#include "gl/egl_context.h"
#include "gl/limits.h"
#include "io/gadget.h"
#include "io/gadget_hdf5.h"
#include "parallel/ranks.h"
#include "physics/method.h"
#include "physics/scenes.h"

namespace nbody {
namespace {

// What rank `from` sends rank `to`: 1 to 4 records, and from 3 ranks nothing for some pairs
// (every pair of 2 ranks sends some, so that 2 ranks see the parts' order too).
std::size_t recordsBetween(int from, int to) { return std::size_t((from * 7 + to * 3 + 1) % 5); }

struct Record {
  std::uint32_t from, to, index;
};

bool sumsAcrossRanks(const Ranks& ranks) {
  constexpr std::int64_t kLarge = std::int64_t(1) << 40;  // past 32 bits
  std::vector<std::int64_t> values(5);
  for (std::size_t k = 0; k < values.size(); ++k)
    values[k] = (ranks.rank() + 1) * std::int64_t(k + 1) * kLarge - std::int64_t(k);
  ranks.sum(values);
  const std::int64_t count = ranks.count();
  bool ok = true;
  for (std::size_t k = 0; k < values.size(); ++k) {
    const std::int64_t expected =
        count * (count + 1) / 2 * std::int64_t(k + 1) * kLarge - count * std::int64_t(k);
    if (values[k] != expected) {
      std::fprintf(stderr, "rank %d: sum %zu is %lld, not %lld\n", ranks.rank(), k,
                   (long long)values[k], (long long)expected);
      ok = false;
    }
  }
  return ok;
}

// `scale` times recordsBetween's records a pair: 1, and a large exchange (up to 9.6 MB a pair,
// several MB a rank from 2 ranks on).
bool recordsAcrossRanks(const Ranks& ranks, std::size_t scale) {
  const auto between = [scale](int from, int to) { return recordsBetween(from, to) * scale; };
  std::vector<Record> send;
  std::vector<std::size_t> units;
  for (int to = 0; to < ranks.count(); ++to) {
    units.push_back(between(ranks.rank(), to));
    for (std::uint32_t k = 0; k < units.back(); ++k)
      send.push_back({std::uint32_t(ranks.rank()), std::uint32_t(to), k});
  }
  std::vector<std::size_t> receivedUnits;
  const std::vector<std::byte> received =
      ranks.allToAll(std::as_bytes(std::span(send)), units, sizeof(Record), receivedUnits);
  std::vector<Record> expected;
  for (int from = 0; from < ranks.count(); ++from)
    for (std::uint32_t k = 0; k < between(from, ranks.rank()); ++k)
      expected.push_back({std::uint32_t(from), std::uint32_t(ranks.rank()), k});
  bool ok = received.size() == expected.size() * sizeof(Record) &&
            std::memcmp(received.data(), expected.data(), received.size()) == 0;
  for (int from = 0; from < ranks.count(); ++from)
    ok = ok && receivedUnits.at(std::size_t(from)) == between(from, ranks.rank());
  if (!ok)
    std::fprintf(
        stderr, "rank %d: allToAll brought other parts than those sent (%zu bytes, %zu expected)\n",
        ranks.rank(), received.size(), expected.size() * sizeof(Record));
  return ok;
}

// Terms of every rank, from 2^-1000 to 2^1000 and both signs: the sum across ranks must be the
// one sum of all of them, bit for bit.
double termOf(int rank, int k) {
  return (k % 2 ? -1.0 : 1.0) * std::ldexp(1.0 + k / 7.0, (rank * 37 + k * 151) % 2001 - 1000);
}

bool exactSumsAcrossRanks(const Ranks& ranks) {
  ExactSum own, all;
  for (int k = 0; k < 40; ++k) own.add(termOf(ranks.rank(), k));
  for (int rank = 0; rank < ranks.count(); ++rank)
    for (int k = 0; k < 40; ++k) all.add(termOf(rank, k));
  const double across = exactSumOnEveryRank(ranks, own).value(), expected = all.value();
  if (std::memcmp(&across, &expected, sizeof across) == 0) return true;
  std::fprintf(stderr, "rank %d: the exact sum across ranks is %.17g, not %.17g\n", ranks.rank(),
               across, expected);
  return false;
}

bool collectives(const Ranks& ranks) {
  // Every check on every rank, whatever failed before: each is collective.
  const bool checks[] = {sumsAcrossRanks(ranks), recordsAcrossRanks(ranks, 1),
                         recordsAcrossRanks(ranks, 200000), exactSumsAcrossRanks(ranks)};
  return std::ranges::all_of(checks, [](bool ok) { return ok; });
}

// ---- sort: steps 2 and 3.

// The states of the design's section 7: a Plummer sphere, a uniform ball, a dense core (up to 1500
// bodies within 1e-5: equal keys), all bodies at one point (every key 0), and coordinates of -0.0
// and +0.0 (the box's zero signs).
State probeState(const std::string& name, std::size_t count) {
  if (name == "uniform") return findScene("uniform-sphere")->generate(count, 6);
  State state = findScene("plummer")->generate(count, 5);
  for (std::size_t i = 0; i < count; ++i) {
    glm::vec4& p = state.positionMass[i];
    if (name == "dense-core" && i % 2 == 0 && i < 3000)
      p = glm::vec4(glm::vec3(0.1f, -0.2f, 0.3f) + 1e-5f * glm::vec3(p) / 20.0f, p.w);
    if (name == "one-point") p = glm::vec4(0.25f, -0.5f, 1.0f, p.w);
    if (name == "signed-zeros" && i % 3 != 2) p.x = i % 3 == 0 ? -0.0f : 0.0f;
    if (name == "signed-zeros" && i % 5 == 0) p.y = -0.0f;
  }
  for (std::size_t i = 0; name == "wide" && i < count; ++i) {  // masses from 2^-60 to 2^40
    state.positionMass[i].w = std::ldexp(1.0f + float(i % 7) / 8.0f, int(i % 100) - 60);
    state.velocity[i].x *= i % 2 ? -1.0f : 1.0f;
  }
  if (name != "plummer" && name != "dense-core" && name != "one-point" && name != "signed-zeros" &&
      name != "wide")
    throw std::invalid_argument("unknown state " + name);
  return state;
}

gl::Texture bodyTexture(std::span<const glm::vec4> bodies, glm::ivec2& size) {
  size =
      StageTextures::sizeFor(std::max<std::size_t>(bodies.size(), 1), gl::limits().maxTextureSize);
  GLuint id = 0;
  glCreateTextures(GL_TEXTURE_2D, 1, &id);
  gl::Texture texture(id);
  glTextureStorage2D(id, 1, GL_RGBA32F, size.x, size.y);
  std::vector<glm::vec4> texels(std::size_t(size.x) * std::size_t(size.y), glm::vec4(0.0f));
  std::copy(bodies.begin(), bodies.end(), texels.begin());
  glTextureSubImage2D(id, 0, 0, 0, size.x, size.y, GL_RGBA, GL_FLOAT, texels.data());
  return texture;
}

// What one process's tree does with every body: its sorted bodies and keys.
struct OneProcess {
  std::vector<std::uint32_t> order;
  std::vector<std::uint64_t> keys;
};
// An RGBA32F array texture of one layer, for accelerations.
gl::Texture accelerationArray(glm::ivec2 size) {
  GLuint id = 0;
  glCreateTextures(GL_TEXTURE_2D_ARRAY, 1, &id);
  gl::Texture texture(id);
  glTextureStorage3D(id, 1, GL_RGBA32F, size.x, size.y, 1);
  return texture;
}

std::vector<glm::vec4> readLayer(const gl::Texture& texture, glm::ivec2 size, std::size_t count) {
  std::vector<glm::vec4> texels(std::size_t(size.x) * std::size_t(size.y));
  glGetTextureImage(texture.id(), 0, GL_RGBA, GL_FLOAT, GLsizei(texels.size() * 16), texels.data());
  texels.resize(count);
  return texels;
}

// Accelerations (xyz, w 0) of every body by one process's TreeGravity.
std::vector<glm::vec4> accelerationsOf(TreeGravity& tree, const State& state,
                                       const TreeSettings& settings) {
  glm::ivec2 size;
  const gl::Texture positions = bodyTexture(state.positionMass, size);
  const gl::Texture accelerations = accelerationArray(size);
  tree.evaluate(positions.id(), size, state.size(), StepParams{}, settings, accelerations.id());
  return readLayer(accelerations, size, state.size());
}

OneProcess sortedByOneProcess(const State& state) {
  TreeGravity tree;
  accelerationsOf(tree, state, TreeSettings{});
  return {tree.sortedBodies(), tree.sortedKeys()};
}

// The tree's kernels and arrays for `bodies` bodies, bound.
struct TreeArrays {
  tree::Kernels kernels{gl::limits()};
  tree::TreeBuffers buffers;
  explicit TreeArrays(std::size_t bodies) {
    buffers.reserve(std::max<std::size_t>(bodies, 1), tree::arrayLimitsOf(gl::limits()));
    kernels.setStorage(buffers.storage());
    buffers.bindAll();
  }
};

bool sameKeysAtHome(const TreeArrays& gpu, const OneProcess& one, BodyRange home,
                    const Ranks& ranks) {
  const std::vector<std::uint32_t> order = tree::readSortedBodies(gpu.buffers, home.size());
  const std::vector<std::uint64_t> keys = tree::readSortedKeys(gpu.buffers, home.size());
  std::vector<std::uint64_t> keyOf(one.keys.size());
  for (std::size_t k = 0; k < one.keys.size(); ++k) keyOf[one.order[k]] = one.keys[k];
  for (std::size_t k = 0; k < order.size(); ++k)
    if (keys[k] != keyOf[home.first + order[k]]) {
      std::fprintf(stderr, "rank %d: body %zu's key at home is %llx, not %llx\n", ranks.rank(),
                   home.first + order[k], (unsigned long long)keys[k],
                   (unsigned long long)keyOf[home.first + order[k]]);
      return false;
    }
  return true;
}

bool sameSegment(const std::vector<std::uint32_t>& ids, const TreeArrays& walker,
                 const OneProcess& one, BodyRange segment, const Ranks& ranks) {
  const std::vector<std::uint32_t> slots = tree::readSortedBodies(walker.buffers, ids.size());
  const std::vector<std::uint64_t> keys = tree::readSortedKeys(walker.buffers, ids.size());
  bool ok = ids.size() == segment.size();
  for (std::size_t k = 0; ok && k < slots.size(); ++k)
    ok = ids[slots[k]] == one.order[segment.first + k] && keys[k] == one.keys[segment.first + k];
  if (!ok)
    std::fprintf(stderr, "rank %d: the walker's %zu bodies are not one process's [%zu, %zu)\n",
                 ranks.rank(), ids.size(), segment.first, segment.last);
  return ok;
}

// The tree's settings for a walk, the local essential tree's chunk (0: letChunkBodies), and the
// largest array kept in a buffer (0: one block; smaller: the arrays in textures at small N).
struct WalkSettings {
  TreeSettings tree;
  std::size_t chunkBodies, arrayBytes, pieceBytes;
  int textureRows = 0;  // 0: the GPU's
};

// One rank's part after steps 2 and 3: its home, its segment of the order, sorted in its walker
// arrays, and the IDs of its slots.
struct Walker {
  TreeArrays gpu;
  BodyRange home, own;
  std::vector<std::size_t> starts;
  std::vector<std::uint32_t> ids;
  gl::Texture bodies;
  glm::ivec2 size{0, 0};  // of `bodies`
  bool homeKeysAgree = false;
  int rank = 0;
  explicit Walker(std::size_t count) : gpu(count) {}
};

std::vector<std::size_t> segmentStarts(std::size_t count, int ranks, std::size_t& unit,
                                       const TreeSettings& settings) {
  unit = tree::estimateSettings(settings).groupSize;
  std::vector<std::size_t> starts;
  for (const BodyRange& segment : shareOut(count, unit, ranks)) starts.push_back(segment.first);
  starts.push_back(count);
  return starts;
}

// Steps 2 and 3 on this rank: the global box and the home's keys, the segment cut (on whole groups
// of the walks of `settings`), the exchange and the walker's sort.
void decompose(const Ranks& ranks, const State& state, const OneProcess& one, Walker& walker,
               const TreeSettings& settings) {
  const std::size_t count = state.size();
  walker.home = shareOut(count, 1, ranks.count())[std::size_t(ranks.rank())];
  walker.rank = ranks.rank();
  std::size_t unit = 0;
  walker.starts = segmentStarts(count, ranks.count(), unit, settings);
  const BodyRange home = walker.home;
  tree::Kernels& kernels = walker.gpu.kernels;
  const tree::TreeBuffers& buffers = walker.gpu.buffers;
  glm::ivec2 size;
  const gl::Texture homeBodies =
      bodyTexture(std::span(state.positionMass).subspan(home.first, home.size()), size);
  glBindTextureUnit(tree::kPositionUnit, homeBodies.id());
  const std::array<std::uint32_t, 6> bounds =
      tree::findGlobalBounds(kernels, buffers, home.size(), ranks);
  tree::sortByKeys(kernels, buffers, home.size());
  walker.homeKeysAgree = sameKeysAtHome(walker.gpu, one, home, ranks);
  tree::SegmentCut cut;
  const std::vector<std::size_t> sendCounts =
      cut.sendCounts(kernels, buffers, home.size(), {home.first}, walker.starts, ranks);
  tree::buildTopology(kernels, home.size());  // gathers the sorted bodies
  const tree::SegmentBodies segment = tree::sendSegments(buffers, home.size(), sendCounts, ranks);
  walker.ids = tree::sendIds(walker.gpu.buffers, home, sendCounts, ranks);
  walker.own = {walker.starts[std::size_t(ranks.rank())],
                walker.starts[std::size_t(ranks.rank()) + 1]};
  walker.bodies = bodyTexture(segment.positionMass, walker.size);
  glBindTextureUnit(tree::kPositionUnit, walker.bodies.id());
  tree::writeBounds(buffers, bounds);
  tree::sortByKeys(kernels, buffers, segment.positionMass.size());
  if (ranks.leader())
    std::fprintf(stderr, "%zu bodies, segments of %zu-body units, %d rounds\n", count, unit,
                 cut.rounds());
}

bool sortAcrossRanks(const Ranks& ranks, const State& state) {
  const OneProcess one = sortedByOneProcess(state);
  Walker walker(state.size());
  decompose(ranks, state, one, walker, resolveTreeSettings(state.size()));
  return sameSegment(walker.ids, walker.gpu, one, walker.own, ranks) && walker.homeKeysAgree;
}

// ---- topology: step 4.

// One process's tree of every body, by the single-GPU sort, topology and moments: its node records
// (node test, quadrupole: 8 words each a node; the links are words 5 and 6 of a node's) and parents
// (leaf k at k, node c at N + c).
struct OneTree {
  std::vector<std::uint32_t> links, quad, parents;
};
OneTree treeOfOneProcess(const State& state) {
  TreeArrays gpu(state.size());
  glm::ivec2 size;
  const gl::Texture bodies = bodyTexture(state.positionMass, size);
  glBindTextureUnit(tree::kPositionUnit, bodies.id());
  tree::sortBodies(gpu.kernels, gpu.buffers, state.size());
  tree::buildTopology(gpu.kernels, state.size());
  tree::computeMoments(gpu.kernels, gpu.buffers, state.size(), TreeSettings{}.theta);
  const std::size_t nodes = state.size() - 1;
  return {gpu.buffers.readWords(tree::kNodeTest, 8 * nodes),
          gpu.buffers.readWords(tree::kNodeQuad, 8 * nodes),
          gpu.buffers.readWords(tree::kParents, 2 * state.size() - 1)};
}

bool straddles(std::size_t node, std::uint32_t otherEnd, std::span<const std::size_t> starts) {
  const std::size_t low = std::min<std::size_t>(node, otherEnd),
                    high = std::max<std::size_t>(node, otherEnd);
  return std::any_of(starts.begin(), starts.end(),
                     [&](std::size_t start) { return low < start && start <= high; });
}

// Node i's links as its record at `words` says (otherEnd, split), at record slot `slot`.
std::pair<std::uint32_t, std::uint32_t> linksAt(const std::vector<std::uint32_t>& words,
                                                std::size_t slot) {
  return {words[8 * slot + 5], words[8 * slot + 6]};
}

// Every node of the walker's segment has one process's links, or, while `marked`, the straddling
// mark where its range crosses a segment start; every child of a node linked here has its parent.
bool sameLinks(const Walker& walker, const OneTree& one, bool marked, const Ranks& ranks) {
  const std::size_t total = one.parents.size() / 2 + 1, first = walker.own.first,
                    count = walker.own.size();
  const std::size_t nodes = std::min(walker.own.last, total - 1) - std::min(first, total - 1);
  const std::vector<std::uint32_t> links = walker.gpu.buffers.readWords(tree::kNodeTest, 8 * nodes);
  const std::vector<std::uint32_t> parents =
      walker.gpu.buffers.readWords(tree::kParents, count + nodes);
  const auto unlinked = [&](std::uint32_t node) {
    return marked && straddles(node, linksAt(one.links, node).first, walker.starts);
  };
  std::size_t straddling = 0, wrong = 0;
  for (std::size_t s = 0; s < nodes; ++s) {
    const auto expected = linksAt(one.links, first + s);
    straddling += straddles(first + s, expected.first, walker.starts);
    const auto got = linksAt(links, s);
    wrong += unlinked(std::uint32_t(first + s))
                 ? got != std::pair(tree::kStraddling, tree::kStraddling)
                 : got != expected;
  }
  for (std::size_t s = 0; total > 1 && s < count + nodes; ++s) {  // leaves, then nodes
    const std::size_t global = s < count ? first + s : total + first + s - count;
    const std::uint32_t parent = one.parents[global];
    wrong += global != total && !unlinked(parent) && parents[s] != parent;
  }
  if (wrong > 0)
    std::fprintf(stderr, "rank %d: %zu of %zu nodes' links or parents differ (%zu straddling)\n",
                 ranks.rank(), wrong, nodes, straddling);
  return wrong == 0;
}

// Step 5: every rank's list of straddling nodes is one process's, whole, and the same on every
// rank.
bool sameStraddlingNodes(std::span<const tree::NodeLinks> nodes, const OneTree& one,
                         std::span<const std::size_t> starts, const Ranks& ranks) {
  std::vector<tree::NodeLinks> expected;
  for (std::uint32_t i = 0; i + 1 < one.parents.size() / 2 + 1; ++i) {
    const auto [otherEnd, split] = linksAt(one.links, i);
    if (straddles(i, otherEnd, starts)) expected.push_back({i, otherEnd, split});
  }
  std::uint64_t hash = 1469598103934665603ull;  // FNV-1a of the list
  for (const tree::NodeLinks& node : nodes)
    for (std::uint32_t word : {node.index, node.otherEnd, node.split})
      hash = (hash ^ word) * 1099511628211ull;
  const std::int64_t mine = std::int64_t(hash >> 2);
  const bool alike = ranks.maximum(mine) == mine && ranks.maximum(-mine) == -mine;
  const bool same = std::equal(nodes.begin(), nodes.end(), expected.begin(), expected.end());
  if (!same || !alike)
    std::fprintf(stderr, "rank %d: %zu straddling nodes, one process has %zu%s\n", ranks.rank(),
                 nodes.size(), expected.size(), alike ? "" : "; ranks differ");
  return same && alike;
}

// Steps 4 and 5 on this walker, after the sort: the keys next to its segment, the straddling nodes
// (found before the topology pass, as their counts read the sorted keys), its links.
std::pair<tree::TopologySegment, std::vector<tree::NodeLinks>> linkWalker(Walker& walker,
                                                                          std::size_t count,
                                                                          const Ranks& ranks) {
  const std::vector<tree::WalkerEnds> ends =
      tree::gatherEnds(walker.gpu.buffers, walker.own.size(), ranks);
  const tree::TopologySegment segment =
      tree::segmentOf(ends, walker.own.first, walker.own.size(), ranks.rank());
  tree::CompositeCounter counter;
  std::vector<tree::NodeLinks> nodes =
      tree::straddlingNodes(walker.gpu.kernels, counter, walker.starts, ends, ranks);
  tree::buildTopology(walker.gpu.kernels, count, segment);
  return {segment, std::move(nodes)};
}

// Steps 4 and 5 on this rank, each checked: its links, then the straddling nodes written in.
bool topologyAcrossRanks(const Ranks& ranks, const State& state, bool withStraddling) {
  const OneProcess one = sortedByOneProcess(state);
  const OneTree topology = treeOfOneProcess(state);
  Walker walker(state.size());
  decompose(ranks, state, one, walker, resolveTreeSettings(state.size()));
  const bool sorted = sameSegment(walker.ids, walker.gpu, one, walker.own, ranks);
  const auto [segment, nodes] = linkWalker(walker, state.size(), ranks);
  bool ok = sameLinks(walker, topology, true, ranks) && sorted && walker.homeKeysAgree;
  if (!withStraddling) return ok;
  ok = sameStraddlingNodes(nodes, topology, walker.starts, ranks) && ok;
  tree::writeStraddlingNodes(walker.gpu.buffers, nodes, segment);
  if (ranks.leader()) std::fprintf(stderr, "%zu straddling nodes\n", nodes.size());
  return sameLinks(walker, topology, false, ranks) && ok;
}

// ---- diagnostics: the GPU's sums of every rank's own bodies.

bool sameBitsOf(const Diagnostics& a, const Diagnostics& b) {
  const double x[] = {a.mass,
                      a.kinetic,
                      a.potential,
                      a.momentum.x,
                      a.momentum.y,
                      a.momentum.z,
                      a.angularMomentum.x,
                      a.angularMomentum.y,
                      a.angularMomentum.z,
                      a.centreOfMass.x,
                      a.centreOfMass.y,
                      a.centreOfMass.z};
  const double y[] = {b.mass,
                      b.kinetic,
                      b.potential,
                      b.momentum.x,
                      b.momentum.y,
                      b.momentum.z,
                      b.angularMomentum.x,
                      b.angularMomentum.y,
                      b.angularMomentum.z,
                      b.centreOfMass.x,
                      b.centreOfMass.y,
                      b.centreOfMass.z};
  return std::memcmp(x, y, sizeof x) == 0;
}

// Each rank measures its home's bodies (a range of IDs, as a decomposed run's homes hold them);
// the sums across ranks must be one GPU's of every body, bit for bit.
bool diagnosticsAcrossRanks(const Ranks& ranks, const State& state) {
  StepParams params;
  params.gravity = 0.7;
  FragmentEngine whole, home;
  whole.upload(state);
  GpuDiagnostics gpu;
  const Diagnostics expected = gpu.measure(*whole.gpuState(), params, false);
  const BodyRange range = shareOut(state.size(), 1, ranks.count())[std::size_t(ranks.rank())];
  State own;
  own.positionMass.assign(state.positionMass.begin() + std::ptrdiff_t(range.first),
                          state.positionMass.begin() + std::ptrdiff_t(range.last));
  own.velocity.assign(state.velocity.begin() + std::ptrdiff_t(range.first),
                      state.velocity.begin() + std::ptrdiff_t(range.last));
  const std::size_t held = own.size();
  if (held == 0) own = findScene("plummer")->generate(1, 1);  // an engine holds one at least
  home.upload(own);
  GpuStateView view = *home.gpuState();
  view.bodyCount = held;  // an empty home: no bodies, but the same collectives
  const Diagnostics across = gpu.measureAcross(view, params, ranks);
  if (sameBitsOf(across, expected)) return true;
  std::fprintf(stderr, "rank %d: mass %.17g, kinetic %.17g across ranks; %.17g, %.17g on one\n",
               ranks.rank(), across.mass, across.kinetic, expected.mass, expected.kinetic);
  return false;
}

// ---- moments: step 7.

// The local pass, the frontier gathered and placed, the top pass.
void walkerMoments(Walker& walker, const tree::TopologySegment& segment, std::size_t count,
                   tree::TopArea& top, const Ranks& ranks, double theta = TreeSettings{}.theta) {
  tree::TreeBuffers& buffers = walker.gpu.buffers;
  top.placeNodes(buffers);
  tree::SlotMap slots{true, segment.first, segment.count, 0,
                      buffers.writeSlotHash(walker.gpu.kernels, top.hash())};
  tree::computeMoments(walker.gpu.kernels, buffers, count, theta, slots);
  tree::LetSelection gpu;
  const std::vector<tree::FrontierItem> own = gpu.frontier(walker.gpu.kernels, top);
  const std::vector<tree::FrontierItem> all = gatherOnEveryRank(ranks, std::span(own));
  const std::vector<std::uint32_t> starts = top.placeFrontier(buffers, all);
  slots.hashEntries = buffers.writeSlotHash(walker.gpu.kernels, top.hash());
  gl::Buffer startBuffer = gl::Buffer::create();
  glNamedBufferStorage(startBuffer.id(), GLsizeiptr(std::max<std::size_t>(starts.size(), 1) * 4),
                       starts.empty() ? nullptr : starts.data(), 0);
  tree::computeMoments(walker.gpu.kernels, buffers, count, theta, slots,
                       {startBuffer.id(), starts.size()});
}

// Every node record of the walker's segment, and of every straddling node, is one process's.
bool sameRecords(const Walker& walker, std::span<const tree::NodeLinks> nodes,
                 const tree::TopArea& top, const OneTree& one, const Ranks& ranks) {
  const std::size_t total = one.links.size() / 8 + 1, first = walker.own.first;
  std::vector<std::pair<std::size_t, std::size_t>> checked;  // (node, slot)
  for (std::size_t i = std::min(first, total - 1); i < std::min(walker.own.last, total - 1); ++i)
    checked.push_back({i, i - first});
  for (const tree::NodeLinks& node : nodes) checked.push_back({node.index, top.slotOf(node.index)});
  std::size_t wrong = 0;
  for (const auto& [node, slot] : checked)
    for (tree::Binding binding : {tree::kNodeTest, tree::kNodeQuad})
      for (std::size_t part = 0; part < 2; ++part) {
        const std::vector<std::uint32_t> got =
            walker.gpu.buffers.readRecord(binding, 2 * slot + part);
        const std::vector<std::uint32_t>& words = binding == tree::kNodeTest ? one.links : one.quad;
        wrong += !std::equal(got.begin(), got.end(),
                             words.begin() + std::ptrdiff_t(8 * node + 4 * part));
      }
  const std::uint32_t misses = walker.gpu.buffers.readSlotMisses();
  if (wrong > 0 || misses > 0)
    std::fprintf(stderr, "rank %d: %zu of %zu records differ, %u misses\n", ranks.rank(), wrong,
                 4 * checked.size(), misses);
  return wrong == 0 && misses == 0;
}

bool momentsAcrossRanks(const Ranks& ranks, const State& state) {
  const OneProcess one = sortedByOneProcess(state);
  const OneTree tree = treeOfOneProcess(state);
  Walker walker(state.size());
  decompose(ranks, state, one, walker, resolveTreeSettings(state.size()));
  const auto [segment, nodes] = linkWalker(walker, state.size(), ranks);
  tree::writeStraddlingNodes(walker.gpu.buffers, nodes, segment);
  if (state.size() < 2) return true;
  tree::TopArea top(nodes, segment, state.size());
  walkerMoments(walker, segment, state.size(), top, ranks);
  return sameRecords(walker, nodes, top, tree, ranks);
}

// ---- let: steps 2 to 9 through tree::DecomposedTree.

// What this rank sent and received in each LET round, on stderr.
void reportLet(const tree::DecomposedTree& tree, const Ranks& ranks) {
  const char* names[] = {"A", "B"};
  const auto& rounds = tree.lastLetRounds();
  for (std::size_t r = 0; r < rounds.size(); ++r)
    std::fprintf(stderr,
                 "rank %d: LET %s: sent %zu nodes, %zu bodies (%zu bytes); received %zu nodes, "
                 "%zu bodies (%zu bytes)\n",
                 ranks.rank(), names[r + 2 - rounds.size()], rounds[r].nodesSent,
                 rounds[r].bodiesSent, rounds[r].bytesSent, rounds[r].nodesReceived,
                 rounds[r].bodiesReceived, rounds[r].bytesReceived);
}

// A force-error sample read from the ranks' parts (every third body): its positions and
// accelerations fetched by ID (one process's `expected`), and the reference summed over every
// body's position as the ranks give them out in pieces (of `pieceBytes` of texels, rounded to
// whole blocks of the reference's sums; 0: all at once), bit for bit the reference over `state`
// in one texture.
bool sampleFromParts(HeldBodies& held, const Ranks& ranks, const State& state,
                     const std::vector<glm::vec4>& expected, std::size_t pieceBytes) {
  const std::size_t count = state.size();
  std::vector<std::uint32_t> ids;
  for (std::uint32_t i = 1; i < count; i += 3) ids.push_back(i);
  const std::vector<glm::vec4> positions =
      held.texelsOf(held.textures().basePositionMass(), false, ids, ranks);
  const std::vector<glm::vec4> accelerations =
      held.texelsOf(held.textures().acceleration(0), true, ids, ranks);
  const StepParams params;
  ReferenceSum sum(positions, params);
  const std::size_t blocks = std::max<std::size_t>(pieceBytes / 16 / kReferenceBlock, 1);
  held.forEachPositionPiece(count, ranks, pieceBytes > 0 ? blocks * kReferenceBlock : count,
                            [&](GLuint texture, std::size_t n) { sum.add(texture, n); });
  glm::ivec2 size;
  const gl::Texture whole = bodyTexture(state.positionMass, size);
  const std::vector<glm::dvec3> reference =
      referenceAccelerations(whole.id(), size, count, params, ids);
  const std::vector<glm::dvec3> pieces = sum.result();
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < ids.size(); ++k)
    wrong += std::memcmp(&positions[k], &state.positionMass[ids[k]], sizeof(glm::vec4)) != 0 ||
             std::memcmp(&accelerations[k], &expected[ids[k]], sizeof(glm::vec3)) != 0 ||
             std::memcmp(&pieces[k], &reference[k], sizeof(glm::dvec3)) != 0;
  if (wrong > 0)
    std::fprintf(stderr, "rank %d: %zu of %zu sampled bodies differ\n", ranks.rank(), wrong,
                 ids.size());
  return wrong == 0;
}

// One evaluation by `tree` of what `held` holds (positions those of `state`, by ID): every body's
// acceleration, gathered from every rank, is one process's, bit for bit, and so is the state
// gathered back from where the evaluation moved it (every texel travels with its body), and a
// force-error sample read from the parts (sampleFromParts).
bool letEvaluation(tree::DecomposedTree& tree, HeldBodies& held, const Ranks& ranks,
                   const State& state, const WalkSettings& settings) {
  const std::size_t count = state.size();
  TreeGravity one;
  const std::vector<glm::vec4> expected = accelerationsOf(one, state, settings.tree);
  RankExchange exchange(ranks);
  tree.evaluate(held, 0, count, StepParams{}, settings.tree, exchange, settings.chunkBodies);
  reportLet(tree, ranks);
  const std::vector<glm::dvec3> got = held.gatherAccelerations(0, count, ranks);
  std::size_t wrong = 0, moved = 0;
  for (std::size_t k = 0; k < count; ++k) {
    const glm::vec3 acceleration(got[k]);  // floats, exactly
    wrong += std::memcmp(&acceleration, &expected[k], sizeof(glm::vec3)) != 0;
  }
  StageTextures full;
  full.allocate(StageTextures::sizeFor(count, gl::limits().maxTextureSize));
  held.gatherInto(full, count, ranks, settings.pieceBytes);
  const State back = full.download(count);
  for (std::size_t k = 0; k < count; ++k)
    moved += std::memcmp(&back.positionMass[k], &state.positionMass[k], sizeof(glm::vec4)) != 0 ||
             std::memcmp(&back.velocity[k], &state.velocity[k], sizeof(glm::vec3)) != 0 ||
             back.component[k] != componentOf(state, k);
  if (wrong > 0 || moved > 0)
    std::fprintf(stderr, "rank %d: %zu of %zu accelerations differ, %zu bodies' state\n",
                 ranks.rank(), wrong, count, moved);
  const bool sampled = sampleFromParts(held, ranks, state, expected, settings.pieceBytes);
  return wrong == 0 && moved == 0 && sampled;
}

// What `held` holds given the positions of `state`'s bodies of the same IDs.
void setHeldPositions(HeldBodies& held, const State& state) {
  const std::vector<std::uint32_t> ids = held.readIds();
  StageTextures::BaseTexels texels = held.textures().readBase(held.count());
  for (std::size_t i = 0; i < ids.size(); ++i) texels.positionMass[i] = state.positionMass[ids[i]];
  texels.positionMass.resize(held.textures().texelCount(), glm::vec4(0.0f));
  texels.velocity.resize(held.textures().texelCount(), glm::vec4(0.0f));
  held.textures().writeBase(texels);
}

// Every texture `held` holds but the state and the acceleration an evaluation writes (the stages'
// positions and velocities, the other parity, the other stages' accelerations): texel of ID i in
// texture t set to (i, t, -i, 0.5) (`write`), or checked to be that, wherever the body went.
// Returns the texels that are not.
std::size_t markedTexels(HeldBodies& held, bool write) {
  const std::vector<std::uint32_t> ids = held.readIds();
  const glm::ivec2 size = held.textures().size();
  const std::vector<StageTextures::BodyTexture> textures = held.textures().bodyTextures();
  const GLuint skipped[] = {held.textures().basePositionMass(), held.textures().baseVelocity(),
                            held.textures().acceleration(0)};
  std::size_t wrong = 0;
  for (std::size_t t = 0; t < textures.size(); ++t) {
    const GLuint id = textures[t].texture->id();
    if (std::find(std::begin(skipped), std::end(skipped), id) != std::end(skipped)) continue;
    std::vector<glm::vec4> texels(std::size_t(size.x) * std::size_t(size.y), glm::vec4(0.0f));
    if (!write)
      glGetTextureImage(id, 0, GL_RGBA, GL_FLOAT, GLsizei(texels.size() * 16), texels.data());
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const glm::vec4 mark(float(ids[i]), float(t), -float(ids[i]), 0.5f);
      if (write) texels[i] = mark;
      wrong += !write && texels[i] != mark;
    }
    if (write && textures[t].target == GL_TEXTURE_2D_ARRAY)
      glTextureSubImage3D(id, 0, 0, 0, 0, size.x, size.y, 1, GL_RGBA, GL_FLOAT, texels.data());
    else if (write)
      glTextureSubImage2D(id, 0, 0, 0, size.x, size.y, GL_RGBA, GL_FLOAT, texels.data());
  }
  return wrong;
}

// `state`, then its bodies' positions in reverse order of ID: the second evaluation's homes are
// the first's walkers, whose bodies are now all over the box (nearly every body migrates, with
// every texel of its state, and where keys are equal the homes' parts must merge in ID order).
bool letAcrossRanks(const Ranks& ranks, const State& state, const WalkSettings& settings) {
  tree::ArrayLimits arrays = tree::arrayLimitsOf(gl::limits());
  if (settings.arrayBytes > 0)
    arrays = {arrays.blockBytes, settings.arrayBytes, 64, arrays.textureRows};
  if (settings.textureRows > 0) arrays.textureRows = settings.textureRows;
  arrays.pieceBytes = settings.pieceBytes;
  tree::DecomposedTree tree(ranks, arrays);
  StageTextures full;
  full.allocate(StageTextures::sizeFor(state.size(), gl::limits().maxTextureSize));
  full.upload(state);
  HeldBodies held(full, state.size(), ranks);
  held.textures().reserveStages(4);  // every texture of RK4's stages moves too
  markedTexels(held, true);
  const bool first = letEvaluation(tree, held, ranks, state, settings);
  const std::size_t lost = markedTexels(held, false);
  if (lost > 0) std::fprintf(stderr, "rank %d: %zu texels lost their body\n", ranks.rank(), lost);
  State reversed = state;
  std::reverse(reversed.positionMass.begin(), reversed.positionMass.end());
  setHeldPositions(held, reversed);
  const bool second = letEvaluation(tree, held, ranks, reversed, settings);
  return first && second && lost == 0 && markedTexels(held, false) == 0;
}

// ---- slots: step 6, on one GPU.

constexpr std::size_t kSlotShift = 7;  // every body's slot is its position + 7

// A walker's arrays made from one GPU's tree: nodes of [a, e) at slot i - a, the others after them
// in reverse order; every body at its position + kSlotShift; the others' nodes and bodies in the
// hash; the sorted order of [a, e) from slot 0. Returns the map.
tree::SlotMap rearrange(tree::Kernels& kernels, tree::TreeBuffers& buffers, std::size_t count,
                        std::size_t a, std::size_t e) {
  const std::size_t nodes = count - 1, own = e - a;
  std::vector<std::array<std::uint32_t, 2>> hash;
  std::vector<std::size_t> slotOf(nodes);
  // The others, own..own + others - 1, in reverse order of their index.
  const auto local = [&](std::size_t i) { return i >= a && i < e; };
  std::size_t other = 0, others = 0;
  for (std::size_t i = 0; i < nodes; ++i) others += !local(i);
  for (std::size_t i = 0; i < nodes; ++i) {
    slotOf[i] = local(i) ? i - a : own + others - 1 - other++;
    if (!local(i)) hash.push_back({std::uint32_t(i), std::uint32_t(slotOf[i])});
  }
  for (tree::Binding binding : {tree::kNodeTest, tree::kNodeQuad}) {
    const std::vector<std::uint32_t> words = buffers.readWords(binding, 8 * nodes);
    std::vector<std::uint32_t> moved(8 * (own + others), 0u);
    for (std::size_t i = 0; i < nodes; ++i)
      std::copy_n(words.begin() + std::ptrdiff_t(8 * i), 8,
                  moved.begin() + std::ptrdiff_t(8 * slotOf[i]));
    glNamedBufferSubData(buffers.buffer(binding), 0, GLsizeiptr(moved.size() * 4), moved.data());
  }
  std::vector<std::uint32_t> bodies = buffers.readWords(tree::kSortedBodies, 4 * count);
  bodies.insert(bodies.begin(), 4 * kSlotShift, 0u);
  glNamedBufferSubData(buffers.buffer(tree::kSortedBodies), 0, GLsizeiptr(bodies.size() * 4),
                       bodies.data());
  for (std::size_t x = 0; x < count; ++x)
    if (x < a || x >= e)
      hash.push_back({std::uint32_t(x) | 0x80000000u, std::uint32_t(x + kSlotShift)});
  const std::vector<std::uint32_t> order = buffers.readWords(tree::kValuesIn, count);
  glNamedBufferSubData(buffers.buffer(tree::kValuesIn), 0, GLsizeiptr(own * 4), order.data() + a);
  return {true, a, own, a + kSlotShift, buffers.writeSlotHash(kernels, hash)};
}

// One GPU's tree rearranged as a walker of [a, e) holds it (nodes elsewhere, bodies shifted,
// the rest through the hash): the walk of its groups gives one process's accelerations, bit for
// bit, with no miss.
bool slotsOnOneGpu(const State& state) {
  const std::size_t count = state.size();
  const TreeSettings settings = resolveTreeSettings(count);
  TreeGravity one;
  const std::vector<glm::vec4> expected = accelerationsOf(one, state, settings);
  const std::size_t unit = tree::estimateSettings(settings).groupSize;
  const std::size_t a = count / 3 / unit * unit, e = 2 * count / 3 / unit * unit;
  TreeArrays gpu(count + kSlotShift);
  glm::ivec2 size;
  const gl::Texture positions = bodyTexture(state.positionMass, size);
  glBindTextureUnit(tree::kPositionUnit, positions.id());
  tree::sortBodies(gpu.kernels, gpu.buffers, count);
  const std::vector<std::uint32_t> order = tree::readSortedBodies(gpu.buffers, count);
  tree::buildTopology(gpu.kernels, count);
  tree::computeMoments(gpu.kernels, gpu.buffers, count, settings.theta);
  const tree::SlotMap slots = rearrange(gpu.kernels, gpu.buffers, count, a, e);
  const gl::Texture accelerations = accelerationArray(size);
  glBindImageTexture(tree::kAccelerationImageUnit, accelerations.id(), 0, GL_TRUE, 0, GL_WRITE_ONLY,
                     GL_RGBA32F);
  tree::WalkStage walk;
  const std::size_t groupSize = std::size_t(settings.groupSize);
  if (opensRelative(settings)) {
    walk.run(gpu.kernels, gpu.buffers, count, size, StepParams{}, tree::estimateSettings(settings),
             tree::WalkOutput::estimates, {a / unit, e / unit}, {}, slots);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
  }
  walk.run(gpu.kernels, gpu.buffers, count, size, StepParams{}, settings,
           tree::WalkOutput::accelerations, {a / groupSize, e / groupSize}, {}, slots);
  glMemoryBarrier(GL_TEXTURE_UPDATE_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
  const std::vector<glm::vec4> texels = readLayer(accelerations, size, count);
  std::size_t wrong = 0;
  for (std::size_t x = a; x < e; ++x)
    wrong += std::memcmp(&texels[order[x]], &expected[order[x]], sizeof(glm::vec4)) != 0;
  const std::uint32_t misses = gpu.buffers.readSlotMisses();
  std::fprintf(stderr, "slots: bodies [%zu, %zu) of %zu, %zu accelerations differ, %u misses\n", a,
               e, count, wrong, misses);
  return wrong == 0 && misses == 0 && e > a;
}

// The rank that holds body `body` at the start of start-parts: scattered by a hash of the index,
// none on rank 1 where there are three ranks or more.
int startingRank(std::size_t body, int ranks) {
  const int among = ranks >= 3 ? ranks - 1 : ranks;
  const int picked = int((body * 2654435761u >> 7) % std::size_t(among));
  return ranks >= 3 && picked >= 1 ? picked + 1 : picked;
}

// This rank's part of `state` in start-parts, its indices ascending.
StatePart startingPart(const State& state, const Ranks& ranks) {
  StatePart part;
  for (std::size_t i = 0; i < state.size(); ++i) {
    if (startingRank(i, ranks.count()) != ranks.rank()) continue;
    part.rows.positionMass.push_back(state.positionMass[i]);
    part.rows.velocity.push_back(state.velocity[i]);
    part.rows.id.push_back(state.id[i]);
    part.rows.component.push_back(state.component[i]);
    part.indices.push_back(i);
  }
  return part;
}

bool sameStates(const State& a, const State& b) {
  const auto bytesOf = [](const auto& values) { return std::as_bytes(std::span(values)); };
  const auto same = [&](const auto& x, const auto& y) {
    return x.size() == y.size() && std::ranges::equal(bytesOf(x), bytesOf(y));
  };
  return same(a.positionMass, b.positionMass) && same(a.velocity, b.velocity) && same(a.id, b.id) &&
         same(a.component, b.component);
}

// start-parts: a run that starts from each rank's part (Engine::uploadPart) holds and steps the
// state a run started from the whole does, bit for bit, IDs and components included: the tree
// decomposed (each rank holding its part alone until the first step moves the bodies) and the
// fragment engine (the parts gathered into the whole).
bool startFromParts(const Ranks& ranks, const State& plain) {
  State state = plain;
  for (std::size_t i = 0; i < state.size(); ++i) {
    state.id[i] = 1000 + 3 * i;
    state.component[i] = std::uint8_t(i % 3);
  }
  const StatePart part = startingPart(state, ranks);
  const struct {
    const char* name;
    EngineSettings settings;
  } engines[] = {{"tree", {{"distribute", "decompose"}}}, {"fragment", {}}};
  bool ok = true;
  for (const auto& entry : engines) {
    const char* name = entry.name;  // clang 14 does not capture structured bindings
    const EngineSettings& settings = entry.settings;
    const bool decomposed = std::string(name) == "tree";
    const auto run = [&](bool fromParts) {
      const std::unique_ptr<Engine> engine = createEngine(name, settings);
      engine->deferGathering(true);
      if (fromParts) {
        engine->uploadPart(part, state.size());
        const HeldBodies* held = engine->heldParts();  // the decomposed tree holds the part itself
        if (decomposed && (!held || held->count() != part.rows.size())) {
          std::fprintf(stderr, "start-parts: rank %d does not hold its part\n", ranks.rank());
          ok = false;
        }
      } else {
        engine->upload(state);
      }
      engine->step(*findMethod("rk4"), StepParams{}, 3);
      engine->deferGathering(false);
      return engine->download();
    };
    const bool same = sameStates(run(true), run(false));
    std::fprintf(stderr, "start-parts: %s engine, rank %d started with %zu of %zu bodies: %s\n",
                 name, ranks.rank(), part.rows.size(), state.size(),
                 same ? "the bits of a start from the whole" : "DIFFERENT");
    ok = ok && same;
  }
  return ok;
}

// Whether `engine`, its state kept apart past the largest texture, refuses in words what would
// gather it whole (its state and options unchanged): deferGathering(false), a replicated tree.
bool gatheringIsRefused(Engine& engine, const Ranks& ranks) {
  const auto refuses = [&](const char* what, const auto& call) {
    try {
      call();
    } catch (const std::exception& e) {  // a runtime_error, a UsageError for the option
      const bool said =
          std::string(e.what()).find("texture, the largest this GPU offers") != std::string::npos;
      if (!said) std::fprintf(stderr, "past-texture: %s refused: %s\n", what, e.what());
      return said;
    }
    std::fprintf(stderr, "past-texture: rank %d gathered past the largest texture (%s)\n",
                 ranks.rank(), what);
    return false;
  };
  const std::string variant = engine.variant();
  const bool gather = refuses("gathering", [&] { engine.deferGathering(false); });
  const bool replicate =
      refuses("distribute=replicate", [&] { engine.setOption("distribute", "replicate"); });
  return gather && replicate && engine.gatheringDeferred() && engine.heldParts() != nullptr &&
         engine.variant() == variant;
}

// past-texture: the largest texture lowered so that the whole state fits none (L^2 < N) while
// each rank's part fits one. Kept apart (gathering deferred), the decomposed tree holds, checks and
// steps such a state, started from each rank's part or from the whole, to the bits of a run under
// the GPU's own limits; what would gather it whole is refused in words, changing nothing.
bool pastOneTexture(const Ranks& ranks, const State& state) {
  const auto run = [&](bool fromParts) {
    std::unique_ptr<Engine> engine = createEngine("tree", {{"distribute", "decompose"}});
    engine->deferGathering(true);
    engine->checkCapacity(state.size());
    if (fromParts)
      engine->uploadPart(startingPart(state, ranks), state.size());
    else
      engine->upload(state);
    engine->step(*findMethod("rk4"), StepParams{}, 3);
    return engine;
  };
  const State reference = wholeOfParts(run(false)->downloadPart(), state.size());
  gl::Limits lowered = gl::limits();
  lowered.maxTextureSize = int(std::sqrt(double(state.size() - 1)));
  gl::replaceLimits(lowered);
  bool ok = true;
  for (const bool fromParts : {true, false}) {
    const std::unique_ptr<Engine> engine = run(fromParts);
    const bool refused = gatheringIsRefused(*engine, ranks);
    const bool same = sameStates(wholeOfParts(engine->downloadPart(), state.size()), reference);
    std::fprintf(stderr,
                 "past-texture: %zu bodies, textures of %d x %d at most, from %s, rank %d: %s\n",
                 state.size(), lowered.maxTextureSize, lowered.maxTextureSize,
                 fromParts ? "parts" : "the whole", ranks.rank(),
                 same ? "the bits of one texture" : "DIFFERENT");
    ok = ok && same && refused;
  }
  gl::forgetLimits();
  return ok;
}

// agree-limits: each rank's GPU offering less than the rank's before it (its largest texture and
// storage block lowered by rank; rank 0's memory unknown, the others' lowered by rank), the ranks
// agree on the least of each (agreeLimitsAcrossRanks), and the tree's `auto` at 64 x 64 bodies,
// which rank 0's texture alone holds, decomposes on every rank alike.
bool limitsAgreedAcrossRanks(const Ranks& ranks, const State&) {
  const gl::Limits own = gl::limits();
  const int rank = ranks.rank(), count = ranks.count();
  gl::Limits lowered = own;
  lowered.maxTextureSize = 64 - rank;
  lowered.maxShaderStorageBlockBytes = own.maxShaderStorageBlockBytes - rank * 1024;
  lowered.memoryBytes = rank == 0 ? 0.0 : 1e9 + rank;
  gl::replaceLimits(lowered);
  agreeLimitsAcrossRanks();
  gl::forgetLimits();  // the rank's own again; the agreed stand in for sharing
  const gl::Limits agreed = limitsForSharing();
  const bool least =
      agreed.maxTextureSize == 64 - (count - 1) &&
      agreed.maxShaderStorageBlockBytes == own.maxShaderStorageBlockBytes - (count - 1) * 1024 &&
      agreed.memoryBytes == 1e9 + 1;
  const bool decomposes = createEngine("tree")->holdsParts(64 * 64);
  const std::int64_t alike = ranks.sum(decomposes ? 1 : 0);
  std::fprintf(stderr, "agree-limits: rank %d: texture %d, block %lld, memory %.0f; %s at 4096\n",
               rank, agreed.maxTextureSize, agreed.maxShaderStorageBlockBytes, agreed.memoryBytes,
               decomposes ? "decomposes" : "replicates");
  return least && alike == count;
}

// The modes that run on a GPU with a state, a row each (the file's header says what each checks).
struct StateMode {
  const char* name;
  bool (*check)(const Ranks&, const State&, const WalkSettings&);
};
constexpr StateMode kStateModes[] = {
    {"sort",
     [](const Ranks& r, const State& s, const WalkSettings&) { return sortAcrossRanks(r, s); }},
    {"topology", [](const Ranks& r, const State& s,
                    const WalkSettings&) { return topologyAcrossRanks(r, s, false); }},
    {"straddling", [](const Ranks& r, const State& s,
                      const WalkSettings&) { return topologyAcrossRanks(r, s, true); }},
    {"moments",
     [](const Ranks& r, const State& s, const WalkSettings&) { return momentsAcrossRanks(r, s); }},
    {"let", letAcrossRanks},
    {"slots", [](const Ranks&, const State& s, const WalkSettings&) { return slotsOnOneGpu(s); }},
    {"diagnostics", [](const Ranks& r, const State& s,
                       const WalkSettings&) { return diagnosticsAcrossRanks(r, s); }},
    {"start-parts",
     [](const Ranks& r, const State& s, const WalkSettings&) { return startFromParts(r, s); }},
    {"past-texture",
     [](const Ranks& r, const State& s, const WalkSettings&) { return pastOneTexture(r, s); }},
    {"agree-limits", [](const Ranks& r, const State& s,
                        const WalkSettings&) { return limitsAgreedAcrossRanks(r, s); }},
};

// The defaults for `count` bodies changed by "key=value,...": theta, leaf, small, group, opening
// (geometric or relative), chunk (the LET's chunk bodies), array-bytes (arrays in textures past
// it), piece-bytes (the state moved and gathered in pieces of at most this), texture-rows (the
// most rows of those textures).
WalkSettings walkSettings(std::size_t count, const std::string& changes) {
  WalkSettings settings{resolveTreeSettings(count), 0, 0, 0};
  TreeSettings& tree = settings.tree;
  std::size_t at = 0;
  while (at < changes.size()) {
    const std::size_t end = std::min(changes.find(',', at), changes.size());
    const std::string item = changes.substr(at, end - at);
    const std::size_t equals = item.find('=');
    const std::string key = item.substr(0, equals), value = item.substr(equals + 1);
    if (key == "theta")
      tree.theta = std::stod(value);
    else if (key == "leaf")
      tree.leafSize = std::stoi(value);
    else if (key == "small")
      tree.smallCell = std::stoi(value);
    else if (key == "group")
      tree.groupSize = std::stoi(value);
    else if (key == "opening")
      tree.opening =
          value == "geometric" ? TreeSettings::Opening::geometric : TreeSettings::Opening::relative;
    else if (key == "chunk")
      settings.chunkBodies = std::stoul(value);
    else if (key == "array-bytes")
      settings.arrayBytes = std::stoul(value);
    else if (key == "piece-bytes")
      settings.pieceBytes = std::stoul(value);
    else if (key == "texture-rows")
      settings.textureRows = std::stoi(value);
    else
      throw std::invalid_argument("unknown setting " + item);
    at = end + 1;
  }
  validate(tree);
  return settings;
}

// The bytes of the file `path`.
std::string fileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Rank `rank`'s even share of `total` rows: the indices from total * r / K to total * (r + 1) / K.
bool holdsEvenShare(const SnapshotShare& share, int rank, int count) {
  const auto firstOf = [&](int r) {
    return std::uint64_t(share.total) * std::uint64_t(r) / std::uint64_t(count);
  };
  const std::uint64_t first = firstOf(rank), end = firstOf(rank + 1);
  bool ok = share.indices.size() == end - first && share.start.state.size() == end - first;
  for (std::size_t k = 0; ok && k < share.indices.size(); ++k) ok = share.indices[k] == first + k;
  return ok;
}

// Bodies as (ID, position and mass), sorted by ID (each ID once).
using BodiesById = std::vector<std::pair<std::uint64_t, glm::vec4>>;
BodiesById sortedById(BodiesById bodies) {
  std::sort(bodies.begin(), bodies.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  return bodies;
}

// The bodies of the files rank `rank` of `count` reads of the snapshot `path` names (files
// ceil(rF/K) to ceil((r+1)F/K) - 1), read here whole, as (ID, position and mass) sorted by ID.
BodiesById bodiesOfOwnFiles(const std::string& path, int rank, int count) {
  const int files = std::max(readGadgetHdf5File(fileBytes(path), path).fileCount, 1);
  BodiesById bodies;
  for (int file = (rank * files + count - 1) / count;
       file < ((rank + 1) * files + count - 1) / count; ++file) {
    const std::string name = files == 1 ? path : gadgetSiblingFile(path, file, true)->string();
    const GadgetBodies read = readGadgetHdf5File(fileBytes(name), name).bodies;
    for (std::size_t k = 0; k < read.size(); ++k)
      bodies.push_back(
          {read.id[k], glm::vec4(float(read.position[3 * k]), float(read.position[3 * k + 1]),
                                 float(read.position[3 * k + 2]), float(read.mass[k]))});
  }
  return sortedById(std::move(bodies));
}

// The rows of the files this rank read, kept: the same bodies (IDs, positions, masses), their
// indices ascending.
bool keepsRowsAsRead(const SnapshotShare& share, const std::string& path, int rank, int count) {
  const State& rows = share.start.state;
  BodiesById held;
  for (std::size_t k = 0; k < rows.size(); ++k) held.push_back({rows.id[k], rows.positionMass[k]});
  return sortedById(std::move(held)) == bodiesOfOwnFiles(path, rank, count) &&
         std::adjacent_find(share.indices.begin(), share.indices.end(), std::greater_equal<>()) ==
             share.indices.end();
}

// A part snapshot read a share of its files a rank (app/run/snapshot_share.h): `expected` "even",
// each rank holds the rows of its even share of the indices, in order, however the files fell to
// the ranks (a snapshot of one file, read by rank 0 alone, included); "kept", each rank holds the
// rows of the files it read, in the order of their indices.
bool readShare(const Ranks& ranks, const std::string& path, const std::string& expected) {
  const std::optional<SnapshotShare> share = readSnapshotShare(path);
  if (!share) {
    std::fprintf(stderr, "read-share: %s was not read in shares\n", path.c_str());
    return false;
  }
  const bool ok = expected == "kept" ? keepsRowsAsRead(*share, path, ranks.rank(), ranks.count())
                                     : holdsEvenShare(*share, ranks.rank(), ranks.count());
  std::fprintf(stderr, "read-share: rank %d holds %zu rows of %zu: %s\n", ranks.rank(),
               share->indices.size(), share->total,
               ok ? (expected == "kept" ? "its files' rows" : "its even share")
                  : (expected == "kept" ? "NOT ITS FILES' ROWS" : "NOT ITS EVEN SHARE"));
  return ok;
}

int probe(int argc, char** argv) {
  const Ranks& ranks = nbody::ranks();
  const std::string mode = argc > 1 ? argv[1] : "";
  const auto found = std::find_if(std::begin(kStateModes), std::end(kStateModes),
                                  [&](const StateMode& row) { return mode == row.name; });
  bool ok = false;
  if (mode == "collectives") {
    ok = collectives(ranks);
  } else if (mode == "read-share" && argc == 4) {
    ok = readShare(ranks, argv[2], argv[3]);
  } else if (found != std::end(kStateModes) && (argc == 4 || argc == 5)) {
    gl::chooseDevice(ranks.nodeRank());
    const std::unique_ptr<gl::HeadlessContext> context = gl::HeadlessContext::create();
    const std::size_t count = std::stoull(argv[3]);
    ok = found->check(ranks, probeState(argv[2], count),
                      walkSettings(count, argc == 5 ? argv[4] : ""));
  } else {
    std::string modes;
    for (const StateMode& row : kStateModes)
      modes += std::string(modes.empty() ? "" : "|") + row.name;
    std::fprintf(
        stderr,
        "decomposed_probe: collectives | read-share FILE even|kept | {%s} STATE N [SETTINGS]\n",
        modes.c_str());
    return 2;
  }
  if (ranks.maximum(ok ? 0 : 1) != 0) return 1;
  if (ranks.leader()) std::printf("%s: ok on %d ranks\n", mode.c_str(), ranks.count());
  return 0;
}

}  // namespace
}  // namespace nbody

int main(int argc, char** argv) {
  nbody::startRanks(&argc, &argv);
  int status = 1;
  try {
    status = nbody::probe(argc, argv);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "decomposed_probe: %s\n", error.what());
    if (nbody::ranks().distributed()) nbody::abortRanks(1);  // the others would wait for ever
  }
  nbody::finishRanks();
  return status;
}
