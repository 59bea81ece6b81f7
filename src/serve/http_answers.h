#pragma once
// What `nbody serve` answers to an HTTP request it has read whole (docs/serve.md, "Routes"), as
// pure functions: no socket, so each rule reads in one place. Every route is decided by access.h
// before anything else; a refused request is answered 403 with the reason in plain text.
//
//   GET /, /index.html   the viewer page (an allowed Host), with a strict Content-Security-Policy
//   GET /favicon.ico     204, so that a browser's own request logs no refusal
//   GET /status          the status as JSON (an allowed Host and `Authorization: Bearer T`)
//   GET /ws              the viewer's WebSocket (Host, Origin and the token among the subprotocols)
//   anything else        403 without an allowed Host, then 404 for a path, 405 for a method

#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/status.hpp>
#include <boost/beast/http/string_body.hpp>
#include <functional>
#include <string>
#include <string_view>

#include "serve/access.h"

namespace nbody {

namespace http = boost::beast::http;

// Requests carry no body: a body is a reason to close the connection.
using HttpRequest = http::request<http::empty_body>;
using HttpResponse = http::response<http::string_body>;

// Bounds of what a request may be.
inline constexpr std::size_t kMostRequestHeaderBytes = 8 * 1024;

enum class Route { page, favicon, status, viewerSocket, unknown };

// The route of a request target; the query, if any, is ignored.
Route routeOf(std::string_view target);

// What to do with a request.
struct RequestDecision {
  HttpResponse response;  // the answer, unless `upgrade`
  std::string refusal;    // why it was refused (for the log); empty when it was not
  bool upgrade = false;   // an allowed WebSocket handshake, which the caller takes on
};

// Decides a request. `statusReport` gives the body of GET /status; it is called only for one that
// is allowed.
RequestDecision decideRequest(const HttpRequest& request, const AccessPolicy& policy,
                              const std::function<std::string()>& statusReport);

// A plain-text answer, with the headers every answer carries.
HttpResponse plainAnswer(http::status status, std::string_view text, unsigned httpVersion);

// The headers every answer carries, the WebSocket handshake's included: no caching, no MIME
// sniffing, no Referer.
void addCommonHeaders(http::fields& fields);

// The header `Content-Security-Policy` of the page, for the nonce its script and style carry.
std::string pageSecurityPolicy(std::string_view nonce);

}  // namespace nbody
