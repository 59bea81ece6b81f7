#include "physics/collisions.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <optional>

#include <glm/geometric.hpp>

namespace nbody {

double CollisionSettings::radiusOf(std::size_t body, double mass) const {
  if (radius > 0.0) return radius;
  if (density > 0.0) return std::cbrt(3.0 * mass / (4.0 * std::numbers::pi * density));
  return body < radii.size() ? radii[body] : 0.0;
}

ContactScreenPass CollisionSettings::screenedBodies() const {
  ContactScreenPass bodies;
  bodies.radius = radius;
  if (density > 0.0) bodies.volume = 3.0 / (4.0 * std::numbers::pi * density);
  if (!sizedByOptions() && !radii.empty())
    bodies.radius = *std::max_element(radii.begin(), radii.end());
  return bodies;
}

namespace {

// A body's extent along x, for the sweep, and its radius.
struct Extent {
  double low, high, radius;
  std::size_t body;
};

bool touching(const DoubleBodies& bodies, std::size_t i, std::size_t j, double reach) {
  const glm::dvec3 d = bodies.position[j] - bodies.position[i];
  if (glm::dot(d, d) > reach * reach) return false;
  return glm::dot(bodies.velocity[j] - bodies.velocity[i], d) < 0.0;
}

std::vector<Extent> extentsAlongX(const DoubleBodies& bodies, const CollisionSettings& settings) {
  std::vector<Extent> extents;
  for (std::size_t i = 0; i < bodies.mass.size(); ++i) {
    const glm::dvec3& x = bodies.position[i];
    if (!(bodies.mass[i] > 0.0) || !std::isfinite(x.x + x.y + x.z)) continue;
    const double r = settings.radiusOf(i, bodies.mass[i]);
    extents.push_back({x.x - r, x.x + r, r, i});
  }
  std::sort(extents.begin(), extents.end(), [](const Extent& a, const Extent& b) {
    return a.low != b.low ? a.low < b.low : a.body < b.body;
  });
  return extents;
}

// Sweep and prune along x: visit(i, j), i < j, for every pair that touches; only bodies whose
// extents along x overlap are tested. Nothing is kept, so that radii that make every body touch
// every other cost time, not memory.
template <typename Visit>
void sweepContacts(const DoubleBodies& bodies, const CollisionSettings& settings, Visit visit) {
  const std::vector<Extent> extents = extentsAlongX(bodies, settings);
  for (std::size_t a = 0; a < extents.size(); ++a) {
    const std::size_t i = extents[a].body;
    for (std::size_t b = a + 1; b < extents.size() && extents[b].low <= extents[a].high; ++b) {
      const std::size_t j = extents[b].body;
      if (touching(bodies, i, j, extents[a].radius + extents[b].radius))
        visit(std::min(i, j), std::max(i, j));
    }
  }
}

}  // namespace

std::vector<Contact> findContacts(const DoubleBodies& bodies, const CollisionSettings& settings) {
  std::vector<Contact> contacts;
  sweepContacts(bodies, settings,
                [&](std::size_t i, std::size_t j) { contacts.emplace_back(i, j); });
  std::sort(contacts.begin(), contacts.end());
  return contacts;
}

std::optional<Contact> firstContact(const DoubleBodies& bodies, const CollisionSettings& settings) {
  std::optional<Contact> first;
  sweepContacts(bodies, settings, [&](std::size_t i, std::size_t j) {
    if (!first || Contact(i, j) < *first) first = Contact(i, j);
  });
  return first;
}

namespace {

// Union-find whose root is the member of smallest ID: the groups and their roots do not depend on
// the order the contacts come in.
class Groups {
 public:
  explicit Groups(const std::vector<std::uint64_t>& id) : id_(id), parent_(id.size()) {
    std::iota(parent_.begin(), parent_.end(), std::size_t{0});
  }
  std::size_t root(std::size_t body) {
    while (parent_[body] != body) body = parent_[body] = parent_[parent_[body]];
    return body;
  }
  void join(std::size_t a, std::size_t b) {
    a = root(a);
    b = root(b);
    if (a == b) return;
    if (id_[b] < id_[a]) std::swap(a, b);
    parent_[b] = a;
  }

