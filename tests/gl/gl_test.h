#pragma once
// Fixture for tests that need OpenGL: one headless context per test program, made on first use.
// A test that cannot get a context fails (it never skips), and any GL error a test causes fails it.

#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "engines/registry.h"
#include "gl/debug.h"
#include "gl/egl_context.h"
#include "gl/limits.h"

namespace nbody::test {

// An engine variant as the tests name it: (option, value) pairs set one after the other.
using Variant = std::vector<std::pair<std::string, std::string>>;

// The registered engine `name` with `variant` set; needs the context GlTest makes.
inline std::unique_ptr<Engine> makeEngine(const std::string& name, const Variant& variant = {}) {
  auto engine = createEngine(name);
  for (const auto& [option, value] : variant) engine->setOption(option, value);
  return engine;
}

// The registry's engines that run on the GPU: the test families loop over these, so a new engine
// is tested by every family without editing a test.
inline std::vector<std::string> gpuEngineNames() {
  std::vector<std::string> names;
  for (const EngineEntry& entry : engineRegistry())
    if (entry.needsGl) names.push_back(entry.name);
  return names;
}

// The registered engine `name` in the settings that make it sum forces directly (an approximate
// engine's exactSettings; the defaults otherwise): for comparisons at the exact engines' tolerance.
inline std::unique_ptr<Engine> makeExactEngine(const std::string& name) {
  return createEngine(name, findEngine(name)->exactSettings);
}

// NBODY_GL_TARGET=`target` (gl/level.h) for as long as it lives; the context's limits and target
// are asked anew when it is set and when it goes.
class GlTargetSet {
 public:
  explicit GlTargetSet(const char* target) {
    ::setenv("NBODY_GL_TARGET", target, 1);
    gl::forgetLimits();
  }
  ~GlTargetSet() {
    ::unsetenv("NBODY_GL_TARGET");
    gl::forgetLimits();
  }
  GlTargetSet(const GlTargetSet&) = delete;
  GlTargetSet& operator=(const GlTargetSet&) = delete;
};

class GlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(context()) << "no OpenGL context: " << contextError();
    gl::takeDebugErrors();
  }
  void TearDown() override {
    if (!context()) return;
    for (const std::string& error : gl::takeDebugErrors()) ADD_FAILURE() << error;
  }

  static gl::HeadlessContext* context() {
    static std::unique_ptr<gl::HeadlessContext> made = [] {
      try {
        auto created = gl::HeadlessContext::create(true);
        gl::installDebugCallback();
        std::printf("OpenGL: %s (%s, %s)\n", created->info().renderer.c_str(),
                    created->info().version.c_str(), created->info().platform.c_str());
        return created;
      } catch (const std::exception& e) {
        contextError() = e.what();
        return std::unique_ptr<gl::HeadlessContext>();
      }
    }();
    return made.get();
  }
  static std::string& contextError() {
    static std::string error;
    return error;
  }
};

}  // namespace nbody::test
