#include "io/gadget_hdf5.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include <hdf5.h>
#include <hdf5_hl.h>
#include <unistd.h>

#include "io/byte_order.h"
#include "io/gadget.h"
#include "io/gadget_answer.h"
#include "io/isolated_call.h"
#include "io/output_file.h"
#include "io/stop_point.h"
#include "util/number_text.h"
#include "util/printable_text.h"

namespace nbody {
namespace {

// libhdf5 keeps global state and is not built thread-safe, and a reader forks a child that inherits
// it: one thread at a time uses it here (a series read ahead on its own thread while the window
// saves a snapshot), so no child starts from a write half done, and no child holds another's pipe.
std::mutex& hdf5Use() {
  static std::mutex use;
  return use;
}

constexpr std::string_view kHdf5Signature{"\x89HDF\r\n\x1a\n", 8};
constexpr double kDeflateLargestRatio = 1032.0;  // what zlib's deflate packs at best
constexpr double kSecondsPerGyr = 3.15576e16;
constexpr const char* kRunGroup = "/NbodyGL";

// An HDF5 identifier, closed with its kind's close function however the scope ends.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  Handle(Handle&& other) noexcept : id_(std::exchange(other.id_, -1)), close_(other.close_) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  hid_t id() const { return id_; }
  bool valid() const { return id_ >= 0; }
  hid_t release() { return std::exchange(id_, -1); }  // to be closed by the caller, who checks

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

// Errors are ours to report, in one line: HDF5's own printing goes.
void silenceHdf5() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

// ---------------------------------------------------------------------------------------------
// Writing

void writeAttribute(hid_t object, const char* name, hid_t fileType, hid_t memoryType, hsize_t count,
                    const void* values) {
  const Handle space(count == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &count, nullptr),
                     H5Sclose);
  const Handle attribute(H5Acreate2(object, name, fileType, space.id(), H5P_DEFAULT, H5P_DEFAULT),
                         H5Aclose);
  if (!attribute.valid() || H5Awrite(attribute.id(), memoryType, values) < 0)
    throw std::runtime_error(std::string("HDF5 could not write the attribute ") + name);
}

void writeDouble(hid_t object, const char* name, double value) {
  writeAttribute(object, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, &value);
}

void writeInt(hid_t object, const char* name, std::int32_t value) {
  writeAttribute(object, name, H5T_STD_I32LE, H5T_NATIVE_INT32, 0, &value);
}

// Creation properties that record no time in the object's header: the same run writes the same
// bytes (HDF5 stamps every object with its creation and modification times by default).
Handle untimed(hid_t propertyClass) {
  Handle properties(H5Pcreate(propertyClass), H5Pclose);
  H5Pset_obj_track_times(properties.id(), false);
  return properties;
}

Handle makeGroup(hid_t file, const char* name) {
  const Handle creation = untimed(H5P_GROUP_CREATE);
  Handle group(H5Gcreate2(file, name, H5P_DEFAULT, creation.id(), H5P_DEFAULT), H5Gclose);
  if (!group.valid())
    throw std::runtime_error(std::string("HDF5 could not make the group ") + name);
  return group;
}

// The header of a file of `counts` bodies of each type, at `bodies`' time (in its units).
void writeHeader(hid_t file, const GadgetBodies& bodies, const std::vector<std::uint64_t>& counts,
                 const GadgetFileShare& share) {
  const Handle header = makeGroup(file, "/Header");
  std::uint32_t here[kGadgetTypes], low[kGadgetTypes], high[kGadgetTypes];
  for (int type = 0; type < kGadgetTypes; ++type) {
    if (counts[type] > 0xFFFFFFFFu)
      throw std::invalid_argument("a file of more than 2^32 bodies of one type");
    here[type] = std::uint32_t(counts[type]);
    low[type] = std::uint32_t(share.totals[type]);
    high[type] = std::uint32_t(share.totals[type] >> 32);
  }
  const double massTable[kGadgetTypes] = {};
  writeAttribute(header.id(), "NumPart_ThisFile", H5T_STD_U32LE, H5T_NATIVE_UINT32, kGadgetTypes,
                 here);
  writeAttribute(header.id(), "NumPart_Total", H5T_STD_U32LE, H5T_NATIVE_UINT32, kGadgetTypes, low);
  writeAttribute(header.id(), "NumPart_Total_HighWord", H5T_STD_U32LE, H5T_NATIVE_UINT32,
                 kGadgetTypes, high);
  writeAttribute(header.id(), "MassTable", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, kGadgetTypes,
                 massTable);
  writeDouble(header.id(), "Time", bodies.time);
  writeDouble(header.id(), "Time_GYR", bodies.time * bodies.units.timeInS() / kSecondsPerGyr);
  writeDouble(header.id(), "Redshift", 0.0);
  writeDouble(header.id(), "BoxSize", 0.0);
  writeInt(header.id(), "NumFilesPerSnapshot", share.fileCount);
  writeInt(header.id(), "Flag_Entropy_ICs", 0);
  writeInt(header.id(), "Dimension", 3);
}

void writeUnits(hid_t file, const GadgetUnits& units) {
  const Handle group = makeGroup(file, "/Units");
  writeDouble(group.id(), "UnitLength_in_cm", units.lengthInCm);
  writeDouble(group.id(), "UnitMass_in_g", units.massInG);
  writeDouble(group.id(), "UnitVelocity_in_cm_per_s", units.velocityInCmPerS);
  writeDouble(group.id(), "UnitTime_in_s", units.timeInS());
  writeDouble(group.id(), "Unit length in cgs (U_L)", units.lengthInCm);
  writeDouble(group.id(), "Unit mass in cgs (U_M)", units.massInG);
  writeDouble(group.id(), "Unit time in cgs (U_t)", units.timeInS());
  writeDouble(group.id(), "Unit current in cgs (U_I)", 1.0);
  writeDouble(group.id(), "Unit temperature in cgs (U_T)", 1.0);
  const Handle runtime = makeGroup(file, "/RuntimePars");
  writeInt(runtime.id(), "PeriodicBoundariesOn", 0);
}

// A dataset of `rows` x `columns` values (a list where columns is 1), made whole and filled a slice
// of rows at a time.
class SlicedDataset {
 public:
  SlicedDataset(hid_t group, const char* name, hid_t fileType, std::size_t rows, int columns)
      : name_(name), columns_(columns), dataset_(make(group, name, fileType, rows, columns)) {}

