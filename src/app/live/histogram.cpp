#include "app/live/histogram.h"

#include <algorithm>
#include <cmath>

#include "util/percentile.h"

namespace nbody {
namespace {

// A percentile of a copy of the values; 0 for none.
double valueAt(std::vector<float> values, int permille) {
  return values.empty() ? 0.0 : valueAtPermille(values, permille);
}

// Where the bins start and end for these values.
void fitRange(Histogram& histogram, const std::vector<float>& values) {
  if (histogram.quantity == ColorBy::AngularMomentum) {
    std::vector<float> magnitudes(values.size());
    std::transform(values.begin(), values.end(), magnitudes.begin(),
                   [](float v) { return std::abs(v); });
    const double extent = valueAt(magnitudes, 995);
    histogram.low = -extent, histogram.high = extent;
  } else if (histogram.logScale) {
    std::vector<float> positive;
    std::copy_if(values.begin(), values.end(), std::back_inserter(positive),
                 [](float v) { return v > 0.0f; });
    histogram.low = valueAt(positive, 5), histogram.high = valueAt(positive, 995);
  } else {
    histogram.low = values.empty() ? 0.0 : *std::min_element(values.begin(), values.end());
    histogram.high = valueAt(values, 995);
  }
  if (!(histogram.high > histogram.low))  // all alike (equal masses): a range as wide as the value
    histogram.high = histogram.logScale
                         ? histogram.low * 10.0
                         : histogram.low + (histogram.low != 0.0 ? std::abs(histogram.low) : 1.0);
}

}  // namespace

Histogram histogramOf(const State& state, ColorBy quantity, bool logScale, int bins, long long step,
                      std::span<const float> field) {
  Histogram histogram;
  histogram.quantity = quantity;
  histogram.logScale = logScale && !isSignedQuantity(quantity) && quantity != ColorBy::Component;
  histogram.step = step;
  if (quantity == ColorBy::Component) {
    histogram.low = 0.0, histogram.high = kComponentCount;
    histogram.counts.assign(kComponentCount, 0.0f);
    for (std::size_t i = 0; i < state.size(); ++i) histogram.counts[componentOf(state, i)] += 1.0f;
    return histogram;
  }
  const ColourCentre centre =
      measuredFromCentre(quantity) ? colourCentreOf(state, 0.0) : ColourCentre{};
  std::vector<float> values(state.size());
  for (std::size_t i = 0; i < state.size(); ++i)
    values[i] = colourQuantity(state, i, quantity, centre, field);
  std::vector<float>
      finite;  // what the range is fitted to: a density of bodies at one point is beyond it
  std::copy_if(values.begin(), values.end(), std::back_inserter(finite),
               [](float v) { return std::isfinite(v); });
  fitRange(histogram, finite);
  histogram.counts.assign(std::size_t(std::max(1, bins)), 0.0f);
  const auto position = [&](double value) {  // 0 at low, 1 at high
    return histogram.logScale
               ? std::log(value / histogram.low) / std::log(histogram.high / histogram.low)
               : (value - histogram.low) / (histogram.high - histogram.low);
  };
  for (float value : values) {
    const double at = (histogram.logScale && !(value > 0.0f)) ? -1.0 : position(value);
    if (!(at >= 0.0 && at <= 1.0)) {
      ++histogram.beyond;
      continue;
    }
    const std::size_t bin =
        std::min(histogram.counts.size() - 1, std::size_t(at * double(histogram.counts.size())));
    histogram.counts[bin] += 1.0f;
  }
  return histogram;
}

}  // namespace nbody
