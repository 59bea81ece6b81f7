#pragma once
// The state as CSV: header x,y,z,mass,vx,vy,vz and one body per line; where the bodies are not
// 1..N of the default component (physics/state.h), two more columns, id and component (header
// x,y,z,mass,vx,vy,vz,id,component). Numbers are written in the shortest form that reads back to
// the same float32, so a state round-trips exactly. The reader takes either header; without the
// two columns the bodies are 1..N of the default component.

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
