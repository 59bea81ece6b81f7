#include "render/image_compare.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace nbody {
namespace {

void requireSameSize(const Image& expected, const Image& actual) {
  if (expected.width == actual.width && expected.height == actual.height) return;
  throw std::invalid_argument("the images differ in size: " + std::to_string(expected.width) +
                              " x " + std::to_string(expected.height) + " and " +
                              std::to_string(actual.width) + " x " + std::to_string(actual.height));
}

int pixelDelta(const std::uint8_t* a, const std::uint8_t* b) {
  int delta = 0;
  for (int c = 0; c < 4; ++c) delta = std::max(delta, std::abs(int(a[c]) - int(b[c])));
  return delta;
}

std::string formatted(const char* format, auto... values) {
  char line[256];
  std::snprintf(line, sizeof line, format, values...);
  return line;
}

}  // namespace

ImageDifference compareImages(const Image& expected, const Image& actual, int badDelta) {
  requireSameSize(expected, actual);
  ImageDifference difference;
  difference.pixels = std::size_t(expected.width) * std::size_t(expected.height);
  double deltaSum = 0.0;
  for (int y = 0; y < expected.height; ++y)
    for (int x = 0; x < expected.width; ++x) {
      const int delta = pixelDelta(expected.pixel(x, y), actual.pixel(x, y));
      deltaSum += delta;
      difference.badPixels += delta > badDelta;
      if (delta > difference.maxDelta) difference.maxDelta = delta, difference.worstPixel = {x, y};
    }
  difference.meanDelta = difference.pixels ? deltaSum / double(difference.pixels) : 0.0;
  return difference;
}

bool withinThresholds(const ImageDifference& difference, const CompareThresholds& thresholds) {
  return difference.badFraction() <= thresholds.maxBadFraction &&
         difference.meanDelta <= thresholds.meanDelta;
}

std::string describeDifference(const ImageDifference& d, const CompareThresholds& t) {
  return formatted("max delta %d at (%d, %d) (pixels above %d are bad)\n", d.maxDelta,
                   d.worstPixel.x, d.worstPixel.y, t.maxDelta) +
         formatted("mean delta %.4f (limit %.4f)%s\n", d.meanDelta, t.meanDelta,
                   d.meanDelta > t.meanDelta ? "  EXCEEDED" : "") +
         formatted("bad pixels %zu of %zu = %.4f%% (limit %.4f%%)%s\n", d.badPixels, d.pixels,
                   100.0 * d.badFraction(), 100.0 * t.maxBadFraction,
                   d.badFraction() > t.maxBadFraction ? "  EXCEEDED" : "");
}

Image differenceImage(const Image& expected, const Image& actual, int maxDelta) {
  requireSameSize(expected, actual);
  Image diff(expected.width, expected.height);
  for (int y = 0; y < expected.height; ++y)
    for (int x = 0; x < expected.width; ++x) {
      const std::uint8_t* a = expected.pixel(x, y);
      const int delta = pixelDelta(a, actual.pixel(x, y));
      std::uint8_t* out = diff.pixel(x, y);
      const auto grey =
          std::uint8_t((int(a[0]) + int(a[1]) + int(a[2])) / 12);  // a quarter of the mean
      const auto yellow = std::uint8_t(std::min(255, 96 + 16 * delta));
      if (delta == 0)
        out[0] = out[1] = out[2] = grey;
      else if (delta <= maxDelta)
        out[0] = yellow, out[1] = yellow, out[2] = 0;
      else
        out[0] = 255, out[1] = 0, out[2] = 0;
      out[3] = 255;
    }
  return diff;
}

}  // namespace nbody