  // Rows [first, first + count) from `values` (count x columns of `memoryType`).
  void write(hid_t memoryType, const void* values, std::size_t first, std::size_t count) const {
    const hsize_t start[2] = {first, 0}, size[2] = {count, hsize_t(columns_)};
    const Handle memory(H5Screate_simple(columns_ == 1 ? 1 : 2, size, nullptr), H5Sclose);
    const Handle file(H5Dget_space(dataset_.id()), H5Sclose);
    if (H5Sselect_hyperslab(file.id(), H5S_SELECT_SET, start, nullptr, size, nullptr) < 0 ||
        H5Dwrite(dataset_.id(), memoryType, memory.id(), file.id(), H5P_DEFAULT, values) < 0)
      throw std::runtime_error("HDF5 could not write the dataset " + name_);
  }

 private:
  static Handle make(hid_t group, const char* name, hid_t fileType, std::size_t rows, int columns) {
    const hsize_t dims[2] = {rows, hsize_t(columns)};
    const Handle space(H5Screate_simple(columns == 1 ? 1 : 2, dims, nullptr), H5Sclose);
    const Handle creation = untimed(H5P_DATASET_CREATE);
    Handle dataset(
        H5Dcreate2(group, name, fileType, space.id(), H5P_DEFAULT, creation.id(), H5P_DEFAULT),
        H5Dclose);
    if (!dataset.valid())
      throw std::runtime_error(std::string("HDF5 could not make the dataset ") + name);
    return dataset;
  }

