// Fuzzes the CSV state loader: any input is either refused with std::runtime_error or gives a
// state whose values are finite, whose masses are >= 0 and not all zero, and which writes and
// reads back to the same bits.

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>

#include "io/csv.h"

namespace {

void require(bool condition) {
  if (!condition) std::abort();  // libFuzzer reports the input that got here
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  nbody::State state;
  try {
    state = nbody::readStateCsv(in, "fuzz.csv");
  } catch (const std::runtime_error&) {
    return 0;
  }
  bool anyMass = false;
  for (std::size_t i = 0; i < state.size(); ++i) {
    for (int k = 0; k < 4; ++k) require(std::isfinite(state.positionMass[i][k]));
    for (int k = 0; k < 3; ++k) require(std::isfinite(state.velocity[i][k]));
    require(state.positionMass[i].w >= 0.0f);
    anyMass = anyMass || state.positionMass[i].w > 0.0f;
  }
  require(state.size() > 0 && anyMass);
  std::ostringstream written;
  nbody::writeStateCsv(state, written);
  std::istringstream again(written.str());
  const nbody::State reread = nbody::readStateCsv(again, "rewritten.csv");
  require(reread.positionMass == state.positionMass && reread.velocity == state.velocity);
  return 0;
}
