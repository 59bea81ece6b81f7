#include "io/tipsy.h"

#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include "io/byte_order.h"

namespace nbody {
namespace {

struct TipsyHeader {
  bytes::Order order;
  double time = 0.0;
  std::int32_t bodies = 0, dimensions = 0, gas = 0, dark = 0, stars = 0;

  bool consistent() const {
    return gas >= 0 && dark >= 0 && stars >= 0 && bodies > 0 &&
           std::int64_t(bodies) == std::int64_t(gas) + dark + stars && dimensions >= 1 &&
           dimensions <= 3;
  }
  std::size_t fileBytes() const {
    return kTipsyHeaderBytes + std::size_t(gas) * kTipsyGasBytes +
           std::size_t(dark) * kTipsyDarkBytes + std::size_t(stars) * kTipsyStarBytes;
  }
};

TipsyHeader readHeader(std::string_view bytes, bytes::Order order) {
  bytes::Reader reader(bytes, order);
  TipsyHeader header{order};
  header.time = reader.getDouble();
  header.bodies = reader.getInt32();
  header.dimensions = reader.getInt32();
  header.gas = reader.getInt32();
  header.dark = reader.getInt32();
  header.stars = reader.getInt32();
  return header;
}

// The header in the byte order where it is consistent; where both are, the one the length fits.
std::optional<TipsyHeader> consistentHeader(std::string_view bytes) {
  if (bytes.size() < kTipsyHeaderBytes) return std::nullopt;
  std::optional<TipsyHeader> found;
  for (const bytes::Order order : {bytes::Order::little, bytes::Order::big}) {
    const TipsyHeader header = readHeader(bytes, order);
    if (header.consistent() && (!found || header.fileBytes() == bytes.size())) found = header;
  }
  return found;
}

// Mass, position and velocity lead every particle kind; the rest (`particleBytes` in all) is
// skipped.
void readParticles(bytes::Reader& reader, std::int32_t count, std::size_t particleBytes,
                   std::uint8_t component, State& state) {
  for (std::int32_t k = 0; k < count; ++k) {
    const float mass = reader.getFloat();
    glm::vec4 position(0.0f, 0.0f, 0.0f, mass), velocity(0.0f);
    for (int c = 0; c < 3; ++c) position[c] = reader.getFloat();
    for (int c = 0; c < 3; ++c) velocity[c] = reader.getFloat();
    reader.skip(particleBytes - 7 * sizeof(float));
    state.positionMass.push_back(position);
    state.velocity.push_back(velocity);
    state.id.push_back(state.id.size() + 1);
    state.component.push_back(component);
  }
}

constexpr std::uint8_t kGasComponent = 0, kDarkComponent = 1, kStarComponent = 4;

// The kind a body is written as: gas, dark or star.
int tipsyKindOf(std::uint8_t component) {
  return component == kGasComponent ? 0 : component == kStarComponent ? 2 : 1;
}

void writeParticles(bytes::Writer& out, const State& state, int kind, float eps) {
  const int extraFloats[] = {
      5, 2,
      4};  // gas: rho, temp, hsmooth, metals, phi; dark: eps, phi; star: metals, tform, eps, phi
  for (std::size_t i = 0; i < state.size(); ++i) {
    if (tipsyKindOf(componentOf(state, i)) != kind) continue;
    out.put(state.positionMass[i].w);
    for (int c = 0; c < 3; ++c) out.put(state.positionMass[i][c]);
    for (int c = 0; c < 3; ++c) out.put(state.velocity[i][c]);
    for (int k = 0; k < extraFloats[kind]; ++k) {
      const bool isEps = (kind == 1 && k == 0) || (kind == 2 && k == 2);
      out.put(isEps ? eps : 0.0f);
    }
  }
}

}  // namespace

bool looksLikeTipsy(std::string_view bytes) {
  const std::optional<TipsyHeader> header = consistentHeader(bytes);
  return header && header->fileBytes() == bytes.size();
}

bool beginsLikeTipsy(std::string_view bytes) {
  if (bytes.size() < kTipsyHeaderBytes) return bytes.find('\0') != std::string_view::npos;
  return consistentHeader(bytes).has_value();
}

Snapshot parseTipsy(std::string_view bytes, const std::string& source) {
  if (bytes.size() < kTipsyHeaderBytes)
    throw std::runtime_error(source + ": truncated: " + std::to_string(bytes.size()) +
                             " bytes, shorter than the 32-byte TIPSY header");
  const std::optional<TipsyHeader> header = consistentHeader(bytes);
  if (!header)
    throw std::runtime_error(source +
                             ": not a TIPSY file: in neither byte order does the header "
                             "have nbodies = nsph + ndark + nstar > 0 and ndim in 1..3");
  const std::string counts = std::to_string(header->gas) + " gas, " + std::to_string(header->dark) +
                             " dark and " + std::to_string(header->stars) + " star particles";
  if (bytes.size() < header->fileBytes())
    throw std::runtime_error(source + ": truncated: the TIPSY header lists " + counts + " (" +
                             std::to_string(header->fileBytes()) + " bytes), the file holds " +
                             std::to_string(bytes.size()));
  if (bytes.size() > header->fileBytes())
    throw std::runtime_error(source + ": " + std::to_string(bytes.size() - header->fileBytes()) +
                             " extra bytes after the " + counts + " the TIPSY header lists");
  bytes::Reader reader(bytes, header->order);
  reader.skip(kTipsyHeaderBytes);
  Snapshot snapshot;
  snapshot.time = header->time;
  snapshot.state.positionMass.reserve(std::size_t(header->bodies));
  snapshot.state.velocity.reserve(std::size_t(header->bodies));
  readParticles(reader, header->gas, kTipsyGasBytes, kGasComponent, snapshot.state);
  readParticles(reader, header->dark, kTipsyDarkBytes, kDarkComponent, snapshot.state);
  readParticles(reader, header->stars, kTipsyStarBytes, kStarComponent, snapshot.state);
  checkBodies(snapshot.state, source);
  if (!std::isfinite(snapshot.time)) throw std::runtime_error(source + ": time is not finite");
  return snapshot;
}

void writeTipsy(const Snapshot& snapshot, std::ostream& out, bool bigEndian) {
  const State& state = snapshot.state;
  std::uint64_t kinds[3] = {};
  for (std::size_t i = 0; i < state.size(); ++i) ++kinds[tipsyKindOf(componentOf(state, i))];
  if (state.size() > std::uint64_t(std::numeric_limits<std::int32_t>::max()))
    throw std::invalid_argument(std::to_string(state.size()) +
                                " bodies do not fit a TIPSY header's 32-bit counts");
  bytes::Writer file(bigEndian ? bytes::Order::big : bytes::Order::little);
  file.put(snapshot.time);
  for (const std::uint64_t count :
       {std::uint64_t(state.size()), std::uint64_t{3}, kinds[0], kinds[1], kinds[2]})
    file.put(std::int32_t(count));
  file.put(std::int32_t{0});  // pad
  const float eps = snapshot.settings ? float(snapshot.settings->step.softening) : 0.0f;
  for (int kind = 0; kind < 3; ++kind) writeParticles(file, state, kind, eps);
  out.write(file.bytes().data(), std::streamsize(file.bytes().size()));
}

}  // namespace nbody
