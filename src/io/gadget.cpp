#include "io/gadget.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "io/input_file.h"
#include "io/stop_point.h"

namespace nbody {
namespace {

constexpr double kGadget2GravityCgs = 6.672e-8;  // GADGET-2's GRAVITY (allvars.h)
constexpr std::size_t kBodiesBetweenStopPoints = std::size_t(1) << 19;  // a tenth of a second or so

}  // namespace

std::vector<std::size_t> rowsByComponent(const State& state) {
  std::vector<std::size_t> order;
  order.reserve(state.size());
  for (int type = 0; type < kGadgetTypes; ++type)
    for (std::size_t i = 0; i < state.size(); ++i)
      if (componentOf(state, i) == type) order.push_back(i);
  if (order.size() != state.size())
    throw std::invalid_argument("a state has components of " + std::to_string(kGadgetTypes) +
                                " or more");
  return order;
}

std::optional<std::filesystem::path> gadgetSiblingFile(const std::filesystem::path& path, int index,
                                                       bool numberBeforeExtension) {
  const std::string name = (numberBeforeExtension ? path.stem() : path.filename()).string();
  const auto dot = name.find_last_of('.');
  if (dot == std::string::npos || dot + 1 == name.size() ||
      !std::all_of(name.begin() + std::ptrdiff_t(dot) + 1, name.end(),
                   [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  const std::string extension = numberBeforeExtension ? path.extension().string() : "";
  return path.parent_path() / (name.substr(0, dot + 1) + std::to_string(index) + extension);
}

namespace {

// Whether `raw` (a file's number, in the file's units: the run's times `scale`) is what a writer
// makes of a float32 of the run: then the float32 is all there is to keep.
bool isFloatBehind(double raw, double scale) { return double(float(raw / scale)) * scale == raw; }

// The file's numbers in double where they hold more than the float32 state (a float64 file a
// double run wrote), in the run's units.
std::optional<DoubleState> doublesOf(const GadgetBodies& bodies, double velocityScale) {
  bool beyond = false;
  for (std::size_t k = 0; k < bodies.position.size() && !beyond; ++k)
    beyond = !isFloatBehind(bodies.position[k], 1.0) ||
             !isFloatBehind(bodies.velocity[k], velocityScale);
  for (std::size_t i = 0; i < bodies.mass.size() && !beyond; ++i)
    beyond = !isFloatBehind(bodies.mass[i], 1.0);
  if (!beyond) return std::nullopt;
  DoubleState doubles;
  doubles.mass = bodies.mass;
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    const double *p = &bodies.position[3 * i], *v = &bodies.velocity[3 * i];
    doubles.position.emplace_back(p[0], p[1], p[2]);
    doubles.velocity.emplace_back(v[0] / velocityScale, v[1] / velocityScale, v[2] / velocityScale);
  }
  return doubles;
}

}  // namespace

void checkFileOfSnapshot(const GadgetPart& part, const GadgetPart& first, const std::string& file,
                         const std::string& source) {
  const GadgetBodies &here = part.bodies, &there = first.bodies;
  const auto refuse = [&](const std::string& what) {
    throw std::runtime_error(file + ": " + what + " is not " + source + "'s: not a file of it");
  };
  if (part.fileCount != first.fileCount)
    throw std::runtime_error(file + ": its header says " + std::to_string(part.fileCount) +
                             " files, " + source + "'s " + std::to_string(first.fileCount));
  if (here.time != there.time) refuse("its time");
  const auto claims = [](const GadgetPart& p) {
    return std::any_of(std::begin(p.totals), std::end(p.totals), [](auto t) { return t != 0; });
  };
  if (claims(part) && claims(first) &&
      !std::equal(std::begin(part.totals), std::end(part.totals), std::begin(first.totals)))
    refuse("its NumPart_Total");
  if (here.units.lengthInCm != there.units.lengthInCm ||
      here.units.massInG != there.units.massInG ||
      here.units.velocityInCmPerS != there.units.velocityInCmPerS)
    refuse("its units");
  if (here.record.has_value() != there.record.has_value() ||
      (here.record &&
       (here.record->gravity != there.record->gravity || here.record->time != there.record->time)))
    refuse("its nbody run record (G and time)");
  if (here.size() == 0 || there.size() == 0) return;  // a file of no bodies gives neither
  for (const auto& [mine, theirs, name] :
       {std::tuple{here.radius.empty(), there.radius.empty(), "Radius"},
        std::tuple{here.stateIndex.empty(), there.stateIndex.empty(), "StateIndex"}})
    if (mine != theirs)
      throw std::runtime_error(file + (mine ? " lacks" : " has") + " the bodies' " + name +
                               ", which " + source + (theirs ? " lacks" : " has"));
}

GadgetPart firstBodyOnly(const GadgetPart& part) {
  GadgetPart sample;
  sample.fileCount = part.fileCount;
  std::copy(std::begin(part.totals), std::end(part.totals), std::begin(sample.totals));
  const GadgetBodies& from = part.bodies;
  GadgetBodies& to = sample.bodies;
  to.time = from.time, to.units = from.units, to.record = from.record;
  to.doublePrecision = from.doublePrecision;
  GadgetBodies::forEachList([&](auto list, std::size_t width) {
    const auto& values = from.*list;
    to.*list = {values.begin(), values.begin() + std::ptrdiff_t(std::min(values.size(), width))};
  });
  return sample;
}

namespace {

// Each body's StateIndex, where the files give them, is its own: below the bodies' count and no
// two alike (else the bodies could not be put back in one order).
void checkStateIndices(const GadgetBodies& bodies, const std::string& files) {
  std::vector<bool> seen(bodies.stateIndex.size(), false);
  for (const std::uint64_t index : bodies.stateIndex) {
    if (index >= seen.size() || seen[static_cast<std::size_t>(index)])
      throw std::runtime_error(files + ": the bodies' StateIndex gives " + std::to_string(index) +
                               (index >= seen.size()
                                    ? ", beyond the " + std::to_string(seen.size()) + " bodies"
                                    : " twice"));
    seen[static_cast<std::size_t>(index)] = true;
  }
}

}  // namespace

Snapshot gadgetSnapshotOfOneFile(GadgetPart part, const std::string& source,
                                 const std::string& firstFile) {
  if (part.fileCount > 1)
    throw std::runtime_error(source + ": one file of a GADGET snapshot of " +
                             std::to_string(part.fileCount) + " files: name its first file, " +
                             firstFile);
  checkClaimedTotals(part.totals, part.bodies, source);
  if (part.bodies.stateIndex.empty()) return snapshotFromGadget(part.bodies, source);
  checkStateIndices(part.bodies, source);
  putPartsInStateOrder(part.bodies);
  return snapshotFromGadget(part.bodies, source);
}

Snapshot readGadgetFiles(const std::filesystem::path& path, std::string_view bytes,
                         GadgetPartReader read, bool numberBeforeExtension) {
  const std::string source = path.string();
  GadgetPart first = read(bytes, source);
  if (first.fileCount == 1) return gadgetSnapshotOfOneFile(std::move(first), source, source);
  const auto firstFile = gadgetSiblingFile(path, 0, numberBeforeExtension);
  if (!firstFile)
    throw std::runtime_error(source + ": its header says the snapshot has " +
                             std::to_string(first.fileCount) +
                             " files, but its name does not number it as theirs are (" +
                             (numberBeforeExtension ? "base.0.hdf5" : "base.0") + " ...)");
  // Each file's bodies are moved into the snapshot's, not copied (a part may hold billions).
  const GadgetPart facts = firstBodyOnly(first);
  GadgetBodies all = facts.bodies;
  GadgetBodies::forEachList([&](auto list, std::size_t) { (all.*list).clear(); });
  for (int index = 0; index < facts.fileCount; ++index) {
    const std::filesystem::path file = *gadgetSiblingFile(path, index, numberBeforeExtension);
    stopPoint("while reading " + file.string());
    GadgetPart part = file == path
                          ? std::move(first)
                          : read(readInputFile(file, InputKinds::filesOnly), file.string());
    checkFileOfSnapshot(part, facts, file.string(), source);
    all.append(std::move(part.bodies));
  }
  const std::string files = firstFile->string() + " ...";
  checkEveryBodyOrNoneGiven(all.radius.size(), all.stateIndex.size(), all.size(), files);
  checkClaimedTotals(facts.totals, all, files);
  checkStateIndices(all, files);
  putPartsInStateOrder(all);
  return snapshotFromGadget(all, source);
}

void checkEveryBodyOrNoneGiven(std::uint64_t radii, std::uint64_t stateIndices,
                               std::uint64_t bodies, const std::string& files) {
  for (const auto& [given, name] :
       {std::pair{radii, "Radius"}, std::pair{stateIndices, "StateIndex"}})
    if (given != 0 && given != bodies)
      throw std::runtime_error(files + ": some files give the bodies' " + name +
                               " and others do not");
}

double GadgetUnits::gravity() const {
  const double timeInS = this->timeInS();
  return kGadget2GravityCgs * massInG * timeInS * timeInS / (lengthInCm * lengthInCm * lengthInCm);
}

std::string GadgetUnits::describe() const {
  const GadgetUnits defaults;
  if (lengthInCm == defaults.lengthInCm && massInG == defaults.massInG &&
      velocityInCmPerS == defaults.velocityInCmPerS)
    return "kpc, km/s, 1e10 Msun";
  char text[160];
  std::snprintf(text, sizeof text, "length %g cm, mass %g g, velocity %g cm/s", lengthInCm, massInG,
                velocityInCmPerS);
  return text;
}

bool GadgetUnits::valid() const {
  for (const double unit : {lengthInCm, massInG, velocityInCmPerS})
    if (!(std::isfinite(unit) && unit > 0.0)) return false;
  return std::isfinite(gravity()) && gravity() > 0.0;
}

GadgetScaling gadgetScalingFor(double runGravity) {
  const double fileGravity = GadgetUnits{}.gravity();
  if (runGravity == fileGravity) return {};
  return {std::sqrt(fileGravity / runGravity)};
}

void GadgetBodies::reserve(std::size_t bodies) {
  position.reserve(3 * bodies);
  velocity.reserve(3 * bodies);
  mass.reserve(bodies);
  id.reserve(bodies);
  type.reserve(bodies);
}

GadgetFileShare wholeSnapshotShare(const GadgetBodies& bodies) {
  GadgetFileShare share;
  const std::vector<std::uint64_t> counts = bodies.countsByType();
  std::copy(counts.begin(), counts.end(), share.totals);
  return share;
}

std::filesystem::path gadgetPartPath(const std::filesystem::path& path, int index) {
  return path.parent_path() /
         (path.stem().string() + "." + std::to_string(index) + path.extension().string());
}

void GadgetBodies::append(GadgetBodies&& more) {
  if (size() > 0) return append(std::as_const(more));
  forEachList([&](auto list, std::size_t) { this->*list = std::move(more.*list); });
}

void GadgetBodies::append(const GadgetBodies& more) {
  forEachList([&](auto list, std::size_t) {
    (this->*list).insert((this->*list).end(), (more.*list).begin(), (more.*list).end());
  });
}

namespace {

// `values` (`width` a body) in the order `order` gives the bodies.
template <typename T>
void permute(std::vector<T>& values, const std::vector<std::size_t>& order, std::size_t width) {
  if (values.empty()) return;
  std::vector<T> moved;
  moved.reserve(values.size());
  for (const std::size_t body : order)
    moved.insert(moved.end(), values.begin() + std::ptrdiff_t(width * body),
                 values.begin() + std::ptrdiff_t(width * (body + 1)));
  values = std::move(moved);
}

// The bodies in the order of their (type, StateIndex) where the indices are those of a state,
// distinct and below the bodies' count (checkStateIndices): placed in two passes over them, not
// sorted (a 200M-body snapshot's sort alone took about a minute). Nothing where they are not.
std::optional<std::vector<std::size_t>> orderByPlacing(const GadgetBodies& bodies) {
  constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> bodyAt(bodies.size(), kNone);
  for (std::size_t body = 0; body < bodies.size(); ++body) {
    const std::uint64_t index = bodies.stateIndex[body];
    if (index >= bodyAt.size() || bodyAt[std::size_t(index)] != kNone) return std::nullopt;
    bodyAt[std::size_t(index)] = body;
  }
  std::array<std::size_t, 256> next{};  // where each type's next body goes
  for (const std::uint8_t type : bodies.type) ++next[type];
  std::exclusive_scan(next.begin(), next.end(), next.begin(), std::size_t(0));
  std::vector<std::size_t> order(bodies.size());
  for (const std::size_t body : bodyAt) order[next[bodies.type[body]]++] = body;
  return order;
}

}  // namespace

void putPartsInStateOrder(GadgetBodies& bodies) {
  if (bodies.stateIndex.empty()) return;
  const auto before = [&bodies](std::size_t a, std::size_t b) {
    return std::pair(bodies.type[a], bodies.stateIndex[a]) <
           std::pair(bodies.type[b], bodies.stateIndex[b]);
  };
  std::vector<std::size_t> order(bodies.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (std::is_sorted(order.begin(), order.end(), before)) return;
  stopPoint("while putting a snapshot's parts in order");
  if (std::optional<std::vector<std::size_t>> placed = orderByPlacing(bodies))
    order = std::move(*placed);
  else
    std::stable_sort(order.begin(), order.end(), before);
  GadgetBodies::forEachList(
      [&](auto list, std::size_t width) { permute(bodies.*list, order, width); });
}

bool needsWideIds(std::span<const std::uint64_t> ids) {
  return std::any_of(ids.begin(), ids.end(), [](std::uint64_t id) { return id > 0xFFFFFFFFu; });
}

void checkClaimedTotals(const std::uint64_t (&totals)[kGadgetTypes], const GadgetBodies& bodies,
                        const std::string& files) {
  checkClaimedTotals(totals, bodies.countsByType(), files);
}

void checkClaimedTotals(const std::uint64_t (&totals)[kGadgetTypes],
                        std::span<const std::uint64_t> found, const std::string& files) {
  if (std::all_of(std::begin(totals), std::end(totals),
                  [](std::uint64_t total) { return total == 0; }))
    return;
  for (int type = 0; type < kGadgetTypes; ++type)
    if (found[type] != totals[type])
      throw std::runtime_error(files + ": the header claims " + std::to_string(totals[type]) +
                               " bodies of type " + std::to_string(type) +
                               " in all, the files hold " + std::to_string(found[type]));
}

std::vector<std::uint64_t> GadgetBodies::countsByType() const {
  std::vector<std::uint64_t> counts(kGadgetTypes, 0);
  for (const std::uint8_t t : type) ++counts[t];
  return counts;
}

namespace {

// A snapshot of no bodies yet with what `bodies`' header says: the time and units, or where the
// file records its nbody run, that run's G and time (not checked finite: the caller checks, after
// the bodies). The velocities' scale comes back in `scale`.
Snapshot snapshotOfHeader(const GadgetBodies& bodies, const std::string& source, double& scale) {
  if (!bodies.units.valid())
    throw std::runtime_error(source + ": its units are not finite and positive (" +
                             bodies.units.describe() + ")");
  Snapshot snapshot;
  scale = 1.0;
  if (bodies.record) {
    const GadgetRunRecord& record = *bodies.record;
    if (!(std::isfinite(record.gravity) && record.gravity > 0.0) || !std::isfinite(record.time))
      throw std::runtime_error(source +
                               ": the nbody run it records has a G or time that is not finite");
    scale = gadgetScalingFor(record.gravity).velocity;
    snapshot.time = record.time;
    snapshot.units = FileUnits{record.gravity, "the nbody run that wrote it"};
  } else {
    snapshot.time = bodies.time;
    snapshot.units =
        FileUnits{bodies.units.gravity(), "its units (" + bodies.units.describe() + ")"};
  }
  return snapshot;
}

// Body `from` of `bodies` as row `to` of `state`, in float32, velocities divided by `scale`.
void putBody(const GadgetBodies& bodies, std::size_t from, double scale, State& state,
             std::size_t to) {
  const double* p = &bodies.position[3 * from];
  const double* v = &bodies.velocity[3 * from];
  state.positionMass[to] =
      glm::vec4(float(p[0]), float(p[1]), float(p[2]), float(bodies.mass[from]));
  state.velocity[to] =
      glm::vec4(float(v[0] / scale), float(v[1] / scale), float(v[2] / scale), 0.0f);
  state.id[to] = bodies.id[from];
  state.component[to] = bodies.type[from];
}

}  // namespace

Snapshot snapshotFromGadget(const GadgetBodies& bodies, const std::string& source) {
  double scale = 1.0;
  Snapshot snapshot = snapshotOfHeader(bodies, source, scale);
  if (bodies.size() == 0) throw std::runtime_error(source + ": no bodies");
  State& state = snapshot.state;
  state.resize(bodies.size());
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    if (i % kBodiesBetweenStopPoints == 0) stopPoint("while reading " + source);
    putBody(bodies, i, scale, state, i);
  }
  checkBodies(state, source);
  if (!std::isfinite(snapshot.time)) throw std::runtime_error(source + ": time is not finite");
  snapshot.doubles = doublesOf(bodies, scale);
  if (!bodies.radius.empty()) {
    checkRadii(bodies.radius, bodies.size(), source);
    snapshot.radii = bodies.radius;
  }
  return snapshot;
}

Snapshot snapshotPartFromGadget(const GadgetBodies& bodies, std::span<const std::uint64_t> names,
                                const std::string& source) {
  double scale = 1.0;
  Snapshot snapshot = snapshotOfHeader(bodies, source, scale);
  State& state = snapshot.state;
  state.resize(bodies.size());
  for (std::size_t k = 0; k < bodies.size(); ++k) {
    if (k % kBodiesBetweenStopPoints == 0) stopPoint("while reading " + source);
    putBody(bodies, k, scale, state, k);
  }
  checkPartBodies(state, source, names);
  if (!std::isfinite(snapshot.time)) throw std::runtime_error(source + ": time is not finite");
  return snapshot;
}

GadgetBodies gadgetFromSnapshot(const Snapshot& snapshot,
                                std::span<const std::uint64_t> stateIndex) {
  return gadgetFromRows(snapshot, rowsByComponent(snapshot.state), stateIndex);
}

GadgetBodies gadgetFromRows(const Snapshot& snapshot, std::span<const std::size_t> rows,
                            std::span<const std::uint64_t> stateIndex) {
  if (!stateIndex.empty() && stateIndex.size() != snapshot.state.size())
    throw std::logic_error("a part's state indices must be one a body");
  const State& state = snapshot.state;
  const double runGravity = runGravityOf(snapshot);
  const GadgetScaling scaling = gadgetScalingFor(runGravity);
  GadgetBodies bodies;
  bodies.reserve(rows.size());
  const DoubleState* doubles = snapshot.doubles ? &*snapshot.doubles : nullptr;
  for (const std::size_t i : rows) {
    for (int k = 0; k < 3; ++k)
      bodies.position.push_back(doubles ? doubles->position[i][k] : state.positionMass[i][k]);
    for (int k = 0; k < 3; ++k)
      bodies.velocity.push_back((doubles ? doubles->velocity[i][k] : double(state.velocity[i][k])) *
                                scaling.velocity);
    bodies.mass.push_back(doubles ? doubles->mass[i] : state.positionMass[i].w);
    bodies.id.push_back(bodyId(state, i));
    bodies.type.push_back(componentOf(state, i));
    if (snapshot.radii) bodies.radius.push_back((*snapshot.radii)[i]);
    if (!stateIndex.empty()) bodies.stateIndex.push_back(stateIndex[i]);
  }
  bodies.time = snapshot.time / scaling.velocity;
  bodies.doublePrecision = doubles != nullptr;  // float32 where the bodies are float32s
  if (!scaling.exact()) {
    bodies.record = GadgetRunRecord{runGravity, snapshot.time};
    bodies.doublePrecision = true;
  }
  return bodies;
}

}  // namespace nbody
