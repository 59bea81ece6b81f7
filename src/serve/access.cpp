#include "serve/access.h"

#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "util/comma_list.h"
#include "util/printable_text.h"

namespace nbody {
namespace {

constexpr std::size_t kTokenBytes = 32;
constexpr std::string_view kTokenProtocolPrefix = "token.";

void fillWithRandomBytes(std::span<unsigned char> bytes) {
  std::size_t filled = 0;
  while (filled < bytes.size()) {
    const ssize_t got = ::getrandom(bytes.data() + filled, bytes.size() - filled, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0)
      throw std::runtime_error(
          std::string("cannot make an access token: getrandom gave no random bytes (") +
          std::strerror(errno) + ")");
    filled += std::size_t(got);
  }
}

// RFC 4648's URL-safe alphabet, without the padding.
std::string base64Url(std::span<const unsigned char> bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string text;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t count = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t group = 0;
    for (std::size_t k = 0; k < 3; ++k) group = (group << 8) | (k < count ? bytes[i + k] : 0u);
    for (std::size_t k = 0; k <= count; ++k) text += kAlphabet[(group >> (18 - 6 * k)) & 63];
  }
  return text;
}

bool equalIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; };
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

// A host name (an IPv6 address with its brackets) and its port, as a Host header or an origin
// writes them; the port is empty when not written.
struct Authority {
  std::string_view name;
  std::string_view port;
};

// "name", "name:port", "[v6]" or "[v6]:port"; nothing when it is none of these.
std::optional<Authority> authorityOf(std::string_view text) {
  const bool isBracketed = text.starts_with('[');
  const std::size_t nameEnd = isBracketed ? text.find(']') : text.find(':');
  if (isBracketed && nameEnd == std::string_view::npos) return std::nullopt;
  Authority authority{text.substr(0, isBracketed ? nameEnd + 1 : nameEnd), {}};
  const std::string_view rest = text.substr(authority.name.size());
  if (authority.name.empty() || authority.name == "[]") return std::nullopt;
  if (rest.empty()) return authority;
  authority.port = rest.substr(1);
  const bool digits = authority.port.find_first_not_of("0123456789") == std::string_view::npos;
  if (rest[0] != ':' || authority.port.empty() || authority.port.size() > 5 || !digits)
    return std::nullopt;
  return authority;
}

// "scheme://authority", split; nothing for anything else ("null", a path, no scheme).
struct Origin {
  std::string_view scheme;
  Authority authority;
};

std::optional<Origin> originOf(std::string_view text) {
  const std::size_t separator = text.find("://");
  if (separator == 0 || separator == std::string_view::npos) return std::nullopt;
  const auto authority = authorityOf(text.substr(separator + 3));
  if (!authority) return std::nullopt;
  return Origin{text.substr(0, separator), *authority};
}

// A Host header names no scheme: this server speaks http.
std::optional<Origin> hostOf(std::string_view text) {
  const auto authority = authorityOf(text);
  if (!authority) return std::nullopt;
  return Origin{"http", *authority};
}

std::string_view defaultPortOf(std::string_view scheme) {
  if (equalIgnoringCase(scheme, "http")) return "80";
  return equalIgnoringCase(scheme, "https") ? "443" : "";
}

// The scheme and the name in any case, the port exactly (one not written is the scheme's).
bool sameOrigin(const Origin& a, const Origin& b) {
  const auto portOf = [](const Origin& o) {
    return o.authority.port.empty() ? defaultPortOf(o.scheme) : o.authority.port;
  };
  return equalIgnoringCase(a.scheme, b.scheme) &&
         equalIgnoringCase(a.authority.name, b.authority.name) && portOf(a) == portOf(b);
}

// A Host header leaves out the port where it is its scheme's (80 for http, 443 for https, as behind
// a notebook's proxy); the header does not say which scheme, so a Host without a port and an entry
// without one match each other on either, and any other ports exactly.
bool sameHost(const Origin& a, const Origin& b) {
  const auto isDefault = [](std::string_view port) {
    return port.empty() || port == "80" || port == "443";
  };
  const std::string_view portA = a.authority.port, portB = b.authority.port;
  const bool samePort =
      portA.empty() || portB.empty() ? isDefault(portA) && isDefault(portB) : portA == portB;
  return equalIgnoringCase(a.authority.name, b.authority.name) && samePort;
}

