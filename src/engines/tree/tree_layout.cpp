#include "engines/tree/tree_layout.h"
#include "gl/desktop_calls.h"

namespace nbody::tree {

gl::Defines layoutDefines() {
  gl::Defines defines;
  for (GLuint b = 0; b < kBindingCount; ++b) defines.set(kBindingDefines[b], int(b));
  return defines.set("B_SPLIT", int(kSplitBinding))
      .set("B_LET_CHUNKS", int(kLetChunksBinding))
      .set("B_LET_MARKS", int(kLetMarksBinding))
      .set("B_LET_LISTS", int(kLetListsBinding))
      .set("RADIX", int(kRadix))
      .set("SORT_THREADS", int(kSortThreads))
      .set("SORT_ITEMS", int(kSortItems))
      .set("SORT_BLOCK", int(kSortBlock));
}

const TextureArray* textureArrayOf(Binding binding) {
  for (const TextureArray& array : kTextureArrays)
    if (array.binding == binding) return &array;
  return nullptr;
}

gl::Defines ArrayStorage::defines() const {
  gl::Defines defines{{"TREE_ARRAYS_IN_TEXTURES", inTextures ? 1 : 0},
                      {"ARRAY_WIDTH_LOG2", widthLog2},
                      {"ARRAY_TEXTURE_UNITS", kArrayTextureUnits}};
  for (const TextureArray& array : kTextureArrays)
    if (array.imageDefine) defines.set(array.imageDefine, array.imageUnit);
  return defines;
}

GLbitfield ArrayStorage::barrierBits() const {
  return GL_SHADER_STORAGE_BARRIER_BIT |
         (inTextures ? GL_SHADER_IMAGE_ACCESS_BARRIER_BIT | GL_TEXTURE_FETCH_BARRIER_BIT
                     : GLbitfield(0));
}

}  // namespace nbody::tree
