#include "io/gadget_answer.h"

#include <algorithm>
#include <bit>
#include <concepts>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include "io/stop_point.h"
#include "util/std_compat.h"

namespace nbody {
namespace {

enum RunKind : std::uint8_t { kGiven, kStored, kRepeated };
constexpr std::uint8_t kEndOfRuns = 0xFF;
constexpr std::uint64_t kValuesBetweenStopPoints = std::uint64_t(1) << 22;  // some ms of copying
// A body's position takes 12 bytes at least (three float32), in the answer or in the file.
constexpr std::size_t kLeastBytesPerBody = 12;

// The numbers each list holds, and how it holds them where it gives them.
enum class Element { real, integer, byte };

Element elementOf(GadgetList list) {
  switch (list) {
    case GadgetList::id:
    case GadgetList::stateIndex:
      return Element::integer;
    case GadgetList::type:
      return Element::byte;
    default:
      return Element::real;
  }
}

std::size_t bytesOfGiven(Element element) { return element == Element::byte ? 1 : 8; }

std::size_t bytesOfStored(StoredNumbers numbers) {
  return numbers == StoredNumbers::f32 || numbers == StoredNumbers::u32 ? 4 : 8;
}

bool holds(Element element, StoredNumbers numbers) {
  if (element == Element::real)
    return numbers == StoredNumbers::f32 || numbers == StoredNumbers::f64;
  return element == Element::integer &&
         (numbers == StoredNumbers::u32 || numbers == StoredNumbers::u64);
}

[[noreturn]] void garbled(const char* what) { throw std::logic_error(what); }

template <std::unsigned_integral T>
T littleEndianAt(const char* at) {
  T value;
  std::memcpy(&value, at, sizeof value);
  if constexpr (std::endian::native != std::endian::little) {
    T swapped = 0;
    for (std::size_t k = 0; k < sizeof(T); ++k)
      swapped = T(swapped << 8 | ((value >> 8 * k) & 0xFF));
    value = swapped;
  }
  return value;
}

// One run of a list's values, as the bytes describe it: `count` numbers at `from` (given, in the
// answer; stored, in the file) or `repeated` (a double's bits, or an integer) `count` times.
struct Run {
  GadgetList list;
  RunKind kind;
  StoredNumbers numbers;  // of the given or stored numbers
  std::size_t size;       // bytes each
  std::uint64_t count;
  const char* from;
  std::uint64_t repeated;
};

// The given or stored numbers `count` from `size` bytes apart at `from`, `read` each.
template <typename Value, typename Read>
void copyNumbers(Value* to, const char* from, std::uint64_t count, std::size_t size, Read read) {
  for (std::size_t k = 0; k < count; ++k) to[k] = Value(read(from + k * size));
}

template <typename Value>
void copyRun(Value* to, const Run& run, std::uint64_t first, std::uint64_t count) {
  if (run.kind == kRepeated) {
    if constexpr (std::is_same_v<Value, double>)
      std::fill(to, to + count, bit_cast<double>(run.repeated));
    else
      std::fill(to, to + count, Value(run.repeated));
    return;
  }
  const char* from = run.from + std::size_t(first) * run.size;
  if constexpr (std::is_same_v<Value, std::uint8_t>) {
    std::memcpy(to, from, std::size_t(count));
    return;
  }
  switch (run.numbers) {
    case StoredNumbers::f32:
      return copyNumbers(to, from, count, 4, [](const char* at) {
        return double(bit_cast<float>(littleEndianAt<std::uint32_t>(at)));
      });
    case StoredNumbers::f64:
      return copyNumbers(to, from, count, 8, [](const char* at) {
        return bit_cast<double>(littleEndianAt<std::uint64_t>(at));
      });
    case StoredNumbers::u32:
      return copyNumbers(to, from, count, 4, littleEndianAt<std::uint32_t>);
    case StoredNumbers::u64:
      return copyNumbers(to, from, count, 8, littleEndianAt<std::uint64_t>);
  }
}

// The numbers of a list that gives its own (the type list's, a byte each, are copied as they are).
StoredNumbers givenNumbers(Element element) {
  return element == Element::real ? StoredNumbers::f64 : StoredNumbers::u64;
}

Run readRun(bytes::Reader& in, std::uint8_t list, std::string_view bytes, std::string_view file) {
  if (list >= kGadgetLists) garbled("a run of no list");
  Run run{GadgetList(list), RunKind(in.get<std::uint8_t>()), {}, 0, 0, nullptr, 0};
  run.count = in.get<std::uint64_t>();
  const Element element = elementOf(run.list);
  if (run.kind == kGiven) {
    run.numbers = givenNumbers(element);
    run.size = bytesOfGiven(element);
    if (run.count > bytes.size() / run.size) garbled("a run past the answer's end");
    run.from = in.getBytes(std::size_t(run.count) * run.size).data();
  } else if (run.kind == kStored) {
    run.numbers = StoredNumbers(in.get<std::uint8_t>());
    const std::uint64_t offset = in.get<std::uint64_t>();
    if (run.numbers > StoredNumbers::u64 || !holds(element, run.numbers))
      garbled("a list stored in numbers not its own");
    run.size = bytesOfStored(run.numbers);
    if (offset > file.size() || run.count > (file.size() - offset) / run.size)
      garbled("a run past the file's end");
    run.from = file.data() + offset;
  } else if (run.kind == kRepeated) {
    run.repeated = in.get<std::uint64_t>();
    if (element == Element::byte && run.repeated > 0xFF) garbled("a type past a byte");
  } else {
    garbled("a run of no kind");
  }
  return run;
}

void readFacts(bytes::Reader& in, GadgetPart& part) {
  GadgetBodies& bodies = part.bodies;
  bodies.time = in.getDouble();
  bodies.units = {in.getDouble(), in.getDouble(), in.getDouble()};
  const bool recorded = in.get<std::uint8_t>() != 0;
  const GadgetRunRecord record{in.getDouble(), in.getDouble()};
  if (recorded) bodies.record = record;
  part.fileCount = in.getInt32();
  for (std::uint64_t& total : part.totals) total = in.get<std::uint64_t>();
}

// Each list's count of values, checked to be a number of bodies' (radii and state indices for
// every body or none) that the bytes can hold.
std::array<std::uint64_t, kGadgetLists> countsOf(const std::vector<Run>& runs, std::size_t bytes) {
  std::array<std::uint64_t, kGadgetLists> counts{};
  for (const Run& run : runs) {
    std::uint64_t& count = counts[std::size_t(run.list)];
    if (run.count > std::numeric_limits<std::uint64_t>::max() - count) garbled("a count too large");
    count += run.count;
  }
  const std::uint64_t bodies = counts[std::size_t(GadgetList::mass)];
  const auto of = [&](GadgetList list) { return counts[std::size_t(list)]; };
  if (bodies > bytes / kLeastBytesPerBody || of(GadgetList::position) != 3 * bodies ||
      of(GadgetList::velocity) != 3 * bodies || of(GadgetList::id) != bodies ||
      of(GadgetList::type) != bodies ||
      (of(GadgetList::radius) != 0 && of(GadgetList::radius) != bodies) ||
      (of(GadgetList::stateIndex) != 0 && of(GadgetList::stateIndex) != bodies))
    garbled("lists of no one count of bodies");
  return counts;
}

// Calls visit(list's values) for `list` of `bodies` (GadgetList is forEachList's order).
template <typename Visit>
void visitList(GadgetBodies& bodies, GadgetList list, Visit&& visit) {
  std::size_t at = 0;
  GadgetBodies::forEachList([&](auto member, std::size_t) {
    if (at++ == std::size_t(list)) visit(bodies.*member);
  });
}

// The lists of `bodies` from `runs` (each list's `counts` values), their first `mostBodies`
// bodies' values alone.
void fillLists(GadgetBodies& bodies, const std::vector<Run>& runs,
               const std::array<std::uint64_t, kGadgetLists>& counts, std::uint64_t mostBodies,
               const std::string& source) {
  const std::uint64_t all = counts[std::size_t(GadgetList::mass)];
  const auto roomOf = [&](std::size_t list) {  // counts[list] is 0, all or 3 x all
    return all == 0 ? 0 : counts[list] / all * std::min(all, mostBodies);
  };
  for (std::size_t list = 0; list < kGadgetLists; ++list)
    visitList(bodies, GadgetList(list),
              [&](auto& values) { values.resize(std::size_t(roomOf(list))); });
  std::array<std::uint64_t, kGadgetLists> filled{};
  for (const Run& run : runs)
    visitList(bodies, run.list, [&](auto& values) {
      std::uint64_t& at = filled[std::size_t(run.list)];
      const std::uint64_t taken = std::min(run.count, values.size() - at);
      for (std::uint64_t done = 0; done < taken;) {
        const std::uint64_t count = std::min(taken - done, kValuesBetweenStopPoints);
        copyRun(values.data() + std::size_t(at + done), run, done, count);
        done += count;
        stopPoint("while reading " + source);
      }
      at += taken;
    });
}

}  // namespace

void GadgetPartWriter::start(GadgetList list, std::uint8_t kind, std::uint64_t count) {
  out_.put(std::uint8_t(list));
  out_.put(kind);
  out_.put(count);
  counts_[std::size_t(list)] += count;
}

void GadgetPartWriter::given(GadgetList list, std::span<const double> values) {
  start(list, kGiven, values.size());
  for (const double value : values) out_.put(value);
}

void GadgetPartWriter::given(GadgetList list, std::span<const std::uint64_t> values) {
  start(list, kGiven, values.size());
  for (const std::uint64_t value : values) out_.put(value);
}

void GadgetPartWriter::given(GadgetList list, std::span<const std::uint8_t> values) {
  start(list, kGiven, values.size());
  out_.putBytes({reinterpret_cast<const char*>(values.data()), values.size()});
}

void GadgetPartWriter::stored(GadgetList list, StoredNumbers numbers, std::uint64_t count,
                              std::uint64_t offset) {
  start(list, kStored, count);
  out_.put(std::uint8_t(numbers));
  out_.put(offset);
}

void GadgetPartWriter::repeated(GadgetList list, std::uint64_t count, double value) {
  start(list, kRepeated, count);
  out_.put(value);
}

void GadgetPartWriter::repeated(GadgetList list, std::uint64_t count, std::uint64_t value) {
  start(list, kRepeated, count);
  out_.put(value);
}

std::string GadgetPartWriter::finish(const GadgetPart& facts) && {
  const GadgetBodies& bodies = facts.bodies;
  out_.put(kEndOfRuns);
  for (const double value :
       {bodies.time, bodies.units.lengthInCm, bodies.units.massInG, bodies.units.velocityInCmPerS})
    out_.put(value);
  out_.put(std::uint8_t{bodies.record.has_value()});
  out_.put(bodies.record ? bodies.record->gravity : 0.0);
  out_.put(bodies.record ? bodies.record->time : 0.0);
  out_.put(std::int32_t(facts.fileCount));
  for (const std::uint64_t total : facts.totals) out_.put(total);
  return std::move(out_).take();
}

std::string gadgetPartBytes(const GadgetPart& part) {
  const GadgetBodies& bodies = part.bodies;
  GadgetPartWriter out;
  std::size_t list = 0;
  GadgetBodies::forEachList(
      [&](auto member, std::size_t) { out.given(GadgetList(list++), bodies.*member); });
  return std::move(out).finish(part);
}

GadgetPart gadgetPartOfBytes(std::string_view bytes, const std::string& source,
                             std::string_view file, std::uint64_t mostBodies) {
  bytes::Reader in(bytes, bytes::Order::little);
  std::vector<Run> runs;
  for (std::uint8_t list = in.get<std::uint8_t>(); list != kEndOfRuns;
       list = in.get<std::uint8_t>())
    runs.push_back(readRun(in, list, bytes, file));
  GadgetPart part;
  readFacts(in, part);
  fillLists(part.bodies, runs, countsOf(runs, bytes.size() + file.size()), mostBodies, source);
  return part;
}

}  // namespace nbody
