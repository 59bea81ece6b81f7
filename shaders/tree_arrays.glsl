// The tree's arrays of one to two records per body (tree_layout.h lists them) as the kernels
// declare them: each kernel names the arrays it uses through READ_ARRAY, WRITE_ARRAY and
// SHARED_ARRAY (read and written by the invocations of one dispatch, so `coherent`), and reads
// and writes their records only through the functions these define.
//
// Where the largest of them fits one shader storage block (TREE_ARRAYS_IN_TEXTURES 0), each is a
// buffer. Beyond that (NVIDIA's blocks end at 2 GiB: 67M bodies of 32-byte node records), each is
// a 2-D texture of 2^ARRAY_WIDTH_LOG2 texels a row, element i at texel (i mod width, i / width):
// read through a sampler at texture unit ARRAY_TEXTURE_UNITS + its binding, written through the
// image unit the kernel names (the I_* defines). A texture holds up to 2^30 records of any size on
// a GPU whose textures reach 32768 texels a side.
//
// Arguments: b the buffer binding (B_*), Block the buffer block's name, T the record's type, array
// the array's name, gsampler / gimage and format its texture's types, swizzle what of a texel T
// takes (.x, .xy or .xyzw), at / set the functions defined: T at(uint i), void set(uint i, T value).
// arrayBarrier() orders a kernel's stores to its arrays before its later loads (with those of
// other invocations, as memoryBarrierBuffer() does for buffers).

#ifndef TREE_ARRAYS_IN_TEXTURES
#define TREE_ARRAYS_IN_TEXTURES 0
#endif

#if TREE_ARRAYS_IN_TEXTURES

ivec2 arrayTexel(uint i) { return ivec2(i & ((1u << ARRAY_WIDTH_LOG2) - 1u), i >> ARRAY_WIDTH_LOG2); }
uvec4 texelOf(uint value) { return uvec4(value, 0u, 0u, 0u); }
uvec4 texelOf(uvec2 value) { return uvec4(value, 0u, 0u); }
uvec4 texelOf(uvec4 value) { return value; }
vec4 texelOf(vec4 value) { return value; }

#define READ_ARRAY(b, Block, T, array, gsampler, swizzle, at)              \
  layout(binding = ARRAY_TEXTURE_UNITS + b) uniform gsampler array;       \
  T at(uint i) { return texelFetch(array, arrayTexel(i), 0) swizzle; }
#define WRITE_ARRAY(b, unit, Block, T, array, gimage, format, set)        \
  layout(binding = unit, format) writeonly uniform gimage array;          \
  void set(uint i, T value) { imageStore(array, arrayTexel(i), texelOf(value)); }
#define SHARED_ARRAY(b, unit, Block, T, array, gimage, format, swizzle, at, set) \
  layout(binding = unit, format) coherent uniform gimage array;                 \
  T at(uint i) { return imageLoad(array, arrayTexel(i)) swizzle; }              \
  void set(uint i, T value) { imageStore(array, arrayTexel(i), texelOf(value)); }
#define arrayBarrier() memoryBarrier()

#else

#define READ_ARRAY(b, Block, T, array, gsampler, swizzle, at)              \
  layout(std430, binding = b) readonly buffer Block { T array[]; };        \
  T at(uint i) { return array[i]; }
#define WRITE_ARRAY(b, unit, Block, T, array, gimage, format, set)        \
  layout(std430, binding = b) writeonly buffer Block { T array[]; };       \
  void set(uint i, T value) { array[i] = value; }
#define SHARED_ARRAY(b, unit, Block, T, array, gimage, format, swizzle, at, set) \
  layout(std430, binding = b) coherent buffer Block { T array[]; };             \
  T at(uint i) { return array[i]; }                                             \
  void set(uint i, T value) { array[i] = value; }
#define arrayBarrier() memoryBarrierBuffer()

#endif