  std::string name_;
  int columns_;
  Handle dataset_;
};

// Values [first, first + rows * columns) of `values` as a dataset of `rows` x `columns` (a list
// where columns is 1).
template <typename T>
void writeDataset(hid_t group, const char* name, hid_t fileType, hid_t memoryType,
                  const std::vector<T>& values, std::size_t first, std::size_t rows, int columns) {
  SlicedDataset(group, name, fileType, rows, columns)
      .write(memoryType, values.data() + first * std::size_t(columns), 0, rows);
}

void writeType(hid_t file, const GadgetBodies& bodies, int type, std::size_t first,
               std::size_t count) {
  const std::string name = "/PartType" + std::to_string(type);
  const Handle group = makeGroup(file, name.c_str());
  const hid_t real = bodies.doublePrecision ? H5T_IEEE_F64LE : H5T_IEEE_F32LE;
  writeDataset(group.id(), "Coordinates", real, H5T_NATIVE_DOUBLE, bodies.position, first, count,
               3);
  writeDataset(group.id(), "Velocities", real, H5T_NATIVE_DOUBLE, bodies.velocity, first, count, 3);
  writeDataset(group.id(), "Masses", real, H5T_NATIVE_DOUBLE, bodies.mass, first, count, 1);
  writeDataset(group.id(), "ParticleIDs", needsWideIds(bodies.id) ? H5T_STD_U64LE : H5T_STD_U32LE,
               H5T_NATIVE_UINT64, bodies.id, first, count, 1);
  if (!bodies.radius.empty())
    writeDataset(group.id(), "Radius", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, bodies.radius, first,
                 count, 1);
  if (!bodies.stateIndex.empty())
    writeDataset(group.id(), "StateIndex",
                 needsWideIds(bodies.stateIndex) ? H5T_STD_U64LE : H5T_STD_U32LE, H5T_NATIVE_UINT64,
                 bodies.stateIndex, first, count, 1);
}

void writeRunRecord(hid_t file, const GadgetRunRecord& record) {
  const Handle group = makeGroup(file, kRunGroup);
  writeDouble(group.id(), "GravitationalConstant", record.gravity);
  writeDouble(group.id(), "Time", record.time);
}

// A name no other in-memory file of this process has: HDF5 tells open files apart by name.
std::string memoryFileName() {
  static std::atomic<unsigned long> made{0};
  return "nbody-memory-" + std::to_string(made++) + ".hdf5";
}

std::string fileImageOf(hid_t file) {
  if (H5Fflush(file, H5F_SCOPE_GLOBAL) < 0)
    throw std::runtime_error("HDF5 could not finish the file");
  const ssize_t size = H5Fget_file_image(file, nullptr, 0);
  if (size < 0) throw std::runtime_error("HDF5 could not give the file's image");
  std::string image(std::size_t(size), '\0');
  if (H5Fget_file_image(file, image.data(), image.size()) != size)
    throw std::runtime_error("HDF5 could not give the file's image");
  return image;
}

// ---------------------------------------------------------------------------------------------
// Writing a part by name, a slice of bodies at a time

constexpr std::size_t kBodiesASlice = std::size_t(1) << 20;

// What every slice of a part shares: the number types it is written in.
struct PartLayout {
  hid_t real = H5T_IEEE_F32LE, ids = H5T_STD_U32LE, indices = H5T_STD_U32LE;
  bool radii = false, stateIndex = false;
};

// The bodies of one type (`rows` of the snapshot's state, in file order), a slice at a time.
void writeTypeInSlices(hid_t file, const Snapshot& snapshot, std::span<const std::size_t> rows,
                       std::span<const std::uint64_t> stateIndex, int type,
                       const PartLayout& layout) {
  const std::string name = "/PartType" + std::to_string(type);
  const Handle group = makeGroup(file, name.c_str());
  const SlicedDataset coordinates(group.id(), "Coordinates", layout.real, rows.size(), 3),
      velocities(group.id(), "Velocities", layout.real, rows.size(), 3),
      masses(group.id(), "Masses", layout.real, rows.size(), 1),
      ids(group.id(), "ParticleIDs", layout.ids, rows.size(), 1);
  std::optional<SlicedDataset> radii, indices;
  if (layout.radii) radii.emplace(group.id(), "Radius", H5T_IEEE_F64LE, rows.size(), 1);
  if (layout.stateIndex) indices.emplace(group.id(), "StateIndex", layout.indices, rows.size(), 1);
  for (std::size_t first = 0; first < rows.size(); first += kBodiesASlice) {
    const std::size_t count = std::min(kBodiesASlice, rows.size() - first);
    const GadgetBodies slice = gadgetFromRows(snapshot, rows.subspan(first, count), stateIndex);
    coordinates.write(H5T_NATIVE_DOUBLE, slice.position.data(), first, count);
    velocities.write(H5T_NATIVE_DOUBLE, slice.velocity.data(), first, count);
    masses.write(H5T_NATIVE_DOUBLE, slice.mass.data(), first, count);
    ids.write(H5T_NATIVE_UINT64, slice.id.data(), first, count);
    if (radii) radii->write(H5T_NATIVE_DOUBLE, slice.radius.data(), first, count);
    if (indices) indices->write(H5T_NATIVE_UINT64, slice.stateIndex.data(), first, count);
  }
}

PartLayout partLayoutOf(const Snapshot& snapshot, std::span<const std::uint64_t> stateIndex,
                        bool doublePrecision) {
  const State& state = snapshot.state;
  PartLayout layout;
  layout.real = doublePrecision ? H5T_IEEE_F64LE : H5T_IEEE_F32LE;
  const bool wideIds = state.id.empty() ? state.size() > 0xFFFFFFFFu : needsWideIds(state.id);
  layout.ids = wideIds ? H5T_STD_U64LE : H5T_STD_U32LE;
  layout.indices = needsWideIds(stateIndex) ? H5T_STD_U64LE : H5T_STD_U32LE;
  layout.radii = snapshot.radii.has_value();
  layout.stateIndex = !stateIndex.empty();
  return layout;
}

// The part into the file `path` names (made anew), as gadgetHdf5PartImage writes it in memory.
void writePartByName(const std::filesystem::path& path, const Snapshot& snapshot,
                     std::span<const std::uint64_t> stateIndex, const GadgetFileShare& share) {
  const std::vector<std::size_t> rows = rowsByComponent(snapshot.state);
  const GadgetBodies facts = gadgetFromRows(snapshot, {}, stateIndex);  // time, record, precision
  const PartLayout layout = partLayoutOf(snapshot, stateIndex, facts.doublePrecision);
  static_assert(kGadgetTypes == kComponentCount);
  const std::vector<std::uint64_t> counts = countsByComponent(snapshot.state);
  const std::lock_guard lock(hdf5Use());
  silenceHdf5();
  // No lock: the temporary file is this process's alone, and some parallel file systems refuse one.
  const Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  H5Pset_file_locking(access.id(), false, true);
  Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.id()), H5Fclose);
  if (!file.valid()) throw std::runtime_error("HDF5 could not make the file");
  writeHeader(file.id(), facts, counts, share);
  writeUnits(file.id(), facts.units);
  if (facts.record) writeRunRecord(file.id(), *facts.record);
  std::size_t first = 0;
  for (int type = 0; type < kGadgetTypes; ++type) {
    const std::span<const std::size_t> typeRows = std::span(rows).subspan(first, counts[type]);
    if (counts[type] > 0)
      writeTypeInSlices(file.id(), snapshot, typeRows, stateIndex, type, layout);
    first += counts[type];
  }
  if (H5Fclose(file.release()) < 0) throw std::runtime_error("HDF5 could not finish the file");
}

// ---------------------------------------------------------------------------------------------
// Reading, in the child process (io/isolated_call.h)

using Part = GadgetPart;

struct HeaderFacts {
  std::uint64_t counts[kGadgetTypes] = {};
  double massTable[kGadgetTypes] = {};
};

// A dataset's values as the file stores them, which the parent reads from the file's bytes itself
// (io/gadget_answer.h): their numbers, and where the first is.
struct StoredRun {
  StoredNumbers numbers;
  std::uint64_t offset;
};

// The numbers of a dataset of type `type` where the parent may read them as they are stored.
std::optional<StoredNumbers> storedNumbersOf(hid_t type) {
  const std::pair<hid_t, StoredNumbers> known[] = {{H5T_IEEE_F32LE, StoredNumbers::f32},
                                                   {H5T_IEEE_F64LE, StoredNumbers::f64},
                                                   {H5T_STD_U32LE, StoredNumbers::u32},
                                                   {H5T_STD_U64LE, StoredNumbers::u64}};
  for (const auto& [stored, numbers] : known)
    if (H5Tequal(type, stored) > 0) return numbers;
  return std::nullopt;
}

// A snapshot is read from its own bytes alone: libhdf5 would follow an external link into another
// HDF5 file, and read a dataset's values from the files its external storage or virtual mapping
// names (any file the user may read: /etc/passwd, /proc/self/environ, a FIFO that blocks for
// ever). Every link on the way to what is read is looked at first and such datasets are refused;
// behind that, the link access properties every call is made with refuse to traverse an external
// link at all.
constexpr int kLongestSoftLinkChain = 16;
constexpr std::size_t kLongestLinkValue = std::size_t(1) << 16;
constexpr const char* kOwnFileOnly = "nbody reads nothing outside a snapshot's own file";

