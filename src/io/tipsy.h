#pragma once
// Import of TIPSY binary files, the format NVIDIA's nbody sample loads. The layout:
//   header, 32 bytes: f64 time, i32 nbodies, i32 ndim, i32 nsph, i32 ndark, i32 nstar, i32 pad;
//   then nsph gas particles   (12 f32: mass, x, y, z, vx, vy, vz, rho, temp, hsmooth, metals, phi),
//   then ndark dark particles (9 f32:  mass, x, y, z, vx, vy, vz, eps, phi),
//   then nstar star particles (11 f32: mass, x, y, z, vx, vy, vz, metals, tform, eps, phi).
// Files come native little-endian (as NVIDIA's sample writes them) or big-endian (the "standard",
// XDR variant); the byte order is the one in which the header is consistent (nbodies = nsph +
// ndark + nstar, 1 <= ndim <= 3). Every particle becomes a body, in file order; the time is kept.
// Gas particles are of component 0, dark ones 1, stars 4 (GADGET's types, physics/state.h); the
// bodies are numbered 1..N in file order (TIPSY has no IDs).
//
// Written: little-endian (as NVIDIA's sample and splash read it) or big-endian (the "standard"
// form, .std), ndim 3, bodies of component 0 as gas, 4 as stars, every other as dark matter, each
// kind in state order; eps is the run's softening where the snapshot has settings (else 0), every
// other extra field 0. No units are scaled: TIPSY runs in G = 1.

#include <ostream>
#include <string>
#include <string_view>

#include "io/byte_order.h"
#include "io/snapshot.h"

namespace nbody {

inline constexpr std::size_t kTipsyHeaderBytes = 32;
inline constexpr std::size_t kTipsyGasBytes = 48, kTipsyDarkBytes = 36, kTipsyStarBytes = 44;

// True when the header is consistent in one byte order and the length matches it.
bool looksLikeTipsy(std::string_view bytes);
// True when the bytes begin as a TIPSY file does, whatever their length: a consistent header (no
// text has one), or fewer bytes than a header that are no text (a NUL among them). Such a file
// is read as TIPSY, so that a truncated one is called a truncated TIPSY file, not a bad CSV.
bool beginsLikeTipsy(std::string_view bytes);
// Throws std::runtime_error naming `source` and the problem.
Snapshot parseTipsy(std::string_view bytes, const std::string& source);
// Throws std::invalid_argument for more bodies than a TIPSY header counts (2^31 - 1).
void writeTipsy(const Snapshot& snapshot, std::ostream& out, bool bigEndian = false);

}  // namespace nbody
