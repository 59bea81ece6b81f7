#pragma once
// Writes GADGET-2 binary files for the tests, byte by byte and independently of src/io: formats 1
// and 2, either byte order, float32 or float64, u32 or u64 IDs, masses in the MassTable or a MASS
// block, a gas block after them, num_files and npartTotal as given.

#include <array>
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

namespace nbody::test {

struct GadgetFile {
  std::array<std::int32_t, 6> count{};
  std::array<double, 6> massTable{};
  double time = 0.0, redshift = 0.0, omega0 = 0.0;
  std::array<std::uint32_t, 6> total{};  // npartTotal
  std::int32_t fileCount = 1;
  std::vector<double> position, velocity, mass;  // mass: only the MASS block's
  std::vector<std::uint64_t> id;
  bool format2 = false, bigEndian = false, doubles = false, wideIds = false, gasBlock = false;
};

class GadgetWriter {
 public:
  std::string write(const GadgetFile& file) {
    file_ = &file;
    bytes_.clear();
    std::string header;
    for (std::int32_t n : file.count) header += number(std::uint32_t(n), 4);
    for (double m : file.massTable) header += number(std::bit_cast<std::uint64_t>(m), 8);
    header += number(std::bit_cast<std::uint64_t>(file.time), 8) +
              number(std::bit_cast<std::uint64_t>(file.redshift), 8) + std::string(8, '\0');
    for (std::uint32_t n : file.total) header += number(n, 4);
    header += std::string(4, '\0') + number(std::uint32_t(file.fileCount), 4) +
              std::string(8, '\0') + number(std::bit_cast<std::uint64_t>(file.omega0), 8);
    header.resize(256, '\0');
    block("HEAD", header);
    block("POS ", reals(file.position));
    block("VEL ", reals(file.velocity));
    std::string ids;
    for (std::uint64_t id : file.id) ids += number(id, file.wideIds ? 8 : 4);
    block("ID  ", ids);
    if (!file.mass.empty()) block("MASS", reals(file.mass));
    if (file.gasBlock) block("U   ", reals(std::vector<double>(std::size_t(file.count[0]), 1.5)));
    return bytes_;
  }

 private:
  std::string number(std::uint64_t value, int size) const {
    std::string out;
    for (int k = 0; k < size; ++k) {
      const int byte = file_->bigEndian ? size - 1 - k : k;
      out += char((value >> (8 * byte)) & 0xFF);
    }
    return out;
  }
  std::string reals(const std::vector<double>& values) const {
    std::string out;
    for (double v : values)
      out += file_->doubles ? number(std::bit_cast<std::uint64_t>(v), 8)
                            : number(std::bit_cast<std::uint32_t>(float(v)), 4);
    return out;
  }
  void record(const std::string& payload) {
    bytes_ += number(payload.size(), 4) + payload + number(payload.size(), 4);
  }
  void block(const std::string& label, const std::string& payload) {
    if (file_->format2) record(label + number(payload.size() + 8, 4));
    record(payload);
  }

  const GadgetFile* file_ = nullptr;
  std::string bytes_;
};

}  // namespace nbody::test