extern "C" herr_t refuseExternalLink(const char*, const char*, const char*, const char*, unsigned*,
                                     hid_t, void*) {
  return -1;
}

// An absolute path within the file as libhdf5 walks it: "." and empty names are no step.
std::string withoutDots(const std::string& path) {
  std::string walked;
  for (std::size_t start = 0; start <= path.size();) {
    const std::size_t end = std::min(path.find('/', start), path.size());
    const std::string name = path.substr(start, end - start);
    if (!name.empty() && name != ".") walked += "/" + name;
    start = end + 1;
  }
  return walked.empty() ? "/" : walked;
}

// Link (and dataset) access properties that traverse no external link.
Handle inFileOnly(hid_t propertyClass) {
  Handle access(H5Pcreate(propertyClass), H5Pclose);
  if (!access.valid() || H5Pset_elink_cb(access.id(), refuseExternalLink, nullptr) < 0 ||
      H5Pset_nlinks(access.id(), kLongestSoftLinkChain) < 0)
    throw std::runtime_error("HDF5 could not make its link access properties");
  return access;
}

class Hdf5Reader {
 public:
  Hdf5Reader(std::string_view bytes, const std::string& source)
      : source_(source),
        bytes_(bytes),
        links_(inFileOnly(H5P_LINK_ACCESS)),
        datasets_(inFileOnly(H5P_DATASET_ACCESS)) {
    silenceHdf5();
    const unsigned flags = H5LT_FILE_IMAGE_DONT_COPY | H5LT_FILE_IMAGE_DONT_RELEASE;
    file_ = H5LTopen_file_image(const_cast<char*>(bytes.data()), bytes.size(), flags);
    if (file_ < 0) refuse("HDF5 cannot open it: not an HDF5 file, or a damaged one");
  }
  ~Hdf5Reader() { H5Fclose(file_); }
  Hdf5Reader(const Hdf5Reader&) = delete;
  Hdf5Reader& operator=(const Hdf5Reader&) = delete;

  // The part, in bytes (io/gadget_answer.h).
  std::string read();

 private:
  [[noreturn]] void refuse(const std::string& problem) const {
    throw std::runtime_error(source_ + ": " + problem);
  }
  bool exists(const std::string& path) const;
  void readOwnList(const std::string& group, std::uint64_t rows, const char* name, GadgetList list,
                   GadgetPartWriter& answer) const;
  bool linksInside(const std::string& path, int depth) const;
  void checkLinkInside(const std::string& path, int depth) const;
  std::string linkValue(const std::string& path, std::size_t size) const;
  void checkStorageInside(hid_t dataset, const std::string& path) const;
  void readIds(const std::string& group, std::uint64_t rows, const char* name, GadgetList list,
               GadgetPartWriter& answer) const;
  std::optional<std::vector<double>> attribute(const std::string& object, const char* name) const;
  std::optional<double> scalar(const std::string& object, const char* name) const;
  std::vector<double> counts(const char* name, bool required) const;
  HeaderFacts readHeader(Part& part) const;
  void refuseCosmology() const;
  GadgetUnits readUnits() const;
  std::optional<GadgetUnits> unitsIn(const std::string& object, const char* const names[3],
                                     bool timeNotVelocity) const;
  Handle openDataset(const std::string& group, const char* name, std::uint64_t rows, int columns,
                     H5T_class_t kind) const;
  std::optional<StoredRun> storedAsIs(hid_t dataset, std::uint64_t rows, int columns) const;
  bool valuesWhereStored(hid_t dataset, hid_t type, std::uint64_t offset, std::uint64_t rows,
                         int columns) const;
  void readReals(const std::string& group, const char* name, std::uint64_t rows, int columns,
                 GadgetList list, GadgetPartWriter& answer) const;
  void readType(int type, const HeaderFacts& header, GadgetPartWriter& answer) const;

  const std::string& source_;
  std::string_view bytes_;
  Handle links_, datasets_;
  hid_t file_ = -1;
};

bool Hdf5Reader::exists(const std::string& path) const { return linksInside(path, 0); }

// Whether `path` leads to an object, every link on the way checked to stay inside the file.
bool Hdf5Reader::linksInside(const std::string& path, int depth) const {
  std::size_t slash = 0;
  do {
    slash = path.find('/', slash + 1);
    const std::string prefix = path.substr(0, slash);
    if (prefix.empty() || prefix == "/") continue;
    if (H5Lexists(file_, prefix.c_str(), links_.id()) <= 0) return false;
    checkLinkInside(prefix, depth);
  } while (slash != std::string::npos);
  return true;
}

std::string Hdf5Reader::linkValue(const std::string& path, std::size_t size) const {
  if (size > kLongestLinkValue)
    refuse("the link " + printable(path, 256) + " names a path of " + std::to_string(size) +
           " bytes");
  std::string value(size, '\0');
  if (value.empty() || H5Lget_val(file_, path.c_str(), value.data(), value.size(), links_.id()) < 0)
    refuse("HDF5 cannot read the link " + printable(path, 256));
  return value;
}

