#include "io/png.h"

#include <memory>
#include <stdexcept>

#include <stb_image.h>
#include <stb_image_write.h>

#include "io/atomic_file.h"

namespace nbody {
namespace {

void appendToStream(void* context, void* data, int size) {
  static_cast<std::ostream*>(context)->write(static_cast<const char*>(data), size);
}

}  // namespace

void writePng(const Image& image, const std::filesystem::path& path) {
  AtomicFileWriter file(path);
  std::vector<std::uint8_t> rgb;
  rgb.reserve(image.rgba.size() / 4 * 3);
  for (std::size_t k = 0; k < image.rgba.size(); k += 4)
    rgb.insert(rgb.end(), image.rgba.begin() + std::ptrdiff_t(k), image.rgba.begin() + std::ptrdiff_t(k + 3));
  if (!stbi_write_png_to_func(appendToStream, &file.stream(), image.width, image.height, 3,
                              rgb.data(), image.width * 3))
    throw std::runtime_error("cannot encode " + path.string() + " as PNG");
  file.commit();
}

Image readPng(const std::filesystem::path& path) {
  int width = 0, height = 0, channels = 0;
  std::unique_ptr<stbi_uc, void (*)(void*)> pixels(
      stbi_load(path.c_str(), &width, &height, &channels, 4), stbi_image_free);
  if (!pixels)
    throw std::runtime_error("cannot read " + path.string() + ": " +
                             (std::filesystem::exists(path) ? stbi_failure_reason() : "no such file"));
  Image image(width, height);
  std::copy(pixels.get(), pixels.get() + image.rgba.size(), image.rgba.begin());
  return image;
}

}  // namespace nbody
