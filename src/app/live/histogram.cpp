#include "app/live/histogram.h"

#include <algorithm>
#include <cmath>

#include "parallel/order_statistics.h"

namespace nbody {
namespace {

// A percentile of the values every rank holds; 0 for none.
double valueAt(std::span<const float> values, int permille, const Ranks& ranks) {
  return valueAtPermilleOfParts(values, permille, ranks).value_or(0.0f);
}

// Where the bins start and end for these values (every rank's).
void fitRange(Histogram& histogram, const std::vector<float>& values, const Ranks& ranks) {
  if (histogram.quantity == ColorBy::AngularMomentum) {
    std::vector<float> magnitudes(values.size());
    std::transform(values.begin(), values.end(), magnitudes.begin(),
                   [](float v) { return std::abs(v); });
    const double extent = valueAt(magnitudes, 995, ranks);
    histogram.low = -extent, histogram.high = extent;
  } else if (histogram.logScale) {
    std::vector<float> positive;
    std::copy_if(values.begin(), values.end(), std::back_inserter(positive),
                 [](float v) { return v > 0.0f; });
    histogram.low = valueAt(positive, 5, ranks), histogram.high = valueAt(positive, 995, ranks);
  } else {
    histogram.low = valueAt(values, 0, ranks);  // the smallest
    histogram.high = valueAt(values, 995, ranks);
  }
  if (!(histogram.high > histogram.low))  // all alike (equal masses): a range as wide as the value
    histogram.high = histogram.logScale
                         ? histogram.low * 10.0
                         : histogram.low + (histogram.low != 0.0 ? std::abs(histogram.low) : 1.0);
}

// The bins' counts and those beyond (last), added across the ranks as integers.
void takeCounts(Histogram& histogram, std::vector<std::int64_t> counts, const Ranks& ranks) {
  ranks.sum(counts);
  histogram.beyond = std::size_t(counts.back());
  counts.pop_back();
  histogram.counts.assign(counts.begin(), counts.end());
}

}  // namespace

Histogram histogramOf(const State& state, ColorBy quantity, bool logScale, int bins, long long step,
                      std::span<const float> field, const Ranks& ranks) {
  Histogram histogram;
  histogram.quantity = quantity;
  histogram.logScale = logScale && !isSignedQuantity(quantity) && quantity != ColorBy::Component;
  histogram.step = step;
  if (quantity == ColorBy::Component) {
    histogram.low = 0.0, histogram.high = kComponentCount;
    std::vector<std::int64_t> counts(kComponentCount + 1, 0);  // none beyond
    for (std::size_t i = 0; i < state.size(); ++i) ++counts[componentOf(state, i)];
    takeCounts(histogram, std::move(counts), ranks);
    return histogram;
  }
  const ColourCentre centre =
      measuredFromCentre(quantity) ? colourCentreOf(state, 0.0, ranks) : ColourCentre{};
  std::vector<float> values(state.size());
  for (std::size_t i = 0; i < state.size(); ++i)
    values[i] = colourQuantity(state, i, quantity, centre, field);
  std::vector<float>
      finite;  // what the range is fitted to: a density of bodies at one point is beyond it
  std::copy_if(values.begin(), values.end(), std::back_inserter(finite),
               [](float v) { return std::isfinite(v); });
  fitRange(histogram, finite, ranks);
  const std::size_t binCount = std::size_t(std::max(1, bins));
  std::vector<std::int64_t> counts(binCount + 1, 0);  // the bins, then those beyond
  const auto position = [&](double value) {           // 0 at low, 1 at high
    return histogram.logScale
               ? std::log(value / histogram.low) / std::log(histogram.high / histogram.low)
               : (value - histogram.low) / (histogram.high - histogram.low);
  };
  for (float value : values) {
    const double at = (histogram.logScale && !(value > 0.0f)) ? -1.0 : position(value);
    if (!(at >= 0.0 && at <= 1.0)) {
      ++counts.back();
      continue;
    }
    ++counts[std::min(binCount - 1, std::size_t(at * double(binCount)))];
  }
  takeCounts(histogram, std::move(counts), ranks);
  return histogram;
}

}  // namespace nbody
