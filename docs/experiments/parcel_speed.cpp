// Round 53: how fast the CPU reads and writes a parcel's host memory (gl::HostParcel: client
// storage, mapped for good) by the flags it is made with, against glGetNamedBufferSubData and
// glNamedBufferSubData into and out of malloc'd memory. A LET round's 24 MB took ~25 ms to pass
// between two ranks (through MPI and through the node's window alike), and both read the sender's
// parcel and write the receiver's. Built against a device build's libraries (see
// h200_round53_window_exchange.sh `parcels`):
//   g++ -O2 -std=c++20 -Isrc -Ibuild-device/glad/include docs/experiments/parcel_speed.cpp \
//       build-device/libnbody_gl.a build-device/libglad.a -lEGL -ldl -static-libstdc++ \
//       -static-libgcc -o build-device/parcel_speed
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "gl/desktop_calls.h"
#include "gl/egl_context.h"

namespace {

constexpr std::size_t kBytes = std::size_t(24) << 20;

double seconds(auto&& work) {
  double best = 1e9;
  for (int k = 0; k < 5; ++k) {
    const auto start = std::chrono::steady_clock::now();
    work();
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

void finish() {
  GLsync fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  glClientWaitSync(fence, GL_SYNC_FLUSH_COMMANDS_BIT, GLuint64(10'000'000'000));
  glDeleteSync(fence);
}

void measure(const char* name, GLbitfield flags, GLuint device, std::vector<std::byte>& plain) {
  GLuint buffer = 0;
  glCreateBuffers(1, &buffer);
  glNamedBufferStorage(buffer, GLsizeiptr(kBytes), nullptr, flags | GL_CLIENT_STORAGE_BIT);
  auto* mapped = static_cast<std::byte*>(glMapNamedBufferRange(buffer, 0, GLsizeiptr(kBytes), flags));
  const double copyIn = seconds([&] {
    glCopyNamedBufferSubData(device, buffer, 0, 0, GLsizeiptr(kBytes));
    finish();
  });
  const double read = seconds([&] { std::memcpy(plain.data(), mapped, kBytes); });
  const double write = seconds([&] { std::memcpy(mapped, plain.data(), kBytes); });
  const double copyOut = seconds([&] {
    glCopyNamedBufferSubData(buffer, device, 0, 0, GLsizeiptr(kBytes));
    finish();
  });
  const auto rate = [](double s) { return double(kBytes) / s * 1e-9; };
  std::printf("%-34s GPU into it %6.2f GB/s, CPU reads %6.2f GB/s, CPU writes %6.2f GB/s, GPU "
              "out of it %6.2f GB/s\n",
              name, rate(copyIn), rate(read), rate(write), rate(copyOut));
  glUnmapNamedBuffer(buffer);
  glDeleteBuffers(1, &buffer);
}

}  // namespace

int main() {
  const auto context = nbody::gl::HeadlessContext::create();
  std::printf("%s, %zu MiB a copy, the best of 5\n", context->info().renderer.c_str(),
              kBytes >> 20);
  GLuint device = 0;
  glCreateBuffers(1, &device);
  glNamedBufferStorage(device, GLsizeiptr(kBytes), nullptr, GL_DYNAMIC_STORAGE_BIT);
  std::vector<std::byte> plain(kBytes, std::byte{1});
  glNamedBufferSubData(device, 0, GLsizeiptr(kBytes), plain.data());
  const GLbitfield p = GL_MAP_PERSISTENT_BIT, c = GL_MAP_COHERENT_BIT, r = GL_MAP_READ_BIT,
                   w = GL_MAP_WRITE_BIT;
  measure("read|write|coherent (HostParcel)", r | w | p | c, device, plain);
  measure("read|coherent", r | p | c, device, plain);
  measure("read", r | p, device, plain);
  measure("write|coherent", w | p | c, device, plain);
  measure("write", w | p, device, plain);
  const auto fresh = [&](GLbitfield flags) {  // a new parcel made, mapped and written once
    GLuint buffer = 0;
    const auto start = std::chrono::steady_clock::now();
    glCreateBuffers(1, &buffer);
    glNamedBufferStorage(buffer, GLsizeiptr(kBytes), nullptr, flags | GL_CLIENT_STORAGE_BIT);
    void* mapped = glMapNamedBufferRange(buffer, 0, GLsizeiptr(kBytes), flags);
    const auto made = std::chrono::steady_clock::now();
    std::memcpy(mapped, plain.data(), kBytes);
    const auto written = std::chrono::steady_clock::now();
    glDeleteBuffers(1, &buffer);
    std::printf("a new parcel: made and mapped in %.2f ms, first written in %.2f ms\n",
                std::chrono::duration<double, std::milli>(made - start).count(),
                std::chrono::duration<double, std::milli>(written - made).count());
  };
  for (int k = 0; k < 3; ++k) fresh(r | w | p | c);
  const double get = seconds([&] {
    glGetNamedBufferSubData(device, 0, GLsizeiptr(kBytes), plain.data());
  });
  const double put = seconds([&] {
    glNamedBufferSubData(device, 0, GLsizeiptr(kBytes), plain.data());
    finish();
  });
  std::printf("glGetNamedBufferSubData %6.2f GB/s, glNamedBufferSubData %6.2f GB/s\n",
              double(kBytes) / get * 1e-9, double(kBytes) / put * 1e-9);
  return 0;
}
