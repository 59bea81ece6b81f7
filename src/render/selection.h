#pragma once
// Picked bodies (the window's clicks, --select), kept by particle ID (so that they stay the same
// bodies when the engine switches, the run starts over, a snapshot is loaded or a series plays),
// with where each is now and the orbit it drew since it was picked. No GL: the window and the
// drawn runs of record and shot read the bodies (BodyReader) and hand them in, so the tests drive
// the very same logic.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "physics/state.h"
#include "render/overlay_painter.h"
#include "render/picking.h"

namespace nbody {

// A picked body as the panel's table shows it.
struct SelectedBody {
  std::uint64_t id = 0;
  std::size_t index = 0;  // where the engine holds it now
  bool found = true;      // false: the state shown has no body of this ID
  std::uint8_t component = 0;
  glm::vec3 position{0.0f}, velocity{0.0f};
  std::vector<glm::vec3> orbit;  // positions since it was picked, the oldest first
};

class Selection {
 public:
  static constexpr std::size_t kMostBodies = BodyReader::kMostBodies;  // followed every frame
  static constexpr std::size_t kMostOrbitPoints = 4096;

  // Replaces the selection (or adds to it) with the bodies at `indices` of `state`; at most
  // kMostBodies in all, the earlier kept.
  void pick(const State& state, const std::vector<std::size_t>& indices, bool add);
  // Replaces the selection with the bodies of these IDs (the first kMostBodies), found in `state`
  // or kept as not found.
  void pickIds(const State& state, const std::vector<std::uint64_t>& ids);
  void clear() { bodies_.clear(); }
  bool empty() const { return bodies_.empty(); }
  const std::vector<SelectedBody>& bodies() const { return bodies_; }
  // The indices to read back each frame (those found).
  std::vector<std::size_t> indices() const;

  // Finds each ID again in `state` (the engine's bodies are in another order, or others): after a
  // reset, a load, a snapshot of a series shown. A body not in it is kept, not found.
  void findIn(const State& state);
  // Where the bodies read back at indices() are now: positions, velocities, one more orbit point
  // each (none for a body that has not moved since the last).
  void follow(const std::vector<BodyNow>& now);
  void forgetOrbits();

  // The IDs picked that the state shown has no body of.
  std::vector<std::uint64_t> missing() const;
  // The mean position of the bodies found; none without any.
  std::optional<glm::vec3> centre() const;
  // The bodies found, for the overlay painter to ring and draw the orbits of (pointing into this).
  std::vector<MarkedBody> marked() const;

 private:
  std::vector<SelectedBody> bodies_;
};

}  // namespace nbody
