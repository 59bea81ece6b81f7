#include "io/png.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <utility>

#include <stb_image.h>
#include <stb_image_write.h>
#include <zlib.h>

#include "io/input_file.h"
#include "util/printable_text.h"

namespace nbody {
namespace {

// stb calls this from C: it must not throw. A failed write is kept by the file and thrown by
// flush().
void appendToFile(void* context, void* data, int size) {
  static_cast<OutputFile*>(context)->tryWrite(data, std::size_t(size));
}

std::string cannotRead(const std::filesystem::path& path, const std::string& why) {
  return "cannot read " + path.string() + ": " + why;
}

// "more than the 268435456 (16384 x 16384) nbody handles"
std::string moreThanNbodyHandles() {
  const auto side = std::uint64_t(std::llround(std::sqrt(double(kLargestPicturePixels))));
  return "more than the " + std::to_string(kLargestPicturePixels) + " (" + std::to_string(side) +
         " x " + std::to_string(side) + ") nbody handles";
}

void checkSize(const std::filesystem::path& path, int width, int height) {
  if (width <= 0 || height <= 0 ||
      std::uint64_t(width) * std::uint64_t(height) > kLargestPicturePixels)
    throw std::runtime_error(path.string() + ": " + std::to_string(width) + " x " +
                             std::to_string(height) + " pixels, " + moreThanNbodyHandles());
}

// What stb_image's terse reason means for a picture that passed the signature check, in words
// that say what is wrong with it.
std::string whatIsWrong(const std::string& reason) {
  static const std::pair<const char*, const char*> kMeanings[] = {
      {"outofmem", "decoding it needs more memory than is left"},
      {"first not IHDR", "it is damaged: its first chunk is not the header (IHDR)"},
      {"bad IHDR len", "it is damaged: its header chunk (IHDR) has the wrong length"},
      {"too large", "its header announces a size too large to decode"},
      {"0-pixel image", "its header announces 0 pixels"},
      {"1/2/4/8/16-bit only", "its bit depth is not one PNG has (1, 2, 4, 8 or 16)"},
      {"bad ctype", "its colour type is not one PNG has"},
      {"bad comp method", "its header names a compression method PNG does not have"},
      {"bad filter method", "its header names a filter method PNG does not have"},
      {"bad interlace method", "its header names an interlace method PNG does not have"},
      {"no IDAT", "it holds no image data (no IDAT chunk): it is cut short or damaged"},
      {"outofdata", "its image data end too soon: it is cut short"},
      {"not enough pixels",
       "its image data hold fewer pixels than its header announces: it is cut short"},
  };
  for (const auto& [terse, meaning] : kMeanings)
    if (reason == terse) return meaning;
  if (reason.ends_with(" PNG chunk not known"))
    return "it is damaged: it holds a chunk PNG does not know (" + printable(reason.substr(0, 4)) +
           ")";
  return "its image data are damaged (the decoder said: " + printable(reason, 40) + ")";
}

std::uint32_t bigEndian32(std::string_view bytes) {
  std::uint32_t value = 0;
  for (const char byte : bytes.substr(0, 4))
    value = (value << 8) | static_cast<unsigned char>(byte);
  return value;
}

// What is wrong with the chunks, up to the last one (IEND): a file that ends before they do, a
// chunk whose CRC does not match its bytes; "" when nothing is. A picture cut short is the
// commonest damage, and a flipped byte the next, which the decoder says in no words of its own
// (stb_image checks no CRC).
std::string damagedChunk(std::string_view bytes) {
  for (std::size_t at = 8; at + 8 <= bytes.size();) {
    const std::uint64_t chunkBytes = 12 + std::uint64_t(bigEndian32(bytes.substr(at)));
    const std::string type = printable(bytes.substr(at + 4, 4));
    if (at + chunkBytes > bytes.size())
      return "it is cut short: its " + type + " chunk needs " + std::to_string(chunkBytes) +
             " bytes, and " + std::to_string(bytes.size() - at) + " are left";
    const std::string_view checked = bytes.substr(at + 4, std::size_t(chunkBytes) - 8);
    const auto crc = std::uint32_t(
        ::crc32(0, reinterpret_cast<const Bytef*>(checked.data()), uInt(checked.size())));
    if (crc != bigEndian32(bytes.substr(at + std::size_t(chunkBytes) - 4)))
      return "it is damaged: its " + type + " chunk at byte " + std::to_string(at) +
             " does not match its CRC";
    if (type == "IEND") return {};
    at += std::size_t(chunkBytes);
  }
  return "it is cut short: its " + std::to_string(bytes.size()) +
         " bytes end before its last chunk (IEND)";
}

// The size the header chunk (IHDR, first) announces, checked before the decoder sees it: stb_image
// refuses a picture of more than 2^30 bytes as "unknown image type".
void checkAnnouncedSize(const std::filesystem::path& path, std::string_view bytes) {
  if (bytes.size() < 24 || bytes.substr(12, 4) != "IHDR") return;  // the decoder says what is wrong
  const std::uint64_t width = bigEndian32(bytes.substr(16)), height = bigEndian32(bytes.substr(20));
  if (width == 0 || height == 0)
    throw std::runtime_error(cannotRead(path, "its header announces " + std::to_string(width) +
                                                  " x " + std::to_string(height) +
                                                  " pixels, none to compare"));
  if (width * height > kLargestPicturePixels)
    throw std::runtime_error(path.string() + ": " + std::to_string(width) + " x " +
                             std::to_string(height) + " pixels, " + moreThanNbodyHandles());
}

}  // namespace

void writePng(const Image& image, OutputFile& file) {
  checkSize(file.target(), image.width, image.height);
  std::vector<std::uint8_t> rgb;
  rgb.reserve(image.rgba.size() / 4 * 3);
  for (std::size_t k = 0; k < image.rgba.size(); k += 4)
    rgb.insert(rgb.end(), image.rgba.begin() + std::ptrdiff_t(k),
               image.rgba.begin() + std::ptrdiff_t(k + 3));
  if (!stbi_write_png_to_func(appendToFile, &file, image.width, image.height, 3, rgb.data(),
                              image.width * 3))
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
  static constexpr std::string_view kSignature = "\x89PNG\r\n\x1a\n";
  if (!std::string_view(bytes).starts_with(kSignature))
    throw std::runtime_error(
        cannotRead(path, "it is not a PNG picture (it does not start with PNG's signature, " +
                             printable(kSignature) + ")"));
  checkAnnouncedSize(path,
                     bytes);  // first: a few bytes may announce gigabytes, whatever else is damaged
  if (const std::string damage = damagedChunk(bytes); !damage.empty())
    throw std::runtime_error(cannotRead(path, damage));
  int width = 0, height = 0, channels = 0;
  if (!stbi_info_from_memory(data, length, &width, &height, &channels))
    throw std::runtime_error(cannotRead(path, whatIsWrong(stbi_failure_reason())));
  checkSize(path, width, height);
  std::unique_ptr<stbi_uc, void (*)(void*)> pixels(
      stbi_load_from_memory(data, length, &width, &height, &channels, 4), stbi_image_free);
  if (!pixels) throw std::runtime_error(cannotRead(path, whatIsWrong(stbi_failure_reason())));
  Image image(width, height);
  std::copy(pixels.get(), pixels.get() + image.rgba.size(), image.rgba.begin());
  return image;
}

}  // namespace nbody