// A hard link, or a soft link to a path whose own links are all inside; anything else is refused.
void Hdf5Reader::checkLinkInside(const std::string& path, int depth) const {
  H5L_info_t info;
  if (H5Lget_info(file_, path.c_str(), &info, links_.id()) < 0)
    refuse("HDF5 cannot look at the link " + printable(path, 256));
  if (info.type == H5L_TYPE_HARD) return;
  const std::string shown = printable(path, 256);
  if (info.type == H5L_TYPE_SOFT) {
    if (depth >= kLongestSoftLinkChain)
      refuse(shown + " is a loop of soft links, or a chain of more than " +
             std::to_string(kLongestSoftLinkChain));
    const std::string value = linkValue(path, info.u.val_size);
    const std::string target(value.c_str());
    const std::string folder = path.substr(0, path.find_last_of('/') + 1);
    if (!linksInside(withoutDots(target.starts_with('/') ? target : folder + target), depth + 1))
      refuse(shown + " is a soft link to " + printable(target, 256) + ", which leads nowhere");
    return;
  }
  if (info.type == H5L_TYPE_EXTERNAL) {
    const std::string value = linkValue(path, info.u.val_size);
    const char *file = nullptr, *object = nullptr;
    unsigned flags = 0;
    if (H5Lunpack_elink_val(value.data(), value.size(), &flags, &file, &object) < 0 || !file ||
        !object)
      refuse(shown + " is an external link (to another file); " + kOwnFileOnly);
    refuse(shown + " is an external link to " + printable(file, 256) + ":" +
           printable(object, 256) + "; " + kOwnFileOnly);
  }
  refuse(shown + " is a user-defined link (of type " + std::to_string(int(info.type)) +
         "), which nbody does not follow");
}

// Values kept in other files (external storage, a virtual dataset's sources) are refused unread.
void Hdf5Reader::checkStorageInside(hid_t dataset, const std::string& path) const {
  const Handle creation(H5Dget_create_plist(dataset), H5Pclose);
  if (!creation.valid()) refuse("HDF5 cannot tell how " + path + " is stored");
  const int external = H5Pget_external_count(creation.id());
  if (external != 0) {
    char name[256] = "";
    off_t offset = 0;
    hsize_t size = 0;
    if (external < 0 || H5Pget_external(creation.id(), 0, sizeof name, name, &offset, &size) < 0)
      refuse(path + " keeps its values in other files; " + kOwnFileOnly);
    const std::string more = external > 1 ? " and " + std::to_string(external - 1) + " more" : "";
    refuse(path + " keeps its values in another file (" + printable(name, 256) + more + "); " +
           kOwnFileOnly);
  }
  if (H5Pget_layout(creation.id()) == H5D_VIRTUAL)
    refuse(path + " is a virtual dataset, which maps datasets of other files; " + kOwnFileOnly);
}

// A numeric attribute's values (at most 64), as doubles; nothing where it is absent.
std::optional<std::vector<double>> Hdf5Reader::attribute(const std::string& object,
                                                         const char* name) const {
  if (!exists(object)) return std::nullopt;
  const Handle owner(H5Oopen(file_, object.c_str(), links_.id()), H5Oclose);
  if (!owner.valid() || H5Aexists(owner.id(), name) <= 0) return std::nullopt;
  const Handle attribute(H5Aopen(owner.id(), name, H5P_DEFAULT), H5Aclose);
  const Handle type(H5Aget_type(attribute.id()), H5Tclose);
  const Handle space(H5Aget_space(attribute.id()), H5Sclose);
  const H5T_class_t kind = H5Tget_class(type.id());
  const hssize_t count = H5Sget_simple_extent_npoints(space.id());
  const std::string what = object + " attribute " + name;
  if (kind != H5T_INTEGER && kind != H5T_FLOAT) refuse(what + " is not a number");
  if (count < 1 || count > 64)
    refuse(what + " holds " + std::to_string(count) + " values, not 1 to 64");
  std::vector<double> values(std::size_t(count), 0.0);
  if (H5Aread(attribute.id(), H5T_NATIVE_DOUBLE, values.data()) < 0)
    refuse("HDF5 cannot read the " + what);
  for (const double value : values)
    if (!std::isfinite(value)) refuse(what + " is not finite");
  return values;
}

std::optional<double> Hdf5Reader::scalar(const std::string& object, const char* name) const {
  const auto values = attribute(object, name);
  if (!values) return std::nullopt;
  if (values->size() != 1) refuse(object + " attribute " + name + " is not one number");
  return values->front();
}

// A NumPart array: whole numbers >= 0, of any length, none with bodies beyond type 5.
std::vector<double> Hdf5Reader::counts(const char* name, bool required) const {
  const auto values = attribute("/Header", name);
  if (!values) {
    if (required) refuse(std::string("no /Header attribute ") + name);
    return {};
  }
  for (std::size_t type = 0; type < values->size(); ++type) {
    const double count = (*values)[type];
    if (count < 0.0 || count != std::floor(count) || count >= 0x1p53)
      refuse(std::string("/Header ") + name + "[" + std::to_string(type) + "] is not a body count");
    if (type >= std::size_t(kGadgetTypes) && count > 0.0)
      refuse(std::string("/Header ") + name + " lists bodies of type " + std::to_string(type) +
             " (GADGET's types are 0 to 5)");
  }
  return *values;
}

HeaderFacts Hdf5Reader::readHeader(Part& part) const {
  if (!exists("/Header")) refuse("no group /Header: not a GADGET HDF5 snapshot");
  HeaderFacts header;
  const std::vector<double> thisFile = counts("NumPart_ThisFile", true);
  const std::vector<double> total = counts("NumPart_Total", false),
                            high = counts("NumPart_Total_HighWord", false);
  const std::vector<double> masses =
      attribute("/Header", "MassTable").value_or(std::vector<double>{});
  for (int type = 0; type < kGadgetTypes; ++type) {
    const auto at = [type](const std::vector<double>& list) {
      return std::size_t(type) < list.size() ? list[type] : 0.0;
    };
    header.counts[type] = std::uint64_t(at(thisFile));
    part.totals[type] = std::uint64_t(at(total)) + (std::uint64_t(at(high)) << 32);
    header.massTable[type] = at(masses);
    if (header.massTable[type] < 0.0)
      refuse("/Header MassTable[" + std::to_string(type) + "] is negative");
  }
  part.bodies.time = scalar("/Header", "Time").value_or(0.0);
  const double files = scalar("/Header", "NumFilesPerSnapshot").value_or(1.0);
  if (files != std::floor(files) || files > 1e6)
    refuse("/Header NumFilesPerSnapshot is not a file count");
  part.fileCount = std::max(1, int(files));
  return header;
}

