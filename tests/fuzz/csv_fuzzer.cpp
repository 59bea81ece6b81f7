// Fuzzes the CSV state loader: any input is either refused with std::runtime_error or gives a
// state whose values are finite, whose masses are >= 0 and not all zero, and which writes and
// reads back to the same bits.

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>

#include "fuzz_support.h"
#include "io/csv.h"

using nbody::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  nbody::State state;
  try {
    state = nbody::readStateCsv(in, "fuzz.csv");
  } catch (const std::runtime_error&) {
    return 0;
  }
  nbody::fuzz::requireSaneBodies(state);
  std::ostringstream written;
  nbody::writeStateCsv(state, written);
  std::istringstream again(written.str());
  const nbody::State reread = nbody::readStateCsv(again, "rewritten.csv");
  require(reread.positionMass == state.positionMass && reread.velocity == state.velocity);
  return 0;
}
