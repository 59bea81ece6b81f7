// watchdog_probe (lab): how long may GPU work run between flushes on this driver before it is
// silently dropped? Spins every SM for --seconds in all, split into --parts dispatches, with
// nothing, glFlush or glFinish between them, then checks that the context still executes GPU
// commands (a buffer cleared by the GPU and read back). One context per run: a dropped channel
// stays dropped.
//   watchdog_probe --seconds 4 --parts 40 --between flush
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <glad/gl.h>

#include "gl/egl_context.h"

namespace {

const char* kSpin = R"(#version 450
#extension GL_ARB_shader_clock : require
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Sink { uint sink[]; };
uniform uint uMegacycles;
void main() {
  uint64_t start = clockARB();
  uint64_t length = uint64_t(uMegacycles) * 1000000ul;
  uint spins = 0u;
  while (clockARB() - start < length) ++spins;
  if (spins == 0xffffffffu) sink[0] = spins;  // never: keeps the loop
}
)";

GLuint spinProgram() {
  const GLuint shader = glCreateShader(GL_COMPUTE_SHADER);
  glShaderSource(shader, 1, &kSpin, nullptr);
  glCompileShader(shader);
  GLint ok = 0;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[4096];
    glGetShaderInfoLog(shader, sizeof log, nullptr, log);
    throw std::runtime_error(log);
  }
  const GLuint program = glCreateProgram();
  glAttachShader(program, shader);
  glLinkProgram(program);
  return program;
}

bool alive() {
  GLuint buffer = 0;
  glCreateBuffers(1, &buffer);
  const GLuint written[4] = {1u, 2u, 3u, 4u};
  glNamedBufferStorage(buffer, 16, written, GL_DYNAMIC_STORAGE_BIT);
  const GLuint seven = 7u;
  glClearNamedBufferSubData(buffer, GL_R32UI, 8, 4, GL_RED_INTEGER, GL_UNSIGNED_INT, &seven);
  GLuint read[4] = {};
  glGetNamedBufferSubData(buffer, 0, 16, read);
  glDeleteBuffers(1, &buffer);
  return read[2] == 7u;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"How long GPU work may run between flushes before the driver drops it."};
  double seconds = 1, clockGHz = 1.98;
  int parts = 1;
  std::string between = "none";
  app.add_option("--seconds", seconds, "GPU work in all");
  app.add_option("--parts", parts, "dispatches it is split into");
  app.add_option("--between", between, "none, flush or finish between the parts");
  app.add_option("--clock-ghz", clockGHz, "SM clock assumed");
  CLI11_PARSE(app, argc, argv);
  const auto context = nbody::gl::HeadlessContext::create(false);
  const GLuint program = spinProgram();
  GLuint sink = 0;
  glCreateBuffers(1, &sink);
  glNamedBufferStorage(sink, 16, nullptr, GL_DYNAMIC_STORAGE_BIT);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, sink);
  glUseProgram(program);
  glUniform1ui(glGetUniformLocation(program, "uMegacycles"), GLuint(seconds / parts * clockGHz * 1e3));
  const bool before = alive();
  const auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < parts; ++k) {
    glDispatchCompute(132 * 4, 1, 1);
    if (between == "flush") glFlush();
    if (between == "finish") glFinish();
  }
  glFinish();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const bool after = alive();
  std::printf("%.2f s in %d parts, %s between: wall %.2f s, alive before %d, after %d, reset status 0x%x\n", seconds,
              parts, between.c_str(), wall, before, after, glGetGraphicsResetStatus());
  return 0;
}
