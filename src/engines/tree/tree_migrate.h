#pragma once
// Which bodies each rank of a decomposed tree holds from one evaluation to the next, as IDs on the
// GPU, while the state itself is replicated (docs/decomposed-tree-design.md, step 10). A rank's
// home is the segment its walker held the evaluation before (rows of IDs on the first, or when N
// changed), so the cut sends on only the IDs of bodies that crossed a segment start; each walker
// fetches its bodies' positions by ID. Every list of IDs held here is ascending: a home sorted by
// key keeps equal keys in ID order, as one GPU's (key, ID) composites order them, and so does a
// walker.

#include <cstddef>
#include <span>

#include "engines/tree/tree_buffers.h"
#include "engines/tree/tree_decompose.h"
#include "engines/tree/tree_kernels.h"
#include "engines/tree/tree_lists.h"
#include "parallel/ranks.h"

namespace nbody::tree {

// A list of IDs on the GPU, ascending: `count` words of `buffer`.
struct IdList {
  GLuint buffer = 0;
  std::size_t count = 0;
};

class SegmentIds {
 public:
  // This rank's home for an evaluation of `bodyCount` bodies: the last walker's IDs, else the
  // rank's share of rows of `rowWidth` IDs. Every rank calls it alike.
  IdList home(std::size_t bodyCount, std::size_t rowWidth, const Ranks& ranks);
  // After the home's sort and cut (its local indices sorted in kValuesIn; `sendCounts` of them
  // for each rank, in rank order): sends each other rank its part's IDs and lists the IDs this
  // rank's walker holds, its own part's and those received. Every rank calls it alike.
  IdList migrate(Kernels& kernels, std::span<const std::size_t> sendCounts, std::size_t bodyCount,
                 const Ranks& ranks);

 private:
  void sortHomeIds(Kernels& kernels);
  std::vector<std::uint32_t> readOthersParts(std::span<const std::size_t> sendCounts,
                                             int rank) const;

  MarkLists lists_;
  GrowingBuffer home_, walker_, sorted_, marks_;
  IdList homeList_, walkerList_;
  std::size_t bodyCount_ = 0;
};

}  // namespace nbody::tree
