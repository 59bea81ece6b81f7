#include "render/tree_cells.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <glm/common.hpp>

namespace nbody {
namespace {

constexpr float kGridCells = 2097152.0f;  // 2^21 a side, as tree_keys.comp

bool finite(glm::vec3 p) { return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z); }

// The cell boxes of one level, 8^level of them, indexed x * 4^level + y * 2^level + z.
struct Level {
  std::vector<glm::vec3> low, high;
  std::vector<std::size_t> bodies;
  explicit Level(std::size_t cells)
      : low(cells, glm::vec3(std::numeric_limits<float>::max())),
        high(cells, glm::vec3(std::numeric_limits<float>::lowest())),
        bodies(cells, 0) {}
  void add(std::size_t cell, glm::vec3 lowCorner, glm::vec3 highCorner, std::size_t count) {
    low[cell] = glm::min(low[cell], lowCorner);
    high[cell] = glm::max(high[cell], highCorner);
    bodies[cell] += count;
  }
};

std::size_t cellIndex(glm::uvec3 cell, int level) {
  return (std::size_t(cell.x) << (2 * level)) | (std::size_t(cell.y) << level) | cell.z;
}

// The deepest level from the bodies, on the keys' grid (the same float arithmetic as the shader).
Level deepestLevel(const State& state, int depth) {
  glm::vec3 low(std::numeric_limits<float>::max()), high(std::numeric_limits<float>::lowest());
  for (const glm::vec4& body : state.positionMass)
    if (finite(glm::vec3(body)))
      low = glm::min(low, glm::vec3(body)), high = glm::max(high, glm::vec3(body));
  const glm::vec3 size = high - low;
  const float extent = std::max({size.x, size.y, size.z});
  const float inverseExtent = extent > 1e-30f && extent < 1e30f ? 1.0f / extent : 0.0f;
  Level level(std::size_t(1) << (3 * depth));
  for (const glm::vec4& body : state.positionMass) {
    const glm::vec3 p(body);
    if (!finite(p)) continue;
    const glm::vec3 grid =
        glm::clamp((p - low) * inverseExtent * kGridCells, 0.0f, kGridCells - 1.0f);
    const glm::uvec3 cell = glm::uvec3(grid) >> glm::uvec3(unsigned(21 - depth));
    level.add(cellIndex(cell, depth), p, p, 1);
  }
  return level;
}

// The level above: each cell the union of its eight children.
Level parentLevel(const Level& children, int childLevel) {
  Level parents(children.bodies.size() / 8);
  const std::size_t side = std::size_t(1) << childLevel;
  for (std::size_t x = 0; x < side; ++x)
    for (std::size_t y = 0; y < side; ++y)
      for (std::size_t z = 0; z < side; ++z) {
        const std::size_t child = cellIndex(glm::uvec3(x, y, z), childLevel);
        if (children.bodies[child] == 0) continue;
        parents.add(cellIndex(glm::uvec3(x / 2, y / 2, z / 2), childLevel - 1), children.low[child],
                    children.high[child], children.bodies[child]);
      }
  return parents;
}

void appendCells(std::vector<TreeCell>& cells, const Level& level, int number) {
  for (std::size_t k = 0; k < level.bodies.size(); ++k)
    if (level.bodies[k] > 0)
      cells.push_back({level.low[k], level.high[k], number, level.bodies[k]});
}

}  // namespace

std::vector<TreeCell> treeCellsOf(const State& state, int depth) {
  depth = std::clamp(depth, 1, kMostCellDepth);
  std::vector<Level> levels;
  levels.push_back(deepestLevel(state, depth));
  for (int level = depth; level > 1; --level) levels.push_back(parentLevel(levels.back(), level));
  std::vector<TreeCell> cells;
  for (int level = 1; level <= depth; ++level)
    appendCells(cells, levels[std::size_t(depth - level)], level);
  return cells;
}

}  // namespace nbody
