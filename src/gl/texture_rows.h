#pragma once
// Reads and writes of a whole texture level 0 in bands of rows, each band under what one call
// moves: glGetTextureImage's buffer size is a GLsizei, so one read returns at most 2 GiB, while a
// state texture of 500M bodies holds 8 GB. The texels come out and go in as one read would move
// them: row after row, layer after layer.

#include <cstddef>

#include <glm/vec3.hpp>

#include "gl/objects.h"
#include "gl/state_access.h"

namespace nbody::gl {

// What one band moves at most: a power of two under GLsizei's largest value.
inline constexpr std::size_t kLargestBandBytes = std::size_t(1) << 30;

// A texture's level 0 as the transfers see it: width, height, layers (1 for a 2-D texture), and
// its texels' client format, type and size in bytes.
struct TextureShape {
  glm::ivec3 size{0, 0, 1};
  GLenum format = GL_RGBA, type = GL_FLOAT;
  std::size_t texelBytes = 16;
  GLenum target = GL_TEXTURE_2D;  // or GL_TEXTURE_2D_ARRAY
  std::size_t bytes() const {
    return std::size_t(size.x) * std::size_t(size.y) * std::size_t(size.z) * texelBytes;
  }
};

// Reads `texture` into `out` (shape.bytes() bytes), or, with a buffer bound to
// GL_PIXEL_PACK_BUFFER, into that buffer from the offset `out` stands for.
void readTextureRows(GLuint texture, const TextureShape& shape, void* out,
                     std::size_t bandBytes = kLargestBandBytes);
// Writes `in` (shape.bytes() bytes) into `texture`, a 2-D texture.
void writeTextureRows(GLuint texture, const TextureShape& shape, const void* in,
                      std::size_t bandBytes = kLargestBandBytes);

}  // namespace nbody::gl
