#pragma once
// Compares two pictures of the same size, for `nbody compare` and the golden-image tests.
//
// The delta of a pixel is the largest difference of its R, G, B or A values (0..255). The maximum
// and the mean are taken over every pixel; a pixel is "bad" when its delta exceeds maxDelta. The
// pictures match when the bad pixels are at most maxBadFraction of all pixels and the mean delta is
// at most meanDelta. With the defaults every pixel must be equal.

#include <cstddef>
#include <string>

#include <glm/vec2.hpp>

#include "io/image.h"

namespace nbody {

struct CompareThresholds {
  int maxDelta = 0;             // a pixel whose delta exceeds this is bad
  double meanDelta = 255.0;     // largest mean delta allowed (255: no limit)
  double maxBadFraction = 0.0;  // largest fraction of bad pixels allowed, 0..1
};

struct ImageDifference {
  int maxDelta = 0;
  glm::ivec2 worstPixel{0, 0};  // where the first pixel with maxDelta is (x, y from the top left)
  double meanDelta = 0.0;
  std::size_t badPixels = 0, pixels = 0;
  double badFraction() const { return pixels ? double(badPixels) / double(pixels) : 0.0; }
};

// Throws std::invalid_argument when the sizes differ.
ImageDifference compareImages(const Image& expected, const Image& actual, int badDelta);
bool withinThresholds(const ImageDifference& difference, const CompareThresholds& thresholds);
// What differs, in a few lines, with each figure next to its limit.
std::string describeDifference(const ImageDifference& difference,
                               const CompareThresholds& thresholds);

// A picture of where the two differ: the expected picture dimmed to grey for orientation, pixels
// whose delta is within maxDelta in yellow (brighter for larger deltas), bad pixels in bright red.
Image differenceImage(const Image& expected, const Image& actual, int maxDelta);

}  // namespace nbody
