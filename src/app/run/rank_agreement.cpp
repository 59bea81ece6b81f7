#include "app/run/rank_agreement.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "engines/engine.h"
#include "parallel/ranks.h"

namespace nbody {
namespace {

// What one rank's work ended with: "" when it ran through, else its kind ('u' a usage error, 'r'
// any other) and message.
std::string outcomeOf(const std::function<void()>& work) {
  try {
    work();
    return "";
  } catch (const UsageError& e) {
    return std::string("u") + e.what();
  } catch (const std::exception& e) {
    return std::string("r") + e.what();
  }
}

[[noreturn]] void fail(const std::string& outcome, const std::string& message) {
  if (outcome[0] == 'u') throw UsageError(message);
  throw std::runtime_error(message);
}

}  // namespace

void onEveryRankAlike(const std::function<void()>& work) {
  const Ranks& ranks = nbody::ranks();
  if (!ranks.distributed()) return work();
  const std::vector<std::string> outcomes = ranks.gatherText(outcomeOf(work));
  const std::vector<std::string> hosts = ranks.gatherText(ranks.host());
  std::size_t failed = 0, first = outcomes.size();
  for (std::size_t r = 0; r < outcomes.size(); ++r) {
    if (outcomes[r].empty()) continue;
    ++failed;
    if (first == outcomes.size()) first = r;
  }
  if (failed == 0) return;
  const bool alike = failed == outcomes.size() && std::all_of(outcomes.begin(), outcomes.end(),
                                                              [&](const std::string& o) { return o == outcomes[0]; });
  const std::string message = outcomes[first].substr(1);
  if (alike) fail(outcomes[first], message);
  fail(outcomes[first], "rank " + std::to_string(first) + " of " + std::to_string(ranks.count()) + " (" +
                            hosts[first] + "): " + message);
}

namespace {
std::string& deviceOfThisRank() {
  static std::string device;
  return device;
}
}  // namespace

const std::string& rankDevice() { return deviceOfThisRank(); }
void setRankDevice(const std::string& device) { deviceOfThisRank() = device; }

void reportRanksOnce(const std::string& device, const std::string& renderer) {
  static bool reported = false;
  const Ranks& ranks = nbody::ranks();
  if (reported || !ranks.distributed()) return;
  reported = true;
  const std::vector<std::string> hosts = ranks.gatherText(ranks.host());
  const std::vector<std::string> devices = ranks.gatherText(device);
  const std::vector<std::string> renderers = ranks.gatherText(renderer);
  if (!ranks.leader()) return;
  for (std::size_t r = 0; r < hosts.size(); ++r)
    std::fprintf(stderr, "nbody: rank %zu of %zu on %s: %s%s%s\n", r, hosts.size(), hosts[r].c_str(),
                 devices[r].c_str(), devices[r].empty() ? "" : ", ", renderers[r].c_str());
  for (const std::string& other : renderers)
    if (other != renderers[0]) {
      std::fprintf(stderr,
                   "nbody: the ranks' renderers differ: the run goes on, but gives the bits of one GPU only on GPUs "
                   "of one model and driver\n");
      break;
    }
}

}  // namespace nbody
