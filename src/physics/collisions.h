#pragma once
// Collisions between bodies with radii: which bodies touch at a step boundary, and their merger,
// decided so that a run gives the same bits every time, on any number of ranks and for any order
// of the input (docs/collisions.md).
//
// Two bodies touch when they overlap (|x_i - x_j| <= r_i + r_j) and approach ((v_i - v_j) .
// (x_i - x_j) < 0), at the state between two steps (REBOUND's `direct` test). Touching bodies form
// groups (connected components: a chain A-B-C is one group whatever the order), and each group
// becomes one body, computed in double in ascending ID order: the masses summed, the centre of mass
// and the momentum kept. The heaviest member survives (ties: the lowest ID) and keeps its ID; the
// others stay in their slots as massless bodies on the survivor, which pull nothing and never touch
// anything again. A massless body (a test particle, a merged one) never collides.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <glm/vec3.hpp>

#include "physics/state.h"

namespace nbody {

enum class CollisionMode { off, merge, halt };

// `--collisions`, `--radius`, `--density`: what touching bodies do and how large they are; or
// each body's radius from the input (a radius column or dataset, io/snapshot.h).
struct CollisionSettings {
  CollisionMode mode = CollisionMode::off;
  double radius = 0.0;   // > 0: every body's radius, mergers included
  double density = 0.0;  // > 0: radius (3 m / (4 pi density))^(1/3), so volume adds up in mergers
  // Neither: one radius a body (>= 0). A merger gives the survivor the cube root of the sum of
  // the members' cubes (volume adds up) and the others 0.
  std::vector<double> radii{};

  bool enabled() const { return mode != CollisionMode::off; }
  // Whether --radius or --density gives the bodies' size (else radii, where there are any).
  bool sizedByOptions() const { return radius > 0.0 || density > 0.0; }
  // Body `body`'s radius (of mass `mass`).
  double radiusOf(std::size_t body, double mass) const;
  // The bodies' size as a GPU engine's contact screen takes it (StepParams' contactScreen): with
  // radii, every body as large as the largest, so that the screen is wider than contact still.
  ContactScreenPass screenedBodies() const;
};

// A pair of body indices, first < second.
using Contact = std::pair<std::size_t, std::size_t>;

// Every pair of massive bodies that touch, in ascending order. Bodies with a non-finite position
// are left out (the run's finite watch reports them).
std::vector<Contact> findContacts(const DoubleBodies& bodies, const CollisionSettings& settings);
// The first of them, found without keeping the others.
std::optional<Contact> firstContact(const DoubleBodies& bodies, const CollisionSettings& settings);

// One group of touching bodies become one.
struct Merger {
  std::vector<std::uint64_t> ids;  // ascending
  std::vector<double> masses;      // the members', in the order of ids
  std::uint64_t survivor = 0;      // the ID that goes on
  double mass = 0.0;               // the survivor's
  glm::dvec3 position{0.0}, velocity{0.0};
  // What the merger changes the total energy by: minus the members' kinetic energy about their
  // centre of mass and their mutual (softened) potential energy, which the merged body lacks
  // (positive for a bound group). Their potential energy with the other bodies is left out.
  double energyChange = 0.0;
};

// Bodies in double that a merger may change.
struct MutableBodies {
  std::vector<double>& mass;
  std::vector<glm::dvec3>& position;
  std::vector<glm::dvec3>& velocity;
  const std::vector<std::uint64_t>& id;  // one per body
  std::vector<double>* radii = nullptr;  // CollisionSettings::radii, where the bodies have them
};

// Merges every group that `contacts` join, in ascending order of their smallest ID; returns what
// was merged. `gravity` and `softening` only weigh energyChange.
std::vector<Merger> mergeContacts(MutableBodies bodies, const std::vector<Contact>& contacts,
                                  double gravity, double softening);
// The same for the bodies that touch, found as findContacts finds them (without keeping the pairs,
// so that radii that make every body touch every other cost time, not memory).
std::vector<Merger> mergeTouching(MutableBodies bodies, const CollisionSettings& settings,
                                  double gravity, double softening);

// "bodies 3 and 7" for messages; the IDs of a contact's bodies.
std::string contactText(const Contact& contact, const std::vector<std::uint64_t>& id);

}  // namespace nbody
