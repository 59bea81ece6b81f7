#include "io/gadget_binary.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <vector>

#include "io/byte_order.h"
#include "io/csv.h"
#include "util/printable_text.h"

namespace nbody {
namespace {

constexpr std::string_view kRunRecordTag{"NBODYGL\0", 8};

// The length a record marker at `offset` holds in `order`; nothing past the end.
std::optional<std::uint32_t> markerAt(std::string_view bytes, std::size_t offset,
                                      bytes::Order order) {
  if (offset > bytes.size() || bytes.size() - offset < 4) return std::nullopt;
  return bytes::Reader(bytes.substr(offset, 4), order).get<std::uint32_t>();
}

struct Layout {
  bytes::Order order;
  bool labelled;  // format 2
};

std::optional<Layout> layoutOf(std::string_view bytes) {
  for (const bytes::Order order : {bytes::Order::little, bytes::Order::big}) {
    const auto first = markerAt(bytes, 0, order);
    if (first == kGadgetHeaderBytes &&
        markerAt(bytes, 4 + kGadgetHeaderBytes, order) == kGadgetHeaderBytes)
      return Layout{order, false};
    if (first == 8 && bytes.substr(4, 4) == "HEAD" && markerAt(bytes, 12, order) == 8)
      return Layout{order, true};
  }
  return std::nullopt;
}

struct Block {
  std::string label;  // format 2's, or the block's place in format 1's order
  std::string_view payload;
};

// Every record of the file, checked: each marker pair agrees and lies within the file.
class Records {
 public:
  Records(std::string_view bytes, const std::string& source, Layout layout)
      : bytes_(bytes), source_(source), layout_(layout) {}

  std::vector<Block> all() {
    static const char* const kOrder[] = {"HEAD", "POS ", "VEL ", "ID  ", "MASS"};
    std::vector<Block> blocks;
    while (offset_ < bytes_.size()) {
      std::string label =
          blocks.size() < 5 ? kOrder[blocks.size()] : "block " + std::to_string(blocks.size() + 1);
      if (layout_.labelled) label = printable(record(label + " label", 8).substr(0, 4));
      blocks.push_back({label, record(label, std::nullopt)});
    }
    return blocks;
  }

 private:
  std::string_view record(const std::string& what, std::optional<std::uint32_t> length) {
    const auto refuse = [&](const std::string& problem) {
      return std::runtime_error(source_ + ": GADGET block " + what + " at byte " +
                                std::to_string(offset_) + ": " + problem);
    };
    const auto opening = markerAt(bytes_, offset_, layout_.order);
    if (!opening) throw refuse("truncated inside its length marker");
    if (length && *opening != *length)
      throw refuse("its length marker says " + std::to_string(*opening) + ", not " +
                   std::to_string(*length));
    const std::size_t room = bytes_.size() - offset_ - 4;
    if (*opening > room || room - *opening < 4)
      throw refuse("truncated: it claims " + std::to_string(*opening) + " bytes, the file has " +
                   std::to_string(room >= 4 ? room - 4 : 0) + " after its marker");
    if (markerAt(bytes_, offset_ + 4 + *opening, layout_.order) != opening)
      throw refuse("the markers before and after it disagree (" + std::to_string(*opening) +
                   " and " +
                   std::to_string(*markerAt(bytes_, offset_ + 4 + *opening, layout_.order)) + ")");
    const std::string_view payload = bytes_.substr(offset_ + 4, *opening);
    offset_ += 8 + std::size_t(*opening);
    return payload;
  }

