#pragma once
// Who may see and steer a session of `nbody serve`, decided before anything else is done with a
// request. The rules are Jupyter's (docs/serve.md, "Threat model"), as an allow-list:
//   - a random token of 256 bits, required even on the loopback address, since a GPU node shares
//     127.0.0.1 among all its users. The address printed carries it in the fragment (#token=...),
//     which a browser never sends, so it stays out of request lines, Referer headers and logs;
//   - the Host header must name this server (127.0.0.1:P, localhost:P, [::1]:P or a host allowed
//     by option), which defeats DNS rebinding;
//   - the WebSocket handshake must come from an allowed Origin (cross-site WebSocket hijacking),
//     and carry the token among its subprotocols: `Sec-WebSocket-Protocol: nbody.v1, token.T`;
//   - `GET /status`, for scripts, carries it as `Authorization: Bearer T`.
// A header the request lacks is passed as an empty string. Tokens are compared in constant time.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace nbody {

// 32 bytes from getrandom(2) as 43 characters of unpadded base64url (A-Z a-z 0-9 - _). Throws
// std::runtime_error when the system gives no random bytes.
std::string makeToken();

// Whether `presented` equals `expected`, in a time that depends on the length of `presented` only:
// every byte is compared, whatever differs first. Nothing equals an empty `expected`, so a policy
// whose token was never set lets no one in.
bool tokensEqual(std::string_view presented, std::string_view expected);

// What a server answers for. Hosts are "name:port" ("[v6]:port" for IPv6); origins are
// "scheme://name[:port]", with no trailing slash. Names and schemes match in any case, ports
// exactly; an origin that writes no port has its scheme's (80 for http, 443 for https). A Host
// header names no scheme: one without a port and an entry without one match each other on 80 or
// 443 (a proxy in front of the server leaves the port out).
struct AccessPolicy {
  std::uint16_t port = 0;
  std::string token;
  std::vector<std::string> hosts;
  std::vector<std::string> origins;
};

// The policy of a server on the loopback address at `port`: the three loopback names as hosts and
// as http origins, plus `extraHosts` (one without a port gets `port`; a bare IPv6 address gets its
// brackets; allowed both at `port` and without a port) and `extraOrigins` (as given, less a
// trailing slash).
AccessPolicy loopbackPolicy(std::uint16_t port, std::string token,
                            std::span<const std::string> extraHosts,
                            std::span<const std::string> extraOrigins);

enum class Refusal {
  none,
  foreignHost,
  missingHost,
  foreignOrigin,
  missingOrigin,
  missingToken,
  wrongToken,
  missingProtocol
};

// One short line saying why a request was refused (or "allowed" for none), for the server's log.
std::string_view refusalReason(Refusal refusal);

// The embedded page (which holds no secret): an allowed Host is enough.
Refusal checkPage(const AccessPolicy& policy, std::string_view host);

// The WebSocket handshake: an allowed Host, an allowed Origin (browsers always send one; a script
// must send one of the allowed) and, among the comma-separated subprotocols, `nbody.v1` (which the
// server echoes) and exactly one `token.T` entry whose T is the token.
Refusal checkSocket(const AccessPolicy& policy, std::string_view host, std::string_view origin,
                    std::string_view protocols);

// The subprotocol the server echoes to a handshake it accepts (the page offers it with the token).
std::string_view acceptedProtocol();

// `GET /status`: an allowed Host and `Authorization: Bearer T` (the scheme in any case).
Refusal checkStatus(const AccessPolicy& policy, std::string_view host,
                    std::string_view authorization);

// Where a browser opens the session: "http://IP:PORT/#token=TOKEN", an IPv6 address in brackets.
std::string viewerUrl(std::string_view ip, std::uint16_t port, std::string_view token);

// How to reach a loopback server from a laptop: "ssh -L PORT:127.0.0.1:PORT HOSTNAME", with this
// machine's host name ("<this host>" when it has none).
std::string tunnelHint(std::uint16_t port);

}  // namespace nbody
