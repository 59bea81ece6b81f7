// Fuzzes the parent's reading of an HDF5 reader child's answer (io/gadget_answer.h): whatever a
// child answers (a libhdf5 a hostile file took over among them), the parent refuses it as garbled
// (std::logic_error) or reads lists of one count of bodies from inside the answer and the file.
// An input is a 2-byte little-endian length of the answer, the answer, then the file.

#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "fuzz_support.h"
#include "io/gadget_answer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace nbody;
  if (size < 2) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data) + 2, size - 2);
  const std::size_t length =
      std::min<std::size_t>(data[0] | std::size_t(data[1]) << 8, input.size());
  GadgetPart part;
  try {
    part = gadgetPartOfBytes(input.substr(0, length), "fuzz.hdf5", input.substr(length));
  } catch (const std::logic_error&) {
    return 0;
  }
  const GadgetBodies& bodies = part.bodies;
  const std::size_t count = bodies.size();
  fuzz::require(bodies.position.size() == 3 * count && bodies.velocity.size() == 3 * count);
  fuzz::require(bodies.id.size() == count && bodies.type.size() == count);
  fuzz::require(bodies.radius.empty() || bodies.radius.size() == count);
  fuzz::require(bodies.stateIndex.empty() || bodies.stateIndex.size() == count);
  fuzz::require(count <= size / 12);
  return 0;
}
