#pragma once
// How the ranks of a distributed run (parallel/ranks.h) share a GPU engine's work, and the bytes
// they exchange afterwards. Each rank computes a contiguous range of bodies (or, for a tree, of
// its sorted bodies); then every rank's part goes, as bytes, through host memory (a persistently
// mapped staging buffer) to every other rank, and every rank uploads the others' parts. MPI moves
// the bytes and does no arithmetic on them, so every rank ends with the very bits one GPU would
// have computed alone.

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <deque>
#include <optional>
#include <span>
#include <vector>

#include <glm/vec2.hpp>

#include "gl/objects.h"
#include "parallel/ranks.h"

namespace nbody {

struct BodyRange {
  std::size_t first = 0, last = 0;  // [first, last)
  std::size_t size() const { return last - first; }
};

// Each of `count` ranks' share of `bodies` bodies, in whole units of `granule` (the last rank's
// may end short), as equal as whole units allow, in rank order.
std::vector<BodyRange> shareOut(std::size_t bodies, std::size_t granule, int count);
// The same share cut where the running sums of `weights` (one per unit of `granule` bodies, e.g.
// a tree group's interactions) cross each rank's equal part: integers, so every rank cuts alike.
std::vector<BodyRange> shareOutByWeight(std::size_t bodies, std::size_t granule,
                                        std::span<const std::int64_t> weights, int count);

class RankExchange {
 public:
  // Where the time of the last exchanges went, in seconds of wall time, and the bytes moved.
  struct Times {
    // From beginShare() to the GPU's end of this rank's share of the work; for a streamed exchange
    // (the tree's), the copies made while the GPU works are in it, and download stays 0.
    double compute = 0;
    double download = 0, mpi = 0, upload = 0;
    double bytes = 0;  // moved through MPI, every rank's part
    long long exchanges = 0;
    // The decomposed tree's (tree/tree_decomposed.h): the bytes of local essential trees this rank
    // sent and received, the most bodies its tree held in one evaluation (its segment and the
    // bodies its LETs brought), and the records (bodies, nodes) its tree's arrays were sized for
    // (tree_buffers.h); 0 where it did not run.
    double letBytesSent = 0, letBytesReceived = 0;
    std::size_t treeBodiesHeld = 0, treeArrayRecords = 0;
    // The most bytes of state textures this rank held at the end of a call of steps: the whole
    // state's and, in a decomposed run, its held bodies' (engines/gpu_engine.h).
    std::size_t stateTextureBytes = 0;
  };

  explicit RankExchange(const Ranks& ranks) : ranks_(ranks) {}
  ~RankExchange();  // needs the context current, as every GL object's destructor

  // Every rank wrote its range of bodies into each of `textures` (RGBA32F, `size` texels, body i at
  // texel (i % size.x, i / size.x)); afterwards every rank holds every range. Waits for the GPU.
  void exchangeTextures(std::span<const GLuint> textures, glm::ivec2 size,
                        const std::vector<BodyRange>& ranges);
  // The same for a buffer of `elementBytes`-byte elements, in pieces overlapped with the GPU's
  // work: begin before this rank's range is written; partWritten each time the GPU has been given
  // the commands that write more of it (its elements [first, upTo)); finish once all of it is.
  // partWritten downloads the new piece and waits for the piece before it (so at most two pieces
  // are queued: the CPU waits for the GPU regularly), which it passes on while the GPU works on the
  // newest; the other ranks' pieces are taken as they come. Only finish waits for the other ranks.
  void beginBufferExchange(GLuint buffer, std::size_t elementBytes,
                           const std::vector<BodyRange>& ranges);
  void partWritten(std::size_t upTo);
  void finishBufferExchange();

  // A decomposed tree's evaluation: what its LETs moved, and the bodies its tree held.
  void countLet(std::size_t bytesSent, std::size_t bytesReceived, std::size_t bodiesHeld,
                std::size_t arrayRecords) {
    times_.letBytesSent += double(bytesSent);
    times_.letBytesReceived += double(bytesReceived);
    times_.treeBodiesHeld = std::max(times_.treeBodiesHeld, bodiesHeld);
    times_.treeArrayRecords = std::max(times_.treeArrayRecords, arrayRecords);
  }
  void countStateTextures(std::size_t bytes) {
    times_.stateTextureBytes = std::max(times_.stateTextureBytes, bytes);
  }
  // Before a stage's work that the next exchange moves: where its time starts.
  void beginShare() { shareBegan_ = std::chrono::steady_clock::now(); }
  // A force whose ranks exchange what it needs within it (the decomposed tree's), done on the
  // GPU: the time since beginShare() counts as force.
  void forceDone();
  const Times& times() const { return times_; }
  void clearTimes() { times_ = {}; }

 private:
  std::byte* staging(std::size_t bytes);
  void waitForGpu();
  void gather(const std::vector<BodyRange>& ranges, std::size_t unitBytes);
  void publishOldestPiece();
  void abandonStream();
  void uploadOthers(GLuint buffer, std::size_t elementBytes, const std::vector<BodyRange>& ranges);

  // The streamed exchange under way (beginBufferExchange to finishBufferExchange).
  struct Piece {
    GLsync written;    // the piece's download is done
    std::size_t upTo;  // own elements [first, upTo) are then in the staging buffer
  };
  // No default member initializers: clang then judges std::optional<Stream> not constructible
  // inside this class; beginBufferExchange sets every field.
  struct Stream {
    GLuint buffer;
    std::size_t elementBytes;
    std::vector<BodyRange> ranges;
    std::size_t downloaded;  // own elements queued for download, from the range's first
    std::deque<Piece> pieces;
    std::optional<StreamedGather> gather;
  };
  std::optional<Stream> stream_;

  const Ranks& ranks_;
  gl::Buffer buffer_;
  std::byte* mapped_ = nullptr;
  std::size_t capacity_ = 0;
  Times times_;
  std::chrono::steady_clock::time_point shareBegan_ = std::chrono::steady_clock::now();
};

}  // namespace nbody
