// Round 57: what a small read of a large GPU buffer costs. On two H200s (round 56) a decomposed
// rank's `ends` (two 8-byte keys read from the walker's 75 MB key array, then a 2-rank allgather)
// took 6.2-7.3 ms on both ranks alike, and `close` (a 4-byte read and the lists' statistics)
// 2.7 ms on the rank that waits for no one. Here, one process, an idle GPU: 8 bytes read from
// buffers of 64 B to 512 MiB by glGetNamedBufferSubData, and through a mapped parcel
// (gl::readThrough: a GPU copy, a fence, a memcpy); the median and the largest of 21 reads. Built
// against a device build's libraries:
//   g++ -O2 -std=c++20 -Isrc -Ibuild-device/glad/include docs/experiments/read_latency.cpp \
//       build-device/libnbody_gl.a build-device/libglad.a -lEGL -ldl -static-libstdc++ \
//       -static-libgcc -o read_latency
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "gl/desktop_calls.h"
#include "gl/egl_context.h"
#include "gl/host_parcel.h"

namespace {

struct Figures {
  double median, most, writeMedian;  // ms
};

double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// The reads' median and largest, and the median of the writes before them (each to glFinish).
Figures timed(auto&& write, auto&& read) {
  std::vector<double> ms, writes;
  for (int k = 0; k < 21; ++k) {
    glFinish();
    const auto wrote = std::chrono::steady_clock::now();
    write();
    glFinish();
    writes.push_back(msSince(wrote));
    const auto start = std::chrono::steady_clock::now();
    read();
    ms.push_back(msSince(start));
  }
  std::sort(ms.begin(), ms.end());
  std::sort(writes.begin(), writes.end());
  return {ms[ms.size() / 2], ms.back(), writes[writes.size() / 2]};
}

GLuint bufferOf(std::size_t bytes) {
  GLuint buffer = 0;
  glCreateBuffers(1, &buffer);
  glNamedBufferStorage(buffer, GLsizeiptr(bytes), nullptr, GL_DYNAMIC_STORAGE_BIT);
  return buffer;
}

// A compute shader that stores uValue into every word of the buffer bound at 0.
GLuint storingProgram() {
  const char* source = R"(#version 430
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer Words { uint words[]; };
uniform uint uValue;
uniform uint uCount;
void main() {
  uint i = gl_GlobalInvocationID.y * 65535u * 256u + gl_GlobalInvocationID.x;
  if (i < uCount) words[i] = uValue;
})";
  const GLuint shader = glCreateShader(GL_COMPUTE_SHADER);
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  const GLuint program = glCreateProgram();
  glAttachShader(program, shader);
  glLinkProgram(program);
  return program;
}

// Each read follows a compute shader's write of the whole buffer, as the tree's arrays are written
// at every evaluation before their few words are read.
void measure(std::size_t bytes, nbody::gl::HostParcel& parcel) {
  static const GLuint program = storingProgram();
  GLuint buffer = bufferOf(bytes);
  GLuint value = 7;
  const auto write = [&] {
    const GLuint words = GLuint(bytes / 4), groups = (words + 255) / 256;
    glUseProgram(program);
    glUniform1ui(glGetUniformLocation(program, "uValue"), ++value);
    glUniform1ui(glGetUniformLocation(program, "uCount"), words);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buffer);
    glDispatchCompute(std::min<GLuint>(groups, 65535), (groups + 65534) / 65535, 1);
    glMemoryBarrier(GL_ALL_BARRIER_BITS);
  };
  std::uint32_t words[2] = {};
  const std::size_t last = bytes - sizeof words;
  const Figures get = timed(write, [&] {
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glGetNamedBufferSubData(buffer, 0, sizeof words, words);
    glGetNamedBufferSubData(buffer, GLintptr(last), sizeof words, words);
  });
  glDeleteBuffers(1, &buffer);
  buffer = bufferOf(bytes);  // one glGetNamedBufferSubData never touched
  const Figures through = timed(write, [&] {
    nbody::gl::readThrough(parcel, buffer, 0, sizeof words, words);
    nbody::gl::readThrough(parcel, buffer, last, sizeof words, words);
  });
  std::printf("%10zu B: two 8-byte reads, glGetNamedBufferSubData median %7.3f ms (most %7.3f; "
              "the writes %7.3f), through a parcel %7.3f (%7.3f; %7.3f); read %u\n",
              bytes, get.median, get.most, get.writeMedian, through.median, through.most,
              through.writeMedian, words[0]);
  glDeleteBuffers(1, &buffer);
}

}  // namespace

int main() {
  const auto context = nbody::gl::HeadlessContext::create();
  std::printf("%s\n", context->info().renderer.c_str());
  nbody::gl::HostParcel parcel;
  for (std::size_t bytes = 64; bytes <= (std::size_t(512) << 20); bytes *= 8) measure(bytes, parcel);
  measure(std::size_t(75) << 20, parcel);
  return 0;
}
