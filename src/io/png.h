#pragma once
// PNG files through stb_image_write and stb_image (their implementations come from Debian's libstb).

#include <filesystem>

#include "io/image.h"

namespace nbody {

// Writes an opaque RGB PNG (alpha is dropped) atomically: the file appears whole or not at all.
void writePng(const Image& image, const std::filesystem::path& path);
// Reads any PNG stb_image reads, as RGBA. Throws std::runtime_error naming the file and the problem.
Image readPng(const std::filesystem::path& path);

}  // namespace nbody
