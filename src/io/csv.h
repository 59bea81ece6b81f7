#pragma once
// The state as CSV: header x,y,z,mass,vx,vy,vz and one body per line; where the bodies are not
// 1..N of the default component (physics/state.h), two more columns, id and component (header
// x,y,z,mass,vx,vy,vz,id,component). Numbers are written in the shortest form that reads back to
// the same float32, or where the bodies are given in double (the CPU engine's), to the same double,
// so a state round-trips exactly either way. The reader takes either header; without the two
// columns the bodies are 1..N of the default component. Each field is a decimal number: the state
// holds the float32 nearest to it, and where one is no float32, the doubles nearest to every field
// come back too (for the CPU engine). Where the bodies have radii (collisions), a last column,
// radius, a finite number >= 0 read and written as a double (x,y,z,mass,vx,vy,vz,radius or
// x,y,z,mass,vx,vy,vz,id,component,radius).

#include <istream>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "physics/state.h"

namespace nbody {

// `radii`, where given: a last column, radius (shortest double text).
void writeStateCsv(const State& state, std::ostream& out, const DoubleState* doubles = nullptr,
                   const std::vector<double>* radii = nullptr);
// Throws std::runtime_error naming `source`, the line and the problem. `doubles`, where given,
// gets the bodies in double where a field is no float32 (else nothing); `radii` the radius
// column where the file has one (else nothing).
State readStateCsv(std::istream& in, const std::string& source,
                   std::optional<DoubleState>* doubles = nullptr,
                   std::optional<std::vector<double>>* radii = nullptr);
State readStateCsvFile(const std::string& path);
std::string formatFloat(float value);    // shortest text that parses back to `value`
std::string formatDouble(double value);  // the same for a double

}  // namespace nbody
