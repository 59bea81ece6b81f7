#pragma once
// A GADGET HDF5 snapshot read a share of its files a rank: where the ranks will hold their own
// bodies (the decomposed tree, gathering deferred: simulate --snapshot-files ranks, shot and record
// drawing each rank's own), no rank reads or parses more than its share of the files. Of a
// snapshot of F files, rank r of K reads files ceil(rF/K) to ceil((r+1)F/K) - 1 (one file: rank 0
// alone; rank 0 also reads the named file's header facts, which every file is checked against);
// the ranks then agree on each body's index in the whole, the order one process reading every
// file gives it (io/gadget.h): the files' order where they give no StateIndex (a count of the
// bodies of the ranks before), else by type, then by StateIndex, through one exchange with the
// rank that owns the StateIndex (16 B a body there, 8 B back), which also finds one given twice.
// Where every rank's rows fit what a rank of the decomposed tree plans for (HeldBodies::
// plannedShare: an eighth over N/K), each keeps them, in the order of their indices (parts written
// by a decomposed run of K ranks, read back by K, start its walkers' segments again: few bodies
// move at the first step); else the rows move to the ranks owning their indices in even ranges
// (56 B a body), as an upload of the whole lays them out, so that however the files fell no rank
// holds more than its share. Engine::uploadPart of either starts the bits of a run uploaded from
// the whole.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <vector>

#include "app/run/run_options.h"
#include "engines/engine.h"
#include "io/snapshot.h"
#include "parallel/ranks.h"

namespace nbody {

struct SnapshotShare {
  // This rank's bodies (its files' in the order of their indices, or the indices from total * r /
  // K: readSnapshotShare), the snapshot's time and units;
  // the radii of every body of the whole where the files have them and they were asked for (in
  // the whole's order: for the outputs).
  Snapshot start;
  std::vector<std::uint64_t> indices;  // each row's index in the whole, ascending
  std::size_t total = 0;               // the bodies of the whole
};

// This rank's share of the snapshot `path` names (any file of it), where it is GADGET HDF5 (by its
// name) in a regular file; nothing where it is not (every rank then reads it whole:
// readSnapshotFile). The whole's radii only `withRadii` (a run's outputs keep them). Fails on every
// rank alike, in the whole's words (one rank's file named). Every rank calls it alike.
std::optional<SnapshotShare> readSnapshotShare(const std::filesystem::path& path,
                                               bool withRadii = true);

// What a run starts from: the input snapshot, whole on every rank, or where its ranks will hold
// their bodies apart and it is a part snapshot, each rank's share (`partIndices`).
struct RunStart {
  Snapshot snapshot;  // the whole, or this rank's part (its state) and the whole's radii
  std::optional<std::vector<std::uint64_t>> partIndices;  // the part's rows' in the whole
  std::size_t bodies = 0;                                 // the whole's

  // Those who hold the bodies: every rank, each a part, or this process all of them.
  const Ranks& holders() const { return partIndices ? ranks() : processAlone(); }
};
// The input `input`, read a share a rank where `inShares` (readSnapshotShare, `withRadii` as
// there), else whole. Every rank calls it alike.
RunStart readRunStart(const std::filesystem::path& input, bool inShares, bool withRadii = true);
// The start of a run from `snapshot`, whole (a scene, or an input read whole).
RunStart wholeRunStart(Snapshot snapshot);
// The start of a run from this rank's `share` of a part snapshot.
RunStart shareRunStart(SnapshotShare share);
// This rank's rows of `scene` where the ranks hold parts: rank r of K the rows from N r / K (as a
// share read that evens its rows out lays them), made alone (SceneChoice::generateRows, one exact
// sum across the ranks). Every rank calls it alike.
StatePart sceneRowsOfRank(const SceneChoice& scene);
// The start of a run from `run`'s scene, once `engine` is found to take its bodies: where
// `inShares` and the ranks are several, each rank makes its part alone (SceneChoice::generateRows:
// rank r of K the rows from N r / K, as a share read that evens its rows out lays them), else the
// whole. Every rank calls it alike.
RunStart sceneRunStart(const Engine& engine, const RunOptions& run, bool inShares);
// The start of a run whose ranks keep their bodies apart where `apart(bodies)` (the command's rule:
// the engine holds parts and nothing reads the whole state) says so for its N: gathering deferred
// (Engine::deferGathering) before the capacity is checked, so that a state past the largest texture
// is taken; the scene made a part a rank or the input read a share a rank there (`withRadii` as
// readRunStart's), else the whole. Every rank calls it alike.
RunStart apartRunStart(Engine& engine, const RunOptions& run,
                       const std::function<bool(std::size_t)>& apart, bool withRadii);
// Where `engine` will not hold the ranks' parts after all (another engine, or too few bodies for
// the decomposed tree to hold them apart: `held` false), a share read or a scene made in parts is
// given up and the whole read or made in its place.
void wholeUnlessHeld(RunStart& start, bool held, const RunOptions& run);
// Uploads `start` into `engine` (its part, Engine::uploadPart; else the whole and its doubles), its
// state moved out where the ranks hold the bodies from here on.
void uploadRunStart(RunStart& start, Engine& engine);
// The same, `start` kept for another upload (bench's).
void uploadRunStartKept(const RunStart& start, Engine& engine);

}  // namespace nbody