void Hdf5Reader::refuseCosmology() const {
  const double redshift = scalar("/Header", "Redshift").value_or(0.0);
  const double omega0 = scalar("/Header", "Omega0").value_or(0.0);
  const double omegaLambda = scalar("/Header", "OmegaLambda").value_or(0.0);
  const auto flagged = [this](const char* object, const char* name) {
    return scalar(object, name).value_or(0.0) != 0.0 ? std::string(object) + " " + name + " is set"
                                                     : std::string();
  };
  std::string why = flagged("/Parameters", "ComovingIntegrationOn");
  if (why.empty()) why = flagged("/Cosmology", "Cosmological run");
  if (why.empty() && (redshift > 0.0 || omega0 > 0.0 || omegaLambda > 0.0))
    why = "redshift " + shortNumber(redshift) + ", Omega0 " + shortNumber(omega0) +
          ", OmegaLambda " + shortNumber(omegaLambda);
  if (!why.empty())
    refuse("a cosmological snapshot (" + why +
           "): its comoving coordinates need another integrator than nbody's");
}

// Length, mass and velocity (or time, in SWIFT's names) units under `names` in `object`.
std::optional<GadgetUnits> Hdf5Reader::unitsIn(const std::string& object,
                                               const char* const names[3],
                                               bool timeNotVelocity) const {
  const auto length = scalar(object, names[0]), mass = scalar(object, names[1]),
             third = scalar(object, names[2]);
  if (!length || !mass || !third) return std::nullopt;
  GadgetUnits units{*length, *mass, timeNotVelocity && *third != 0.0 ? *length / *third : *third};
  if (!units.valid())
    refuse(object + "'s units are not finite and positive (" + units.describe() + ")");
  return units;
}

GadgetUnits Hdf5Reader::readUnits() const {
  static const char* const gadget[3] = {"UnitLength_in_cm", "UnitMass_in_g",
                                        "UnitVelocity_in_cm_per_s"};
  static const char* const swift[3] = {"Unit length in cgs (U_L)", "Unit mass in cgs (U_M)",
                                       "Unit time in cgs (U_t)"};
  static const char* const gizmo[3] = {"UnitLength_In_CGS", "UnitMass_In_CGS",
                                       "UnitVelocity_In_CGS"};
  if (auto units = unitsIn("/Units", gadget, false)) return *units;
  if (auto units = unitsIn("/Units", swift, true)) return *units;
  if (auto units = unitsIn("/Parameters", gadget, false)) return *units;
  if (auto units = unitsIn("/Header", gizmo, false)) return *units;
  return GadgetUnits{};
}

// The dataset, once it has shown it is `rows` x `columns` values of `kind` and that the bytes it
// stores can hold them: nothing is allocated for a count the file cannot back.
Handle Hdf5Reader::openDataset(const std::string& group, const char* name, std::uint64_t rows,
                               int columns, H5T_class_t kind) const {
  const std::string path = group + "/" + name;
  if (!exists(path)) refuse("no dataset " + path + " for its " + std::to_string(rows) + " bodies");
  Handle dataset(H5Dopen2(file_, path.c_str(), datasets_.id()), H5Dclose);
  if (!dataset.valid()) refuse(path + " is not a dataset HDF5 can open");
  checkStorageInside(dataset.id(), path);
  const Handle space(H5Dget_space(dataset.id()), H5Sclose),
      type(H5Dget_type(dataset.id()), H5Tclose);
  hsize_t dims[2] = {0, 0};
  const int rank = H5Sget_simple_extent_ndims(space.id());
  if (rank != (columns == 1 ? 1 : 2) ||
      H5Sget_simple_extent_dims(space.id(), dims, nullptr) != rank || dims[0] != rows ||
      (columns > 1 && dims[1] != hsize_t(columns)))
    refuse(path + " is not " + std::to_string(rows) +
           (columns > 1 ? " x " + std::to_string(columns) : "") + " values (the header's count)");
  if (H5Tget_class(type.id()) != kind)
    refuse(path + " holds " + (kind == H5T_FLOAT ? "no floating-point numbers" : "no integers"));
  const Handle creation(H5Dget_create_plist(dataset.id()), H5Pclose);
  const double needed = double(rows) * columns * double(H5Tget_size(type.id()));
  const double stored = double(H5Dget_storage_size(dataset.id()));
  const double packing = H5Pget_nfilters(creation.id()) > 0 ? kDeflateLargestRatio : 1.0;
  if (stored * packing < needed)
    refuse(
        path + " claims " + std::to_string(rows * std::uint64_t(columns)) + " values but stores " +
        std::to_string(std::uint64_t(stored)) + " bytes, where they need " +
        std::to_string(std::uint64_t(needed)) + " bytes" +
        (packing > 1.0 ? " (1/" + shortNumber(kDeflateLargestRatio) + " of that compressed)" : "") +
        ": damaged, or written only in part");
  return dataset;
}

