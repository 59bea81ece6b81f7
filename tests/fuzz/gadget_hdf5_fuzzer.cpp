// Fuzzes the GADGET HDF5 loader, libhdf5 included: any input is refused with std::runtime_error
// (a crash of libhdf5 in its reader process among them: io/isolated_call.h) or gives sane bodies.
// libhdf5 runs in a child process, so libFuzzer sees no coverage inside it: the corpus's valid
// files and their mutations are what reach it.

#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "fuzz_support.h"
#include "io/gadget_hdf5.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace nbody;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  Snapshot snapshot;
  try {
    snapshot = parseGadgetHdf5(bytes, "fuzz.hdf5");
  } catch (const std::runtime_error&) {
    return 0;
  }
  fuzz::requireSaneBodies(snapshot.state);
  fuzz::require(looksLikeHdf5(bytes));
  return 0;
}
