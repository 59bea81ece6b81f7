#include "serve/http_session.h"

#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <exception>
#include <utility>

#include "serve/viewer_session.h"

namespace nbody {
namespace {

// Room for the largest header allowed and what a client may send behind it.
constexpr std::size_t kMostBufferedBytes = 2 * kMostRequestHeaderBytes;

}  // namespace

HttpSession::HttpSession(ServerCore& core, tcp::socket socket, std::string peer)
    : core_(core),
      stream_(std::move(socket)),
      buffer_(kMostBufferedBytes),
      peer_(std::move(peer)) {}

HttpSession::~HttpSession() { core_.removeHttpSession(registration_); }

void HttpSession::start() {
  registration_ = core_.addHttpSession(weak_from_this());
  readRequest();
}

void HttpSession::closeNow() {
  if (!handedOver_) stream_.close();
}

void HttpSession::readRequest() {
  parser_.emplace();
  parser_->header_limit(kMostRequestHeaderBytes);
  stream_.expires_after(core_.options.requestTimeout);
  http::async_read(stream_, buffer_, *parser_,
                   [self = shared_from_this()](const boost::system::error_code& error,
                                               std::size_t) { self->onRequest(error); });
}

void HttpSession::onRequest(const boost::system::error_code& error) {
  if (error) {
    if (!isOrdinaryEnd(connectionEndOf(error)) && !core_.stopping())
      core_.logRefusal(peer_, "a request that cannot be read (" + error.message() + ")");
    stream_.close();
    return;
  }
  if (core_.stopping()) return;
  HttpRequest request = parser_->release();
  RequestDecision decision;
  try {
    decision = decideRequest(request, core_.policy, [this] { return core_.statusReport(); });
  } catch (const std::exception& failure) {
    core_.log("serve: cannot answer " + peer_ + ": " + failure.what());
    decision.response =
        plainAnswer(http::status::internal_server_error, "internal error\n", request.version());
  }
  if (decision.upgrade) return takeOnViewer(std::move(request));
  if (!decision.refusal.empty()) core_.logRefusal(peer_, decision.refusal);
  // Only a request that showed the token (/status) keeps its connection: one that needs no token
  // could otherwise hold a connection slot for as long as it likes.
  const auto target = request.target();
  const bool keepAlive = request.keep_alive() && decision.refusal.empty() &&
                         routeOf({target.data(), target.size()}) == Route::status;
  answer(std::move(decision), keepAlive);
}

// A client gets its answer and a closed connection unless it may ask again on the same one.
void HttpSession::answer(RequestDecision decision, bool keepAlive) {
  response_ = std::move(decision.response);
  response_.keep_alive(keepAlive);
  stream_.expires_after(core_.options.requestTimeout);
  http::async_write(
      stream_, response_,
      [self = shared_from_this(), keepAlive](const boost::system::error_code& error, std::size_t) {
        self->onAnswered(error, keepAlive);
      });
}

void HttpSession::onAnswered(const boost::system::error_code& error, bool keepOpen) {
  if (error || core_.stopping()) {
    stream_.close();
    return;
  }
  if (keepOpen) return readRequest();
  closeGently();
}

// The viewer joins the board before the handshake is answered, so that a server with all its
// viewers answers 503 instead of accepting and closing.
void HttpSession::takeOnViewer(HttpRequest request) {
  const std::optional<ViewerId> viewer = core_.board.join();
  if (!viewer) {
    const std::string reason = std::to_string(core_.options.mostViewers) +
                               " viewers are connected already, the most allowed";
    core_.logRefusal(peer_, reason);
    RequestDecision busy{
        plainAnswer(http::status::service_unavailable, "busy: " + reason + "\n", request.version()),
        reason, false};
    return answer(std::move(busy), false);
  }
  handedOver_ = true;
  core_.removeHttpSession(registration_);
  stream_.expires_never();  // the WebSocket keeps its own time
  std::make_shared<ViewerSession>(core_, std::move(stream_), *viewer, peer_)->accept(request);
}

void HttpSession::closeGently() {
  boost::system::error_code ignored;
  stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
}

}  // namespace nbody
