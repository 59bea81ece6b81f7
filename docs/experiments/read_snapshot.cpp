// How long readSnapshotFile takes for a file (three times, from the page cache after the first),
// and an FNV-1a pass over its bytes alone (what a .nbody file's checksum costs):
// docs/performance-history.md, round 16. Built against a build's libraries, from the repository root:
//   B=build; g++ -std=c++20 -O2 -Isrc $(pkg-config --cflags ompi-c) docs/experiments/read_snapshot.cpp \
//     $B/libnbody_hdf5.a $B/libnbody_io.a $B/libnbody_physics.a $B/libnbody_parallel.a \
//     $(pkg-config --libs ompi-c) -L/usr/lib/x86_64-linux-gnu/hdf5/serial -lhdf5 -lhdf5_hl -o read_snapshot
//   ./read_snapshot run/step-000000002.nbody
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "io/snapshot.h"

int main(int, char** argv) {
  std::ifstream in(argv[1], std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const auto began = std::chrono::steady_clock::now();
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (const char c : bytes) hash = (hash ^ std::uint8_t(c)) * 0x100000001b3ull;
  std::printf("FNV-1a over %zu bytes: %.1f ms (%016llx)\n", bytes.size(),
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count(),
              (unsigned long long)hash);
  for (int i = 0; i < 3; ++i) {
    auto t = std::chrono::steady_clock::now();
    auto s = nbody::readSnapshotFile(argv[1]);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
    std::printf("%zu bodies %.1f ms\n", s.state.size(), ms);
  }
}
