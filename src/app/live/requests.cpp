#include "app/live/requests.h"

#include <algorithm>

namespace nbody {

bool Requests::asked(Request kind) const {
  return std::any_of(entries_.begin(), entries_.end(),
                     [kind](const Entry& entry) { return entry.kind == kind; });
}

bool Requests::take(Request kind) { return takeValue(kind).has_value(); }

std::optional<std::int64_t> Requests::takeValue(Request kind) {
  std::optional<std::int64_t> latest;
  std::erase_if(entries_, [&](const Entry& entry) {
    if (entry.kind != kind) return false;
    latest = entry.value;
    return true;
  });
  return latest;
}

}  // namespace nbody
