#include "engines/rank_exchange.h"
#include "gl/desktop_calls.h"
#include "gl/fence_wait.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace nbody {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

constexpr std::size_t kTexelBytes = 4 * sizeof(float);  // RGBA32F

// The texels of a range of bodies in a texture `width` wide, as rectangles in body order: a part
// of the first row, whole rows, a part of the last row.
struct Rectangle {
  int x, y, width, height;
  std::size_t first;  // its first body
};

std::vector<Rectangle> rectanglesOf(BodyRange range, int width) {
  std::vector<Rectangle> pieces;
  const std::size_t w = std::size_t(width);
  std::size_t body = range.first;
  while (body < range.last) {
    const std::size_t x = body % w, y = body / w;
    const std::size_t left = range.last - body;
    if (x != 0 || left < w) {  // a part of one row
      const std::size_t count = std::min(w - x, left);
      pieces.push_back({int(x), int(y), int(count), 1, body});
      body += count;
    } else {  // whole rows
      const std::size_t rows = left / w;
      pieces.push_back({0, int(y), width, int(rows), body});
      body += rows * w;
    }
  }
  return pieces;
}

// Where each rank's part begins in the staging buffer, in units, and how many units it has.
std::vector<std::size_t> unitsOf(const std::vector<BodyRange>& ranges, std::size_t perBody) {
  std::vector<std::size_t> units;
  for (const BodyRange& range : ranges) units.push_back(range.size() * perBody);
  return units;
}

std::size_t unitsBefore(const std::vector<BodyRange>& ranges, int rank, std::size_t perBody) {
  std::size_t units = 0;
  for (int r = 0; r < rank; ++r) units += ranges[std::size_t(r)].size() * perBody;
  return units;
}

}  // namespace

std::vector<BodyRange> shareOut(std::size_t bodies, std::size_t granule, int count) {
  const std::size_t units = (bodies + granule - 1) / granule;
  std::vector<BodyRange> ranges;
  for (int r = 0; r < count; ++r) {
    const std::size_t first = units * std::size_t(r) / std::size_t(count);
    const std::size_t last = units * std::size_t(r + 1) / std::size_t(count);
    ranges.push_back({std::min(first * granule, bodies), std::min(last * granule, bodies)});
  }
  return ranges;
}

std::vector<BodyRange> shareOutByWeight(std::size_t bodies, std::size_t granule,
                                        std::span<const std::int64_t> weights, int count) {
  std::int64_t total = 0;
  for (const std::int64_t weight : weights) total += std::max<std::int64_t>(weight, 0);
  if (total <= 0) return shareOut(bodies, granule, count);
  std::vector<BodyRange> ranges;
  std::size_t unit = 0;
  std::int64_t before = 0;  // the weight of the units before `unit`
  for (int r = 0; r < count; ++r) {
    const std::size_t first = unit;
    // Up to the unit where the running sum reaches (r + 1) / count of the total.
    while (unit < weights.size() && r + 1 < count &&
           (before + std::max<std::int64_t>(weights[unit], 0)) * count <= total * (r + 1))
      before += std::max<std::int64_t>(weights[unit++], 0);
    if (r + 1 == count) unit = weights.size();
    ranges.push_back({std::min(first * granule, bodies), std::min(unit * granule, bodies)});
  }
  return ranges;
}

std::byte* RankExchange::staging(std::size_t bytes) {
  if (bytes <= capacity_) return mapped_;
  buffer_ = gl::Buffer::create();
  const GLbitfield flags =
      GL_MAP_READ_BIT | GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
  glNamedBufferStorage(buffer_.id(), GLsizeiptr(bytes), nullptr, flags);
  mapped_ =
      static_cast<std::byte*>(glMapNamedBufferRange(buffer_.id(), 0, GLsizeiptr(bytes), flags));
  if (!mapped_)
    throw std::runtime_error("could not map a staging buffer of " + std::to_string(bytes) +
                             " bytes");
  capacity_ = bytes;
  return mapped_;
}

void RankExchange::waitForGpu() {
  glFinish();
  forceDone();
}

void RankExchange::forceDone() {
  times_.compute += secondsSince(shareBegan_);
  ++times_.exchanges;
}

void RankExchange::gather(const std::vector<BodyRange>& ranges, std::size_t unitBytes) {
  const auto start = Clock::now();
  std::size_t total = 0;
  for (const BodyRange& range : ranges) total += range.size();
  ranks_.allGather({mapped_, total * unitBytes}, unitsOf(ranges, 1), unitBytes);
  times_.mpi += secondsSince(start);
  times_.bytes += double(total * unitBytes);
}

