// The cells overlay's octree against a count in double precision: each body's cell at every level
// found from the bounding cube by hand, each cell's bodies and box from them, every level holding
// every body, children's boxes inside their parent's.

#include <map>
#include <tuple>

#include <gtest/gtest.h>
#include <glm/common.hpp>

#include "physics/scenes.h"
#include "render/tree_cells.h"

namespace nbody {
namespace {

using CellKey = std::tuple<int, unsigned, unsigned, unsigned>;  // level, x, y, z

struct Box {
  glm::dvec3 low{1e300}, high{-1e300};
  std::size_t bodies = 0;
};

// Cells from the cube over the bodies (its largest side from the smallest corner) in double.
std::map<CellKey, Box> cellsByHand(const State& state, int depth) {
  glm::dvec3 low(1e300), high(-1e300);
  for (const glm::vec4& body : state.positionMass)
    low = glm::min(low, glm::dvec3(body)), high = glm::max(high, glm::dvec3(body));
  const glm::dvec3 size = high - low;
  const double extent = std::max({size.x, size.y, size.z});
  std::map<CellKey, Box> cells;
  for (const glm::vec4& body : state.positionMass) {
    const glm::dvec3 p(body);
    for (int level = 1; level <= depth; ++level) {
      const double side = double(1 << level);
      const glm::dvec3 at = glm::min((p - low) / extent * side, glm::dvec3(side - 1.0));
      Box& box = cells[{level, unsigned(at.x), unsigned(at.y), unsigned(at.z)}];
      box.low = glm::min(box.low, p), box.high = glm::max(box.high, p);
      ++box.bodies;
    }
  }
  return cells;
}

TEST(TreeCells, AreTheOctreeCellsOfTheBoundingCubeWithTheirBodiesBoxes) {
  const State state = findScene("plummer")->generate(3000, 9);
  const int depth = 4;
  const std::vector<TreeCell> cells = treeCellsOf(state, depth);
  const std::map<CellKey, Box> expected = cellsByHand(state, depth);
  // A body within a float's rounding of a cell's face may land on either side: match boxes and
  // counts, and allow the very few cells such a body changes.
  std::size_t matched = 0;
  std::vector<std::size_t> perLevel(depth + 1, 0), bodiesPerLevel(depth + 1, 0);
  for (const TreeCell& cell : cells) {
    ASSERT_GE(cell.level, 1);
    ASSERT_LE(cell.level, depth);
    ++perLevel[std::size_t(cell.level)];
    bodiesPerLevel[std::size_t(cell.level)] += cell.bodies;
    for (const auto& [key, box] : expected) {
      if (std::get<0>(key) != cell.level || box.bodies != cell.bodies) continue;
      if (glm::dvec3(cell.low) == box.low && glm::dvec3(cell.high) == box.high) {
        ++matched;
        break;
      }
    }
  }
  EXPECT_GE(double(matched), 0.99 * double(expected.size()))
      << matched << " of " << expected.size();
  for (int level = 1; level <= depth; ++level) {
    EXPECT_EQ(bodiesPerLevel[std::size_t(level)], state.size())
        << "level " << level << " holds every body once";
    std::size_t expectedCells = 0;
    for (const auto& [key, box] : expected) expectedCells += std::get<0>(key) == level;
    EXPECT_NEAR(double(perLevel[std::size_t(level)]), double(expectedCells), 2.0)
        << "level " << level;
  }
  EXPECT_LE(perLevel[1], 8u);
}

TEST(TreeCells, LieEachInOneCubeOfItsLevelAndStopAtTheDeepestLevel) {
  const State state = findScene("uniform-sphere")->generate(2000, 3);
  const std::vector<TreeCell> cells = treeCellsOf(state, 99);
  int deepest = 0;
  for (const TreeCell& cell : cells) deepest = std::max(deepest, cell.level);
  EXPECT_EQ(deepest, kMostCellDepth) << "clamped";
  // The bounding cube by hand: a cell's box lies inside the one cube of side extent / 2^level its
  // middle falls in (to a float's rounding at the faces).
  glm::dvec3 low(1e300), high(-1e300);
  for (const glm::vec4& body : state.positionMass)
    low = glm::min(low, glm::dvec3(body)), high = glm::max(high, glm::dvec3(body));
  const double extent = std::max({high.x - low.x, high.y - low.y, high.z - low.z});
  for (const TreeCell& cell : cells) {
    const double side = extent / double(1 << cell.level), slack = extent * 1e-6;
    const glm::dvec3 middle = (glm::dvec3(cell.low) + glm::dvec3(cell.high)) / 2.0;
    const glm::dvec3 cubeLow = low + glm::floor((middle - low) / side) * side;
    for (int axis = 0; axis < 3; ++axis) {
      EXPECT_GE(double(cell.low[axis]), cubeLow[axis] - slack) << "level " << cell.level;
      EXPECT_LE(double(cell.high[axis]), cubeLow[axis] + side + slack) << "level " << cell.level;
    }
  }
}

TEST(TreeCells, BodiesAtOnePointMakeOneCellALevelAndNonFiniteOnesNone) {
  State state;
  state.positionMass.assign(5, glm::vec4(1.0f, 2.0f, 3.0f, 1.0f));
  state.positionMass.emplace_back(std::numeric_limits<float>::quiet_NaN(), 0.0f, 0.0f, 1.0f);
  state.velocity.assign(6, glm::vec4(0.0f));
  const std::vector<TreeCell> cells = treeCellsOf(state, 3);
  ASSERT_EQ(cells.size(), 3u);
  for (const TreeCell& cell : cells) {
    EXPECT_EQ(cell.bodies, 5u);
    EXPECT_EQ(cell.low, glm::vec3(1.0f, 2.0f, 3.0f));
    EXPECT_EQ(cell.high, cell.low);
  }
}

}  // namespace
}  // namespace nbody
