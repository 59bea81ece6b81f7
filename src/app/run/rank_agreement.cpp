#include "app/run/rank_agreement.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <stdexcept>
#include <vector>

#include "app/run/stop_signals.h"
#include "engines/engine.h"
#include "parallel/ranks.h"
#include "util/printable_text.h"

namespace nbody {
namespace {

// What one rank's work ended with: "" when it ran through, else its kind ('u' a usage error, 's' a
// stop, its signal's number and a space after it, 'r' any other) and message.
std::string outcomeOf(const std::function<void()>& work) {
  try {
    work();
    return "";
  } catch (const UsageError& e) {
    return std::string("u") + e.what();
  } catch (const Stopped& e) {  // a stop signal met inside the work (a read's stop points)
    const std::string prefix = std::string("stopped by ") + signalName(e.signal()) + " ";
    const std::string what = e.what();
    return "s" + std::to_string(e.signal()) + " " +
           (what.starts_with(prefix) ? what.substr(prefix.size()) : what);
  } catch (const std::exception& e) {
    return std::string("r") + e.what();
  }
}

// The message of `outcome` (after its kind, and a stop's signal).
std::string messageOf(const std::string& outcome) {
  return outcome.substr(outcome[0] == 's' ? outcome.find(' ') + 1 : 1);
}

[[noreturn]] void fail(const std::string& outcome, const std::string& message) {
  if (outcome[0] == 'u') throw UsageError(message);
  if (outcome[0] == 's') throw Stopped(std::stoi(outcome.substr(1)), message);
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
  const bool alike = failed == outcomes.size() &&
                     std::all_of(outcomes.begin(), outcomes.end(),
                                 [&](const std::string& o) { return o == outcomes[0]; });
  const std::string message = messageOf(outcomes[first]);
  if (alike || outcomes[first][0] == 's') fail(outcomes[first], message);  // a stop reaches all
  fail(outcomes[first], "rank " + std::to_string(first) + " of " + std::to_string(ranks.count()) +
                            " (" + hosts[first] + "): " + message);
}

void onLeaderForEveryRank(const std::function<void()>& work) {
  const Ranks& ranks = nbody::ranks();
  if (!ranks.distributed()) return work();
  const std::vector<std::string> outcomes = ranks.gatherText(ranks.leader() ? outcomeOf(work) : "");
  if (!outcomes[0].empty()) fail(outcomes[0], messageOf(outcomes[0]));
}

namespace {

// The words after the program's path, then the deciding variables ("NAME=value", or "NAME" where
// unset), each followed by a NUL.
std::vector<std::string> runDescription(int argc, const char* const* argv) {
  std::vector<std::string> parts(argv + std::min(argc, 1), argv + argc);
  for (const char* name : kRunDecidingVariables) {
    const char* value = std::getenv(name);
    parts.push_back(value == nullptr ? std::string(name) : std::string(name) + "=" + value);
  }
  return parts;
}

std::string joined(const std::vector<std::string>& parts) {
  std::string text;
  for (const std::string& part : parts) text.append(part).push_back('\0');
  return text;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  for (std::size_t start = 0, end; (end = text.find('\0', start)) != std::string::npos;
       start = end + 1)
    parts.push_back(text.substr(start, end - start));
  return parts;
}

std::string shown(const std::string& part) { return quoted(part, 60); }

// How `other` (rank r's) differs from `own` (rank 0's), the variables being the last parts of each.
std::string differenceOf(const std::vector<std::string>& own,
                         const std::vector<std::string>& other) {
  const std::size_t variables = std::size(kRunDecidingVariables);
  const std::size_t ownWords = own.size() - variables, otherWords = other.size() - variables;
  for (std::size_t k = 0; k < std::max(ownWords, otherWords); ++k) {
    const std::string theirs = k < otherWords ? shown(other[k]) : "nothing",
                      ours = k < ownWords ? shown(own[k]) : "nothing";
    if (theirs != ours)
      return "word " + std::to_string(k + 1) + " of its command line is " + theirs +
             " where rank 0's is " + ours;
  }
  for (std::size_t k = 0; k < variables; ++k) {
    const auto value = [](const std::string& part) {
      const auto equals = part.find('=');
      return equals == std::string::npos ? std::string("unset")
                                         : "set to " + shown(part.substr(equals + 1));
    };
    if (own[ownWords + k] != other[otherWords + k])
      return std::string(kRunDecidingVariables[k]) + " is " + value(other[otherWords + k]) +
             " there and " + value(own[ownWords + k]) + " on rank 0";
  }
  return {};
}

}  // namespace

std::string firstRankDifference(int argc, const char* const* argv) {
  const Ranks& ranks = nbody::ranks();
  if (!ranks.distributed()) return {};
  const std::vector<std::string> descriptions =
      ranks.gatherText(joined(runDescription(argc, argv)));
  const std::vector<std::string> hosts = ranks.gatherText(ranks.host());
  const std::vector<std::string> own = split(descriptions[0]);
  for (std::size_t r = 1; r < descriptions.size(); ++r) {
    if (descriptions[r] == descriptions[0]) continue;
    const std::string difference = differenceOf(own, split(descriptions[r]));
    return "the ranks do not run the same thing: on rank " + std::to_string(r) + " of " +
           std::to_string(ranks.count()) + " (" + hosts[r] + ") " + difference +
           " (every rank must be started with the same words and environment)";
  }
  return {};
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
    std::fprintf(stderr, "nbody: rank %zu of %zu on %s: %s%s%s\n", r, hosts.size(),
                 hosts[r].c_str(), devices[r].c_str(), devices[r].empty() ? "" : ", ",
                 renderers[r].c_str());
  for (const std::string& other : renderers)
    if (other != renderers[0]) {
      std::fprintf(stderr,
                   "nbody: the ranks' renderers differ: the run goes on, but gives the bits of one "
                   "GPU only on GPUs "
                   "of one model and driver\n");
      break;
    }
}

}  // namespace nbody
