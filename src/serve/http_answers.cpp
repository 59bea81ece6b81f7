#include "serve/http_answers.h"

#include <boost/beast/http/field.hpp>
#include <boost/beast/http/verb.hpp>
#include <boost/beast/websocket/rfc6455.hpp>
#include <stdexcept>
#include <utility>

#include "serve/viewer_page.h"

namespace nbody {
namespace {

std::string_view headerOf(const HttpRequest& request, http::field field) {
  const auto value = request[field];
  return {value.data(), value.size()};
}

Refusal accessRefusal(Route route, const HttpRequest& request, const AccessPolicy& policy) {
  const std::string_view host = headerOf(request, http::field::host);
  switch (route) {
    case Route::status:
      return checkStatus(policy, host, headerOf(request, http::field::authorization));
    case Route::viewerSocket:
      return checkSocket(policy, host, headerOf(request, http::field::origin),
                         headerOf(request, http::field::sec_websocket_protocol));
    case Route::page:
    case Route::favicon:
    case Route::unknown:
      break;
  }
  return checkPage(policy, host);
}

HttpResponse answerWith(http::status status, std::string body, std::string_view contentType,
                        unsigned httpVersion) {
  HttpResponse response{status, httpVersion};
  addCommonHeaders(response.base());
  if (!contentType.empty())
    response.set(http::field::content_type, {contentType.data(), contentType.size()});
  response.body() = std::move(body);
  response.prepare_payload();
  return response;
}

// A fresh nonce for each answer, so that no script or style an attacker managed to put into the
// page could know it. The page holds no secret, so a nonce of 256 bits is more than it needs.
HttpResponse pageAnswer(unsigned httpVersion) {
  const std::string nonce = makeToken();
  std::string page(viewerPageTemplate());
  for (std::size_t at = page.find(kPageNonceMarker); at != std::string::npos;
       at = page.find(kPageNonceMarker, at + nonce.size()))
    page.replace(at, kPageNonceMarker.size(), nonce);
  HttpResponse response =
      answerWith(http::status::ok, std::move(page), "text/html; charset=utf-8", httpVersion);
  response.set("Content-Security-Policy", pageSecurityPolicy(nonce));
  response.set(http::field::x_frame_options, "DENY");
  return response;
}

RequestDecision allowedAnswer(Route route, const HttpRequest& request,
                              const std::function<std::string()>& statusReport) {
  const unsigned version = request.version();
  switch (route) {
    case Route::page:
      return {pageAnswer(version), {}, false};
    case Route::favicon:
      return {answerWith(http::status::no_content, {}, {}, version), {}, false};
    case Route::status:
      return {answerWith(http::status::ok, statusReport(), "application/json", version), {}, false};
    case Route::viewerSocket:
      if (boost::beast::websocket::is_upgrade(request)) return {{}, {}, true};
      return {
          plainAnswer(http::status::upgrade_required, "/ws is a WebSocket\n", version), {}, false};
    case Route::unknown:
      break;
  }
  return {plainAnswer(http::status::not_found, "not found\n", version), {}, false};
}

}  // namespace

Route routeOf(std::string_view target) {
  const std::string_view path = target.substr(0, target.find('?'));
  if (path == "/" || path == "/index.html") return Route::page;
  if (path == "/favicon.ico") return Route::favicon;
  if (path == "/status") return Route::status;
  if (path == "/ws") return Route::viewerSocket;
  return Route::unknown;
}

RequestDecision decideRequest(const HttpRequest& request, const AccessPolicy& policy,
                              const std::function<std::string()>& statusReport) {
  const auto target = request.target();
  const Route route = routeOf({target.data(), target.size()});
  const unsigned version = request.version();
  if (const Refusal refusal = accessRefusal(route, request, policy); refusal != Refusal::none) {
    const std::string reason(refusalReason(refusal));
    return {plainAnswer(http::status::forbidden, "forbidden: " + reason + "\n", version), reason,
            false};
  }
  if (route != Route::unknown && request.method() != http::verb::get) {
    HttpResponse response =
        plainAnswer(http::status::method_not_allowed, "only GET is allowed\n", version);
    response.set(http::field::allow, "GET");
    return {std::move(response), {}, false};
  }
  return allowedAnswer(route, request, statusReport);
}

HttpResponse plainAnswer(http::status status, std::string_view text, unsigned httpVersion) {
  return answerWith(status, std::string(text), "text/plain; charset=utf-8", httpVersion);
}

void addCommonHeaders(http::fields& fields) {
  fields.set(http::field::cache_control, "no-store");
  fields.set("X-Content-Type-Options", "nosniff");
  fields.set("Referrer-Policy", "no-referrer");
}

std::string pageSecurityPolicy(std::string_view nonce) {
  const std::string source = "'nonce-" + std::string(nonce) + "'";
  // 'self' in connect-src covers ws: and wss: to the page's own host; blob: is how the page shows
  // each frame's JPEG; nothing else may load, and no site may frame the page.
  return "default-src 'none'; script-src " + source + "; style-src " + source +
         "; img-src blob:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
         "frame-ancestors 'none'";
}

}  // namespace nbody
