#pragma once
// The cells of the octree that the tree engine's keys cut the bodies into (the `cells` overlay):
// level L cuts the bodies' bounding cube (its largest side, from the box's smallest corner) into
// 2^L cells a side, on tree_keys.comp's grid of 2^21 a side, so a body's cell at level L is the
// first 3L bits of its key there and the cell's bodies are one node of the tree. Each cell's box is
// its bodies' own, as the tree's boxes are. Worked out on the CPU from a state read back.

#include <cstddef>
#include <vector>

#include <glm/vec3.hpp>

#include "physics/state.h"

namespace nbody {

inline constexpr int kMostCellDepth = 6;  // 8^6 cells at most at the deepest level

struct TreeCell {
  glm::vec3 low{0.0f}, high{0.0f};  // the box of its bodies
  int level = 1;                    // 1: the root cube's eighths
  std::size_t bodies = 0;
};

// Every cell holding a body, levels 1 to `depth` (clamped to 1..kMostCellDepth), level by level.
// Bodies that are not finite are left out.
std::vector<TreeCell> treeCellsOf(const State& state, int depth);

}  // namespace nbody
