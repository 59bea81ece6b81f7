// Fuzzes the binary snapshot loader. Random bytes almost never carry a matching checksum, so when
// the first input byte is odd the fuzzer writes the right checksum into the last 8 bytes first:
// that half of the inputs reaches the header and payload checks behind it. Any input is refused
// with std::runtime_error or gives sane bodies that write and read back to the same bits.

#include <cstdint>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>

#include "fuzz_support.h"
#include "io/binary_snapshot.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace nbody;
  if (size == 0) return 0;
  const bool repairChecksum = data[0] & 1;
  std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  if (repairChecksum && bytes.size() >= 8) {
    const std::uint64_t sum = fnv1a64(std::string_view(bytes).substr(0, bytes.size() - 8));
    for (int k = 0; k < 8; ++k) bytes[bytes.size() - 8 + k] = char((sum >> (8 * k)) & 0xff);
  }
  Snapshot snapshot;
  try {
    snapshot = parseBinarySnapshot(bytes, "fuzz.nbody");
  } catch (const std::runtime_error&) {
    return 0;
  }
  fuzz::requireSaneBodies(snapshot.state);
  fuzz::require(snapshot.settings.has_value());
  std::ostringstream written;
  writeBinarySnapshot(snapshot, written);
  const Snapshot again = parseBinarySnapshot(written.str(), "rewritten.nbody");
  fuzz::require(again.state.positionMass == snapshot.state.positionMass &&
                again.state.velocity == snapshot.state.velocity &&
                again.state.id == snapshot.state.id &&
                again.state.component == snapshot.state.component && again.step == snapshot.step);
  return 0;
}
