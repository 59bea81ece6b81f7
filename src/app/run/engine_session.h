#pragma once
// An engine together with the headless OpenGL context it runs in (for the GPU engines), as the
// headless commands open them.

#include <memory>
#include <string>

#include "engines/engine.h"
#include "gl/egl_context.h"

namespace nbody {

struct EngineSession {
  std::unique_ptr<gl::HeadlessContext> context;
  std::unique_ptr<Engine> engine;
};

// Engine `name` with `settings` (registry.h's createEngine), in `context` if one is given
// (several engines in one run), else in a new one where the engine needs it or `withGlContext`
// asks for it (to draw the state of an engine that needs none).
// In a distributed run each rank takes a GPU of its node (its index on the node, modulo the
// devices), and rank 0 says once which GPU each rank runs on, unless `quiet`.
EngineSession openEngine(const std::string& name, const EngineSettings& settings = {},
                         std::unique_ptr<gl::HeadlessContext> context = nullptr,
                         bool withGlContext = false, bool quiet = false);

// A headless context on this rank's GPU (in a distributed run, its index on its node modulo the
// devices), with the KHR_debug callback where gl::debugWanted().
std::unique_ptr<gl::HeadlessContext> openHeadlessContext();

// NBODY_DUMP_PROGRAMS=DIR: each stage kernel's program, once built, is written as DIR/HASH.bin
// (the driver's binary) and DIR/HASH.key (what it was made of), through the output layer like
// every file nbody writes (a link planted there is refused, never followed; a missing folder
// fails the run naming the file). Call once, before the first engine.
void dumpProgramsWhereAsked();

}  // namespace nbody
