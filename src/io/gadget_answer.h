#pragma once
// One file's part of a GADGET snapshot (io/gadget.h) in bytes: how the HDF5 reader's child answers
// (io/gadget_hdf5.h), and how one rank sends another a file's facts. Each list of GadgetBodies
// comes as runs of values, each run one of three:
// - given: the list's own numbers in the bytes (little-endian: doubles, u64, or a byte a type);
// - stored: numbers of the file the reader read (little-endian float32, float64, u32 or u64 from
//   an offset): a dataset stored as it is (contiguous, unfiltered), which the child finds and the
//   parent reads from the file's bytes it holds already, rather than every value coming through
//   the pipe and a copy or two more (73 B a body, each way);
// - repeated: one value for a run of bodies (a mass table's mass, the type of a group).
// Then the facts: time, units, record, file count and the totals of each type.

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "io/byte_order.h"
#include "io/gadget.h"

namespace nbody {

// GadgetBodies' lists, in GadgetBodies::forEachList's order.
enum class GadgetList : std::uint8_t { position, velocity, mass, id, type, radius, stateIndex };
inline constexpr std::size_t kGadgetLists = 7;

// Numbers as a file stores them, little-endian: reals for the real lists (position, velocity,
// mass, radius), unsigned integers for the integer ones (id, stateIndex).
enum class StoredNumbers : std::uint8_t { f32, f64, u32, u64 };

// Writes a part's runs in any order (each list's in its order), then its facts.
class GadgetPartWriter {
 public:
  GadgetPartWriter() : out_(bytes::Order::little) {}

  void given(GadgetList list, std::span<const double> values);
  void given(GadgetList list, std::span<const std::uint64_t> values);
  void given(GadgetList list, std::span<const std::uint8_t> values);
  void stored(GadgetList list, StoredNumbers numbers, std::uint64_t count, std::uint64_t offset);
  void repeated(GadgetList list, std::uint64_t count, double value);
  void repeated(GadgetList list, std::uint64_t count, std::uint64_t value);
  // The values of `list` written so far.
  std::uint64_t values(GadgetList list) const { return counts_[std::size_t(list)]; }
  // The bytes: the runs, then `facts`' (its bodies' lists are not looked at).
  std::string finish(const GadgetPart& facts) &&;

 private:
  void start(GadgetList list, std::uint8_t kind, std::uint64_t count);

  bytes::Writer out_;
  std::array<std::uint64_t, kGadgetLists> counts_{};
};

// `part` in bytes, every list given.
std::string gadgetPartBytes(const GadgetPart& part);
// The part the bytes hold, its stored runs read from `file` (the bytes of the file read), its
// first `mostBodies` bodies alone (firstBodyOnly's part with 1). Throws std::logic_error where the
// bytes end early, a run is not of its list's numbers or lies past the file's end, or the lists'
// counts are not of one number of bodies the bytes can hold.
GadgetPart gadgetPartOfBytes(std::string_view bytes, const std::string& source,
                             std::string_view file = {},
                             std::uint64_t mostBodies = ~std::uint64_t{0});

}  // namespace nbody
