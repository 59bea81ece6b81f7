#pragma once
// GADGET-2's binary snapshots (docs/formats.md, "GADGET-2 binary"): Fortran-style records
// (a 4-byte length before and after each), in format 2 each after an 8-byte label record (a
// 4-character block name and the next record's length + 8). The 256-byte header: npart[6] (i32),
// MassTable[6] (f64), time, redshift (f64), flag_sfr, flag_feedback, npartTotal[6] (u32),
// flag_cooling, num_files (i32), BoxSize, Omega0, OmegaLambda, HubbleParam (f64), flag_stellarage,
// flag_metals, npartTotalHighWord[6] (u32), flag_entropy_instead_u, then 60 bytes of padding. Then
// the blocks POS (3 numbers a body, types in order), VEL, ID (u32 or u64) and MASS (for the types
// whose MassTable entry is 0), and for gas U, RHO, HSML..., which are skipped: gas bodies are
// bodies like the others, their type their component.
//
// Read: formats 1 and 2 (the header record's length, 256, or its label, HEAD), either byte order
// (the one in which that length reads right), float32 or float64 (from the POS block's length),
// u32 or u64 IDs (from the ID block's), num_files 0 as 1, npartTotal 0 as "this file holds every
// body", and multi-file snapshots base.0 ... base.n-1. Refused with one line naming the file:
// markers that disagree or run past the end, blocks whose lengths fit no body count, negative
// counts, files of one snapshot that disagree, and cosmological snapshots (Omega0, OmegaLambda or
// the redshift > 0: comoving coordinates need another integrator). Nothing is allocated for a
// count before the blocks' lengths have shown the file holds it.
//
// Written: format 1, little-endian, one file, float32 (splash reads float64 blocks as float32),
// MassTable 0 and every mass in MASS, IDs u32 where they fit, no cosmology. A run in other units
// than GADGET's is scaled (io/gadget.h) and records its G and time in the header's padding (at
// offset 196 of the header: "NBODYGL\0", f64 G, f64 time), where GADGET and the readers look at
// nothing: reading it back gives the run's G, time, positions, masses, IDs and components exactly,
// and its velocities within one float32 ulp (the scaling's rounding in float32; GADGET HDF5 holds
// a scaled run's numbers in float64 and gives them back exactly). A run in GADGET's units (one
// started from a GADGET file) is written unscaled and comes back bit for bit.

#include <filesystem>
#include <ostream>
#include <string>
#include <string_view>

#include "io/gadget.h"
#include "io/snapshot.h"

namespace nbody {

inline constexpr std::size_t kGadgetHeaderBytes = 256;

// The first record is a GADGET-2 header: 256 bytes long (format 1) or labelled HEAD (format 2),
// in either byte order, its closing marker where it belongs.
bool looksLikeGadgetBinary(std::string_view bytes);

// One file of a snapshot (totals: npartTotal + HighWord).
GadgetPart parseGadgetBinaryPart(std::string_view bytes, const std::string& source);

// A snapshot of one file. Throws std::runtime_error naming `source` and the problem, also for a
// snapshot of several files (readGadgetBinaryFiles reads those).
Snapshot parseGadgetBinary(std::string_view bytes, const std::string& source);
// The snapshot `path` (whose bytes are `bytes`) is a file of: all of base.0 ... base.n-1 where its
// header says n > 1 and its name ends in .K, else itself.
Snapshot readGadgetBinaryFiles(const std::filesystem::path& path, std::string_view bytes);

// Throws std::invalid_argument where the state does not fit the format (a type of 2^31 bodies or
// more, a block of 4 GiB or more), std::runtime_error for a velocity that scaled to GADGET's
// units is beyond float32.
void writeGadgetBinary(const Snapshot& snapshot, std::ostream& out);

}  // namespace nbody
