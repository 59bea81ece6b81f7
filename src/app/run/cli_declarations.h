#pragma once
// The CLI11 classes that the declarations of the option registrars name. CLI/CLI.hpp costs about
// 12 s of compile time in each file that includes it (GCC -O3, CLI11 2.1 being header-only): only
// the files that register or parse options include it, the others (the window's, the tests of
// what the options make) take these.

namespace CLI {
class App;
class Option;
class Validator;
}  // namespace CLI