// A header's value against an allow-list, both read by `read` and compared by `same`: `missing`
// when the value is empty, `foreign` when it matches no entry.
Refusal allowListRefusal(std::string_view value, const std::vector<std::string>& allowList,
                         std::optional<Origin> (*read)(std::string_view),
                         bool (*same)(const Origin&, const Origin&), Refusal missing,
                         Refusal foreign) {
  value = trimmed(value);
  if (value.empty()) return missing;
  const auto presented = read(value);
  if (!presented) return foreign;
  for (const std::string& entry : allowList) {
    const auto allowed = read(entry);
    if (allowed && same(*allowed, *presented)) return Refusal::none;
  }
  return foreign;
}

Refusal hostRefusal(const AccessPolicy& policy, std::string_view host) {
  return allowListRefusal(host, policy.hosts, hostOf, sameHost, Refusal::missingHost,
                          Refusal::foreignHost);
}

Refusal originRefusal(const AccessPolicy& policy, std::string_view origin) {
  return allowListRefusal(origin, policy.origins, originOf, sameOrigin, Refusal::missingOrigin,
                          Refusal::foreignOrigin);
}

// The subprotocols: `nbody.v1` must be offered (the server echoes it, and a browser drops a
// handshake whose echo it did not offer), and one `token.T`: missing when there is none, wrong
// when there are several (a handshake presents one token) or T is not the token.
Refusal protocolTokenRefusal(const AccessPolicy& policy, std::string_view protocols) {
  std::optional<std::string_view> presented;
  bool offersOurs = false;
  for (const std::string_view item : commaSeparated(protocols)) {
    const std::string_view protocol = trimmed(item);
    offersOurs = offersOurs || protocol == acceptedProtocol();
    if (!protocol.starts_with(kTokenProtocolPrefix)) continue;
    if (presented) return Refusal::wrongToken;
    presented = protocol.substr(kTokenProtocolPrefix.size());
  }
  if (!presented) return Refusal::missingToken;
  if (!tokensEqual(*presented, policy.token)) return Refusal::wrongToken;
  return offersOurs ? Refusal::none : Refusal::missingProtocol;
}

// "Bearer T", the scheme in any case (RFC 7235); anything else presents no token.
Refusal bearerTokenRefusal(const AccessPolicy& policy, std::string_view authorization) {
  authorization = trimmed(authorization);
  const std::size_t space = authorization.find(' ');
  if (space == std::string_view::npos ||
      !equalIgnoringCase(authorization.substr(0, space), "bearer"))
    return Refusal::missingToken;
  const std::string_view presented = trimmed(authorization.substr(space + 1));
  if (presented.empty()) return Refusal::missingToken;
  return tokensEqual(presented, policy.token) ? Refusal::none : Refusal::wrongToken;
}

// An IPv6 address as URLs and Host headers write it. Appended piece by piece: GCC 12 warns falsely
// (-Wrestrict) on "[" + ... once inlined.
std::string bracketed(std::string_view address) {
  std::string text(1, '[');
  return text.append(address).append(1, ']');
}

// An extra host as the policy holds it, a bare IPv6 address in brackets: one that names no port is
// allowed at `port` (reached directly, as through an ssh tunnel) and without one (behind a proxy).
std::vector<std::string> allowedHosts(std::string_view host, const std::string& port) {
  const bool bareIpv6 = !host.starts_with('[') && host.find(':') != host.rfind(':');
  const std::string name = bareIpv6 ? bracketed(host) : std::string(host);
  const auto authority = authorityOf(name);
  if (authority && authority->port.empty()) return {name + ":" + port, name};
  return {name};
}

}  // namespace

