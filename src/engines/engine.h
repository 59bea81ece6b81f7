#pragma once
// One interface for every engine (CPU reference, fragment shaders, ...). The app, the benchmark and
// the tests only talk to this.

#include <cstddef>
#include <string>

#include "physics/method.h"
#include "physics/state.h"

namespace nbody {

class Engine {
 public:
  virtual ~Engine() = default;

  virtual std::string name() const = 0;
  // What runs it: the GL renderer string, or the CPU and its thread count.
  virtual std::string device() const = 0;
  // True when the engine needs a current OpenGL context (and GL timer queries can time it).
  virtual bool runsOnGl() const = 0;

  virtual void upload(const State& state) = 0;
  virtual State download() = 0;
  virtual std::size_t bodyCount() const = 0;

  // Advances `steps` steps of `method`. GPU engines only submit the work: call finish() or
  // download() to wait for it.
  virtual void step(const Method& method, const StepParams& params, int steps = 1) = 0;
  virtual void finish() {}
};

}  // namespace nbody
