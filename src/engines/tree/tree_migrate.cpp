#include "engines/tree/tree_migrate.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <utility>
#include <vector>

#include "engines/rank_exchange.h"
#include "engines/tree/tree_layout.h"
#include "gl/desktop_calls.h"

namespace nbody::tree {

IdList SegmentIds::home(std::size_t bodyCount, std::size_t rowWidth, const Ranks& ranks) {
  if (bodyCount_ == bodyCount && walkerList_.buffer != 0) {  // the last walker's
    std::swap(home_, walker_);
    homeList_ = {home_.buffer.id(), walkerList_.count};
    walkerList_ = {};
    return homeList_;
  }
  const BodyRange rows = shareOut(bodyCount, rowWidth, ranks.count())[std::size_t(ranks.rank())];
  std::vector<std::uint32_t> ids(rows.size());
  std::iota(ids.begin(), ids.end(), std::uint32_t(rows.first));
  const GLuint buffer = ensureBuffer(home_, std::max<std::size_t>(ids.size(), 1) * 4);
  if (!ids.empty()) glNamedBufferSubData(buffer, 0, GLsizeiptr(ids.size() * 4), ids.data());
  homeList_ = {buffer, ids.size()};
  return homeList_;
}

// The home's IDs in its sorted order, into sorted_ (tree_fetch.comp, WORDS 1).
void SegmentIds::sortHomeIds(Kernels& kernels) {
  const GLuint sorted = ensureBuffer(sorted_, std::max<std::size_t>(homeList_.count, 1) * 4);
  if (homeList_.count == 0) return;
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetMarksBinding, homeList_.buffer);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetListsBinding, sorted);
  gl::UniformProgram& program = kernels.use(Kernel::fetch, {{"WORDS", 1}});
  program.setUint("uCount", homeList_.count);
  kernels.dispatch(ceilDiv(homeList_.count, kElementThreads));
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
}

// The sorted home's IDs but this rank's own part: the parts of the ranks below it, then above.
std::vector<std::uint32_t> SegmentIds::readOthersParts(std::span<const std::size_t> sendCounts,
                                                       int rank) const {
  const std::size_t below = std::accumulate(sendCounts.begin(), sendCounts.begin() + rank,
                                            std::size_t(0)),
                    above = below + sendCounts[std::size_t(rank)];
  std::vector<std::uint32_t> others(below + homeList_.count - above);
  if (below > 0)
    glGetNamedBufferSubData(sorted_.buffer.id(), 0, GLsizeiptr(below * 4), others.data());
  if (above < homeList_.count)
    glGetNamedBufferSubData(sorted_.buffer.id(), GLintptr(above * 4),
                            GLsizeiptr((homeList_.count - above) * 4), others.data() + below);
  return others;
}

IdList SegmentIds::migrate(Kernels& kernels, std::span<const std::size_t> sendCounts,
                           std::size_t bodyCount, const Ranks& ranks) {
  const int rank = ranks.rank();
  sortHomeIds(kernels);
  const std::vector<std::uint32_t> others = readOthersParts(sendCounts, rank);
  std::vector<std::size_t> counts(sendCounts.begin(), sendCounts.end()), receivedCounts;
  const std::size_t ownFirst =
                        std::accumulate(counts.begin(), counts.begin() + rank, std::size_t(0)),
                    own = std::exchange(counts[std::size_t(rank)], 0);
  const std::vector<std::uint32_t> received = allToAllRecords<std::uint32_t>(
      ranks, std::as_bytes(std::span(others)), counts, receivedCounts);
  const GLuint marks = ensureBuffer(marks_, std::max<std::size_t>(bodyCount, 1) * 4);
  const std::uint32_t zero = 0;
  glClearNamedBufferSubData(marks, GL_R32UI, 0, GLsizeiptr(bodyCount * 4), GL_RED_INTEGER,
                            GL_UNSIGNED_INT, &zero);
  lists_.setMarks(kernels, marks, 0, sorted_.buffer.id(), ownFirst, own, 1);
  lists_.setMarks(kernels, marks, 0, std::span(received), 1);
  const std::size_t regions[] = {0};
  const std::size_t held = lists_.list(kernels, marks, regions, bodyCount, 1)[0][0];
  if (ranks.maximum(held != own + received.size() ? 1 : 0) != 0)  // every rank fails alike
    throw std::logic_error("a walker's IDs are not its segment's bodies, each once");
  const GLuint walker = ensureBuffer(walker_, std::max<std::size_t>(held, 1) * 4);
  if (held > 0) glCopyNamedBufferSubData(lists_.lists(), walker, 0, 0, GLsizeiptr(held * 4));
  walkerList_ = {walker, held};
  bodyCount_ = bodyCount;
  return walkerList_;
}

}  // namespace nbody::tree
