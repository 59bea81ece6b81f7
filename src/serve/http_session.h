#pragma once
// One HTTP connection to `nbody serve`, private to the server's sources: it reads requests (each
// within the request timeout, its header within kMostRequestHeaderBytes, no body), answers them
// as serve/http_answers.h decides, and hands an allowed WebSocket handshake to a ViewerSession.
// It lives on the server's thread, kept alive by its pending operation.

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/parser.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "serve/http_answers.h"
#include "serve/server_core.h"

namespace nbody {

class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(ServerCore& core, tcp::socket socket, std::string peer);
  ~HttpSession();
  HttpSession(const HttpSession&) = delete;
  HttpSession& operator=(const HttpSession&) = delete;

  void start();
  // Closes the connection; its pending operation ends with an error.
  void closeNow();

 private:
  void readRequest();
  void onRequest(const boost::system::error_code& error);
  void answer(RequestDecision decision, bool keepAlive);
  void onAnswered(const boost::system::error_code& error, bool keepOpen);
  void takeOnViewer(HttpRequest request);
  void closeGently();

  ServerCore& core_;
  boost::beast::tcp_stream stream_;
  boost::beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::empty_body>> parser_;
  HttpResponse response_;
  const std::string peer_;
  std::uint64_t registration_ = 0;
  bool handedOver_ = false;
};

}  // namespace nbody