void RankExchange::exchangeTextures(std::span<const GLuint> textures, glm::ivec2 size,
                                    const std::vector<BodyRange>& ranges) {
  const std::size_t perBody = textures.size() * kTexelBytes;
  std::size_t total = 0;
  for (const BodyRange& range : ranges) total += range.size();
  staging(total * perBody);
  const int rank = ranks_.rank();
  // Rank r's part: its bodies of each texture in turn.
  const auto offsetOf = [&](int r, std::size_t texture, std::size_t body) {
    const BodyRange& range = ranges[std::size_t(r)];
    return unitsBefore(ranges, r, perBody) +
           (texture * range.size() + body - range.first) * kTexelBytes;
  };
  waitForGpu();
  auto start = Clock::now();
  glMemoryBarrier(GL_TEXTURE_UPDATE_BARRIER_BIT | GL_PIXEL_BUFFER_BARRIER_BIT);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, buffer_.id());
  for (std::size_t t = 0; t < textures.size(); ++t)
    for (const Rectangle& piece : rectanglesOf(ranges[std::size_t(rank)], size.x))
      glGetTextureSubImage(
          textures[t], 0, piece.x, piece.y, 0, piece.width, piece.height, 1, GL_RGBA, GL_FLOAT,
          GLsizei(std::size_t(piece.width) * std::size_t(piece.height) * kTexelBytes),
          reinterpret_cast<void*>(offsetOf(rank, t, piece.first)));
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  glFinish();
  times_.download += secondsSince(start);
  gather(ranges, perBody);
  start = Clock::now();
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffer_.id());
  for (int r = 0; r < ranks_.count(); ++r) {
    if (r == rank) continue;
    for (std::size_t t = 0; t < textures.size(); ++t)
      for (const Rectangle& piece : rectanglesOf(ranges[std::size_t(r)], size.x))
        glTextureSubImage2D(textures[t], 0, piece.x, piece.y, piece.width, piece.height, GL_RGBA,
                            GL_FLOAT, reinterpret_cast<const void*>(offsetOf(r, t, piece.first)));
  }
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  glFinish();  // the staging buffer is written again by the next exchange
  times_.upload += secondsSince(start);
}

void RankExchange::uploadOthers(GLuint buffer, std::size_t elementBytes,
                                const std::vector<BodyRange>& ranges) {
  const auto start = Clock::now();
  for (int r = 0; r < ranks_.count(); ++r) {
    const BodyRange& range = ranges[std::size_t(r)];
    if (r == ranks_.rank() || range.size() == 0) continue;
    glCopyNamedBufferSubData(buffer_.id(), buffer, GLintptr(unitsBefore(ranges, r, elementBytes)),
                             GLintptr(range.first * elementBytes),
                             GLsizeiptr(range.size() * elementBytes));
  }
  glFinish();  // the staging buffer is written again by the next exchange
  times_.upload += secondsSince(start);
}

RankExchange::~RankExchange() { abandonStream(); }

// The fences of a streamed exchange a failure left unfinished.
void RankExchange::abandonStream() {
  if (stream_)
    for (const Piece& piece : stream_->pieces) glDeleteSync(piece.written);
  stream_.reset();
}

void RankExchange::beginBufferExchange(GLuint buffer, std::size_t elementBytes,
                                       const std::vector<BodyRange>& ranges) {
  abandonStream();
  std::size_t total = 0;
  for (const BodyRange& range : ranges) total += range.size();
  staging(total * elementBytes);
  stream_.emplace();
  Stream& s = *stream_;
  s.buffer = buffer;
  s.elementBytes = elementBytes;
  s.ranges = ranges;
  s.downloaded = ranges[std::size_t(ranks_.rank())].first;
  s.gather.emplace(ranks_, std::span(mapped_, total * elementBytes), unitsOf(ranges, 1),
                   elementBytes);
}

void RankExchange::partWritten(std::size_t upTo) {
  Stream& s = *stream_;
  const int rank = ranks_.rank();
  const BodyRange& own = s.ranges[std::size_t(rank)];
  const std::size_t bytes = s.elementBytes;
  upTo = std::min(upTo, own.last);
  if (upTo > s.downloaded) {
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glCopyNamedBufferSubData(
        s.buffer, buffer_.id(), GLintptr(s.downloaded * bytes),
        GLintptr(unitsBefore(s.ranges, rank, bytes) + (s.downloaded - own.first) * bytes),
        GLsizeiptr((upTo - s.downloaded) * bytes));
    s.pieces.push_back({glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0), upTo});
    s.downloaded = upTo;
  }
  while (s.pieces.size() > 1) publishOldestPiece();
  s.gather->takeReady();
}

void RankExchange::publishOldestPiece() {
  Stream& s = *stream_;
  const Piece piece = s.pieces.front();
  // Still listed while it waits: a failed wait leaves its fence to abandonStream.
  gl::waitForFence(piece.written, "a piece of the ranks' exchange");
  s.pieces.pop_front();
  glDeleteSync(piece.written);
  s.gather->publish((piece.upTo - s.ranges[std::size_t(ranks_.rank())].first) * s.elementBytes);
}

// The copies made while the GPU works count as its time (force); MPI's is what waits after it.
void RankExchange::finishBufferExchange() {
  Stream& s = *stream_;
  // Nothing left to overlap: glFinish wakes this thread sooner than a fence's wait does.
  if (!s.pieces.empty()) glFinish();
  while (!s.pieces.empty()) publishOldestPiece();
  times_.compute += secondsSince(shareBegan_);
  ++times_.exchanges;
  const auto start = Clock::now();
  s.gather->finish();
  times_.mpi += secondsSince(start);
  std::size_t total = 0;
  for (const BodyRange& range : s.ranges) total += range.size();
  times_.bytes += double(total * s.elementBytes);
  uploadOthers(s.buffer, s.elementBytes, s.ranges);
  stream_.reset();
}

}  // namespace nbody