std::string makeToken() {
  std::array<unsigned char, kTokenBytes> bytes{};
  fillWithRandomBytes(bytes);
  return base64Url(bytes);
}

bool tokensEqual(std::string_view presented, std::string_view expected) {
  // volatile: no optimiser may turn the loop into one that stops at the first difference.
  volatile unsigned difference = presented.size() == expected.size() && !expected.empty() ? 0u : 1u;
  for (std::size_t i = 0; i < presented.size(); ++i) {
    const auto wanted =
        expected.empty() ? 0u : static_cast<unsigned char>(expected[i % expected.size()]);
    difference = difference | (static_cast<unsigned char>(presented[i]) ^ wanted);
  }
  return difference == 0;
}

AccessPolicy loopbackPolicy(std::uint16_t port, std::string token,
                            std::span<const std::string> extraHosts,
                            std::span<const std::string> extraOrigins) {
  const std::string portText = std::to_string(port);
  AccessPolicy policy{port, std::move(token), {}, {}};
  for (const char* name : {"127.0.0.1", "localhost", "[::1]"}) {
    policy.hosts.push_back(name + (":" + portText));
    policy.origins.push_back("http://" + (name + (":" + portText)));
  }
  for (const std::string& host : extraHosts)
    for (std::string& allowed : allowedHosts(host, portText))
      policy.hosts.push_back(std::move(allowed));
  for (const std::string& origin : extraOrigins)
    policy.origins.push_back(origin.ends_with('/') ? origin.substr(0, origin.size() - 1) : origin);
  return policy;
}

std::string_view refusalReason(Refusal refusal) {
  struct Reason {
    Refusal refusal;
    std::string_view text;
  };
  static constexpr Reason kReasons[] = {
      {Refusal::none, "allowed"},
      {Refusal::foreignHost,
       "the Host header names no host this server answers for (DNS rebinding?)"},
      {Refusal::missingHost, "the request has no Host header"},
      {Refusal::foreignOrigin,
       "the Origin header names no page this server trusts (cross-site WebSocket hijacking?)"},
      {Refusal::missingOrigin, "the WebSocket handshake has no Origin header"},
      {Refusal::missingToken, "the request presents no access token"},
      {Refusal::wrongToken, "the access token presented is not this server's"},
      {Refusal::missingProtocol, "the WebSocket handshake does not offer the subprotocol nbody.v1"},
  };
  for (const Reason& reason : kReasons)
    if (reason.refusal == refusal) return reason.text;
  return "refused";
}

Refusal checkPage(const AccessPolicy& policy, std::string_view host) {
  return hostRefusal(policy, host);
}

Refusal checkSocket(const AccessPolicy& policy, std::string_view host, std::string_view origin,
                    std::string_view protocols) {
  if (const Refusal refusal = hostRefusal(policy, host); refusal != Refusal::none) return refusal;
  if (const Refusal refusal = originRefusal(policy, origin); refusal != Refusal::none)
    return refusal;
  return protocolTokenRefusal(policy, protocols);
}

std::string_view acceptedProtocol() { return "nbody.v1"; }

Refusal checkStatus(const AccessPolicy& policy, std::string_view host,
                    std::string_view authorization) {
  if (const Refusal refusal = hostRefusal(policy, host); refusal != Refusal::none) return refusal;
  return bearerTokenRefusal(policy, authorization);
}

std::string viewerUrl(std::string_view ip, std::uint16_t port, std::string_view token) {
  const bool ipv6 = ip.find(':') != std::string_view::npos && !ip.starts_with('[');
  const std::string shownIp = ipv6 ? bracketed(ip) : std::string(ip);
  return "http://" + shownIp + ":" + std::to_string(port) + "/#token=" + std::string(token);
}

std::string tunnelHint(std::uint16_t port) {
  char name[256] = {};
  const bool named = ::gethostname(name, sizeof name - 1) == 0 && name[0] != '\0';
  const std::string portText = std::to_string(port);
  return "ssh -L " + portText + ":127.0.0.1:" + portText + " " +
         (named ? printable(name) : "<this host>");
}

}  // namespace nbody
