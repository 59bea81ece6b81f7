#include "io/snapshot.h"

#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "io/binary_snapshot.h"
#include "io/csv.h"
#include "io/input_file.h"
#include "io/output_file.h"
#include "io/tipsy.h"

namespace nbody {
namespace {

std::string lowercaseExtension(const std::filesystem::path& path) {
  std::string extension = path.extension().string();
  for (char& c : extension) c = char(std::tolower(static_cast<unsigned char>(c)));
  return extension;
}

SnapshotFormat inputFormatOf(const std::filesystem::path& path, std::string_view bytes) {
  if (bytes.starts_with(kBinarySnapshotMagic)) return SnapshotFormat::binary;
  const std::string extension = lowercaseExtension(path);
  if (extension == ".nbody") return SnapshotFormat::binary;
  if (extension == ".tipsy" || extension == ".std" || extension == ".bin")
    return SnapshotFormat::tipsy;
  if (extension == ".csv") return SnapshotFormat::csv;
  return beginsLikeTipsy(bytes) ? SnapshotFormat::tipsy : SnapshotFormat::csv;
}

bool isFinite(const glm::vec4& v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z) && std::isfinite(v.w);
}

}  // namespace

SnapshotFormat outputFormatFor(const std::filesystem::path& path) {
  return lowercaseExtension(path) == ".nbody" ? SnapshotFormat::binary : SnapshotFormat::csv;
}

void writeSnapshot(const Snapshot& snapshot, SnapshotFormat format, std::ostream& out) {
  // The last line of defence: the commands say which steps went wrong before they get here.
  if (!std::isfinite(snapshot.time)) throw std::runtime_error("refusing to write a state whose time is not finite");
  for (std::size_t i = 0; i < snapshot.state.size(); ++i)
    if (!isFinite(snapshot.state.positionMass[i]) || !isFinite(glm::vec4(glm::vec3(snapshot.state.velocity[i]), 0.0f)))
      throw std::runtime_error("refusing to write a state that is not finite (body " + std::to_string(i) + ")");
  if (format == SnapshotFormat::binary && (snapshot.step < 0 || snapshot.step > kLargestStep))
    throw std::runtime_error("refusing to write step " + std::to_string(snapshot.step) + ": a snapshot holds steps 0 to " +
                             std::to_string(kLargestStep));
  switch (format) {
    case SnapshotFormat::csv:
      return writeStateCsv(snapshot.state, out);
    case SnapshotFormat::binary:
      return writeBinarySnapshot(snapshot, out);
    case SnapshotFormat::tipsy:
      break;
  }
  throw std::invalid_argument("TIPSY files can be read, not written");
}

void writeSnapshotFile(const Snapshot& snapshot, const std::filesystem::path& path) {
  OutputFile file(path);
  writeSnapshot(snapshot, outputFormatFor(path), file.stream());
  file.commit();
}

Snapshot readSnapshotFile(const std::filesystem::path& path) {
  const std::string bytes = readInputFile(path);
  const std::string source = path.string();
  switch (inputFormatOf(path, bytes)) {
    case SnapshotFormat::binary:
      return parseBinarySnapshot(bytes, source);
    case SnapshotFormat::tipsy:
      return parseTipsy(bytes, source);
    case SnapshotFormat::csv:
      break;
  }
  std::istringstream text(bytes);
  Snapshot snapshot;
  snapshot.state = readStateCsv(text, source);
  return snapshot;
}

void checkBodies(const State& state, const std::string& source) {
  if (state.size() == 0) throw std::runtime_error(source + ": no bodies");
  bool anyMass = false;
  for (std::size_t i = 0; i < state.size(); ++i) {
    const auto where = [&] { return source + ": body " + std::to_string(i) + ": "; };
    if (!isFinite(state.positionMass[i]))
      throw std::runtime_error(where() + "position or mass is not finite");
    if (!isFinite(state.velocity[i])) throw std::runtime_error(where() + "velocity is not finite");
    if (state.positionMass[i].w < 0.0f) throw std::runtime_error(where() + "negative mass");
    anyMass = anyMass || state.positionMass[i].w > 0.0f;
  }
  if (!anyMass) throw std::runtime_error(source + ": every mass is zero");
}

}  // namespace nbody
