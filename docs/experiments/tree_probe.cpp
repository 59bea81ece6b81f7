// nbody_tree_probe: the Barnes-Hut tree (src/engines/tree/tree_gravity.h) alone, before any
// engine uses it: list lengths, the GPU time split (build / moments / walk, GL_TIME_ELAPSED,
// median of --repeat evaluations), wall time per evaluation, and the force-error percentiles of
// --samples bodies against the GPU double-precision direct sum. For sweeping the tree's knobs on
// the device:
//
//   build/nbody_tree_probe --scene plummer --bodies 1048576 --theta 0.43 --bodies-per-thread 2
//   build/nbody_tree_probe --scene uniform-sphere --bodies 16777216 --samples 4096 --repeat 5
//
// --count-only skips evaluation and errors: list lengths at any N, even on llvmpipe.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <vector>

#include <CLI/CLI.hpp>

#include "diagnostics/force_error.h"
#include "engines/stage_textures.h"
#include "gl/egl_context.h"
#include "gl/objects.h"
#include "physics/scenes.h"
#include "engines/tree/tree_gravity.h"

namespace {

using namespace nbody;

struct ProbeOptions {
  std::string scene = "plummer";
  std::size_t bodies = 1 << 20;
  std::uint64_t seed = 1;
  double softening = 0.01;
  int repeat = 10;
  std::size_t samples = 4096;
  bool countOnly = false;
  bool check = false;  // after each evaluation: reset status, GL error, a buffer's round trip
  bool referenceOnly = false;    // no tree: the reference alone (judged values are then noise)
  std::size_t referenceBodies = 0;  // sum the reference over the first this many bodies (0: all)
  double ballastGiB = 0;         // GPU memory taken (and cleared) before anything else
  std::size_t walkPartGroups = TreeGravity::kWalkPartGroups;  // groups per walk dispatch
  TreeSettings settings;
  // Each of these given more than once: every combination, on the same scene (generated once).
  std::vector<int> groups, stacks, spills, tiles, estimateGroups;
  std::vector<double> thetas, accuracies;
  std::vector<TreeSettings::PrefixSums> prefixSums;
};

// Every combination of the listed values (an empty list keeps o.settings' value).
std::vector<TreeSettings> variantsOf(const ProbeOptions& o) {
  std::vector<TreeSettings> variants{o.settings};
  const auto vary = [&variants](const auto& values, auto member) {
    if (values.empty()) return;
    std::vector<TreeSettings> extended;
    for (const TreeSettings& base : variants)
      for (const auto& value : values) {
        extended.push_back(base);
        extended.back().*member = value;
      }
    variants = extended;
  };
  vary(o.thetas, &TreeSettings::theta);
  vary(o.accuracies, &TreeSettings::accuracy);
  vary(o.groups, &TreeSettings::groupSize);
  vary(o.estimateGroups, &TreeSettings::estimateGroupSize);
  vary(o.tiles, &TreeSettings::tileSize);
  vary(o.stacks, &TreeSettings::stackSize);
  vary(o.spills, &TreeSettings::stackNodes);
  vary(o.prefixSums, &TreeSettings::prefixSums);
  return variants;
}

void addOptions(CLI::App& app, ProbeOptions& o) {
  app.add_option("--scene", o.scene, "scene (src/physics/scenes.h)");
  app.add_option("--bodies", o.bodies, "N");
  app.add_option("--seed", o.seed, "scene seed");
  app.add_option("--softening", o.softening, "epsilon");
  app.add_option("--repeat", o.repeat, "evaluations timed (median)")->check(CLI::PositiveNumber);
  app.add_option("--samples", o.samples, "bodies whose error is measured (0: none)");
  app.add_flag("--count-only", o.countOnly, "list lengths only");
  app.add_flag("--check", o.check, "after the evaluations: reset status, GL error, a buffer round trip");
  app.add_flag("--reference-only", o.referenceOnly, "skip the tree: only the reference");
  app.add_option("--reference-bodies", o.referenceBodies, "sum the reference over the first K bodies (0: all)");
  app.add_option("--ballast-gib", o.ballastGiB, "GiB of GPU buffers taken first");
  app.add_option("--walk-part-groups", o.walkPartGroups, "groups per walk dispatch (glFinish between)")
      ->check(CLI::PositiveNumber);
  app.add_option("--theta", o.thetas, "opening angle (several: each)");
  app.add_flag_function("--relative", [&o](std::int64_t) { o.settings.opening = TreeSettings::Opening::relative; },
                        "the relative opening (theta a geometric bound)");
  app.add_option("--accuracy", o.accuracies, "the relative opening's alpha (several: each)");
  app.add_option("--estimate-theta", o.settings.estimateTheta, "the relative opening's coarse walk's theta");
  app.add_option("--estimate-group", o.estimateGroups, "the coarse walk's group size (several: each)");
  app.add_option("--order", o.settings.expansionOrder, "1 monopole, 2 quadrupole");
  app.add_option("--group", o.groups, "bodies per group (several: each)");
  app.add_option("--bodies-per-thread", o.settings.bodiesPerThread, "1 or 2");
  app.add_option("--leaf", o.settings.leafSize, "leaf size");
  app.add_option("--small-cell", o.settings.smallCell, "small-cell size");
  app.add_option("--tile", o.tiles, "tile entries (0: group size; several: each)");
  app.add_option("--stack", o.stacks, "nodes of the stack's ring in shared memory (0: 4 rows; several: each)");
  app.add_option("--spill", o.spills, "nodes of the stack in all, the ring's included (several: each)");
  const std::map<std::string, TreeSettings::PrefixSums> sums{{"auto", TreeSettings::PrefixSums::automatic},
                                                            {"shared", TreeSettings::PrefixSums::sharedMemory},
                                                            {"subgroup", TreeSettings::PrefixSums::subgroups}};
  app.add_option("--prefix-sums", o.prefixSums, "auto, shared or subgroup (several: each)")
      ->transform(CLI::CheckedTransformer(sums));
}

// The scene's positions in a state texture of the engines' layout, and an acceleration array.
struct Textures {
  gl::Texture positionMass, acceleration;
  glm::ivec2 size{0, 0};
};

gl::Texture makeTexture(GLenum target, glm::ivec2 size) {
  GLuint id = 0;
  glCreateTextures(target, 1, &id);
  gl::Texture texture(id);
  if (target == GL_TEXTURE_2D_ARRAY) glTextureStorage3D(id, 1, GL_RGBA32F, size.x, size.y, 1);
  else glTextureStorage2D(id, 1, GL_RGBA32F, size.x, size.y);
  return texture;
}

Textures upload(const State& state) {
  GLint largest = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &largest);
  Textures t;
  t.size = StageTextures::sizeFor(state.size(), largest);
  std::vector<glm::vec4> texels(std::size_t(t.size.x) * std::size_t(t.size.y), glm::vec4(0.0f));
  std::copy(state.positionMass.begin(), state.positionMass.end(), texels.begin());
  t.positionMass = makeTexture(GL_TEXTURE_2D, t.size);
  glTextureSubImage2D(t.positionMass.id(), 0, 0, 0, t.size.x, t.size.y, GL_RGBA, GL_FLOAT, texels.data());
  t.acceleration = makeTexture(GL_TEXTURE_2D_ARRAY, t.size);
  return t;
}

