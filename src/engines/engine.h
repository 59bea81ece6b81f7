#pragma once
// One interface for every engine (CPU reference, fragment shaders, ...). The app, the benchmark and
// the tests only talk to this.

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <glm/vec2.hpp>

#include "physics/method.h"
#include "physics/state.h"

namespace nbody {

// Where a GPU engine keeps the current state, for consumers that read it in place (the renderer,
// diagnostics, readback). Both are RGBA32F textures of `size` texels: position + mass (mass in .w)
// and velocity; body i is the texel (i % size.x, i / size.x); texels past bodyCount are massless
// padding at rest. Valid until the next step(), upload() or the engine's destruction.
struct GpuStateView {
  unsigned int positionMassTexture = 0;  // GL texture names
  unsigned int velocityTexture = 0;
  glm::ivec2 size{0, 0};
  std::size_t bodyCount = 0;
};

// A bad engine option name or value: the user's mistake, reported as a usage error.
struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// A choice an engine offers that changes how fast it runs, never what it computes beyond
// rounding (loop unrolling, bodies per fragment, tile size...). The benchmark sweeps them, the
// panel switches them.
struct EngineOption {
  std::string name, description;
  std::vector<std::string> choices;
  std::string value;  // one of choices
};

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

  // Throws std::runtime_error saying why, when `bodies` bodies will not fit in what the engine
  // runs on (texture sizes, GPU or host memory). Checked before anything is allocated.
  virtual void checkCapacity(std::size_t bodies) const = 0;

  virtual std::vector<EngineOption> options() const { return {}; }
  // Throws UsageError naming the option and its choices for a bad name or value.
  virtual void setOption(const std::string& name, const std::string& value);
  // A short text of the current choices, e.g. "unroll=4x4 bodies-per-fragment=4".
  std::string variant() const;

  // The state where it lives on the GPU; nothing for engines that keep it elsewhere.
  virtual std::optional<GpuStateView> gpuState() const { return std::nullopt; }
};

// For implementations of setOption: checks `value` against the option's choices and stores it.
void chooseOption(EngineOption& option, const std::string& value);

}  // namespace nbody
