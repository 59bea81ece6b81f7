#pragma once
// Writes TIPSY files for the tests, byte by byte and independently of src/io: the header, then gas,
// dark and star particles, in either byte order.

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

namespace nbody::test {

struct TipsyParticle {
  float mass, x, y, z, vx, vy, vz;
};

class TipsyWriter {
 public:
  explicit TipsyWriter(bool bigEndian) : bigEndian_(bigEndian) {}

  std::string write(double time, const std::vector<TipsyParticle>& gas,
                    const std::vector<TipsyParticle>& dark,
                    const std::vector<TipsyParticle>& stars) {
    bytes_.clear();
    putUnsigned(std::bit_cast<std::uint64_t>(time), 8);
    const auto total = gas.size() + dark.size() + stars.size();
    for (std::size_t count :
         {total, std::size_t{3}, gas.size(), dark.size(), stars.size(), std::size_t{0}})
      putUnsigned(count, 4);
    putParticles(gas, 5);    // rho, temp, hsmooth, metals, phi
    putParticles(dark, 2);   // eps, phi
    putParticles(stars, 4);  // metals, tform, eps, phi
    return bytes_;
  }

 private:
  void putUnsigned(std::uint64_t value, int size) {
    for (int k = 0; k < size; ++k) {
      const int byte = bigEndian_ ? size - 1 - k : k;
      bytes_ += char((value >> (8 * byte)) & 0xFF);
    }
  }
  void putFloat(float value) { putUnsigned(std::bit_cast<std::uint32_t>(value), 4); }
  void putParticles(const std::vector<TipsyParticle>& particles, int extraFloats) {
    for (const TipsyParticle& p : particles) {
      for (float value : {p.mass, p.x, p.y, p.z, p.vx, p.vy, p.vz}) putFloat(value);
      for (int k = 0; k < extraFloats; ++k) putFloat(-99.0f);  // never imported
    }
  }

  bool bigEndian_;
  std::string bytes_;
};

}  // namespace nbody::test