  std::string_view bytes_;
  const std::string& source_;
  Layout layout_;
  std::size_t offset_ = 0;
};

struct Header {
  std::int32_t count[kGadgetTypes] = {};
  double massTable[kGadgetTypes] = {};
  double time = 0.0, redshift = 0.0, omega0 = 0.0, omegaLambda = 0.0;
  std::uint64_t totals[kGadgetTypes] = {};
  std::int32_t fileCount = 1;
  std::optional<GadgetRunRecord> record;
};

Header readHeader(std::string_view payload, bytes::Order order) {
  bytes::Reader reader(payload, order);
  Header header;
  for (std::int32_t& count : header.count) count = reader.getInt32();
  for (double& mass : header.massTable) mass = reader.getDouble();
  header.time = reader.getDouble();
  header.redshift = reader.getDouble();
  reader.skip(8);  // flag_sfr, flag_feedback
  for (std::uint64_t& total : header.totals) total = reader.get<std::uint32_t>();
  reader.skip(4);  // flag_cooling
  header.fileCount = std::max(reader.getInt32(), 1);
  reader.skip(8);  // BoxSize: an isolated run's is anything
  header.omega0 = reader.getDouble();
  header.omegaLambda = reader.getDouble();
  reader.skip(16);  // HubbleParam (1 in isolated runs), flag_stellarage, flag_metals
  for (std::uint64_t& total : header.totals)
    total += std::uint64_t(reader.get<std::uint32_t>()) << 32;
  reader.skip(4);  // flag_entropy_instead_u
  if (reader.getBytes(kRunRecordTag.size()) == kRunRecordTag)
    header.record = GadgetRunRecord{reader.getDouble(), reader.getDouble()};
  return header;
}

void checkHeader(const Header& header, const std::string& source) {
  for (int type = 0; type < kGadgetTypes; ++type) {
    if (header.count[type] < 0)
      throw std::runtime_error(source + ": the GADGET header's npart[" + std::to_string(type) +
                               "] is negative (" + std::to_string(header.count[type]) + ")");
    if (!(std::isfinite(header.massTable[type]) && header.massTable[type] >= 0.0))
      throw std::runtime_error(source + ": the GADGET header's MassTable[" + std::to_string(type) +
                               "] is not a finite mass >= 0");
  }
  if (header.omega0 > 0.0 || header.omegaLambda > 0.0 || header.redshift > 0.0)
    throw std::runtime_error(source + ": a cosmological GADGET snapshot (Omega0 " +
                             formatDouble(header.omega0) + ", OmegaLambda " +
                             formatDouble(header.omegaLambda) + ", redshift " +
                             formatDouble(header.redshift) +
                             "): its comoving coordinates need another integrator than nbody's");
}

const Block* findBlock(const std::vector<Block>& blocks, std::string_view label) {
  const auto found =
      std::find_if(blocks.begin(), blocks.end(), [&](const Block& b) { return b.label == label; });
  return found == blocks.end() ? nullptr : &*found;
}

// The block `label`, whose length must be `count` values of 4 or of 8 bytes: which of them.
std::pair<const Block*, std::size_t> sizedBlock(const std::vector<Block>& blocks,
                                                std::string_view label, std::uint64_t count,
                                                const std::string& source) {
  const Block* block = findBlock(blocks, label);
  const std::string name(label.substr(0, label.find_last_not_of(' ') + 1));
  if (!block)
    throw std::runtime_error(source + ": no " + name + " block for its " + std::to_string(count) +
                             " values");
  for (const std::size_t width : {4u, 8u})
    if (block->payload.size() == count * width) return {block, width};
  throw std::runtime_error(source + ": the " + name + " block holds " +
                           std::to_string(block->payload.size()) + " bytes, not " +
                           std::to_string(count) + " values of 4 or 8 bytes (the header's counts)");
}

void readNumbers(const Block& block, std::size_t width, bytes::Order order,
                 std::vector<double>& into) {
  bytes::Reader reader(block.payload, order);
  const std::size_t count = block.payload.size() / width;
  for (std::size_t k = 0; k < count; ++k)
    into.push_back(width == 4 ? reader.getFloat() : reader.getDouble());
}

void readIds(const Block& block, std::size_t width, bytes::Order order,
             std::vector<std::uint64_t>& into) {
  bytes::Reader reader(block.payload, order);
  const std::size_t count = block.payload.size() / width;
  for (std::size_t k = 0; k < count; ++k)
    into.push_back(width == 4 ? reader.get<std::uint32_t>() : reader.get<std::uint64_t>());
}

// Masses: the MassTable's, or for types whose entry is 0 the MASS block's, in order.
void readMasses(const Header& header, const std::vector<Block>& blocks, std::size_t width,
                bytes::Order order, GadgetBodies& bodies, const std::string& source) {
  std::uint64_t fromBlock = 0;
  for (int type = 0; type < kGadgetTypes; ++type)
    if (header.massTable[type] == 0.0) fromBlock += std::uint64_t(header.count[type]);
  std::vector<double> listed;
  if (fromBlock > 0) {
    const auto [block, blockWidth] = sizedBlock(blocks, "MASS", fromBlock, source);
    if (blockWidth != width)
      throw std::runtime_error(source + ": the MASS block's numbers are " +
                               std::to_string(blockWidth) + " bytes wide, the positions' " +
                               std::to_string(width));
    listed.reserve(std::size_t(fromBlock));
    readNumbers(*block, width, order, listed);
  }
  std::size_t next = 0;
  for (int type = 0; type < kGadgetTypes; ++type)
    for (std::int32_t k = 0; k < header.count[type]; ++k) {
      bodies.mass.push_back(header.massTable[type] > 0.0 ? header.massTable[type] : listed[next++]);
      bodies.type.push_back(std::uint8_t(type));
    }
}

GadgetBodies readBodies(const Header& header, const std::vector<Block>& blocks, bytes::Order order,
                        const std::string& source) {
  std::uint64_t bodyCount = 0;
  for (const std::int32_t count : header.count) bodyCount += std::uint64_t(count);
  if (bodyCount == 0) throw std::runtime_error(source + ": the GADGET header lists no bodies");
  const auto [positions, width] = sizedBlock(blocks, "POS ", 3 * bodyCount, source);
  const auto [velocities, velocityWidth] = sizedBlock(blocks, "VEL ", 3 * bodyCount, source);
  if (velocityWidth != width)
    throw std::runtime_error(source + ": the VEL block's numbers are " +
                             std::to_string(velocityWidth) + " bytes wide, the POS block's " +
                             std::to_string(width));
  const auto [ids, idWidth] = sizedBlock(blocks, "ID  ", bodyCount, source);
  GadgetBodies bodies;  // the blocks' lengths have shown the file holds these
  bodies.reserve(std::size_t(bodyCount));
  bodies.doublePrecision = width == 8;
  readNumbers(*positions, width, order, bodies.position);
  readNumbers(*velocities, width, order, bodies.velocity);
  readIds(*ids, idWidth, order, bodies.id);
  readMasses(header, blocks, width, order, bodies, source);
  bodies.time = header.time;
  bodies.record = header.record;
  return bodies;
}

// Writing: one record, its payload between two length markers.
void putRecord(bytes::Writer& out, const bytes::Writer& payload, const std::string& what) {
  if (payload.bytes().size() > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument(
        "the GADGET-2 " + what + " block would hold " + std::to_string(payload.bytes().size()) +
        " bytes; a record holds less than 4 GiB (write GADGET HDF5, .hdf5, instead)");
  out.put(std::uint32_t(payload.bytes().size()));
  out.putBytes(payload.bytes());
  out.put(std::uint32_t(payload.bytes().size()));
}

bytes::Writer headerPayload(const GadgetBodies& bodies) {
  const std::vector<std::uint64_t> counts = bodies.countsByType();
  bytes::Writer header(bytes::Order::little);
  for (int type = 0; type < kGadgetTypes; ++type) {
    if (counts[type] > std::uint64_t(std::numeric_limits<std::int32_t>::max()))
      throw std::invalid_argument(
          std::to_string(counts[type]) + " bodies of type " + std::to_string(type) +
          " do not fit GADGET-2's 32-bit counts (write GADGET HDF5, .hdf5, instead)");
    header.put(std::int32_t(counts[type]));
  }
  for (int type = 0; type < kGadgetTypes; ++type) header.put(0.0);  // MassTable: every mass in MASS
  header.put(bodies.time);
  header.put(0.0);                        // redshift
  header.putBytes(std::string(8, '\0'));  // flag_sfr, flag_feedback
  for (const std::uint64_t count : counts) header.put(std::uint32_t(count));
  header.put(std::int32_t{0});  // flag_cooling
  header.put(std::int32_t{1});  // num_files
  header.putBytes(
      std::string(32 + 8, '\0'));  // BoxSize, Omega0, OmegaLambda, HubbleParam; two flags
  for (const std::uint64_t count : counts) header.put(std::uint32_t(count >> 32));
  header.put(std::int32_t{0});  // flag_entropy_instead_u
  if (bodies.record) {
    header.putBytes(kRunRecordTag);
    header.put(bodies.record->gravity);
    header.put(bodies.record->time);
  }
  header.putBytes(std::string(kGadgetHeaderBytes - header.bytes().size(), '\0'));
  return header;
}

// float32, which a velocity scaled to GADGET's units may overflow (x 207.4 for a G = 1 run).
bytes::Writer floatPayload(const std::vector<double>& numbers, const char* what) {
  bytes::Writer payload(bytes::Order::little);
  for (const double value : numbers) {
    if (!std::isfinite(float(value)))
      throw std::runtime_error(std::string("cannot write GADGET-2 binary: a ") + what +
                               " in GADGET's units (" + formatDouble(value) +
                               ") is beyond float32 (write GADGET HDF5, .hdf5, instead)");
    payload.put(float(value));
  }
  return payload;
}

bytes::Writer idPayload(const std::vector<std::uint64_t>& ids) {
  const bool wide = needsWideIds(ids);
  bytes::Writer payload(bytes::Order::little);
  for (const std::uint64_t id : ids) wide ? payload.put(id) : payload.put(std::uint32_t(id));
  return payload;
}

}  // namespace

void writeGadgetBinary(const Snapshot& snapshot, std::ostream& out) {
  const GadgetBodies bodies = gadgetFromSnapshot(snapshot);
  bytes::Writer file(bytes::Order::little);
  putRecord(file, headerPayload(bodies), "header");
  // float32 always: splash reads float64 blocks as float32 ones.
  putRecord(file, floatPayload(bodies.position, "position"), "POS");
  putRecord(file, floatPayload(bodies.velocity, "velocity"), "VEL");
  putRecord(file, idPayload(bodies.id), "ID");
  putRecord(file, floatPayload(bodies.mass, "mass"), "MASS");
  out.write(file.bytes().data(), std::streamsize(file.bytes().size()));
}

bool looksLikeGadgetBinary(std::string_view bytes) { return layoutOf(bytes).has_value(); }

GadgetPart parseGadgetBinaryPart(std::string_view bytes, const std::string& source) {
  const std::optional<Layout> layout = layoutOf(bytes);
  if (!layout)
    throw std::runtime_error(
        source +
        ": not a GADGET-2 snapshot (its first record is neither a 256-byte header "
        "nor labelled HEAD, in either byte order)");
  const std::vector<Block> blocks = Records(bytes, source, *layout).all();
  if (blocks.front().payload.size() != kGadgetHeaderBytes)
    throw std::runtime_error(source + ": the GADGET header block holds " +
                             std::to_string(blocks.front().payload.size()) + " bytes, not 256");
  const Header header = readHeader(blocks.front().payload, layout->order);
  checkHeader(header, source);
  GadgetPart part;
  part.bodies = readBodies(header, blocks, layout->order, source);
  part.fileCount = header.fileCount;
  std::copy(std::begin(header.totals), std::end(header.totals), std::begin(part.totals));
  return part;
}

Snapshot parseGadgetBinary(std::string_view bytes, const std::string& source) {
  return gadgetSnapshotOfOneFile(parseGadgetBinaryPart(bytes, source), source, "base.0");
}

Snapshot readGadgetBinaryFiles(const std::filesystem::path& path, std::string_view bytes) {
  return readGadgetFiles(path, bytes, parseGadgetBinaryPart, false);
}

}  // namespace nbody
