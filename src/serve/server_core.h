#pragma once
// The state a ViewerServer shares with its connections (serve/viewer_server.h), private to the
// server's sources. Everything marked "server thread" is touched by the io_context's one thread
// only, so it needs no lock; the board, the input queue and the status are the owner's way in.
//
// The members are declared so that the io_context goes before the state its handlers use: a
// connection whose handler is destroyed with the io_context still finds the board and the logs.

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "serve/access.h"
#include "serve/input_queue.h"
#include "serve/viewer_server.h"
#include "serve/viewers.h"

namespace nbody {

namespace net = boost::asio;
using tcp = net::ip::tcp;
using SteadyClock = std::chrono::steady_clock;

class HttpSession;
class ViewerSession;

// "127.0.0.1:41234", "[::1]:41234".
std::string endpointText(const tcp::endpoint& endpoint);

// How a connection's read ended: the one classification of the errors that end the HTTP and the
// WebSocket connections, for what each logs.
enum class ConnectionEnd {
  closedByPeer,   // a WebSocket close frame, or an HTTP client that closed between requests
  vanished,       // the TCP connection ended without that (end of stream, reset)
  timedOut,       // silent for too long
  closedHere,     // the server closed the socket (stopping, or making room)
  messageTooBig,  // a WebSocket message over its limit (Beast has sent close code 1009)
  failed,         // anything else: a request or frame that cannot be read, a network error
};
ConnectionEnd connectionEndOf(const boost::system::error_code& error);
// Whether connections end this way in the ordinary course, not worth a line of the log.
bool isOrdinaryEnd(ConnectionEnd end);

// A log of lines any peer can cause (refused requests, connections over the limit): at most a few
// a second, and the next line let through says how many were held back, so that a flood of
// requests cannot flood the log.
class LimitedLog {
 public:
  explicit LimitedLog(const ServerLog& log);
  void write(std::string line, double nowSeconds);

 private:
  const ServerLog& log_;
  MessageRate rate_;
  std::uint64_t heldBack_ = 0;
};

class ServerCore {
 public:
  explicit ServerCore(ViewerServerOptions options);

  // On the owner's thread: binds and listens (throws std::runtime_error), then makes the policy
  // for the port bound.
  void listen();
  // Server thread: the accept loop and the ticks begin.
  void start();
  // Server thread: closes the listening socket, the timer and every connection (a viewer's with
  // a close frame, within ViewerSession's close timeout), so that run() returns once their
  // handlers have run.
  void shutDown();
  // Any thread: posts wakeViewers, once per burst of frames.
  void framePublished();
  // Any thread.
  void setStatus(std::string json);

  // Server thread, for the connections.
  bool stopping() const { return stopping_; }
  double seconds() const;
  void log(std::string_view line) const { log_(line); }
  void logRefusal(std::string_view peer, std::string_view reason);
  // The body of GET /status: the owner's status with the viewers added.
  std::string statusReport() const;
  // The owner's status as a message to viewers, when it is a JSON object.
  std::optional<std::string> ownerStatusMessage() const;
  std::uint64_t addHttpSession(std::weak_ptr<HttpSession> session);
  void removeHttpSession(std::uint64_t id);
  void addViewer(ViewerId id, std::weak_ptr<ViewerSession> session);
  void removeViewer(ViewerId id);
  // Tells every viewer who has control, where that changed for it.
  void tellControl();

  const ViewerServerOptions options;
  AccessPolicy policy;  // set by listen()
  std::uint16_t port = 0;
  bool loopbackOnly = true;  // set by listen(): false when it listens beyond this machine
  ViewerBoard board;
  InputQueue input;

 private:
  std::vector<std::shared_ptr<ViewerSession>> liveViewers() const;
  void acceptNext();
  void onAccepted(const boost::system::error_code& error, tcp::socket socket);
  void closeOldestHttpSession(const std::string& newcomer);
  void armTick();
  void onTick();
  void sendStatusToViewers(double now);
  void wakeViewers();

  const ServerLog log_;
  const SteadyClock::time_point started_ = SteadyClock::now();
  LimitedLog refusals_;
  mutable std::mutex statusMutex_;
  std::string status_;
  std::uint64_t statusVersion_ = 0;
  std::atomic<bool> wakePosted_{false};
  // Server thread.
  bool stopping_ = false;
  bool acceptPaused_ = false;
  std::map<std::uint64_t, std::weak_ptr<HttpSession>> httpSessions_;
  std::uint64_t nextHttpSession_ = 1;
  std::map<ViewerId, std::weak_ptr<ViewerSession>> viewers_;
  std::uint64_t statusVersionSent_ = 0;
  double lastStatusSent_ = 0;

 public:
  net::io_context io;

 private:
  tcp::acceptor acceptor_{io};
  net::steady_timer tick_{io};
};

}  // namespace nbody