// Where the dataset's `rows` x `columns` values lie in the file as they are stored, for the parent
// to read itself: contiguous, unfiltered, little-endian float32, float64, u32 or u64, all inside
// the file, and the first and last values HDF5 reads the bits found there. Nothing otherwise: HDF5
// then reads them here.
std::optional<StoredRun> Hdf5Reader::storedAsIs(hid_t dataset, std::uint64_t rows,
                                                int columns) const {
  const Handle creation(H5Dget_create_plist(dataset), H5Pclose),
      type(H5Dget_type(dataset), H5Tclose);
  if (!creation.valid() || H5Pget_layout(creation.id()) != H5D_CONTIGUOUS ||
      H5Pget_nfilters(creation.id()) != 0)
    return std::nullopt;
  const std::optional<StoredNumbers> numbers = storedNumbersOf(type.id());
  const haddr_t offset = H5Dget_offset(dataset);
  const std::uint64_t count = rows * std::uint64_t(columns), size = H5Tget_size(type.id());
  if (!numbers || offset == HADDR_UNDEF || H5Dget_storage_size(dataset) != count * size ||
      offset > bytes_.size() || count * size > bytes_.size() - offset)
    return std::nullopt;
  return valuesWhereStored(dataset, type.id(), offset, rows, columns)
             ? std::optional(StoredRun{*numbers, offset})
             : std::nullopt;
}

// Whether HDF5 reads the first and the last of the dataset's `rows` x `columns` values (in its own
// type: no conversion) as the bytes from `offset` hold them: the values are where the parent will
// read them.
bool Hdf5Reader::valuesWhereStored(hid_t dataset, hid_t type, std::uint64_t offset,
                                   std::uint64_t rows, int columns) const {
  const std::size_t size = H5Tget_size(type), rank = columns == 1 ? 1 : 2;
  const std::uint64_t last = (rows * std::uint64_t(columns) - 1) * size;
  const hsize_t points = last > 0 ? 2 : 1;
  const hsize_t firstAndLast[2][2] = {{0, 0}, {rows - 1, hsize_t(columns) - 1}};
  hsize_t coordinates[4] = {};
  for (hsize_t point = 0; point < points; ++point)
    std::copy_n(firstAndLast[point], rank, coordinates + point * rank);
  const Handle space(H5Dget_space(dataset), H5Sclose),
      read(H5Screate_simple(1, &points, nullptr), H5Sclose);
  char values[16] = {};
  if (size > 8 || H5Sselect_elements(space.id(), H5S_SELECT_SET, points, coordinates) < 0 ||
      H5Dread(dataset, type, read.id(), space.id(), H5P_DEFAULT, values) < 0)
    return false;
  return std::memcmp(values, bytes_.data() + offset, size) == 0 &&
         std::memcmp(values + (points - 1) * size, bytes_.data() + offset + last, size) == 0;
}

