#include "engines/engine.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "parallel/ranks.h"
#include "util/number_text.h"

namespace nbody {

std::pair<std::string, std::string> parseEngineSetting(const std::string& text) {
  const auto equals = text.find('=');
  if (equals == std::string::npos) throw UsageError("expected NAME=VALUE, got " + text);
  return {text.substr(0, equals), text.substr(equals + 1)};
}

void Engine::setOption(const std::string& name, const std::string&) {
  std::string known;
  for (const EngineOption& option : options()) known += (known.empty() ? "" : ", ") + option.name;
  throw UsageError("the " + this->name() + " engine has no option " + name +
                   (known.empty() ? "" : " (it has " + known + ")"));
}

std::vector<glm::dvec3> Engine::currentAccelerationsOf(const StepParams& params,
                                                       std::span<const std::uint32_t> ids) {
  const std::vector<glm::dvec3> all = currentAccelerations(params);
  std::vector<glm::dvec3> picked;
  for (const std::uint32_t id : ids) picked.push_back(all.at(id));
  return picked;
}

namespace {

// Rows [first, first + count) of `whole` as a part.
StatePart rowsOf(const State& whole, std::size_t first, std::size_t count) {
  StatePart part;
  State& rows = part.rows;
  rows.positionMass.assign(whole.positionMass.begin() + std::ptrdiff_t(first),
                           whole.positionMass.begin() + std::ptrdiff_t(first + count));
  rows.velocity.assign(whole.velocity.begin() + std::ptrdiff_t(first),
                       whole.velocity.begin() + std::ptrdiff_t(first + count));
  for (std::size_t i = first; i < first + count; ++i) {
    rows.id.push_back(bodyId(whole, i));
    rows.component.push_back(componentOf(whole, i));
    part.indices.push_back(i);
  }
  return part;
}

}  // namespace

namespace {

// What is wrong with this rank's part alone; "" where nothing is.
std::string partProblem(const StatePart& part, std::size_t total) {
  const State& rows = part.rows;
  const std::size_t n = rows.size();
  const auto sized = [n](std::size_t size, bool mayBeEmpty) {
    return size == n || (mayBeEmpty && size == 0);
  };
  if (!sized(rows.velocity.size(), false) || !sized(part.indices.size(), false) ||
      !sized(rows.id.size(), true) || !sized(rows.component.size(), true))
    return "a part of " + std::to_string(n) + " bodies whose lists are of other lengths";
  for (std::size_t k = 0; k < n; ++k)
    if (part.indices[k] >= total || (k > 0 && part.indices[k] <= part.indices[k - 1]))
      return "a part whose indices do not ascend below " + std::to_string(total) + ": " +
             std::to_string(part.indices[k]) + " at " + std::to_string(k);
  return "";
}

}  // namespace

void checkPartsOfState(const StatePart& part, std::size_t total) {
  const std::string problem = partProblem(part, total);
  std::int64_t counts[2] = {std::int64_t(part.rows.size()), problem.empty() ? 0 : 1};
  ranks().sum(counts);
  if (!problem.empty()) throw std::logic_error(problem);
  if (counts[1] > 0) throw std::logic_error("another rank's part of the state is not one");
  if (counts[0] != std::int64_t(total))
    throw std::logic_error("the parts hold " + std::to_string(counts[0]) + " bodies, not " +
                           std::to_string(total));
}

std::uint64_t bodyIdInPart(const StatePart& part, std::size_t k) {
  return part.rows.id.empty() ? part.indices[k] + 1 : part.rows.id[k];
}

namespace {

// A body of a part as every rank gathers it (Engine::uploadPart): no padding between its fields.
struct PartBody {
  std::uint64_t index, id;
  glm::vec4 positionMass, velocity;
  std::uint64_t component;
};

}  // namespace

State wholeOfParts(const StatePart& part, std::size_t total) {
  std::vector<PartBody> own;
  own.reserve(part.rows.size());
  for (std::size_t k = 0; k < part.rows.size(); ++k)
    own.push_back({part.indices[k], bodyIdInPart(part, k), part.rows.positionMass[k],
                   part.rows.velocity[k], componentOf(part.rows, k)});
  const std::vector<PartBody> all = gatherOnEveryRank(ranks(), std::span<const PartBody>(own));
  State whole;
  whole.resize(total);
  std::vector<bool> seen(total);
  for (const PartBody& body : all) {
    const std::size_t at = std::size_t(std::min<std::uint64_t>(body.index, total));
    if (at == total || seen[at])
      throw std::logic_error("the parts hold body " + std::to_string(body.index) +
                             (at == total ? ", past the state" : " twice"));
    seen[at] = true;
    whole.positionMass[at] = body.positionMass;
    whole.velocity[at] = body.velocity;
    whole.id[at] = body.id;
    whole.component[at] = std::uint8_t(body.component);
  }
  return whole;
}

void Engine::uploadPart(const StatePart& part, std::size_t total) {
  checkPartsOfState(part, total);
  upload(wholeOfParts(part, total));
}

StatePart Engine::downloadPart() {
  const State whole = download();
  const std::size_t ranks = std::size_t(nbody::ranks().count()),
                    rank = std::size_t(nbody::ranks().rank());
  const std::size_t first = whole.size() * rank / ranks, last = whole.size() * (rank + 1) / ranks;
  StatePart part = rowsOf(whole, first, last - first);
  if (const std::optional<DoubleState> doubles = doublesBeyond(whole)) {
    const auto slice = [first, last](const auto& values) {
      return std::vector(values.begin() + std::ptrdiff_t(first),
                         values.begin() + std::ptrdiff_t(last));
    };
    part.doubles =
        DoubleState{slice(doubles->mass), slice(doubles->position), slice(doubles->velocity)};
  }
  return part;
}

EngineSettings Engine::settings() const {
  EngineSettings current;
  for (const EngineOption& option : options()) current[option.name] = option.value;
  return current;
}

std::string Engine::variant() const {
  std::string text;
  for (const EngineOption& option : options())
    text += (text.empty() ? "" : " ") + option.name + "=" + option.value;
  return text.empty() ? "-" : text;
}

namespace {

// What the one reader of numbers (decimal, no blanks), as every number typed is read, says of
// `value` for an option of numbers: "" for a finite number within its range.
std::string numberProblem(const EngineOption& option, const std::string& value) {
  double number = 0.0;
  return readNumber(value, within(option.range->low, option.range->high), number);
}

}  // namespace

void chooseOption(EngineOption& option, const std::string& value) {
  const bool listed =
      std::find(option.choices.begin(), option.choices.end(), value) != option.choices.end();
  const std::string problem = option.range && !listed ? numberProblem(option, value) : "";
  if (listed || (option.range && problem.empty())) {
    option.value = value;
    return;
  }
  // A number the reader refuses for what it is (1e-400 would be 0 in a double): its own words.
  if (option.range && !problem.ends_with("is not a number"))
    throw UsageError(std::string(option.name).append(" ").append(problem));
  std::string choices;
  for (const std::string& choice : option.choices)
    choices += (choices.empty() ? "" : ", ") + choice;
  if (option.range)
    choices += " or a number from " + formatNumber(option.range->low) + " to " +
               formatNumber(option.range->high);
  throw UsageError(option.name + " " + value + " is not one of " + choices);
}

std::string formatNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

// The value chooseOption took, read again by the reader that checked it (std::stod refused the
// subnormal doubles it let through: theta=1e-320 said only "stod").
double numberChoice(const EngineOption& option) {
  double value = 0.0;
  if (const std::string problem = readNumber(option.value, NumberBounds{}, value); !problem.empty())
    throw UsageError(
        std::string(option.name).append(" ").append(problem));  // GCC 12: -Wrestrict on +
  return value;
}

void applySettings(Engine& engine, const EngineSettings& settings) {
  for (const auto& [name, value] : settings) engine.setOption(name, value);
}

int integerChoice(const EngineOption& option) {
  int value = 0;
  if (const std::string problem = readInteger(option.value, INT_MIN, INT_MAX, value);
      !problem.empty())
    throw UsageError(
        std::string(option.name).append(" ").append(problem));  // GCC 12: -Wrestrict on +
  return value;
}

std::optional<int> integerOrAuto(const EngineOption& option) {
  if (option.value == "auto") return std::nullopt;
  return integerChoice(option);
}

}  // namespace nbody