void printLists(const TreeGravity::ListStatistics& s, const TreeSettings& settings) {
  const double cellCost = settings.expansionOrder >= 2 ? 2.8 : 1.0;  // body-body equivalents
  std::printf("lists per body: %.0f body-body + %.0f cells (%.0f body-body equivalents); %.0f nodes tested per group; "
              "longest group list %zu; stack overflows %zu, rows spilled %zu\n",
              s.bodyInteractionsPerBody, s.cellInteractionsPerBody,
              s.bodyInteractionsPerBody + cellCost * s.cellInteractionsPerBody, s.nodesTestedPerGroup,
              s.mostBodyInteractions, s.stackOverflows, s.stackRowsSpilled);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0.0 : values[values.size() / 2];
}

void timeEvaluations(TreeGravity& tree, const Textures& t, const ProbeOptions& o, const StepParams& params) {
  std::vector<double> build, moments, estimate, walk, wall;
  tree.evaluate(t.positionMass.id(), t.size, o.bodies, params, o.settings, t.acceleration.id());  // compiles
  glFinish();
  tree.lastTimeSplit();
  for (int k = 0; k < o.repeat; ++k) {
    const auto start = std::chrono::steady_clock::now();
    tree.evaluate(t.positionMass.id(), t.size, o.bodies, params, o.settings, t.acceleration.id());
    glFinish();
    wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (const auto split = tree.lastTimeSplit()) {
      build.push_back(split->build), moments.push_back(split->moments), estimate.push_back(split->estimate),
          walk.push_back(split->walk);
    }
  }
  const double total = median(build) + median(moments) + median(estimate) + median(walk);
  // (llvmpipe's timer queries do not see compute work: they report ~1e-6 ms there.)
  std::printf("GPU ms: build %.4g, moments %.4g, estimate %.4g, walk %.4g, total %.4g (%.4g evaluations/s); "
              "wall %.4g ms\n",
              1e3 * median(build), 1e3 * median(moments), 1e3 * median(estimate), 1e3 * median(walk), 1e3 * total,
              1.0 / total,
              1e3 * median(wall));
  printLists(tree.listStatistics(), o.settings);
}

