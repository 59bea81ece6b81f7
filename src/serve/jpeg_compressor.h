#pragma once
// JPEG encoding of the pictures `nbody serve` sends (docs/serve.md, "The encoder"), with
// libjpeg-turbo's TurboJPEG API. The pixels are taken as OpenGL reads them back: RGBA8, rows
// bottom-up, tightly packed (width * 4 bytes a row); TurboJPEG reads that layout directly
// (TJPF_RGBA, TJFLAG_BOTTOMUP), so nothing is flipped or copied first. Chroma is subsampled 4:2:0,
// which makes a window's frame about a quarter smaller and faster than 4:4:4; alpha is dropped.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace nbody {

// The largest width or height a JPEG file may have (libjpeg's JPEG_MAX_DIMENSION).
inline constexpr int kMostJpegSide = 65500;

// The picture's bytes must number width * height * 4.
struct RgbaPictureView {
  std::span<const std::uint8_t> bottomUpRgba;
  int width = 0;
  int height = 0;
};

// Throws std::invalid_argument unless the picture has at least one pixel and its byte count is
// width * height * 4.
void checkRgbaPicture(const RgbaPictureView& picture);

// One TurboJPEG compressor and the scratch buffer it writes into, both kept from one picture to
// the next, so that encoding a stream allocates only each JPEG it returns. Used by one thread at a
// time.
class JpegCompressor {
 public:
  // Throws std::runtime_error when TurboJPEG cannot make a compressor.
  JpegCompressor();
  ~JpegCompressor();
  JpegCompressor(JpegCompressor&&) noexcept;
  JpegCompressor& operator=(JpegCompressor&&) noexcept;

  // A whole JPEG file (baseline, 4:2:0) of `picture` at `quality` (1 = smallest, 100 = best).
  // Throws std::invalid_argument for a picture checkRgbaPicture refuses or a quality outside
  // 1..100, and std::runtime_error (one line, TurboJPEG's
  // reason) for what TurboJPEG refuses, such as a side above kMostJpegSide.
  std::vector<std::uint8_t> compress(const RgbaPictureView& picture, int quality);

 private:
  struct HandleCloser {
    void operator()(void* handle) const noexcept;
  };
  std::unique_ptr<void, HandleCloser> handle_;
  std::vector<std::uint8_t> scratch_;  // the worst case for the size last compressed
};

// compress() of a compressor made for this one picture.
std::vector<std::uint8_t> encodeJpeg(const RgbaPictureView& picture, int quality);

}  // namespace nbody
