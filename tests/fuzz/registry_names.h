#pragma once
// The engine names the registry offers (engines/registry.cpp), for the command-line fuzzer, which
// parses without the engines (they bring OpenGL and every kernel into a build that only needs the
// option parser). tests/cpu/options_test.cpp checks that this list is the registry's.

#include <string>
#include <vector>

namespace nbody::fuzz {

inline const std::vector<std::string> kRegistryEngineNames{"fragment", "compute", "tree", "cpu"};

}  // namespace nbody::fuzz
