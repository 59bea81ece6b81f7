#pragma once
// nbody's own binary snapshot (.nbody): the float32 state exactly as the engines hold it, with the
// time, the step and the settings that continue the run, and who each body is. Version 2, every
// number little-endian (version 3: the same with an external potential, below):
//
//   offset      size     field
//   0           8        magic "NBODYSNP"
//   8           4        u32 version (2)
//   12          4        u32 reserved (0)
//   16          8        u64 N, the number of bodies
//   24          8        f64 time
//   32          8        i64 step
//   40          32       method name, ASCII, padded with NUL bytes
//   72          8        f64 dt
//   80          8        f64 softening (epsilon)
//   88          8        f64 G
//   96          8        u64 seed of the scene
//   104         16 N     f32 x, y, z, mass of each body
//   104 + 16 N  12 N     f32 vx, vy, vz of each body
//   104 + 28 N  8 N      u64 particle ID of each body
//   104 + 36 N  N        u8 component of each body (< 6, physics/state.h)
//   104 + 37 N  8        u64 FNV-1a (64 bit) of every byte before it
//
// Version 1 (nbody before IDs and components) has neither list: its checksum follows the
// velocities, at 104 + 28 N. It still loads, as bodies 1..N of the default component.
//
// Version 3, written only for a run in an external potential (physics/external_potential.h): the
// u32 at offset 12 is the length P of the potential's text (ExternalPotential::spec(), at most
// kBinarySnapshotLargestPotential bytes), which follows the components at 104 + 37 N; then the
// run's clock (StepParams::time()): f64 the time at its origin and i64 the origin's step (the time
// of step s is that time + (s - origin step) dt); the checksum follows, at 104 + 37 N + P + 16. A
// run resumed from it goes on in the same potential with the same times, bit for bit.
//
// Version 4, written only where the bodies have radii (collisions, Snapshot::radii): the u32 at
// offset 12 is P as in version 3, but may be 0 (no potential); an f64 radius of each body follows
// the components, at 104 + 37 N, and the potential and clock (where P > 0) and the checksum
// follow the radii, at 104 + 45 N.
//
// The reader rejects, with a message naming the file and the problem: a wrong magic, another
// version, a file shorter than its header, an N the file has no room for, extra bytes, a checksum
// that does not match, non-finite or negative values, and components of 6 or more.

#include <ostream>
#include <string>
#include <string_view>

#include "io/snapshot.h"

namespace nbody {

inline constexpr std::string_view kBinarySnapshotMagic{"NBODYSNP"};
inline constexpr unsigned kBinarySnapshotVersion = 2;           // what is written; 1 is read too
inline constexpr unsigned kBinarySnapshotPotentialVersion = 3;  // written with a potential
inline constexpr unsigned kBinarySnapshotRadiiVersion = 4;      // written with radii
inline constexpr std::size_t kBinarySnapshotLargestPotential = 4096;
inline constexpr std::size_t kBinarySnapshotClockBytes = 16;
inline constexpr std::size_t kBinarySnapshotHeaderBytes = 104;
inline constexpr std::size_t kBinarySnapshotMethodBytes = 32;

// Throws std::invalid_argument if the snapshot has no settings or the method name does not fit.
void writeBinarySnapshot(const Snapshot& snapshot, std::ostream& out);
Snapshot parseBinarySnapshot(std::string_view bytes, const std::string& source);

// FNV-1a, 64 bit: the snapshot's checksum.
std::uint64_t fnv1a64(std::string_view bytes);

}  // namespace nbody
