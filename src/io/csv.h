#pragma once
// The state as CSV: header x,y,z,mass,vx,vy,vz and one body per line. Numbers are written in
// the shortest form that reads back to the same float32, so a state round-trips exactly.

#include <istream>
#include <ostream>
#include <string>

#include "physics/state.h"

namespace nbody {

void writeStateCsv(const State& state, std::ostream& out);
// Throws std::runtime_error naming `source`, the line and the problem.
State readStateCsv(std::istream& in, const std::string& source);
State readStateCsvFile(const std::string& path);
std::string formatFloat(float value);    // shortest text that parses back to `value`
std::string formatDouble(double value);  // the same for a double

}  // namespace nbody
