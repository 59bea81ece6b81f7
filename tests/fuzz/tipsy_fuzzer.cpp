// Fuzzes the TIPSY importer: any input is refused with std::runtime_error or gives sane bodies,
// as many as the header announced.

#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "fuzz_support.h"
#include "io/tipsy.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace nbody;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  Snapshot snapshot;
  try {
    snapshot = parseTipsy(bytes, "fuzz.tipsy");
  } catch (const std::runtime_error&) {
    return 0;
  }
  fuzz::requireSaneBodies(snapshot.state);
  fuzz::require(looksLikeTipsy(bytes));
  return 0;
}
