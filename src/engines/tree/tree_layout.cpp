#include "engines/tree/tree_layout.h"

namespace nbody::tree {

gl::Defines layoutDefines() {
  gl::Defines defines;
  for (GLuint b = 0; b < kBindingCount; ++b) defines.set(kBindingDefines[b], int(b));
  return defines.set("RADIX", int(kRadix))
      .set("SORT_THREADS", int(kSortThreads))
      .set("SORT_ITEMS", int(kSortItems))
      .set("SORT_BLOCK", int(kSortBlock));
}

}  // namespace nbody::tree
