#include "engines/tree/tree_buffers.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "gl/desktop_calls.h"
#include "gl/texture_rows.h"
#include "util/system_limits.h"

namespace nbody::tree {
namespace {

// Bytes per element of each buffer, and how many elements `bodies` bodies need.
std::size_t bytesOf(Binding binding, std::size_t bodies) {
  const std::size_t groups = (bodies + kSmallestGroup - 1) / kSmallestGroup;
  const std::size_t blocks = (bodies + kSortBlock - 1) / kSortBlock;
  switch (binding) {
    case kBounds:
      return 6 * 4;
    case kKeysIn:
    case kKeysOut:
      return bodies * 8;
    case kValuesIn:
    case kValuesOut:
    case kVisits:
      return bodies * 4;
    case kBlockCounts:
      return kRadix * blocks * 4;
    case kDigitTotals:
      return kRadix * 4;
    case kSortedBodies:
    case kNodeBoxMin:
    case kNodeBoxMax:
      return bodies * 16;
    case kNodeTest:
    case kNodeQuad:
      return (std::max<std::size_t>(bodies, 2) - 1) * 32;  // two 16-byte vectors a node
    case kParents:
      return bodies * 2 * 4;
    case kGroupStats:
      return groups * 16;
    case kPotential:
      return groups * 8;
    case kSpill:
      return spillSlotsFor(bodies) * (1 + kSpillSlotNodes) * 4;  // taken flags, then the slots
    case kSlotHash:
      return 16;  // no misses, one free entry: one GPU reads none (TreeBuffers::writeSlotHash)
    case kBindingCount:
      break;
  }
  return 0;
}

// Rows of the texture that holds `array` for `bodies` bodies, `width` texels a row.
std::size_t rowsOf(const TextureArray& array, std::size_t bodies, std::size_t width) {
  const std::size_t records = bytesOf(array.binding, bodies) / array.recordBytes;
  return std::max<std::size_t>(1, (records + width - 1) / width);
}

// The type a transfer of `array`'s texels takes: a float's bits as held, or integers.
GLenum clientTypeOf(const TextureArray& array) {
  return array.clientFormat == GL_RGBA ? GL_FLOAT : GL_UNSIGNED_INT;
}

// Where record `index` lies in an array's texture of 2^widthLog2 texels a row (tree_arrays.glsl).
std::array<GLint, 2> texelOfRecord(std::size_t index, int widthLog2) {
  const std::size_t width = std::size_t(1) << widthLog2;
  return {GLint(index % width), GLint(index / width)};
}

gl::Texture makeArrayTexture(const TextureArray& array, int width, int rows) {
  GLuint id = 0;
  glCreateTextures(GL_TEXTURE_2D, 1, &id);
  gl::Texture texture(id);
  glTextureStorage2D(id, 1, array.internalFormat, width, rows);
  glTextureParameteri(id, GL_TEXTURE_MIN_FILTER, GL_NEAREST);  // integer textures sample only thus
  glTextureParameteri(id, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  return texture;
}

// `array`'s texel format and type, and `scratch`'s rows from its first: `rows` of them.
gl::TextureShape shapeOf(const RecordScratch& scratch, const TextureArray& array, int rows) {
  return {{1 << scratch.widthLog2, rows, 1},
          array.clientFormat,
          clientTypeOf(array),
          array.recordBytes};
}

// A texture of `array`'s format for `records` records from its first texel: rows of 2^widthLog2
// texels, or of the fewest that hold them all where that is less.
RecordScratch scratchFor(const TextureArray& array, std::size_t records, int widthLog2) {
  RecordScratch scratch;
  scratch.internalFormat = array.internalFormat;
  scratch.widthLog2 =
      std::min(widthLog2, int(std::bit_width(std::max<std::size_t>(records, 1) - 1)));
  const std::size_t width = std::size_t(1) << scratch.widthLog2;
  scratch.rows = int(std::max<std::size_t>((records + width - 1) / width, 1));
  scratch.texture = makeArrayTexture(array, int(width), scratch.rows);
  return scratch;
}

// Copies records [from, from + count) of `source` (rows of 2^sourceLog2 texels) to [to, to + count)
// of `target` (rows of 2^targetLog2) on the GPU, a run that stays in one row of both at a time: no
// host write into a texture the GPU is using (on NVIDIA one such write of a texel cost about as
// much as copying the whole texture).
void copyRecords(GLuint source, int sourceLog2, std::size_t from, GLuint target, int targetLog2,
                 std::size_t to, std::size_t count) {
  const std::size_t sourceWidth = std::size_t(1) << sourceLog2;
  const std::size_t targetWidth = std::size_t(1) << targetLog2;
  for (std::size_t done = 0; done < count;) {
    const std::size_t a = from + done, b = to + done;
    const std::size_t run =
        std::min({count - done, sourceWidth - a % sourceWidth, targetWidth - b % targetWidth});
    const auto [ax, ay] = texelOfRecord(a, sourceLog2);
    const auto [bx, by] = texelOfRecord(b, targetLog2);
    glCopyImageSubData(source, GL_TEXTURE_2D, 0, ax, ay, 0, target, GL_TEXTURE_2D, 0, bx, by, 0,
                       GLsizei(run), 1, 1);
    done += run;
  }
}

// Copies records [first, first + count) of `texture` (rows of 2^widthLog2 texels) into `scratch`
// from its first texel, on the GPU.
void copyOut(GLuint texture, int widthLog2, std::size_t first, std::size_t count,
             const RecordScratch& scratch) {
  // After the shaders' stores to those records: no bit names glCopyImageSubData, so all of them.
  glMemoryBarrier(GL_ALL_BARRIER_BITS);
  copyRecords(texture, widthLog2, first, scratch.texture.id(), scratch.widthLog2, 0, count);
}

}  // namespace

std::size_t spillSlotsFor(std::size_t bodies) {
  return std::min(kSpillSlots,
                  std::max<std::size_t>(1, (bodies + kSmallestGroup - 1) / kSmallestGroup));
}

BufferSizes bufferSizesFor(std::size_t bodies) {
  BufferSizes sizes;
  for (GLuint b = 0; b < kBindingCount; ++b) {
    const std::size_t bytes = bytesOf(Binding(b), bodies);
    sizes.total += bytes;
    std::size_t& largest = textureArrayOf(Binding(b)) ? sizes.largestArray : sizes.largestBuffer;
    largest = std::max(largest, bytes);
  }
  return sizes;
}

ArrayLimits arrayLimitsOf(const gl::Limits& limits) {
  const std::size_t block = std::size_t(limits.maxShaderStorageBlockBytes);
  return {block, block, int(std::bit_floor(unsigned(limits.maxTextureSize))),
          limits.maxTextureSize};
}

ArrayStorage storageFor(std::size_t bodies, const ArrayLimits& limits) {
  if (bufferSizesFor(bodies).largestArray <= std::min(limits.arrayBytes, limits.blockBytes))
    return {};
  return {true, std::countr_zero(unsigned(limits.textureWidth))};
}

void checkArraysFit(std::size_t bodies, const ArrayLimits& limits) {
  const BufferSizes sizes = bufferSizesFor(bodies);
  if (sizes.largestBuffer > limits.blockBytes) {
    const auto [need, most] = comparedBytes(double(sizes.largestBuffer), double(limits.blockBytes));
    throw std::runtime_error(std::to_string(bodies) + " bodies need tree buffers of " + need +
                             ", over the " + most +
                             " one shader storage block may hold on this GPU");
  }
  if (!storageFor(bodies, limits).inTextures) return;
  for (const TextureArray& array : kTextureArrays) {
    const std::size_t rows = rowsOf(array, bodies, std::size_t(limits.textureWidth));
    if (rows > std::size_t(limits.textureRows))
      throw std::runtime_error(std::to_string(bodies) + " bodies need tree textures " +
                               std::to_string(limits.textureWidth) + " x " + std::to_string(rows) +
                               " texels, over this GPU's " + std::to_string(limits.textureRows) +
                               " rows");
  }
}

namespace {

bool recordsFit(std::size_t records, const ArrayStorage& storage, const ArrayLimits& limits) {
  const BufferSizes sizes = bufferSizesFor(records);
  if (sizes.largestBuffer > limits.blockBytes) return false;
  if (!storage.inTextures)
    return sizes.largestArray <= std::min(limits.arrayBytes, limits.blockBytes);
  const std::size_t width = std::size_t(1) << storage.widthLog2;
  return std::all_of(kTextureArrays.begin(), kTextureArrays.end(), [&](const TextureArray& array) {
    return rowsOf(array, records, width) <= std::size_t(limits.textureRows);
  });
}

}  // namespace

std::size_t mostRecords(const ArrayStorage& storage, const ArrayLimits& limits) {
  // By halves: `fits` fits, `over` does not. No count starts past a 256th of a size_t's range,
  // where the arrays' bytes (under 256 a record) would pass what a size_t counts (4 GB on wasm32).
  std::size_t fits = 0, over = std::numeric_limits<std::size_t>::max() / 256;
  while (over - fits > 1) {
    const std::size_t middle = fits + (over - fits) / 2;
    (recordsFit(middle, storage, limits) ? fits : over) = middle;
  }
  return fits;
}

void TreeBuffers::reserve(std::size_t bodies, const ArrayLimits& limits) {
  if (bodies <= capacity_ && bodies <= groupBodies_) return;
  allocate(bodies, bodies, storageFor(bodies, limits), limits.textureWidth, false);
}

void TreeBuffers::reserveWalker(std::size_t records, std::size_t bodyCount,
                                const ArrayLimits& limits) {
  const ArrayStorage storage = storageFor(bodyCount, limits);
  records = std::min(std::max<std::size_t>(records, 2), std::max<std::size_t>(bodyCount, 2));
  const bool keep = storage == storage_ && capacity_ > 0;
  if (keep && records <= capacity_ && bodyCount <= groupBodies_) return;
  allocate(keep ? std::max(records, capacity_) : records,
           keep ? std::max(bodyCount, groupBodies_) : bodyCount, storage, limits.textureWidth,
           keep);
  if (keep) bindAll();
}

namespace {

std::size_t recordsOf(Binding binding, std::size_t bodies, std::size_t groupBodies) {
  return binding == kGroupStats || binding == kPotential ? groupBodies : bodies;
}

}  // namespace

// Every array anew (kSlotHash too unless kept; those released left out), for `records` bodies or
// `groupBodies` bodies' groups; with `keep`, in the storage they have, holding what the old ones
// held.
void TreeBuffers::allocate(std::size_t records, std::size_t groupBodies,
                           const ArrayStorage& storage, int textureWidth, bool keep) {
  // The old arrays were written by shaders: their stores land before the copies read them (no bit
  // names glCopyImageSubData: all of them; it happens in an evaluation's first few).
  if (keep) glMemoryBarrier(GL_ALL_BARRIER_BITS);
  for (GLuint b = 0; b < kBindingCount; ++b) {
    if (keep && b == kSlotHash) continue;
    if (released_[b]) continue;
    allocateArray(Binding(b), recordsOf(Binding(b), records, groupBodies),
                  recordsOf(Binding(b), capacity_, groupBodies_), storage, textureWidth, keep);
  }
  if (!keep) {
    glClearNamedBufferData(buffers_[kSlotHash].id(), GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT,
                           nullptr);
    slotHashBytes_ = bytesOf(kSlotHash, records);
  }
  // Every slot free: each walk gives back what it takes, so this holds from now on.
  glClearNamedBufferSubData(buffers_[kSpill].id(), GL_R32UI, 0,
                            GLsizeiptr(spillSlotsFor(records) * 4), GL_RED_INTEGER, GL_UNSIGNED_INT,
                            nullptr);
  storage_ = storage;
  capacity_ = records;
  groupBodies_ = groupBodies;
}

// One array of `records` records, holding the `had` the old one held where `keep`.
void TreeBuffers::allocateArray(Binding binding, std::size_t records, std::size_t had,
                                const ArrayStorage& storage, int textureWidth, bool keep) {
  const TextureArray* array = textureArrayOf(binding);
  if (array && storage.inTextures) {
    const auto width = std::size_t(textureWidth);
    gl::Texture texture =
        makeArrayTexture(*array, textureWidth, int(rowsOf(*array, records, width)));
    if (keep)
      glCopyImageSubData(textures_[binding].id(), GL_TEXTURE_2D, 0, 0, 0, 0, texture.id(),
                         GL_TEXTURE_2D, 0, 0, 0, 0, textureWidth,
                         GLsizei(rowsOf(*array, had, width)), 1);
    textures_[binding] = std::move(texture);
    buffers_[binding] = {};
    return;
  }
  gl::Buffer buffer = gl::Buffer::create();
  glNamedBufferStorage(buffer.id(), GLsizeiptr(bytesOf(binding, records)), nullptr,
                       GL_DYNAMIC_STORAGE_BIT);
  if (keep)
    glCopyNamedBufferSubData(buffers_[binding].id(), buffer.id(), 0, 0,
                             GLsizeiptr(bytesOf(binding, had)));
  buffers_[binding] = std::move(buffer);
  textures_[binding] = {};
}

void TreeBuffers::releaseArrays(std::span<const Binding> which) {
  for (const Binding binding : which) {
    buffers_[binding] = {};
    textures_[binding] = {};
    released_[binding] = true;
  }
  moving_ = {};
  movingTexels_ = {};
}

void TreeBuffers::restoreArrays() {
  bool restored = false;
  for (GLuint b = 0; b < kBindingCount; ++b)
    if (std::exchange(released_[b], false)) {
      allocateArray(Binding(b), recordsOf(Binding(b), capacity_, groupBodies_), 0, storage_,
                    1 << storage_.widthLog2, false);
      restored = true;
    }
  if (restored) bindAll();
}

GLuint TreeBuffers::buffer(Binding binding) const {
  if (!buffers_[binding].id())
    throw std::logic_error("a tree array held in a texture was asked for as a buffer");
  return buffers_[binding].id();
}

// Binds what holds `holder`'s records where the kernels look for `role`'s.
void TreeBuffers::bindArray(Binding role, Binding holder) const {
  const TextureArray* array = textureArrayOf(role);
  if (!array || !storage_.inTextures) {
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, role, buffers_[holder].id());
    return;
  }
  const GLuint texture = textures_[holder].id();
  glBindTextureUnit(GLuint(kArrayTextureUnits + int(role)), texture);
  if (array->imageUnit > 0)
    glBindImageTexture(GLuint(array->imageUnit), texture, 0, GL_FALSE, 0, GL_READ_WRITE,
                       array->internalFormat);
}

void TreeBuffers::bindAll() const {
  for (GLuint b = 0; b < kBindingCount; ++b) bindArray(Binding(b), Binding(b));
}

void TreeBuffers::bindSortPass(int pass) const {
  const bool even = pass % 2 == 0;
  bindArray(kKeysIn, even ? kKeysIn : kKeysOut);
  bindArray(kValuesIn, even ? kValuesIn : kValuesOut);
  bindArray(kKeysOut, even ? kKeysOut : kKeysIn);
  bindArray(kValuesOut, even ? kValuesOut : kValuesIn);
}

std::vector<std::uint32_t> TreeBuffers::readWords(Binding binding, std::size_t words) const {
  std::vector<std::uint32_t> read(words);
  if (words == 0) return read;
  const TextureArray* array = textureArrayOf(binding);
  if (!array || !storage_.inTextures) {
    readBuffer(binding, 0, words * 4, read.data());
    return read;
  }
  // Whole rows of texels, from the first, as many as hold the words.
  glMemoryBarrier(GL_TEXTURE_UPDATE_BARRIER_BIT);
  const int width = 1 << storage_.widthLog2;
  const std::size_t rowWords = std::size_t(width) * array->recordBytes / 4;
  const int rows = int((words + rowWords - 1) / rowWords);
  std::vector<std::uint32_t> texels(std::size_t(rows) * rowWords);
  gl::readTextureRows(
      textures_[binding].id(),
      {{width, rows, 1}, array->clientFormat, clientTypeOf(*array), array->recordBytes},
      texels.data());
  std::copy_n(texels.begin(), words, read.begin());
  return read;
}

std::vector<std::uint32_t> TreeBuffers::readRecords(Binding binding, std::size_t first,
                                                    std::size_t count) const {
  const TextureArray* array = textureArrayOf(binding);
  if (!array) throw std::logic_error("only the arrays of records may be read by records");
  const std::size_t recordWords = array->recordBytes / 4;
  if (storage_.inTextures && count > 0) {  // copied out on the GPU, then read whole
    const RecordScratch scratch = scratchFor(*array, count, storage_.widthLog2);
    copyOut(textures_[binding].id(), storage_.widthLog2, first, count, scratch);
    const gl::TextureShape shape = shapeOf(scratch, *array, scratch.rows);
    std::vector<std::uint32_t> words(shape.bytes() / 4);
    gl::readTextureRows(scratch.texture.id(), shape, words.data());
    words.resize(count * recordWords);
    return words;
  }
  std::vector<std::uint32_t> words(count * recordWords);
  readBuffer(binding, first * array->recordBytes, words.size() * 4, words.data());
  return words;
}

std::vector<std::uint32_t> TreeBuffers::readRecord(Binding binding, std::size_t index) const {
  const TextureArray* array = textureArrayOf(binding);
  if (!array) throw std::logic_error("only the arrays of records may be read a record at a time");
  std::vector<std::uint32_t> words(array->recordBytes / 4);
  if (!storage_.inTextures) {
    readBuffer(binding, index * array->recordBytes, array->recordBytes, words.data());
    return words;
  }
  glMemoryBarrier(GL_TEXTURE_UPDATE_BARRIER_BIT);
  const auto [x, y] = texelOfRecord(index, storage_.widthLog2);
  glGetTextureSubImage(textures_[binding].id(), 0, x, y, 0, 1, 1, 1, array->clientFormat,
                       clientTypeOf(*array), GLsizei(array->recordBytes), words.data());
  return words;
}

void TreeBuffers::writeRecord(Binding binding, std::size_t index,
                              std::span<const std::uint32_t> words) const {
  const TextureArray* array = textureArrayOf(binding);
  if (!array || words.size() * 4 != array->recordBytes)
    throw std::logic_error("a record of another size or of no array of records");
  writeRecords(binding, index, words);
}

void TreeBuffers::moveRecords(Binding binding, std::size_t from, std::size_t to,
                              std::size_t count) {
  const TextureArray* array = textureArrayOf(binding);
  if (!array) throw std::logic_error("only the arrays of records move by records");
  if (count == 0 || from == to) return;
  if (storage_.inTextures) {  // through a scratch texture, kept until releaseArrays
    const std::size_t holds =
        (std::size_t(1) << movingTexels_.widthLog2) * std::size_t(movingTexels_.rows);
    if (movingTexels_.internalFormat != array->internalFormat || holds < count)
      movingTexels_ = scratchFor(*array, count, storage_.widthLog2);
    copyOut(textures_[binding].id(), storage_.widthLog2, from, count, movingTexels_);
    copyRecords(movingTexels_.texture.id(), movingTexels_.widthLog2, 0, textures_[binding].id(),
                storage_.widthLog2, to, count);
    return;
  }
  const std::size_t bytes = count * array->recordBytes;
  const GLuint staging = ensureBuffer(moving_, bytes);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  glCopyNamedBufferSubData(buffer(binding), staging, GLintptr(from * array->recordBytes), 0,
                           GLsizeiptr(bytes));
  glCopyNamedBufferSubData(staging, buffer(binding), 0, GLintptr(to * array->recordBytes),
                           GLsizeiptr(bytes));
}

void TreeBuffers::writeRecords(Binding binding, std::size_t first,
                               std::span<const std::uint32_t> words) const {
  const TextureArray* array = textureArrayOf(binding);
  const std::size_t recordWords = array ? array->recordBytes / 4 : 0;
  if (!array || words.size() % recordWords != 0)
    throw std::logic_error("whole records of an array of records only");
  if (words.empty()) return;
  if (!storage_.inTextures) {
    // After shaders' writes to the same records (e.g. the topology's links of straddling nodes),
    // which the host's write must follow.
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glNamedBufferSubData(buffer(binding), GLintptr(first * array->recordBytes),
                         GLsizeiptr(words.size() * 4), words.data());
    return;
  }
  // Into a scratch texture of their own, then copied into place on the GPU (copyRecords).
  const std::size_t records = words.size() / recordWords;
  const RecordScratch scratch = scratchFor(*array, records, storage_.widthLog2);
  const std::size_t width = std::size_t(1) << scratch.widthLog2, rows = records / width;
  if (rows > 0)
    gl::writeTextureRows(scratch.texture.id(), shapeOf(scratch, *array, int(rows)), words.data());
  if (const std::size_t rest = records % width; rest > 0)  // the last row's first texels
    glTextureSubImage2D(scratch.texture.id(), 0, 0, GLint(rows), GLsizei(rest), 1,
                        array->clientFormat, clientTypeOf(*array),
                        words.data() + rows * width * recordWords);
  glMemoryBarrier(GL_ALL_BARRIER_BITS);  // as copyOut's
  copyRecords(scratch.texture.id(), scratch.widthLog2, 0, textures_[binding].id(),
              storage_.widthLog2, first, records);
}

std::size_t TreeBuffers::writeSlotHash(Kernels& kernels,
                                       std::span<const std::array<std::uint32_t, 2>> entries,
                                       std::size_t more) {
  const std::size_t capacity = std::bit_ceil(std::max<std::size_t>(2 * (entries.size() + more), 1));
  const std::size_t bytes = (2 + 2 * capacity) * 4;  // misses, unused, then the entries
  if (bytes > slotHashBytes_) {  // grown only: a walker writes it a few times a step
    buffers_[kSlotHash] = gl::Buffer::create();
    glNamedBufferStorage(buffers_[kSlotHash].id(), GLsizeiptr(bytes), nullptr,
                         GL_DYNAMIC_STORAGE_BIT);
    slotHashBytes_ = bytes;
  }
  const std::uint32_t zero = 0;
  glClearNamedBufferSubData(buffers_[kSlotHash].id(), GL_R32UI, 0, GLsizeiptr(bytes),
                            GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kSlotHash, buffers_[kSlotHash].id());
  if (!entries.empty()) {
    const GLuint staging = ensureBuffer(hashEntries_, entries.size_bytes());
    glNamedBufferSubData(staging, 0, GLsizeiptr(entries.size_bytes()), entries.data());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetChunksBinding, staging);
    gl::UniformProgram& program = kernels.use(Kernel::hash, {{"PLACE", 0}});
    program.setUint("uCount", entries.size());
    program.setUint("uMask", capacity - 1);
    kernels.dispatch(ceilDiv(entries.size(), kElementThreads));
  }
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
  return capacity;
}

void TreeBuffers::readBuffer(Binding binding, std::size_t offset, std::size_t bytes,
                             void* out) const {
  // Larger reads go the driver's way, which costs about the copy they make anyway, so that the
  // parcel stays small: it is pinned host memory for the engine's life.
  constexpr std::size_t kThroughParcel = std::size_t(16) << 20;
  if (bytes <= kThroughParcel)
    return gl::readThrough(readback_, buffer(binding), offset, bytes, out);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  glGetNamedBufferSubData(buffer(binding), GLintptr(offset), GLsizeiptr(bytes), out);
}

std::uint32_t TreeBuffers::readSlotMisses() const {
  std::uint32_t misses = 0;
  readBuffer(kSlotHash, 0, 4, &misses);
  return misses;
}

}  // namespace nbody::tree
