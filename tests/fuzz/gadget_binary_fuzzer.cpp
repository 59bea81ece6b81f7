// Fuzzes the GADGET-2 binary loader (one file of a snapshot): any input is refused with
// std::runtime_error or gives sane bodies of components below 6, which write as GADGET-2 binary
// (or are refused with std::runtime_error: velocities beyond float32 once scaled) and read back to
// as many bodies at the same time.

#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "fuzz_support.h"
#include "io/gadget_binary.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace nbody;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  Snapshot snapshot;
  try {
    snapshot = parseGadgetBinary(bytes, "fuzz.gadget");
  } catch (const std::runtime_error&) {
    return 0;
  }
  fuzz::requireSaneBodies(snapshot.state);
  fuzz::require(looksLikeGadgetBinary(bytes));
  for (std::size_t i = 0; i < snapshot.state.size(); ++i)
    fuzz::require(componentOf(snapshot.state, i) < 6);
  std::ostringstream written;
  try {
    writeGadgetBinary(snapshot, written);
  } catch (const std::runtime_error&) {  // a velocity beyond float32 once scaled to GADGET's units
    return 0;
  }
  const Snapshot again = parseGadgetBinary(written.str(), "rewritten.gadget");
  fuzz::require(again.state.size() == snapshot.state.size() && again.time == snapshot.time);
  return 0;
}
