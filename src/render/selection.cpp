#include "render/selection.h"

#include <algorithm>
#include <unordered_map>

namespace nbody {
namespace {

SelectedBody bodyOf(const State& state, std::size_t index) {
  SelectedBody body;
  body.id = bodyId(state, index);
  body.index = index;
  body.component = componentOf(state, index);
  body.position = glm::vec3(state.positionMass[index]);
  body.velocity = glm::vec3(state.velocity[index]);
  body.orbit.push_back(body.position);
  return body;
}

}  // namespace

void Selection::pick(const State& state, const std::vector<std::size_t>& indices, bool add) {
  if (!add) bodies_.clear();
  for (std::size_t index : indices) {
    if (bodies_.size() >= kMostBodies) break;
    if (index >= state.size()) continue;
    const std::uint64_t id = bodyId(state, index);
    if (std::none_of(bodies_.begin(), bodies_.end(),
                     [&](const SelectedBody& b) { return b.id == id; }))
      bodies_.push_back(bodyOf(state, index));
  }
}

void Selection::pickIds(const State& state, const std::vector<std::uint64_t>& ids) {
  bodies_.clear();
  for (std::uint64_t id : ids) {
    if (bodies_.size() >= kMostBodies) break;
    if (std::none_of(bodies_.begin(), bodies_.end(),
                     [&](const SelectedBody& b) { return b.id == id; })) {
      SelectedBody body;
      body.id = id;
      bodies_.push_back(body);
    }
  }
  findIn(state);
  forgetOrbits();
}

std::vector<std::size_t> Selection::indices() const {
  std::vector<std::size_t> found;
  for (const SelectedBody& body : bodies_)
    if (body.found) found.push_back(body.index);
  return found;
}

void Selection::findIn(const State& state) {
  if (bodies_.empty()) return;
  std::unordered_map<std::uint64_t, std::size_t> wanted;
  for (const SelectedBody& body : bodies_) wanted.emplace(body.id, 0);
  std::size_t matched = 0;
  std::unordered_map<std::uint64_t, std::size_t> at;
  for (std::size_t i = 0; i < state.size() && matched < wanted.size(); ++i)
    if (wanted.count(bodyId(state, i)) && at.emplace(bodyId(state, i), i).second) ++matched;
  for (SelectedBody& body : bodies_) {
    const auto found = at.find(body.id);
    body.found = found != at.end();
    if (!body.found) continue;
    body.index = found->second;
    body.component = componentOf(state, body.index);
    body.position = glm::vec3(state.positionMass[body.index]);
    body.velocity = glm::vec3(state.velocity[body.index]);
  }
}

void Selection::follow(const std::vector<BodyNow>& now) {
  std::size_t k = 0;
  for (SelectedBody& body : bodies_) {
    if (!body.found) continue;
    if (k >= now.size()) break;
    body.position = glm::vec3(now[k].positionMass);
    body.velocity = glm::vec3(now[k].velocity);
    ++k;
    if (!body.orbit.empty() && body.orbit.back() == body.position) continue;
    if (body.orbit.size() >= kMostOrbitPoints) body.orbit.erase(body.orbit.begin());
    body.orbit.push_back(body.position);
  }
}

void Selection::forgetOrbits() {
  for (SelectedBody& body : bodies_) body.orbit.assign(1, body.position);
}

std::vector<std::uint64_t> Selection::missing() const {
  std::vector<std::uint64_t> ids;
  for (const SelectedBody& body : bodies_)
    if (!body.found) ids.push_back(body.id);
  return ids;
}

std::vector<MarkedBody> Selection::marked() const {
  std::vector<MarkedBody> marked;
  for (const SelectedBody& body : bodies_)
    if (body.found) marked.push_back({body.position, &body.orbit});
  return marked;
}

std::optional<glm::vec3> Selection::centre() const {
  glm::vec3 sum(0.0f);
  int found = 0;
  for (const SelectedBody& body : bodies_)
    if (body.found) sum += body.position, ++found;
  if (found == 0) return std::nullopt;
  return sum / float(found);
}

}  // namespace nbody
