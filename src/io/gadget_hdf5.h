#pragma once
// GADGET HDF5 snapshots (docs/formats.md, "GADGET HDF5"), through Debian's libhdf5 (its
// C API), in the library nbody_hdf5 of their own: what does not read or write them does not link
// HDF5. The file is made and read in memory (HDF5's core driver and file images), so it goes out
// through io/output_file.h like every other output and comes in through io/input_file.h.
//
// Written by the writer rules of docs/formats.md, which every reader it lists accepts (yt, pynbody,
// SWIFT, GADGET-4, Gadgetviewer, glnemo2): /Header with 6-entry NumPart_ThisFile, NumPart_Total,
// NumPart_Total_HighWord (uint32) and MassTable (double, all 0), Time, Redshift 0, BoxSize 0,
// NumFilesPerSnapshot 1, Flag_Entropy_ICs 0, Dimension 3, Time_GYR, and no Omega0, OmegaLambda,
// HubbleParam nor Code; /RuntimePars PeriodicBoundariesOn 0; /Units in GADGET's and SWIFT's
// names; a group /PartTypeK for each component K that has bodies, with Coordinates, Velocities,
// Masses (float32; float64 where the run is scaled, io/gadget.h) and ParticleIDs (uint32, uint64
// where an ID needs it). A scaled run's own G and time go in /NbodyGL (GravitationalConstant,
// Time), which the other readers ignore.
//
// Read: what real files hold: NumPart arrays of any length (GADGET-4 writes as many as it has
// types), u32 or u64 (or signed) counts, HighWord absent, BoxSize scalar or vector, coordinates f32
// or f64, IDs of any integer width, Masses where the MassTable entry is 0, several files
// (base.0.hdf5 ... base.n-1.hdf5), units from /Units (either naming), else /Parameters (GADGET-4),
// else the Header (GIZMO), else GADGET's defaults. Refused with one line naming the file: a
// cosmological file (Redshift > 0, Omega0 or OmegaLambda > 0, ComovingIntegrationOn or SWIFT's
// "Cosmological run"), a type beyond 5 with bodies, a missing group or dataset, a dataset whose
// shape or type is not a body list's, and one that claims more values than its stored bytes can
// hold (deflate packs at most 1032 to 1). libhdf5 reads in a child process (io/isolated_call.h):
// a file that crashes it is a line too. Where a dataset is stored as it is, the child says where
// and this process reads its values from the file's bytes (a 2M-body part 3x faster, and no copy
// of them through the pipe).

#include <filesystem>
#include <ostream>
#include <span>
#include <string>
#include <string_view>

#include "io/gadget.h"
#include "io/output_file.h"
#include "io/snapshot.h"

namespace nbody {

// HDF5's signature at the start of the file (a user block before it is not looked for).
bool looksLikeHdf5(std::string_view bytes);

// One file of a snapshot as it is (one of several, or the only one), read in a child process.
GadgetPart readGadgetHdf5File(std::string_view bytes, const std::string& source);
// What that child answers (io/gadget_answer.h): each dataset stored as it is (contiguous,
// unfiltered, little-endian float32, float64, u32 or u64: what nbody, h5py and most writers write)
// as where its values lie in `bytes`, which this process then reads itself; the others' values
// as HDF5 converts them.
std::string gadgetHdf5Answer(std::string_view bytes, const std::string& source);
// The part of the file `bytes` from that `answer`, its first `mostBodies` bodies alone (1: the
// facts a snapshot's files are checked against, firstBodyOnly's).
GadgetPart gadgetHdf5PartOf(std::string_view answer, std::string_view bytes,
                            const std::string& source,
                            std::uint64_t mostBodies = ~std::uint64_t{0});
// A snapshot of one file; refuses one file of several (readGadgetHdf5Files reads those).
Snapshot parseGadgetHdf5(std::string_view bytes, const std::string& source);
// The snapshot `path` (whose bytes are `bytes`) is a file of: every base.K.hdf5 where its header
// says NumFilesPerSnapshot > 1 and its name is base.K.hdf5, else itself.
Snapshot readGadgetHdf5Files(const std::filesystem::path& path, std::string_view bytes);

// Throws std::invalid_argument where the state has components beyond 5.
void writeGadgetHdf5(const Snapshot& snapshot, std::ostream& out);
// The file's bytes for bodies as gadgetFromSnapshot (io/gadget.h) gives them.
std::string gadgetHdf5Image(const GadgetBodies& bodies);
// The same as file `share.file` of a snapshot of `share.fileCount` files (NumFilesPerSnapshot),
// whose header gives the snapshot's totals (NumPart_Total): a snapshot written in parts, one a
// rank, which nbody, yt and h5py read as one. The bodies' StateIndex goes beside them where they
// have it (GadgetBodies::stateIndex).
std::string gadgetHdf5PartImage(const GadgetBodies& bodies, const GadgetFileShare& share);
// The same of `snapshot`'s bodies (a part of a run's state: `stateIndex` one a body, or none for
// the whole) into `out`: by name into its temporary file, a slice of bodies at a time, so that
// little memory is taken beyond the state (the image in memory where `out` is written in place: a
// pipe). Throws OutputError naming `out`'s file.
void writeGadgetHdf5Part(const Snapshot& snapshot, std::span<const std::uint64_t> stateIndex,
                         const GadgetFileShare& share, OutputFile& out);

}  // namespace nbody
