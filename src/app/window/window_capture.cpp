#include "app/window/window_capture.h"

#include <algorithm>
#include <ctime>
#include <filesystem>

#include <glad/gl.h>

#include "io/gadget.h"
#include "io/output_file.h"

namespace nbody {

Image readPicture(const DrawTarget& target) {
  const glm::ivec2 size = target.size;
  Image flipped(size.x, size.y);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, target.framebuffer);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  glReadBuffer(target.readBuffer);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);  // RGBA8 rows are whole words
  glReadPixels(0, 0, size.x, size.y, GL_RGBA, GL_UNSIGNED_BYTE, flipped.rgba.data());
  Image image(size.x, size.y);
  const std::size_t row = std::size_t(size.x) * 4;
  for (int y = 0; y < size.y; ++y)
    std::copy_n(flipped.rgba.data() + std::size_t(size.y - 1 - y) * row, row,
                image.rgba.data() + std::size_t(y) * row);
  return image;
}

namespace {

// The absolute path of nbody-YYYYMMDD-HHMMSS (now) in the current folder.
std::string stampedBase() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char stamp[64];
  std::strftime(stamp, sizeof stamp, "nbody-%Y%m%d-%H%M%S", &local);
  return std::filesystem::absolute(stamp).string();
}

// Two saves in one second must not replace each other: -2, -3, ... after the first.
std::string numberedName(const std::string& base, int k, const std::string& extension) {
  return k == 1 ? base + extension
                : std::string(base).append("-").append(std::to_string(k)).append(extension);
}

bool nameInUse(const std::filesystem::path& path) {
  return std::filesystem::exists(std::filesystem::symlink_status(path));
}

}  // namespace

std::string timestampedName(const std::string& extension) {
  const std::string base = stampedBase();
  const auto numbered = [base, extension](int k) { return numberedName(base, k, extension); };
  int k = 1;
  while (nameInUse(numbered(k))) ++k;
  // Another window in this folder may choose the same name before this one's file appears: it is
  // renamed into place only if the name is still free, else under the next.
  expectNewName(numbered(k),
                [numbered, k](const std::filesystem::path&) mutable { return numbered(++k); });
  return numbered(k);
}

std::string timestampedPartsName(int files) {
  const std::string base = stampedBase();
  const auto anyTaken = [&](const std::string& name) {
    for (int file = 0; file < files; ++file)
      if (nameInUse(gadgetPartPath(name, file))) return true;
    return nameInUse(name);
  };
  int k = 1;
  while (anyTaken(numberedName(base, k, ".hdf5"))) ++k;
  return numberedName(base, k, ".hdf5");
}

}  // namespace nbody
