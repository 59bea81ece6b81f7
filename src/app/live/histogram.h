#pragma once
// The window's histogram of a quantity of the bodies (those the colours use: speed, mass, radius,
// L_z, energy or density, measured as render_settings.h's colourQuantity measures them), from a
// state read back now and then. No GL: the tests hold it against a count of their own.

#include <cstddef>
#include <span>
#include <vector>

#include "parallel/ranks.h"
#include "physics/state.h"
#include "render/render_settings.h"

namespace nbody {

struct Histogram {
  ColorBy quantity = ColorBy::Radius;
  bool logScale = false;         // bins of equal width in log(quantity)
  double low = 0.0, high = 1.0;  // the first bin's low edge, the last one's high edge
  std::vector<float> counts;     // bodies in each bin
  std::size_t beyond = 0;        // bodies outside [low, high] (or at or below 0 on a log scale)
  long long step = -1;           // of the state counted; -1: none yet
};

// `bins` bins of `quantity` over its range in `state`: from its smallest value (the 0.5th
// percentile on a log scale, of those above 0) to its 99.5th percentile, so that a few escapers do
// not squeeze everybody else into one bin; L_z from minus to plus the 99.5th percentile of |L_z|.
// Component is no quantity: it counts the bodies of each component. `field`: the bodies' BodyField
// values, which energy and density need. `state` may be this rank's part of the bodies, `ranks`
// holding the rest (every rank calls it alike): the range and the counts are then every rank's
// (percentiles and counts found with integers: one process's histogram, bit for bit).
Histogram histogramOf(const State& state, ColorBy quantity, bool logScale, int bins, long long step,
                      std::span<const float> field = {}, const Ranks& ranks = processAlone());

}  // namespace nbody
