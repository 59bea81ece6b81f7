#pragma once
// PNG files through stb_image_write and stb_image (their implementations come from Debian's
// libstb).

#include <cstdint>
#include <filesystem>

#include "io/image.h"
#include "io/output_file.h"

namespace nbody {

// The most pixels a picture nbody reads or writes may have: 16384 x 16384, the largest `shot`
// makes. A PNG announcing more is refused before any pixel is decoded (a small file can announce
// gigabytes).
inline constexpr std::uint64_t kLargestPicturePixels = std::uint64_t(16384) * 16384;

// Encodes an opaque RGB PNG (alpha is dropped) into `file`, which the caller commits.
void writePng(const Image& image, OutputFile& file);
// The same into a file of its own, whole or not at all.
void writePng(const Image& image, const std::filesystem::path& path);
// Reads any PNG stb_image reads, as RGBA. Throws std::runtime_error naming the file and the
// problem.
Image readPng(const std::filesystem::path& path);

}  // namespace nbody
