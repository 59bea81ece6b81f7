#pragma once
// The GPU buffers of the tree (tree_layout.h lists what each holds), sized by N (a decomposed
// tree's walker: by the records it holds) and grown only: an evaluation at the same or a smaller N
// allocates nothing. The arrays of kTextureArrays are 2-D textures instead where the largest of
// them would be over one shader storage block at N (shaders/tree_arrays.glsl), so that N is
// bounded by the GPU's memory.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "engines/tree/tree_kernels.h"
#include "engines/tree/tree_layout.h"
#include "engines/tree/tree_settings.h"
#include "gl/growing_buffer.h"
#include "gl/host_parcel.h"
#include "gl/limits.h"
#include "gl/objects.h"

namespace nbody::tree {

constexpr std::size_t kSmallestGroup = 16;  // TreeSettings' smallest group size: most groups
// Slots of the walk's stack spill pool (a group takes one when its ring first overflows; about the
// work groups a large GPU runs at once: more only wait) and the nodes each holds
// (TreeSettings::kMostStackNodes): 96 MiB, under the largest shader storage block llvmpipe allows
// (128 MiB).
constexpr std::size_t kSpillSlots = 2048;
constexpr std::size_t kSpillSlotNodes = TreeSettings::kMostStackNodes;
// The pool's slots for `bodies` bodies: at most one a group.
std::size_t spillSlotsFor(std::size_t bodies);

// What the tree's buffers take for `bodies` bodies, in bytes: in all, the largest of the arrays
// that may move into textures, and the largest of those that stay buffers.
struct BufferSizes {
  std::size_t total = 0, largestArray = 0, largestBuffer = 0;
};
BufferSizes bufferSizesFor(std::size_t bodies);

// Where the tree's arrays may go on a GPU: the bytes of one shader storage block, the largest
// array kept in a buffer (one block; tests take less, to reach the textures at small N), and the
// width (a power of two) and the most rows of the textures that hold them beyond that.
struct ArrayLimits {
  std::size_t blockBytes = 0, arrayBytes = 0;
  int textureWidth = 0, textureRows = 0;
  // A decomposed tree's: the most bytes its state moves through in one buffer (0: blockBytes).
  std::size_t pieceBytes = 0;
};
ArrayLimits arrayLimitsOf(const gl::Limits& limits);
// Where the arrays of `bodies` bodies go under `limits`.
ArrayStorage storageFor(std::size_t bodies, const ArrayLimits& limits);
// Throws std::runtime_error where they go nowhere: a buffer that stays one over a block, or an
// array taller than a texture may be.
void checkArraysFit(std::size_t bodies, const ArrayLimits& limits);
// The most records arrays in `storage` hold under `limits`: no buffer over one block and, where
// they are textures, none taller than the GPU allows (536M records on NVIDIA's 32768 rows).
std::size_t mostRecords(const ArrayStorage& storage, const ArrayLimits& limits);

// A texture holding records of an array in textures from its first texel, rows of 2^widthLog2
// texels, for a write, read or move that goes through it (tree_buffers.cpp).
struct RecordScratch {
  gl::Texture texture;
  GLenum internalFormat = 0;
  int widthLog2 = 0, rows = 1;
};

using gl::ensureBuffer;
using gl::GrowingBuffer;

class TreeBuffers {
 public:
  // Makes sure every array holds `bodies` bodies (reallocating all where they are too small), in
  // the storage storageFor(bodies, limits) gives.
  void reserve(std::size_t bodies, const ArrayLimits& limits);
  // A decomposed tree's walker's (tree_decomposed.h): every array holds `records` bodies and
  // internal nodes + 1 (its slots: its home, its segment, what the frontier and its LETs bring;
  // at most `bodyCount`), the walk's group arrays `bodyCount` bodies' groups (they take global
  // group indices), in the storage storageFor(bodyCount, limits) gives. Where the storage stays,
  // arrays that grow keep what they held (an evaluation grows them between its passes) and the
  // new ones are bound (bindAll); the slot hash stays as written.
  void reserveWalker(std::size_t records, std::size_t bodyCount, const ArrayLimits& limits);
  const ArrayStorage& storage() const { return storage_; }
  // Binds every buffer to its binding and every array texture to its texture and image units; the
  // sort's keys and values A as input, B as output.
  void bindAll() const;
  // Binds the sort's ping-pong arrays: pass p reads A and writes B when p is even.
  void bindSortPass(int pass) const;
  // The buffer at `binding`; throws std::logic_error for an array held in a texture.
  GLuint buffer(Binding binding) const;
  // The first `words` 32-bit words of the array at `binding`, from its buffer or its texture (a
  // float's bits as held).
  std::vector<std::uint32_t> readWords(Binding binding, std::size_t words) const;
  // `bytes` from `offset` of the buffer at `binding` into `out` (throws as buffer() does).
  void readBuffer(Binding binding, std::size_t offset, std::size_t bytes, void* out) const;
  // Records [first, first + count) of an array of kTextureArrays (their words).
  std::vector<std::uint32_t> readRecords(Binding binding, std::size_t first,
                                         std::size_t count) const;
  // Record `index` of an array of kTextureArrays (its words), from its buffer or its texture.
  std::vector<std::uint32_t> readRecord(Binding binding, std::size_t index) const;
  // Writes record `index` of such an array (its words).
  void writeRecord(Binding binding, std::size_t index, std::span<const std::uint32_t> words) const;
  // Moves records [from, from + count) of such an array to [to, to + count) (the ranges may
  // overlap), on the GPU.
  void moveRecords(Binding binding, std::size_t from, std::size_t to, std::size_t count);
  // Writes records `first`, `first` + 1, ... of such an array: `words` holds whole records. Each
  // call waits for the shaders' stores before it (a barrier): write runs of records at once.
  void writeRecords(Binding binding, std::size_t first, std::span<const std::uint32_t> words) const;
  // The arrays `which` freed, and the record moves' scratch: a large decomposed walker holds
  // some arrays only while it uses them (tree_decomposed.h). Until restoreArrays the reserves
  // leave them out.
  void releaseArrays(std::span<const Binding> which);
  // The arrays released made again at the capacity of the others, holding nothing yet, and then
  // every array bound (bindAll).
  void restoreArrays();
  std::size_t spillSlots() const { return spillSlotsFor(capacity_); }
  std::size_t capacity() const { return capacity_; }  // bodies (and internal nodes + 1)
  // A walker's slot hash (shaders/tree_slots.glsl) of `entries` (global reference, slot), with no
  // misses counted, bound; until the next reserve that reallocates. Filled on the GPU
  // (tree_hash.comp), with room for `more` (LetSelection::place's). Returns its entries (a power
  // of two, at least twice as many), SlotMap::hashEntries.
  std::size_t writeSlotHash(Kernels& kernels, std::span<const std::array<std::uint32_t, 2>> entries,
                            std::size_t more = 0);
  // The references the kernels looked for in the hash and did not find, since it was written.
  std::uint32_t readSlotMisses() const;

