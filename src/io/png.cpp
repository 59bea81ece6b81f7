#include "io/png.h"

#include <limits>
#include <memory>
#include <stdexcept>

#include <stb_image.h>
#include <stb_image_write.h>

#include "io/input_file.h"

namespace nbody {
namespace {

// stb calls this from C: it must not throw. A failed write is kept by the file and thrown by flush().
void appendToFile(void* context, void* data, int size) {
  static_cast<OutputFile*>(context)->tryWrite(data, std::size_t(size));
}

void checkSize(const std::filesystem::path& path, int width, int height) {
  if (width <= 0 || height <= 0 || std::uint64_t(width) * std::uint64_t(height) > kLargestPicturePixels)
    throw std::runtime_error(path.string() + ": " + std::to_string(width) + " x " + std::to_string(height) +
                             " pixels, more than the " + std::to_string(kLargestPicturePixels) +
                             " (16384 x 16384) nbody handles");
}

}  // namespace

void writePng(const Image& image, OutputFile& file) {
  checkSize(file.target(), image.width, image.height);
  std::vector<std::uint8_t> rgb;
  rgb.reserve(image.rgba.size() / 4 * 3);
  for (std::size_t k = 0; k < image.rgba.size(); k += 4)
    rgb.insert(rgb.end(), image.rgba.begin() + std::ptrdiff_t(k), image.rgba.begin() + std::ptrdiff_t(k + 3));
  if (!stbi_write_png_to_func(appendToFile, &file, image.width, image.height, 3, rgb.data(), image.width * 3))
    throw std::runtime_error("cannot encode " + file.target().string() + " as PNG");
  file.flush();
}

void writePng(const Image& image, const std::filesystem::path& path) {
  OutputFile file(path);
  writePng(image, file);
  file.commit();
}

Image readPng(const std::filesystem::path& path) {
  const std::string bytes = readInputFile(path);  // read once: the size checked is the size decoded
  const auto* data = reinterpret_cast<const stbi_uc*>(bytes.data());
  if (bytes.size() > std::size_t(std::numeric_limits<int>::max()))
    throw std::runtime_error("cannot read " + path.string() + ": larger than 2 GiB");
  const int length = int(bytes.size());
  int width = 0, height = 0, channels = 0;
  if (!stbi_info_from_memory(data, length, &width, &height, &channels))
    throw std::runtime_error("cannot read " + path.string() + ": " + stbi_failure_reason());
  checkSize(path, width, height);
  std::unique_ptr<stbi_uc, void (*)(void*)> pixels(stbi_load_from_memory(data, length, &width, &height, &channels, 4),
                                                    stbi_image_free);
  if (!pixels) throw std::runtime_error("cannot read " + path.string() + ": " + stbi_failure_reason());
  Image image(width, height);
  std::copy(pixels.get(), pixels.get() + image.rgba.size(), image.rgba.begin());
  return image;
}

}  // namespace nbody
