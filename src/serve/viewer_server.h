#pragma once
// The network side of `nbody serve` (docs/serve.md, "Routes" and "The viewer's WebSocket"): an HTTP
// and WebSocket server on Boost.Beast that serves the embedded viewer page, streams the frames of a
// ViewerBoard to the viewers, and hands the controlling viewer's input to an InputQueue.
//
// It runs one io_context on a thread of its own; every connection lives on that thread, so no
// connection needs a lock. The owner's threads touch only what is thread-safe: the board and the
// input queue (each behind a mutex held for a few comparisons), the status text (behind its own
// mutex), and framePublished, which posts to the io_context and returns at once.
//
//   ViewerServer server({.token = makeToken()});        // binds and starts serving
//   std::cout << server.url() << "\n";
//   loop: server.publish(encodedFrame);                   // never waits on the network
//         for (ViewerInput& input : server.input().drainAll()) ...;
//         server.setStatus(R"({"step":12})");

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "serve/access.h"
#include "serve/input_queue.h"
#include "serve/viewers.h"

namespace nbody {

// Writes one line of the server's log ("serve: ..."); called on the server's thread only. It must
// not call back into the server.
using ServerLog = std::function<void(std::string_view line)>;

struct ViewerServerOptions {
  // Where to listen; port 0 takes a free one (port() says which).
  std::string ip = "127.0.0.1";
  std::uint16_t port = 0;
  // The access token (makeToken()); a server with an empty token lets no one in.
  std::string token;
  // Beyond the loopback names (access.h, loopbackPolicy). A server on an address that is neither
  // loopback nor unspecified also allows that address as a host and as an http origin.
  std::vector<std::string> extraHosts;
  std::vector<std::string> extraOrigins;
  // The board's: viewers at once, frames each may have unacknowledged.
  std::size_t mostViewers = 4;
  int frameCredit = 2;
  // Each viewer's messages: a token bucket (serve/viewers.h, MessageRate); the excess is dropped.
  double messagesPerSecond = 200;
  double messageBurst = 400;
  // A viewer that has frames unacknowledged and acknowledges none for this long is dropped, with
  // close code 1008.
  std::chrono::milliseconds ackTimeout{10000};
  // How long an HTTP request (the handshake's too) may take to arrive.
  std::chrono::milliseconds requestTimeout{10000};
  // HTTP connections at once, WebSockets not counted; more are closed as they come.
  std::size_t mostHttpConnections = 32;
  // Empty: "serve: ..." lines on stderr.
  ServerLog log;
};

class ServerCore;

class ViewerServer {
 public:
  // Binds and starts the server's thread. Throws std::runtime_error with one line, as
  // "cannot listen on 127.0.0.1:8765: Address already in use", when it cannot listen, and
  // std::invalid_argument for a board or rate that cannot be.
  explicit ViewerServer(ViewerServerOptions options);
  // Stops the server (stop()).
  ~ViewerServer();
  ViewerServer(const ViewerServer&) = delete;
  ViewerServer& operator=(const ViewerServer&) = delete;

  // The port bound, the one chosen when 0 was asked for.
  std::uint16_t port() const;
  // Whether the address bound is a loopback one, which only this machine reaches.
  bool loopbackOnly() const;
  // What a request needs, made for the port bound.
  const AccessPolicy& policy() const;
  // Where a browser opens the session: "http://IP:PORT/#token=TOKEN".
  std::string url() const;

  // The frames the viewers are sent and who has control; any thread.
  ViewerBoard& board();
  // The controlling viewer's input (ack and take_control are the server's own, never queued).
  InputQueue& input();

  // board().publish(frame), then framePublished().
  void publish(std::shared_ptr<const EncodedFrame> frame);
  // Wakes the server to send the board's latest frame to the viewers that are due one: posts to
  // the server's thread and returns at once. Any thread.
  void framePublished();
  // The owner's part of GET /status and of the status sent to viewers now and then: a JSON object
  // (anything else is reported as an error in its place). Any thread.
  void setStatus(std::string json);

  // Closes the listening socket and every connection, a viewer's with close code 1001, and joins
  // the server's thread; idempotent. A viewer that does not answer the close frame is cut off
  // within a second or two (serve/viewer_session.h, kCloseTimeout). Not from a log callback (the
  // server's own thread).
  void stop();

 private:
  std::unique_ptr<ServerCore> core_;
  std::thread thread_;
};

}  // namespace nbody