// Whether the context still works: the reset status, the GL error, and a buffer written, cleared
// by the GPU and read back.
void checkContext(const char* when) {
  const GLenum reset = glGetGraphicsResetStatus();
  const GLenum error = glGetError();
  GLuint buffer = 0;
  glCreateBuffers(1, &buffer);
  const std::vector<GLuint> written{1u, 2u, 3u, 4u};
  glNamedBufferStorage(buffer, 16, written.data(), GL_DYNAMIC_STORAGE_BIT);
  const GLuint seven = 7u;
  glClearNamedBufferSubData(buffer, GL_R32UI, 8, 4, GL_RED_INTEGER, GL_UNSIGNED_INT, &seven);
  std::vector<GLuint> read(4, 99u);
  glGetNamedBufferSubData(buffer, 0, 16, read.data());
  glDeleteBuffers(1, &buffer);
  GLint memory[3] = {};  // GL_NVX_gpu_memory_info: total available, current available (KiB), evictions
  glGetIntegerv(0x9048, &memory[0]);
  glGetIntegerv(0x9049, &memory[1]);
  glGetIntegerv(0x904A, &memory[2]);
  glGetError();
  std::printf("check %s: reset status 0x%x, GL error 0x%x, round trip %u %u %u %u (1 2 7 4 if alive); "
              "memory MiB total %d, free %d, evictions %d\n", when, reset, error, read[0], read[1], read[2], read[3],
              memory[0] >> 10, memory[1] >> 10, memory[2]);
  std::fflush(stdout);
}

void measureErrors(const Textures& t, const ProbeOptions& o, const StepParams& params) {
  const std::vector<std::uint32_t> bodies = forceErrorSamples(o.bodies, o.seed, o.samples, o.samples);
  std::vector<glm::dvec3> judged;
  const std::vector<glm::dvec3> reference =
      referenceAccelerations(t.positionMass.id(), t.size, o.referenceBodies ? o.referenceBodies : o.bodies, params,
                             bodies, t.acceleration.id(), &judged);
  const ForceErrorPercentiles p = percentilesOf(relativeErrors(judged, reference));
  for (std::size_t k = 0; k < std::min<std::size_t>(3, bodies.size()); ++k)  // what went into the first errors
    std::printf("body %u: tree (%.6g, %.6g, %.6g), reference (%.6g, %.6g, %.6g)\n", bodies[k], judged[k].x, judged[k].y,
                judged[k].z, reference[k].x, reference[k].y, reference[k].z);
  std::printf("relative force error (%zu bodies): median %.3g, 90%% %.3g, 99%% %.3g, 99.9%% %.3g, max %.3g\n",
              p.samples, p.median, p.p90, p.p99, p.p999, p.max);
}

int probe(const ProbeOptions& o) {
  const auto context = gl::HeadlessContext::create(false);
  const Scene* scene = findScene(o.scene);
  if (!scene) throw std::runtime_error("no scene " + o.scene);
  StepParams params;
  params.softening = o.softening;
  std::vector<gl::Buffer> ballast;
  for (double left = o.ballastGiB; left > 0; left -= 1) {
    ballast.push_back(gl::Buffer::create());
    const GLsizeiptr bytes = GLsizeiptr(std::min(left, 1.0) * double(1 << 30));
    glNamedBufferStorage(ballast.back().id(), bytes, nullptr, 0);
    glClearNamedBufferData(ballast.back().id(), GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, nullptr);
  }
  TreeGravity tree;
  tree.walkInPartsOf(o.walkPartGroups);
  const Textures textures = upload(scene->generate(o.bodies, o.seed));
  for (const TreeSettings& settings : variantsOf(o)) {
    ProbeOptions one = o;
    one.settings = settings;
    std::printf("%s; %s N=%zu; %s\n", context->info().renderer.c_str(), o.scene.c_str(), o.bodies,
                describe(settings).c_str());
    tree.checkCapacity(o.bodies, settings);
    std::printf("prefix sums through %s\n", tree.usesSubgroups(settings) ? "subgroups" : "shared memory");
    if (o.countOnly) {  // timed as well: how much of the walk is traversal
      std::vector<double> wall;
      TreeGravity::ListStatistics lists;
      for (int k = 0; k < o.repeat; ++k) {
        const auto start = std::chrono::steady_clock::now();
        lists = tree.countLists(textures.positionMass.id(), textures.size, o.bodies, params, settings);
        wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      }
      std::printf("count only: wall %.4g ms (build, moments, list walk, read-back)\n", 1e3 * median(wall));
      printLists(lists, settings);
      continue;
    }
    if (o.check) checkContext("before the evaluations");
    if (!o.referenceOnly) timeEvaluations(tree, textures, one, params);
    if (o.check) checkContext("after the evaluations");
    if (o.samples > 0) measureErrors(textures, one, params);
    if (o.check && o.samples > 0) checkContext("after the reference");
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The Barnes-Hut tree alone: list lengths, GPU time split, force errors."};
  ProbeOptions options;
  addOptions(app, options);
  CLI11_PARSE(app, argc, argv);
  try {
    return probe(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nbody_tree_probe: %s\n", e.what());
    return 1;
  }
}
