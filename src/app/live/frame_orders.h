#pragma once
// The window of a distributed run (`mpirun -n K nbody run`): rank 0 shows it, and every frame tells
// the other ranks what to do with their share of the work, in the order its own frame does it:
// bring the simulation in line with the settings (an engine, variant, method or scene switch, a
// reset), load a snapshot, check the accuracy, advance the frame's steps. The other ranks run
// followWindow() instead of a window: no display, no panel, the same simulation.

#include <cstddef>
#include <string>
#include <vector>

#include "app/live/app_settings.h"
#include "app/live/window_options.h"

namespace nbody {

class Engine;

struct FrameOrder {
  AppSettings
      settings;  // what the frame applies: the run, and its requests (reset, load, accuracy)
  int steps = 0;
  bool quit = false;
};

// Rank 0 sends a frame's order to every other rank (a collective: they wait in followWindow()).
// Before its steps, rank 0 announces the word to begin them (parts_calls.h).
void sendOrder(const FrameOrder& order);

// The bytes of an order and back: the parts of AppSettings a follower applies.
std::vector<std::byte> encodeOrder(const FrameOrder& order);
FrameOrder decodeOrder(const std::vector<std::byte>& bytes);

// Where each rank's last `steps` steps went (force, download, MPI, upload), one line a rank after a
// heading, for rank 0's panel; empty without an exchange or steps. A collective: every rank calls
// it after each frame's steps (followers after carrying out the order). Clears the engine's times.
std::string describeRanks(Engine& engine, int steps);

// A rank other than 0 of a distributed window: makes the same simulation as rank 0's window on a
// GPU of its own, then carries out rank 0's orders until it says quit. Returns 0.
int followWindow(const WindowOptions& options);

}  // namespace nbody
