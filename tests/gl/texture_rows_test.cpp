// Banded texture transfers (gl/texture_rows.h) against one whole-texture call: the same texels in
// the same order, whatever the band, for 2-D and array textures, into memory and into a bound
// pixel-pack buffer; by direct state access (4.5) and at the GL 4.1 / ES 3.0 subset (410: the
// texture bound to be written, read through a framebuffer).

#include <cstdint>
#include <optional>
#include <vector>

#include "gl/objects.h"
#include "gl/texture_rows.h"
#include "gl_test.h"

namespace nbody {
namespace {

class TextureRowsTest : public test::GlTest, public ::testing::WithParamInterface<const char*> {
 protected:
  void SetUp() override {
    test::GlTest::SetUp();
    target_.emplace(GetParam());
  }
  void TearDown() override {
    target_.reset();
    test::GlTest::TearDown();
  }

 private:
  std::optional<test::GlTargetSet> target_;
};

// A texture of `size` (z layers: an array texture where z > 1) with RGBA32UI texels, uninitialized.
gl::Texture makeTexture(glm::ivec3 size) {
  GLuint id = 0;
  glCreateTextures(size.z > 1 ? GL_TEXTURE_2D_ARRAY : GL_TEXTURE_2D, 1, &id);
  if (size.z > 1)
    glTextureStorage3D(id, 1, GL_RGBA32UI, size.x, size.y, size.z);
  else
    glTextureStorage2D(id, 1, GL_RGBA32UI, size.x, size.y);
  return gl::Texture(id);
}

gl::TextureShape shapeOf(glm::ivec3 size) {
  return {size, GL_RGBA_INTEGER, GL_UNSIGNED_INT, 16,
          GLenum(size.z > 1 ? GL_TEXTURE_2D_ARRAY : GL_TEXTURE_2D)};
}

// Texel words numbered in the order one whole read returns them.
std::vector<std::uint32_t> numbered(glm::ivec3 size) {
  std::vector<std::uint32_t> words(std::size_t(size.x) * std::size_t(size.y) * std::size_t(size.z) *
                                   4);
  for (std::size_t k = 0; k < words.size(); ++k) words[k] = std::uint32_t(k * 2654435761u);
  return words;
}

std::vector<std::uint32_t> wholeRead(GLuint texture, glm::ivec3 size) {
  std::vector<std::uint32_t> words(numbered(size).size());
  glGetTextureImage(texture, 0, GL_RGBA_INTEGER, GL_UNSIGNED_INT, GLsizei(words.size() * 4),
                    words.data());
  return words;
}

TEST_P(TextureRowsTest, BandsWriteWhatOneReadReturns) {
  const glm::ivec3 size{24, 37, 1};
  const std::size_t rowBytes = 24 * 16;
  for (std::size_t band : {rowBytes, 5 * rowBytes + 7, 36 * rowBytes, gl::kLargestBandBytes}) {
    gl::Texture texture = makeTexture(size);
    gl::writeTextureRows(texture.id(), shapeOf(size), numbered(size).data(), band);
    EXPECT_EQ(wholeRead(texture.id(), size), numbered(size)) << "bands of " << band << " bytes";
  }
}

TEST_P(TextureRowsTest, BandsReadWhatOneReadReturnsFromEveryLayer) {
  const glm::ivec3 size{16, 11, 3};
  gl::Texture texture = makeTexture(size);
  const std::vector<std::uint32_t> words = numbered(size);
  glTextureSubImage3D(texture.id(), 0, 0, 0, 0, size.x, size.y, size.z, GL_RGBA_INTEGER,
                      GL_UNSIGNED_INT, words.data());
  for (std::size_t band :
       {std::size_t(16 * 16), std::size_t(4 * 16 * 16 - 1), gl::kLargestBandBytes}) {
    std::vector<std::uint32_t> read(words.size(), 0);
    gl::readTextureRows(texture.id(), shapeOf(size), read.data(), band);
    EXPECT_EQ(read, words) << "bands of " << band << " bytes";
  }
}

TEST_P(TextureRowsTest, BandsReadIntoABoundPixelBufferAtItsOffset) {
  const glm::ivec3 size{8, 9, 1};
  gl::Texture texture = makeTexture(size);
  const std::vector<std::uint32_t> words = numbered(size);
  gl::writeTextureRows(texture.id(), shapeOf(size), words.data());
  const std::size_t offset = 64, bytes = words.size() * 4;
  GLuint id = 0;
  glCreateBuffers(1, &id);  // an object at once, for the reference's calls at either level
  gl::Buffer buffer(id);
  glNamedBufferStorage(buffer.id(), GLsizeiptr(offset + bytes), nullptr, GL_DYNAMIC_STORAGE_BIT);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, buffer.id());
  gl::readTextureRows(texture.id(), shapeOf(size), reinterpret_cast<void*>(offset), 2 * 8 * 16);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  std::vector<std::uint32_t> read(words.size(), 0);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  glGetNamedBufferSubData(buffer.id(), GLintptr(offset), GLsizeiptr(bytes), read.data());
  EXPECT_EQ(read, words);
}

INSTANTIATE_TEST_SUITE_P(EveryLevel, TextureRowsTest, ::testing::Values("450", "410"));

}  // namespace
}  // namespace nbody
