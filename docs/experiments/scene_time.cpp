// Round 48: how long a scene takes to make (SceneChoice::generate, every core), against the
// foundation's generators at c. a089cbc (one Mersenne Twister stream). Built statically here, so
// that it runs on the device without the rest of the build (see h200_round48_scenes.sh):
//   g++ -O2 -std=c++20 -Isrc docs/experiments/scene_time.cpp src/physics/*.cpp -static -pthread \
//       -o build-scenes/scene_time_new
// and the same against a checkout of a089cbc's src/ for scene_time_old.
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "physics/scenes.h"

int main(int argc, char** argv) {
  if (argc != 3) return std::fprintf(stderr, "usage: scene_time SCENE BODIES\n"), 2;
  nbody::SceneChoice choice;
  choice.name = argv[1];
  choice.options.bodyCount = std::strtoull(argv[2], nullptr, 10);
  choice.options.seed = 1;
  const auto start = std::chrono::steady_clock::now();
  const nbody::State state = choice.generate();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s %zu bodies: %.3f s, %.4f us a body (x0 %g)\n", argv[1], state.size(), seconds,
              seconds / double(state.size()) * 1e6, state.positionMass[0].x);
}
