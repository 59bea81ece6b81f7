#include "io/binary_snapshot.h"

#include <cmath>
#include <stdexcept>

#include "io/byte_order.h"
#include "util/printable_text.h"

namespace nbody {
namespace {

// 4 + 3 float32, from version 2 a u64 ID and a u8 component, in version 4 an f64 radius.
std::size_t bytesPerBody(unsigned version) {
  return version == 1 ? 28 : version < kBinarySnapshotRadiiVersion ? 37 : 45;
}
constexpr std::size_t kChecksumBytes = 8;

std::string paddedMethodName(const std::string& name) {
  if (name.size() > kBinarySnapshotMethodBytes)
    throw std::invalid_argument("method name '" + name + "' is longer than " +
                                std::to_string(kBinarySnapshotMethodBytes) + " bytes");
  return name + std::string(kBinarySnapshotMethodBytes - name.size(), '\0');
}

std::string methodNameFrom(std::string_view padded) {
  return std::string(padded.substr(0, padded.find('\0')));
}

// A readable reason when the file's length does not match what its header says. A file cut short
// and a header whose N is too large look the same from here.
void checkLength(std::size_t fileBytes, std::uint64_t bodies, unsigned version,
                 std::size_t potentialBytes, const std::string& source) {
  const std::size_t perBody = bytesPerBody(version);
  const std::size_t clock = potentialBytes > 0 ? kBinarySnapshotClockBytes : 0;
  const std::size_t frame = kBinarySnapshotHeaderBytes + kChecksumBytes + potentialBytes + clock;
  if (fileBytes < frame)
    throw std::runtime_error(source + ": truncated: " + std::to_string(fileBytes) +
                             " bytes, fewer than its header, potential and checksum take (" +
                             std::to_string(frame) + ")");
  const std::size_t room = fileBytes >= frame ? (fileBytes - frame) / perBody : 0;
  if (bodies > room)
    throw std::runtime_error(source + ": truncated, or N is wrong: the header claims " +
                             std::to_string(bodies) + " bodies, but the file (" +
                             std::to_string(fileBytes) + " bytes) has room for " +
                             std::to_string(room));
  const std::size_t expected = frame + std::size_t(bodies) * perBody;
  if (fileBytes > expected)
    throw std::runtime_error(source + ": " + std::to_string(fileBytes - expected) +
                             " extra bytes after the checksum (the header claims " +
                             std::to_string(bodies) + " bodies)");
}

void checkSettings(const Snapshot& snapshot, const std::string& source) {
  const StepParams& step = snapshot.settings->step;
  if (!std::isfinite(snapshot.time)) throw std::runtime_error(source + ": time is not finite");
  if (!(std::isfinite(step.dt) && step.dt > 0.0))
    throw std::runtime_error(source + ": dt must be finite and > 0");
  if (!(std::isfinite(step.softening) && step.softening >= 0.0))
    throw std::runtime_error(source + ": softening must be finite and >= 0");
  if (!(std::isfinite(step.gravity) && step.gravity > 0.0))
    throw std::runtime_error(source + ": G must be finite and > 0");
  if (snapshot.step < 0)
    throw std::runtime_error(source + ": negative step " + std::to_string(snapshot.step));
  if (snapshot.step > kLargestStep)
    throw std::runtime_error(source + ": step " + std::to_string(snapshot.step) +
                             " is beyond the largest a run can continue from (" +
                             std::to_string(kLargestStep) + ")");
}

// The text of the external potential a version 3 file carries, read back.
SharedPotential potentialFrom(std::string_view text, double gravity, const std::string& source) {
  try {
    return std::make_shared<const ExternalPotential>(ExternalPotential::parse(text, gravity));
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(source +
                             ": its external potential is unreadable: " + printable(e.what()));
  }
}

// Version 3's P, where the reserved word holds it (earlier versions ignore the word); version 4's,
// which may be 0 (no potential).
std::size_t potentialBytesOf(std::uint32_t reserved, unsigned version, const std::string& source) {
  if (version < kBinarySnapshotPotentialVersion) return 0;
  const std::uint32_t least = version == kBinarySnapshotPotentialVersion ? 1 : 0;
  if (reserved < least || reserved > kBinarySnapshotLargestPotential)
    throw std::runtime_error(source + ": an external potential of " + std::to_string(reserved) +
                             " bytes (" + std::to_string(least) + " to " +
                             std::to_string(kBinarySnapshotLargestPotential) + " expected)");
  return reserved;
}

// The potential's text and the run's clock that follow the bodies where P > 0.
void readPotential(bytes::Reader& reader, std::size_t potentialBytes, Snapshot& snapshot,
                   const std::string& source) {
  StepParams& step = snapshot.settings->step;
  step.potential = potentialFrom(reader.getBytes(potentialBytes), step.gravity, source);
  step.startTime = reader.getDouble();
  const std::int64_t originStep = reader.getInt64();
  if (!std::isfinite(step.startTime) || originStep < 0 || originStep > snapshot.step)
    throw std::runtime_error(source + ": its clock (time " + std::to_string(step.startTime) +
                             " at step " + std::to_string(originStep) + ") is not before step " +
                             std::to_string(snapshot.step));
  step.stepsDone = snapshot.step - originStep;
}

unsigned versionToWrite(const Snapshot& snapshot, const std::string& potential) {
  if (snapshot.radii) return kBinarySnapshotRadiiVersion;
  return potential.empty() ? kBinarySnapshotVersion : kBinarySnapshotPotentialVersion;
}

}  // namespace

std::uint64_t fnv1a64(std::string_view bytes) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

void writeBinarySnapshot(const Snapshot& snapshot, std::ostream& out) {
  if (!snapshot.settings) throw std::invalid_argument("a binary snapshot needs the run's settings");
  const RunSettings& settings = *snapshot.settings;
  const std::string potential = settings.step.potential ? settings.step.potential->spec() : "";
  if (potential.size() > kBinarySnapshotLargestPotential)
    throw std::invalid_argument("an external potential's text longer than " +
                                std::to_string(kBinarySnapshotLargestPotential) + " bytes");
  bytes::Writer writer(bytes::Order::little);
  writer.putBytes(kBinarySnapshotMagic);
  writer.put(std::uint32_t{versionToWrite(snapshot, potential)});
  writer.put(std::uint32_t(potential.size()));
  writer.put(std::uint64_t{snapshot.state.size()});
  writer.put(snapshot.time);
  writer.put(std::int64_t{snapshot.step});
  writer.putBytes(paddedMethodName(settings.method));
  writer.put(settings.step.dt);
  writer.put(settings.step.softening);
  writer.put(settings.step.gravity);
  writer.put(std::uint64_t{settings.seed});
  for (const glm::vec4& p : snapshot.state.positionMass)
    for (int k = 0; k < 4; ++k) writer.put(p[k]);
  for (const glm::vec4& v : snapshot.state.velocity)
    for (int k = 0; k < 3; ++k) writer.put(v[k]);
  for (std::size_t i = 0; i < snapshot.state.size(); ++i)
    writer.put(std::uint64_t{bodyId(snapshot.state, i)});
  for (std::size_t i = 0; i < snapshot.state.size(); ++i)
    writer.put(componentOf(snapshot.state, i));
  if (snapshot.radii)
    for (const double radius : *snapshot.radii) writer.put(radius);
  if (!potential.empty()) {
    // Where the run's time counts from (StepParams::time()): a moving potential's centres are
    // where they would have been in the uninterrupted run.
    writer.putBytes(potential);
    writer.put(settings.step.startTime);
    writer.put(std::int64_t{snapshot.step - settings.step.stepsDone});
  }
  writer.put(fnv1a64(writer.bytes()));
  out.write(writer.bytes().data(), std::streamsize(writer.bytes().size()));
}

Snapshot parseBinarySnapshot(std::string_view bytes, const std::string& source) {
  if (!bytes.starts_with(kBinarySnapshotMagic))
    throw std::runtime_error(source + ": not an nbody snapshot (wrong magic; expected \"" +
                             std::string(kBinarySnapshotMagic) + "\")");
  if (bytes.size() < kBinarySnapshotHeaderBytes)
    throw std::runtime_error(source + ": truncated: " + std::to_string(bytes.size()) +
                             " bytes, shorter than the " +
                             std::to_string(kBinarySnapshotHeaderBytes) + "-byte header");
  bytes::Reader reader(bytes, bytes::Order::little);
  reader.skip(kBinarySnapshotMagic.size());
  const std::uint32_t version = reader.get<std::uint32_t>();
  if (version < 1 || version > kBinarySnapshotRadiiVersion)
    throw std::runtime_error(source + ": unsupported version " + std::to_string(version) +
                             " (this build reads versions 1 to " +
                             std::to_string(kBinarySnapshotRadiiVersion) + ")");
  const std::size_t potentialBytes = potentialBytesOf(reader.get<std::uint32_t>(), version, source);
  const std::uint64_t bodies = reader.get<std::uint64_t>();
  checkLength(bytes.size(), bodies, version, potentialBytes, source);
  const std::size_t checksumOffset = bytes.size() - kChecksumBytes;
  const std::uint64_t computed = fnv1a64(bytes.substr(0, checksumOffset));
  if (bytes::Reader(bytes.substr(checksumOffset), bytes::Order::little).get<std::uint64_t>() !=
      computed)
    throw std::runtime_error(source + ": checksum mismatch: the file is corrupted");

  Snapshot snapshot;
  snapshot.time = reader.getDouble();
  snapshot.step = reader.getInt64();
  RunSettings& settings = snapshot.settings.emplace();
  settings.method = methodNameFrom(reader.getBytes(kBinarySnapshotMethodBytes));
  settings.step.dt = reader.getDouble();
  settings.step.softening = reader.getDouble();
  settings.step.gravity = reader.getDouble();
  settings.seed = reader.get<std::uint64_t>();
  checkSettings(snapshot, source);
  snapshot.state.resize(std::size_t(bodies));
  for (glm::vec4& p : snapshot.state.positionMass)
    for (int k = 0; k < 4; ++k) p[k] = reader.getFloat();
  for (glm::vec4& v : snapshot.state.velocity)
    for (int k = 0; k < 3; ++k) v[k] = reader.getFloat();
  if (version >= 2) {
    for (std::uint64_t& id : snapshot.state.id) id = reader.get<std::uint64_t>();
    for (std::uint8_t& component : snapshot.state.component) component = reader.get<std::uint8_t>();
  }
  if (version >= kBinarySnapshotRadiiVersion) {
    std::vector<double>& radii = snapshot.radii.emplace(std::size_t(bodies));
    for (double& radius : radii) radius = reader.getDouble();
    checkRadii(radii, radii.size(), source);
  }
  if (potentialBytes > 0) readPotential(reader, potentialBytes, snapshot, source);
  checkBodies(snapshot.state, source);
  return snapshot;
}

}  // namespace nbody