 private:
  void bindArray(Binding role, Binding holder) const;
  void allocate(std::size_t records, std::size_t groupBodies, const ArrayStorage& storage,
                int textureWidth, bool keep);
  void allocateArray(Binding binding, std::size_t records, std::size_t had,
                     const ArrayStorage& storage, int textureWidth, bool keep);

  std::array<gl::Buffer, kBindingCount> buffers_;
  GrowingBuffer moving_;        // moveRecords' staging
  RecordScratch movingTexels_;  // the same where the arrays are textures
  // The reads of a few words or records (readBuffer and those that go through it):
  // glGetNamedBufferSubData of a large buffer just written by the GPU copies all of it to the
  // host first on NVIDIA (performance-history round 57).
  mutable gl::HostParcel readback_;
  GrowingBuffer hashEntries_;  // writeSlotHash's entries
  std::size_t slotHashBytes_ = 0;
  std::array<gl::Texture, kBindingCount> textures_;  // kTextureArrays' bindings, where in textures
  ArrayStorage storage_;
  std::size_t capacity_ = 0;     // bodies
  std::size_t groupBodies_ = 0;  // the bodies whose groups kGroupStats and kPotential hold
  std::array<bool, kBindingCount> released_{};  // releaseArrays' arrays, not held
};

}  // namespace nbody::tree
