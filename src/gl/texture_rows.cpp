#include "gl/texture_rows.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace nbody::gl {
namespace {

// Rows of one band: as many whole rows as `bandBytes` holds, at least one.
int rowsPerBand(const TextureShape& shape, std::size_t bandBytes) {
  const std::size_t rowBytes = std::size_t(shape.size.x) * shape.texelBytes;
  if (rowBytes > kLargestBandBytes)
    throw std::logic_error("a texture row wider than one transfer moves");
  return int(std::clamp<std::size_t>(bandBytes / rowBytes, 1, std::size_t(shape.size.y)));
}

// Calls move(y, z, rows, byteOffset) for each band of every layer, in the order of the texels.
template <typename Move>
void forEachBand(const TextureShape& shape, std::size_t bandBytes, Move move) {
  if (shape.bytes() == 0) return;
  const int rows = rowsPerBand(shape, bandBytes);
  const std::size_t rowBytes = std::size_t(shape.size.x) * shape.texelBytes;
  std::size_t offset = 0;
  for (int z = 0; z < shape.size.z; ++z)
    for (int y = 0; y < shape.size.y; y += rows) {
      const int height = std::min(rows, shape.size.y - y);
      move(y, z, height, offset);
      offset += std::size_t(height) * rowBytes;
    }
}

// `base` + `offset` as a pointer: also where `base` stands for an offset into a bound buffer.
void* advanced(void* base, std::size_t offset) {
  return reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(base) + offset);
}

}  // namespace

void readTextureRows(GLuint texture, const TextureShape& shape, void* out, std::size_t bandBytes) {
  const std::size_t rowBytes = std::size_t(shape.size.x) * shape.texelBytes;
  forEachBand(shape, bandBytes, [&](int y, int z, int rows, std::size_t offset) {
    readTexture(texture, shape.target, z, {0, y}, {shape.size.x, rows}, shape.format, shape.type,
                std::size_t(rows) * rowBytes, advanced(out, offset));
  });
}

void writeTextureRows(GLuint texture, const TextureShape& shape, const void* in,
                      std::size_t bandBytes) {
  if (shape.size.z != 1) throw std::logic_error("writeTextureRows writes 2-D textures");
  forEachBand(shape, bandBytes, [&](int y, int, int rows, std::size_t offset) {
    writeTexture2D(texture, {0, y}, {shape.size.x, rows}, shape.format, shape.type,
                   advanced(const_cast<void*>(in), offset));
  });
}

}  // namespace nbody::gl
