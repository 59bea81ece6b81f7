// Who may see and steer a session of `nbody serve` (serve/access.h): the decision table of
// docs/serve.md ("Access") for the page, the WebSocket handshake and /status, with
// the loopback names, IPv6, case and port variants, hosts and origins allowed by option, and
// tokens that are almost right.

#include "serve/access.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace nbody {
namespace {

constexpr std::uint16_t kPort = 8765;
// Written out here rather than made by makeToken, so that the table does not depend on it.
const std::string kToken = "q3Jt0-Zb8_WxYc2vN5mP7kL9hG4fD6sA1eR0uI3oT8y";

AccessPolicy loopback() { return loopbackPolicy(kPort, kToken, {}, {}); }

std::string protocolsWith(const std::string& token) { return "nbody.v1, token." + token; }

// A handshake from the page as a browser on this machine sends it, with one header changed.
Refusal socketWith(const std::string& host, const std::string& origin,
                   const std::string& protocols) {
  return checkSocket(loopback(), host, origin, protocols);
}

TEST(ServeAccess, TheTestTokenHasTheShapeOfARealOne) { EXPECT_EQ(kToken.size(), 43u); }

TEST(ServeAccess, PageIsServedForEveryLoopbackName) {
  for (const char* host : {"127.0.0.1:8765", "localhost:8765", "[::1]:8765"})
    EXPECT_EQ(checkPage(loopback(), host), Refusal::none) << host;
}

TEST(ServeAccess, PageNeedsAHost) { EXPECT_EQ(checkPage(loopback(), ""), Refusal::missingHost); }

TEST(ServeAccess, PageIsRefusedForAForeignHost) {
  // evil.example resolving to 127.0.0.1 (DNS rebinding), other ports, a port written another
  // way, no port (80 for http), IPv6 without brackets, garbage.
  for (const char* host :
       {"evil.example:8765", "evil.example", "127.0.0.1:8766", "localhost:80", "localhost",
        "127.0.0.1:08765", "[::1]:8766", "::1:8765", "[::1", "localhost:8765:8765",
        "localhost:", ":8765", "127.0.0.2:8765", "localhost.:8765"})
    EXPECT_EQ(checkPage(loopback(), host), Refusal::foreignHost) << host;
}

TEST(ServeAccess, HostNamesMatchInAnyCase) {
  EXPECT_EQ(checkPage(loopback(), "LocalHost:8765"), Refusal::none);
  EXPECT_EQ(checkPage(loopback(), "LOCALHOST:8765"), Refusal::none);
}

TEST(ServeAccess, ThePortOfAHostWithoutOneIs80) {
  EXPECT_EQ(checkPage(loopbackPolicy(80, kToken, {}, {}), "localhost"), Refusal::none);
  EXPECT_EQ(checkPage(loopbackPolicy(80, kToken, {}, {}), "localhost:80"), Refusal::none);
}

TEST(ServeAccess, SocketIsAcceptedFromTheRightOriginWithTheToken) {
  EXPECT_EQ(socketWith("127.0.0.1:8765", "http://127.0.0.1:8765", protocolsWith(kToken)),
            Refusal::none);
  EXPECT_EQ(socketWith("localhost:8765", "http://localhost:8765", protocolsWith(kToken)),
            Refusal::none);
  EXPECT_EQ(socketWith("[::1]:8765", "http://[::1]:8765", protocolsWith(kToken)), Refusal::none);
  // The token first, or with blanks around it.
  EXPECT_EQ(socketWith("localhost:8765", "http://localhost:8765", "token." + kToken + ",nbody.v1"),
            Refusal::none);
  EXPECT_EQ(
      socketWith("localhost:8765", "http://localhost:8765", " nbody.v1 ,\ttoken." + kToken + " "),
      Refusal::none);
  EXPECT_EQ(acceptedProtocol(), "nbody.v1");
}

// The server echoes nbody.v1, and a browser drops a handshake whose echo it did not offer.
TEST(ServeAccess, SocketNeedsOurSubprotocolOffered) {
  const std::string origin = "http://localhost:8765";
  EXPECT_EQ(socketWith("localhost:8765", origin, "token." + kToken), Refusal::missingProtocol);
  EXPECT_EQ(socketWith("localhost:8765", origin, "nbody.v2, token." + kToken),
            Refusal::missingProtocol);
  EXPECT_EQ(socketWith("localhost:8765", origin, "NBODY.V1, token." + kToken),
            Refusal::missingProtocol);
  EXPECT_NE(refusalReason(Refusal::missingProtocol).find("nbody.v1"), std::string_view::npos);
}

TEST(ServeAccess, SocketNeedsAnAllowedHost) {
  EXPECT_EQ(socketWith("", "http://localhost:8765", protocolsWith(kToken)), Refusal::missingHost);
  EXPECT_EQ(socketWith("evil.example:8765", "http://localhost:8765", protocolsWith(kToken)),
            Refusal::foreignHost);
  // The Host is looked at first: a rebinding page's handshake is refused for its Host.
  EXPECT_EQ(socketWith("evil.example:8765", "http://evil.example:8765", ""), Refusal::foreignHost);
}

TEST(ServeAccess, SocketNeedsAnOrigin) {
  EXPECT_EQ(socketWith("localhost:8765", "", protocolsWith(kToken)), Refusal::missingOrigin);
  EXPECT_EQ(socketWith("localhost:8765", "  ", protocolsWith(kToken)), Refusal::missingOrigin);
}

TEST(ServeAccess, SocketIsRefusedFromAForeignOrigin) {
  for (const char* origin :
       {"http://evil.example", "http://evil.example:8765", "null", "http://localhost:8766",
        "http://localhost", "https://localhost:8765", "ws://localhost:8765",
        "http://127.0.0.1:8765.evil.example", "http://localhost:8765/page", "localhost:8765",
        "://localhost:8765", "http://user@localhost:8765", "http://[::1]:8766", "file://"})
    EXPECT_EQ(socketWith("localhost:8765", origin, protocolsWith(kToken)), Refusal::foreignOrigin)
        << origin;
}

TEST(ServeAccess, OriginSchemeAndNameMatchInAnyCase) {
  EXPECT_EQ(socketWith("localhost:8765", "HTTP://LocalHost:8765", protocolsWith(kToken)),
            Refusal::none);
}

TEST(ServeAccess, SocketNeedsTheToken) {
  const std::string origin = "http://localhost:8765";
  EXPECT_EQ(socketWith("localhost:8765", origin, ""), Refusal::missingToken);
  EXPECT_EQ(socketWith("localhost:8765", origin, "nbody.v1"), Refusal::missingToken);
  EXPECT_EQ(socketWith("localhost:8765", origin, "nbody.v1, " + kToken), Refusal::missingToken);
}

TEST(ServeAccess, SocketRefusesATokenThatIsAlmostRight) {
  std::string lastByteChanged = kToken;
  lastByteChanged.back() = lastByteChanged.back() == 'y' ? 'z' : 'y';
  const std::string origin = "http://localhost:8765";
  for (const std::string& token :
       {lastByteChanged, kToken.substr(0, 42), kToken.substr(0, 1), kToken + "A", kToken + kToken,
        std::string(), std::string(43, 'A')})
    EXPECT_EQ(socketWith("localhost:8765", origin, protocolsWith(token)), Refusal::wrongToken)
        << token;
  // One handshake presents one token: a second, even the right one, is refused.
  EXPECT_EQ(socketWith("localhost:8765", origin, "token.x, token." + kToken), Refusal::wrongToken);
  EXPECT_EQ(socketWith("localhost:8765", origin, "token." + kToken + ", token." + kToken),
            Refusal::wrongToken);
}

TEST(ServeAccess, APolicyWithoutATokenLetsNoOneIn) {
  const AccessPolicy policy = loopbackPolicy(kPort, "", {}, {});
  EXPECT_EQ(checkSocket(policy, "localhost:8765", "http://localhost:8765", "nbody.v1, token."),
            Refusal::wrongToken);
  EXPECT_EQ(checkStatus(policy, "localhost:8765", "Bearer "), Refusal::missingToken);
}

TEST(ServeAccess, ExtraHostsAndOriginsAreAllowed) {
  const std::vector<std::string> hosts{"gpu-node.test", "jupyter.example:443", "fe80::1",
                                       "[fe80::2]"};
  const std::vector<std::string> origins{"https://hub.example/", "http://gpu-node.test:8765"};
  const AccessPolicy policy = loopbackPolicy(kPort, kToken, hosts, origins);
  EXPECT_EQ(policy.hosts, (std::vector<std::string>{
                              "127.0.0.1:8765", "localhost:8765", "[::1]:8765",
                              "gpu-node.test:8765", "gpu-node.test", "jupyter.example:443",
                              "[fe80::1]:8765", "[fe80::1]", "[fe80::2]:8765", "[fe80::2]"}));
  EXPECT_EQ(policy.origins,
            (std::vector<std::string>{"http://127.0.0.1:8765", "http://localhost:8765",
                                      "http://[::1]:8765", "https://hub.example",
                                      "http://gpu-node.test:8765"}));
  // Behind a proxy the browser leaves out a default port (80 or 443): a name allowed without a
  // port, or at 443, is then allowed without one.
  for (const char* host : {"gpu-node.test:8765", "GPU-node.test:8765", "gpu-node.test",
                           "gpu-node.test:80", "gpu-node.test:443", "jupyter.example:443",
                           "jupyter.example", "[fe80::1]:8765", "[fe80::1]"})
    EXPECT_EQ(checkPage(policy, host), Refusal::none) << host;
  for (const char* host : {"gpu-node.test:8080", "jupyter.example:8765", "jupyter.example:80x",
                           "[fe80::1]:8080", "fe80::1"})
    EXPECT_EQ(checkPage(policy, host), Refusal::foreignHost) << host;
  for (const char* origin :
       {"https://hub.example", "https://hub.example:443", "http://gpu-node.test:8765"})
    EXPECT_EQ(checkSocket(policy, "gpu-node.test:8765", origin, protocolsWith(kToken)),
              Refusal::none)
        << origin;
  for (const char* origin :
       {"http://hub.example", "https://hub.example:8443", "http://gpu-node.test"})
    EXPECT_EQ(checkSocket(policy, "gpu-node.test:8765", origin, protocolsWith(kToken)),
              Refusal::foreignOrigin)
        << origin;
}

TEST(ServeAccess, StatusNeedsAnAllowedHostAndTheBearerToken) {
  EXPECT_EQ(checkStatus(loopback(), "127.0.0.1:8765", "Bearer " + kToken), Refusal::none);
  EXPECT_EQ(checkStatus(loopback(), "[::1]:8765", "bearer  " + kToken), Refusal::none);
  EXPECT_EQ(checkStatus(loopback(), "", "Bearer " + kToken), Refusal::missingHost);
  EXPECT_EQ(checkStatus(loopback(), "evil.example:8765", "Bearer " + kToken), Refusal::foreignHost);
  for (const std::string& authorization :
       {std::string(), std::string("Bearer"), std::string("Bearer   "), "Basic " + kToken, kToken,
        "token." + kToken})
    EXPECT_EQ(checkStatus(loopback(), "localhost:8765", authorization), Refusal::missingToken)
        << authorization;
  for (const std::string& authorization :
       {"Bearer " + kToken.substr(0, 42), "Bearer " + kToken + "x",
        "Bearer " + kToken + " " + kToken, std::string("Bearer x")})
    EXPECT_EQ(checkStatus(loopback(), "localhost:8765", authorization), Refusal::wrongToken)
        << authorization;
}

TEST(ServeAccess, EveryRefusalHasItsOwnOneLineReason) {
  std::set<std::string_view> reasons;
  for (const Refusal refusal :
       {Refusal::none, Refusal::foreignHost, Refusal::missingHost, Refusal::foreignOrigin,
        Refusal::missingOrigin, Refusal::missingToken, Refusal::wrongToken}) {
    const std::string_view reason = refusalReason(refusal);
    EXPECT_FALSE(reason.empty());
    EXPECT_EQ(reason.find('\n'), std::string_view::npos) << reason;
    reasons.insert(reason);
  }
  EXPECT_EQ(reasons.size(), 7u);
  EXPECT_NE(refusalReason(Refusal::foreignHost).find("DNS rebinding"), std::string_view::npos);
}

TEST(ServeAccess, TokensAreEqualOnlyWhenEveryByteIs) {
  EXPECT_TRUE(tokensEqual(kToken, kToken));
  std::string lastByteChanged = kToken;
  lastByteChanged.back() = char(lastByteChanged.back() ^ 1);
  EXPECT_FALSE(tokensEqual(lastByteChanged, kToken));
  std::string firstByteChanged = kToken;
  firstByteChanged.front() = char(firstByteChanged.front() ^ 1);
  EXPECT_FALSE(tokensEqual(firstByteChanged, kToken));
  EXPECT_FALSE(tokensEqual(kToken.substr(0, 42), kToken));
  EXPECT_FALSE(tokensEqual(kToken + kToken,
                           kToken));  // the token repeated, as a cyclic compare would see it
  EXPECT_FALSE(tokensEqual(kToken + "A", kToken));
  EXPECT_FALSE(tokensEqual("", kToken));
  EXPECT_FALSE(tokensEqual("", ""));
  EXPECT_FALSE(tokensEqual("x", ""));
}

// 43 characters of base64url carry 258 bits: 256 of the token and 2 zero bits, so the last
// character is one whose value is a multiple of 4.
TEST(ServeAccess, TokensAre32RandomBytesInBase64Url) {
  const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::set<std::string> tokens;
  for (int k = 0; k < 20; ++k) {
    const std::string token = makeToken();
    ASSERT_EQ(token.size(), 43u) << token;
    EXPECT_EQ(token.find_first_not_of(alphabet), std::string::npos) << token;
    EXPECT_EQ(alphabet.find(token.back()) % 4, 0u) << token;
    tokens.insert(token);
  }
  EXPECT_EQ(tokens.size(), 20u);
}

TEST(ServeAccess, ViewerUrlCarriesTheTokenInTheFragment) {
  EXPECT_EQ(viewerUrl("127.0.0.1", 8765, "abc"), "http://127.0.0.1:8765/#token=abc");
  EXPECT_EQ(viewerUrl("::1", 80, "abc"), "http://[::1]:80/#token=abc");
  EXPECT_EQ(viewerUrl("[::1]", 80, "abc"), "http://[::1]:80/#token=abc");
}

TEST(ServeAccess, TunnelHintNamesThisHost) {
  char name[256] = {};
  ASSERT_EQ(::gethostname(name, sizeof name - 1), 0);
  EXPECT_EQ(tunnelHint(8765), std::string("ssh -L 8765:127.0.0.1:8765 ") + name);
}

}  // namespace
}  // namespace nbody