void Hdf5Reader::readReals(const std::string& group, const char* name, std::uint64_t rows,
                           int columns, GadgetList list, GadgetPartWriter& answer) const {
  const Handle dataset = openDataset(group, name, rows, columns, H5T_FLOAT);
  if (const std::optional<StoredRun> stored = storedAsIs(dataset.id(), rows, columns))
    return answer.stored(list, stored->numbers, rows * std::uint64_t(columns), stored->offset);
  std::vector<double> values(std::size_t(rows) * std::size_t(columns));
  if (H5Dread(dataset.id(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0)
    refuse("HDF5 cannot read " + group + "/" + name +
           " (damaged, or compressed with a filter it lacks)");
  answer.given(list, values);
}

// IDs as the file holds them: unsigned ones of up to 64 bits; signed ones only where none is
// negative (libhdf5's conversion would make every negative one 0).
void Hdf5Reader::readIds(const std::string& group, std::uint64_t rows, const char* name,
                         GadgetList list, GadgetPartWriter& answer) const {
  const std::string path = group + "/" + name;
  const Handle ids = openDataset(group, name, rows, 1, H5T_INTEGER);
  const Handle type(H5Dget_type(ids.id()), H5Tclose);
  if (H5Tget_size(type.id()) > 8)
    refuse(path + " holds integers of " + std::to_string(8 * H5Tget_size(type.id())) +
           " bits, over the 64 an ID may have");
  if (const std::optional<StoredRun> stored = storedAsIs(ids.id(), rows, 1))
    return answer.stored(list, stored->numbers, rows, stored->offset);
  const bool isSigned = H5Tget_sign(type.id()) == H5T_SGN_2;
  std::vector<std::uint64_t> values(rows);
  const hid_t memoryType = isSigned ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT64;
  if (H5Dread(ids.id(), memoryType, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0)
    refuse("HDF5 cannot read " + path);
  for (std::uint64_t k = 0; isSigned && k < rows; ++k)
    if (std::int64_t(values[k]) < 0)
      refuse(path + " holds a negative " +
             (name == std::string_view("ParticleIDs") ? "ID" : "value") + " (" +
             std::to_string(std::int64_t(values[k])) + ", body " + std::to_string(k) +
             "): " + (name == std::string_view("ParticleIDs") ? "IDs" : "they") +
             " are whole numbers from 0");
  answer.given(list, values);
}

void Hdf5Reader::readType(int type, const HeaderFacts& header, GadgetPartWriter& answer) const {
  const std::uint64_t rows = header.counts[type];
  const std::string group = "/PartType" + std::to_string(type);
  if (!exists(group)) refuse("no group " + group + " for its " + std::to_string(rows) + " bodies");
  readReals(group, "Coordinates", rows, 3, GadgetList::position, answer);
  readReals(group, "Velocities", rows, 3, GadgetList::velocity, answer);
  readIds(group, rows, "ParticleIDs", GadgetList::id, answer);
  if (header.massTable[type] > 0.0)
    answer.repeated(GadgetList::mass, rows, header.massTable[type]);
  else
    readReals(group, "Masses", rows, 1, GadgetList::mass, answer);
  answer.repeated(GadgetList::type, rows, std::uint64_t(type));
  readOwnList(group, rows, "Radius", GadgetList::radius, answer);
  readOwnList(group, rows, "StateIndex", GadgetList::stateIndex, answer);
}

// nbody's own Radius and StateIndex datasets (the latter in a snapshot written in parts), `name`
// into `list`: in every group of bodies or in none.
void Hdf5Reader::readOwnList(const std::string& group, std::uint64_t rows, const char* name,
                             GadgetList list, GadgetPartWriter& answer) const {
  const bool before = answer.values(list) > 0, here = exists(group + "/" + name);
  const bool first = answer.values(GadgetList::mass) == rows;  // this group's bodies are the first
  if (!first && before != here)
    refuse(group + (here ? " has" : " lacks") + " the bodies' " + name +
           ", which the groups before " + (before ? "have" : "lack"));
  if (!here) return;
  if (list == GadgetList::radius) return readReals(group, name, rows, 1, list, answer);
  readIds(group, rows, name, list, answer);
}

std::string Hdf5Reader::read() {
  Part part;
  const HeaderFacts header = readHeader(part);
  refuseCosmology();
  part.bodies.units = readUnits();
  if (const auto gravity = scalar(kRunGroup, "GravitationalConstant"))
    part.bodies.record =
        GadgetRunRecord{*gravity, scalar(kRunGroup, "Time").value_or(part.bodies.time)};
  GadgetPartWriter answer;
  for (int type = 0; type < kGadgetTypes; ++type)
    if (header.counts[type] > 0) readType(type, header, answer);
  if (answer.values(GadgetList::mass) == 0 && part.fileCount == 1)  // one of several may hold none
    refuse("/Header NumPart_ThisFile lists no bodies");
  return std::move(answer).finish(part);
}

// ---------------------------------------------------------------------------------------------
// The part's way back from the child

// What the reader may take besides what the process has mapped already: enough for any file it can
// read (the values as doubles, twice), never the machine.
std::size_t memoryBudget(std::size_t fileBytes) {
  std::size_t mapped = 0;
  if (FILE* statm = std::fopen("/proc/self/statm", "r")) {
    unsigned long pages = 0;
    if (std::fscanf(statm, "%lu", &pages) == 1)
      mapped = std::size_t(pages) * std::size_t(::sysconf(_SC_PAGESIZE));
    std::fclose(statm);
  }
  return mapped + (std::size_t(2) << 30) + 8 * fileBytes;
}

Part readPart(std::string_view bytes, const std::string& source) {
  return gadgetHdf5PartOf(gadgetHdf5Answer(bytes, source), bytes, source);
}

}  // namespace

bool looksLikeHdf5(std::string_view bytes) { return bytes.starts_with(kHdf5Signature); }

GadgetPart gadgetHdf5PartOf(std::string_view answer, std::string_view bytes,
                            const std::string& source, std::uint64_t mostBodies) {
  stopPoint("while reading " + source);
  try {
    return gadgetPartOfBytes(answer, source, bytes, mostBodies);  // stored values read from here
  } catch (const std::logic_error&) {  // past the end, or a count beyond its bytes
    throw std::runtime_error(source + ": the reader process answered garbled");
  }
}

std::string gadgetHdf5Answer(std::string_view bytes, const std::string& source) {
  if (!looksLikeHdf5(bytes))
    throw std::runtime_error(source + ": not an HDF5 file (no HDF5 signature at its start)");
  const std::lock_guard lock(hdf5Use());
  return callIsolated([&] { return Hdf5Reader(bytes, source).read(); }, source, "the HDF5 library",
                      memoryBudget(bytes.size()));
}

std::string gadgetHdf5Image(const GadgetBodies& bodies) {
  return gadgetHdf5PartImage(bodies, wholeSnapshotShare(bodies));
}

std::string gadgetHdf5PartImage(const GadgetBodies& bodies, const GadgetFileShare& share) {
  const std::lock_guard lock(hdf5Use());
  silenceHdf5();
  const Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  H5Pset_fapl_core(access.id(), 1 << 20, 0);  // in memory, never on disk
  const Handle file(H5Fcreate(memoryFileName().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.id()),
                    H5Fclose);
  if (!file.valid()) throw std::runtime_error("HDF5 could not make a file in memory");
  writeHeader(file.id(), bodies, bodies.countsByType(), share);
  writeUnits(file.id(), bodies.units);
  if (bodies.record) writeRunRecord(file.id(), *bodies.record);
  std::size_t first = 0;
  const std::vector<std::uint64_t> counts = bodies.countsByType();
  for (int type = 0; type < kGadgetTypes; ++type) {
    if (counts[type] > 0) writeType(file.id(), bodies, type, first, counts[type]);
    first += counts[type];
  }
  return fileImageOf(file.id());
}

void writeGadgetHdf5Part(const Snapshot& snapshot, std::span<const std::uint64_t> stateIndex,
                         const GadgetFileShare& share, OutputFile& out) {
  if (out.temporaryPath().empty()) {  // written in place (a pipe): no name to write by
    const std::string image = gadgetHdf5PartImage(gadgetFromSnapshot(snapshot, stateIndex), share);
    return out.write(image.data(), image.size());
  }
  try {
    out.flush();
    writePartByName(out.temporaryPath(), snapshot, stateIndex, share);
  } catch (const std::runtime_error& e) {
    throw OutputError("cannot write " + out.target().string() + ": " + e.what());
  }
}

void writeGadgetHdf5(const Snapshot& snapshot, std::ostream& out) {
  const std::string image = gadgetHdf5Image(gadgetFromSnapshot(snapshot));
  out.write(image.data(), std::streamsize(image.size()));
}

GadgetPart readGadgetHdf5File(std::string_view bytes, const std::string& source) {
  return readPart(bytes, source);
}

Snapshot parseGadgetHdf5(std::string_view bytes, const std::string& source) {
  return gadgetSnapshotOfOneFile(readPart(bytes, source), source, "base.0.hdf5");
}

Snapshot readGadgetHdf5Files(const std::filesystem::path& path, std::string_view bytes) {
  return readGadgetFiles(path, bytes, readPart, true);
}

}  // namespace nbody
