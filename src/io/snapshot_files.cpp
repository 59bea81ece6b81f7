// Reading and writing snapshot files in every format: in the library nbody_hdf5 (CMakeLists.txt),
// since GADGET HDF5 is one of them.

#include <algorithm>
#include <cctype>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "io/binary_snapshot.h"
#include "io/csv.h"
#include "io/gadget_binary.h"
#include "io/gadget_hdf5.h"
#include "io/input_file.h"
#include "io/output_file.h"
#include "io/snapshot.h"
#include "io/stop_point.h"
#include "io/tipsy.h"

namespace nbody {
namespace {

Snapshot parseCsv(std::string_view bytes, const std::string& source) {
  std::istringstream text{std::string(bytes)};
  Snapshot snapshot;
  snapshot.state = readStateCsv(text, source, &snapshot.doubles, &snapshot.radii);
  return snapshot;
}

void writeCsv(const Snapshot& snapshot, std::ostream& out) {
  writeStateCsv(snapshot.state, out, snapshot.doubles ? &*snapshot.doubles : nullptr,
                snapshot.radii ? &*snapshot.radii : nullptr);
}

Snapshot readTipsy(const std::filesystem::path& path, std::string_view bytes) {
  return parseTipsy(bytes, path.string());
}

// One row a format: how it is named, recognised, read and written.
struct FormatRow {
  SnapshotFormat format;
  std::string name;  // for messages
  bool holdsRadii;   // Snapshot::radii
  std::vector<std::string>
      extensions;  // the first is written; the others are read, or written too where `writes`
  bool (*recognises)(std::string_view bytes);
  Snapshot (*read)(const std::filesystem::path& path, std::string_view bytes);
  void (*write)(const Snapshot& snapshot, std::ostream& out);
};

bool startsWithMagic(std::string_view bytes) { return bytes.starts_with(kBinarySnapshotMagic); }

const std::vector<FormatRow>& formatTable() {
  static const std::vector<FormatRow> rows{
      {SnapshotFormat::binary,
       "an nbody snapshot",
       true,
       {".nbody"},
       startsWithMagic,
       [](const std::filesystem::path& p, std::string_view b) {
         return parseBinarySnapshot(b, p.string());
       },
       writeBinarySnapshot},
      {SnapshotFormat::gadgetHdf5,
       "GADGET HDF5",
       true,
       {".hdf5", ".h5"},
       looksLikeHdf5,
       readGadgetHdf5Files,
       writeGadgetHdf5},
      {SnapshotFormat::gadget,
       "GADGET-2 binary",
       false,
       {".gadget", ".g2"},
       looksLikeGadgetBinary,
       readGadgetBinaryFiles,
       writeGadgetBinary},
      {SnapshotFormat::tipsy,
       "TIPSY",
       false,
       {".tipsy", ".bin"},
       looksLikeTipsy,
       readTipsy,
       [](const Snapshot& s, std::ostream& out) { writeTipsy(s, out); }},
      {SnapshotFormat::tipsyStandard,
       "TIPSY",
       false,
       {".std"},
       looksLikeTipsy,
       readTipsy,
       [](const Snapshot& s, std::ostream& out) { writeTipsy(s, out, true); }},
      {SnapshotFormat::csv,
       "CSV",
       true,
       {".csv"},
       nullptr,
       [](const std::filesystem::path& p, std::string_view b) { return parseCsv(b, p.string()); },
       writeCsv},
  };
  return rows;
}

const FormatRow& rowOf(SnapshotFormat format) {
  for (const FormatRow& row : formatTable())
    if (row.format == format) return row;
  throw std::logic_error("no row for a snapshot format");
}

std::string lowercaseExtension(const std::filesystem::path& path) {
  std::string extension = path.extension().string();
  for (char& c : extension) c = char(std::tolower(static_cast<unsigned char>(c)));
  return extension;
}

const FormatRow* rowByExtension(const std::filesystem::path& path) {
  const std::string extension = lowercaseExtension(path);
  for (const FormatRow& row : formatTable())
    if (std::find(row.extensions.begin(), row.extensions.end(), extension) != row.extensions.end())
      return &row;
  return nullptr;
}

// By content where a format has a signature (every one but TIPSY and CSV, whose tests are weaker
// than an extension), then by extension, then TIPSY by its header, then CSV.
const FormatRow& inputRowOf(const std::filesystem::path& path, std::string_view bytes) {
  for (const SnapshotFormat format :
       {SnapshotFormat::binary, SnapshotFormat::gadgetHdf5, SnapshotFormat::gadget})
    if (rowOf(format).recognises(bytes)) return rowOf(format);
  if (const FormatRow* row = rowByExtension(path)) return *row;
  return beginsLikeTipsy(bytes) ? rowOf(SnapshotFormat::tipsy) : rowOf(SnapshotFormat::csv);
}

}  // namespace

SnapshotFormat outputFormatFor(const std::filesystem::path& path) {
  const FormatRow* row = rowByExtension(path);
  if (!row || lowercaseExtension(path) == ".bin")
    return SnapshotFormat::csv;  // .bin: TIPSY's or anyone's
  return row->format;
}

std::string inputFormatsHelp() {
  return "CSV (x,y,z,mass,vx,vy,vz[,id,component][,radius]), an nbody snapshot (.nbody: its "
         "step, time, method, dt, softening and G apply unless given), TIPSY, GADGET-2 binary "
         "(formats 1 and 2; several files: name base.0) or GADGET HDF5 (their G comes from the "
         "file's units unless --gravity is given)";
}

std::vector<std::string> outputExtensions() {
  std::vector<std::string> extensions;
  for (const FormatRow& row : formatTable()) extensions.push_back(row.extensions.front());
  return extensions;
}

std::string outputFormatsHelp() {
  return ".nbody: binary snapshot (state, step, time, settings; exact restarts), .hdf5: GADGET "
         "HDF5, .gadget: "
         "GADGET-2 binary, .tipsy: TIPSY (.std: big-endian), any other name CSV";
}

bool formatHoldsRadii(SnapshotFormat format) { return rowOf(format).holdsRadii; }

std::string formatName(SnapshotFormat format) { return rowOf(format).name; }

void writeSnapshot(const Snapshot& snapshot, SnapshotFormat format, std::ostream& out) {
  refuseUnwritable(snapshot);
  rowOf(format).write(snapshot, out);
}

void writeSnapshotFile(const Snapshot& snapshot, const std::filesystem::path& path) {
  OutputFile file(path);
  writeSnapshot(snapshot, outputFormatFor(path), file.stream());
  file.commit();
}

Snapshot readSnapshotFile(const std::filesystem::path& path) {
  const std::string bytes = readInputFile(path);
  stopPoint("while reading " + path.string());  // between the parts of a read of seconds
  Snapshot snapshot = inputRowOf(path, bytes).read(path, bytes);
  stopPoint("while reading " + path.string());
  return snapshot;
}

}  // namespace nbody
