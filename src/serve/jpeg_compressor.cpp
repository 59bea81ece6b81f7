#include "serve/jpeg_compressor.h"

#include <turbojpeg.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace nbody {
namespace {

// TurboJPEG's reason as one line (its messages are, but a line break would split a log line).
std::runtime_error turboJpegError(void* handle, const char* what) {
  std::string reason = tjGetErrorStr2(handle);
  std::replace(reason.begin(), reason.end(), '\n', ' ');
  return std::runtime_error(std::string(what) + ": " + reason);
}

}  // namespace

void checkRgbaPicture(const RgbaPictureView& picture) {
  if (picture.width < 1 || picture.height < 1)
    throw std::invalid_argument("a JPEG picture needs at least one pixel");
  const std::size_t bytes = std::size_t(picture.width) * std::size_t(picture.height) * 4;
  if (picture.bottomUpRgba.size() != bytes)
    throw std::invalid_argument("an RGBA picture of " + std::to_string(picture.width) + " x " +
                                std::to_string(picture.height) + " pixels has " +
                                std::to_string(bytes) + " bytes, not " +
                                std::to_string(picture.bottomUpRgba.size()));
}

void JpegCompressor::HandleCloser::operator()(void* handle) const noexcept { tjDestroy(handle); }

JpegCompressor::JpegCompressor() : handle_(tjInitCompress()) {
  if (!handle_) throw turboJpegError(nullptr, "cannot make a JPEG compressor");
}

JpegCompressor::~JpegCompressor() = default;
JpegCompressor::JpegCompressor(JpegCompressor&&) noexcept = default;
JpegCompressor& JpegCompressor::operator=(JpegCompressor&&) noexcept = default;

std::vector<std::uint8_t> JpegCompressor::compress(const RgbaPictureView& picture, int quality) {
  checkRgbaPicture(picture);
  if (quality < 1 || quality > 100)
    throw std::invalid_argument("a JPEG quality is 1 to 100, not " + std::to_string(quality));
  // The worst case, so TurboJPEG never reallocates (TJFLAG_NOREALLOC): the scratch buffer grows
  // only when the picture does, and the JPEG is then copied out at its exact size, small enough
  // to be held by every viewer it is on its way to.
  const unsigned long worstCase = tjBufSize(picture.width, picture.height, TJSAMP_420);
  if (worstCase == static_cast<unsigned long>(-1))
    throw turboJpegError(nullptr, "cannot size a JPEG buffer");
  if (scratch_.size() < worstCase) scratch_.resize(worstCase);
  unsigned char* output = scratch_.data();
  unsigned long outputBytes = scratch_.size();
  // TurboJPEG reads the pixels only; its C API predates const.
  auto* pixels = const_cast<unsigned char*>(picture.bottomUpRgba.data());
  if (tjCompress2(handle_.get(), pixels, picture.width, 0, picture.height, TJPF_RGBA, &output,
                  &outputBytes, TJSAMP_420, quality, TJFLAG_BOTTOMUP | TJFLAG_NOREALLOC) != 0)
    throw turboJpegError(handle_.get(), "JPEG encoding failed");
  return std::vector<std::uint8_t>(scratch_.begin(),
                                   scratch_.begin() + std::ptrdiff_t(outputBytes));
}

std::vector<std::uint8_t> encodeJpeg(const RgbaPictureView& picture, int quality) {
  return JpegCompressor().compress(picture, quality);
}

}  // namespace nbody
