#include "diagnostics/force_accuracy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <span>
#include <stdexcept>
#include <string>

#include "diagnostics/gpu_diagnostics.h"
#include "diagnostics/json_number.h"
#include "engines/held_bodies.h"
#include "engines/rank_exchange.h"
#include "engines/stage_textures.h"
#include "gl/limits.h"
#include "parallel/ranks.h"

namespace nbody {
namespace {

// The bodies of a piece of the whole state's positions a decomposed run's ranks give out for the
// reference (64 MB of texels).
constexpr std::size_t kReferencePieceBodies = std::size_t(1) << 22;

// Those of a piece that fits one texture, a whole number of the reference's blocks (ReferenceSum).
std::size_t referencePieceBodies() {
  const auto largest = std::size_t(gl::limits().maxTextureSize);
  const std::size_t bodies =
      std::min(kReferencePieceBodies, largest * largest) / kReferenceBlock * kReferenceBlock;
  if (bodies == 0)
    throw std::runtime_error("the largest texture (" + std::to_string(largest) + " x " +
                             std::to_string(largest) +
                             " texels) holds fewer bodies than a block "
                             "of the force error's reference (" +
                             std::to_string(kReferenceBlock) + ")");
  return bodies;
}

// The relative error of the engine's own potential, where it has one and the direct sum is
// affordable, with the direct sum.
void measurePotentialError(Engine& engine, const GpuStateView& state, const StepParams& params,
                           std::size_t upTo, AccuracyReport& report) {
  if (state.bodyCount > upTo) return;
  const std::optional<double> estimate = engine.potentialEnergy(params);
  if (!estimate) return;
  report.directPotential = GpuDiagnostics().measure(state, params).potential;
  report.potentialError = (*estimate - report.directPotential) / std::abs(report.directPotential);
}

// The external potential's acceleration in double at the judged bodies' float32 positions: the
// engine's float32 evaluation of it is judged with the rest.
void addExternalReference(const StepParams& params, const std::vector<glm::vec4>& positions,
                          std::vector<glm::dvec3>& references) {
  if (!params.potential) return;
  for (std::size_t k = 0; k < positions.size(); ++k)
    references[k] += params.potential->acceleration(glm::dvec3(glm::vec3(positions[k])),
                                                    params.time(), params.gravity);
}

// The report where the ranks hold parts of the state: the judged bodies' positions fetched from
// the ranks holding them, the reference summed over every body's position as the ranks give them
// out in pieces (the same sums, bit for bit, as over the whole state; each rank sums its share of
// the judged bodies), the engine's accelerations of the judged bodies alone. Nothing gathers the
// whole state; the potential's error, measured up to `potentialUpTo` bodies, reads the whole
// state where it is gathered.
AccuracyReport measureHeldAccuracy(Engine& engine, const StepParams& params,
                                   const std::vector<std::uint32_t>& judged,
                                   std::size_t potentialUpTo) {
  // First the engine's (its evaluation lays out the parts, made where there were none); the
  // positions stay as they were.
  const std::vector<glm::dvec3> accelerations = engine.currentAccelerationsOf(params, judged);
  HeldBodies& held = *engine.heldParts();
  const std::vector<glm::vec4> positions =
      held.texelsOf(held.textures().basePositionMass(), false, judged, ranks());
  // Each rank sums the reference of its share of the judged bodies over every piece; the shares
  // come back whole, in rank order: the same sums, in a K-th of the time.
  const BodyRange share = shareOut(judged.size(), 1, ranks().count())[std::size_t(ranks().rank())];
  ReferenceSum sum(std::span<const glm::vec4>(positions).subspan(share.first, share.size()),
                   params);
  held.forEachPositionPiece(engine.bodyCount(), ranks(), referencePieceBodies(),
                            [&](GLuint texture, std::size_t count) { sum.add(texture, count); });
  const std::vector<glm::dvec3> own = sum.result();
  std::vector<glm::dvec3> references = gatherOnEveryRank(ranks(), std::span<const glm::dvec3>(own));
  addExternalReference(params, positions, references);
  AccuracyReport report;
  report.force = percentilesOf(relativeErrors(accelerations, references));
  if (engine.bodyCount() <= potentialUpTo && !engine.gatheringDeferred())
    measurePotentialError(engine, *engine.gpuState(), params, potentialUpTo, report);
  return report;
}

}  // namespace

AccuracyReport measureAccuracy(Engine& engine, const StepParams& params,
                               const AccuracySample& sample) {
  if (engine.holdsParts(engine.bodyCount()))
    return measureHeldAccuracy(
        engine, params,
        forceErrorSamples(engine.bodyCount(), sample.seed, sample.allUpTo, sample.bodies),
        sample.potentialUpTo);
  StageTextures uploaded;  // the state of an engine that keeps it off the GPU
  std::optional<GpuStateView> state = engine.gpuState();
  if (!state) {
    const State bodies = engine.download();
    uploaded.allocate(StageTextures::sizeFor(bodies.size(), gl::limits().maxTextureSize));
    uploaded.upload(bodies);
    state = uploaded.view(bodies.size());
  }
  const std::vector<std::uint32_t> judged =
      forceErrorSamples(state->bodyCount, sample.seed, sample.allUpTo, sample.bodies);
  std::vector<glm::dvec3> references = referenceAccelerations(
      state->positionMassTexture, state->size, state->bodyCount, params, judged);
  if (params.potential) {
    const State bodies = engine.download();
    std::vector<glm::vec4> positions;
    for (const std::uint32_t body : judged) positions.push_back(bodies.positionMass[body]);
    addExternalReference(params, positions, references);
  }
  const std::vector<glm::dvec3> all = engine.currentAccelerations(params);
  std::vector<glm::dvec3> accelerations;
  for (std::uint32_t body : judged) accelerations.push_back(all[body]);
  AccuracyReport report;
  report.force = percentilesOf(relativeErrors(accelerations, references));
  measurePotentialError(engine, *state, params, sample.potentialUpTo, report);
  return report;
}

AccuracySample benchAccuracySample(std::size_t bodies) {
  // 64-bit arithmetic: the web build's std::size_t has 32 bits.
  constexpr std::uint64_t kMostTerms = std::uint64_t(1) << 40, kFewestJudged = 1024;
  const std::uint64_t judged = std::clamp<std::uint64_t>(
      kMostTerms / std::max<std::uint64_t>(bodies, 1), kFewestJudged, kSampledBodies);
  AccuracySample sample;
  sample.bodies = static_cast<std::size_t>(judged);
  return sample;
}

std::string describePercentiles(const ForceErrorPercentiles& p) {
  char text[160];
  std::snprintf(text, sizeof text,
                "median %.3g, 90%% %.3g, 99%% %.3g, 99.9%% %.3g, max %.3g (%zu bodies)", p.median,
                p.p90, p.p99, p.p999, p.max, p.samples);
  return text;
}

nlohmann::json accuracyJson(const AccuracyReport& report) {
  const ForceErrorPercentiles& p = report.force;
  nlohmann::json json{{"force_error",
                       {{"median", jsonNumber(p.median)},
                        {"p90", jsonNumber(p.p90)},
                        {"p99", jsonNumber(p.p99)},
                        {"p999", jsonNumber(p.p999)},
                        {"max", jsonNumber(p.max)},
                        {"samples", p.samples}}}};
  json["potential_relative_error"] =
      report.potentialError ? jsonNumber(*report.potentialError) : nlohmann::json();
  return json;
}

}  // namespace nbody