 private:
  const std::vector<std::uint64_t>& id_;
  std::vector<std::size_t> parent_;
};

// The members of each group of more than one body, each in ascending ID, the groups in ascending
// order of their smallest ID. `touched`: the bodies in some contact.
std::vector<std::vector<std::size_t>> membersOf(Groups& groups, std::vector<std::size_t> touched,
                                                const std::vector<std::uint64_t>& id) {
  const auto byId = [&](std::size_t a, std::size_t b) {  // the index breaks ties of a repeated ID
    return id[a] != id[b] ? id[a] < id[b] : a < b;
  };
  std::sort(touched.begin(), touched.end(), byId);
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  std::vector<std::vector<std::size_t>> members;
  std::vector<std::size_t> slotOfRoot(id.size(), id.size());
  for (const std::size_t body : touched) {
    const std::size_t root = groups.root(body);
    if (slotOfRoot[root] == id.size()) {
      slotOfRoot[root] = members.size();
      members.emplace_back();
    }
    members[slotOfRoot[root]].push_back(body);
  }
  return members;
}

// The members' kinetic energy about their centre of mass and their mutual potential energy.
double internalEnergy(const MutableBodies& bodies, const std::vector<std::size_t>& members,
                      glm::dvec3 velocity, double gravity, double softening) {
  double energy = 0.0;
  for (std::size_t a = 0; a < members.size(); ++a) {
    const std::size_t i = members[a];
    const glm::dvec3 relative = bodies.velocity[i] - velocity;
    energy += 0.5 * bodies.mass[i] * glm::dot(relative, relative);
    for (std::size_t b = a + 1; b < members.size(); ++b) {
      const std::size_t j = members[b];
      const glm::dvec3 d = bodies.position[j] - bodies.position[i];
      energy -= gravity * bodies.mass[i] * bodies.mass[j] /
                std::sqrt(glm::dot(d, d) + softening * softening);
    }
  }
  return energy;
}

// The heaviest member; of equally heavy ones the first (members are in ascending ID).
std::size_t heaviest(const MutableBodies& bodies, const std::vector<std::size_t>& members) {
  std::size_t best = members.front();
  for (const std::size_t i : members)
    if (bodies.mass[i] > bodies.mass[best]) best = i;
  return best;
}

Merger merge(MutableBodies bodies, const std::vector<std::size_t>& members, double gravity,
             double softening) {
  Merger merger;
  glm::dvec3 momentum(0.0), moment(0.0);
  for (const std::size_t i : members) {
    merger.ids.push_back(bodies.id[i]);
    merger.masses.push_back(bodies.mass[i]);
    merger.mass += bodies.mass[i];
    momentum += bodies.mass[i] * bodies.velocity[i];
    moment += bodies.mass[i] * bodies.position[i];
  }
  merger.position = moment / merger.mass;
  merger.velocity = momentum / merger.mass;
  merger.energyChange = -internalEnergy(bodies, members, merger.velocity, gravity, softening);
  const std::size_t survivor = heaviest(bodies, members);
  merger.survivor = bodies.id[survivor];
  double cubes = 0.0;  // the members' radii cubed and summed in ascending ID, where they have radii
  if (bodies.radii)
    for (const std::size_t i : members) {
      const double r = (*bodies.radii)[i];
      cubes += r * r * r;
    }
  for (const std::size_t i : members) {
    bodies.mass[i] = i == survivor ? merger.mass : 0.0;
    bodies.position[i] = merger.position;
    bodies.velocity[i] = merger.velocity;
    if (bodies.radii) (*bodies.radii)[i] = i == survivor ? std::cbrt(cubes) : 0.0;
  }
  return merger;
}

std::vector<Merger> mergeGroups(MutableBodies bodies, Groups& groups,
                                const std::vector<std::size_t>& touched, double gravity,
                                double softening) {
  std::vector<Merger> mergers;
  for (const auto& members : membersOf(groups, touched, bodies.id))
    mergers.push_back(merge(bodies, members, gravity, softening));
  return mergers;
}

}  // namespace

std::vector<Merger> mergeContacts(MutableBodies bodies, const std::vector<Contact>& contacts,
                                  double gravity, double softening) {
  Groups groups(bodies.id);
  std::vector<std::size_t> touched;
  for (const auto& [a, b] : contacts) {
    groups.join(a, b);
    touched.insert(touched.end(), {a, b});
  }
  return mergeGroups(bodies, groups, touched, gravity, softening);
}

std::vector<Merger> mergeTouching(MutableBodies bodies, const CollisionSettings& settings,
                                  double gravity, double softening) {
  Groups groups(bodies.id);
  std::vector<std::size_t> touched;
  sweepContacts(DoubleBodies{bodies.mass, bodies.position, bodies.velocity}, settings,
                [&](std::size_t a, std::size_t b) {
                  if (groups.root(a) == groups.root(b)) return;
                  groups.join(a, b);
                  touched.insert(touched.end(), {a, b});
                });
  return mergeGroups(bodies, groups, touched, gravity, softening);
}

std::string contactText(const Contact& contact, const std::vector<std::uint64_t>& id) {
  return "bodies " + std::to_string(id[contact.first]) + " and " +
         std::to_string(id[contact.second]);
}

}  // namespace nbody
