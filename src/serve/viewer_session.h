#pragma once
// One viewer of `nbody serve` on its WebSocket (docs/serve.md, "The viewer's WebSocket"), private
// to the server's sources. It lives on the server's thread, kept alive by its pending read.
//
// Out: the board's frames as binary messages (serve/viewers.h, frameMessage) whenever the board
// gives one, and JSON text messages: who has control when that changes for this viewer, and the
// owner's status now and then. One write at a time; a text message waiting goes before a frame,
// and a newer one of the same kind replaces it.
//
// In: JSON text messages (serve/input_message.h), each within the viewer's message rate. `ack` and
// `take_control` are the server's; the rest go to the input queue while this viewer has control.
// A message that cannot be read, one over the rate and one without control are dropped, and each
// kind is logged once per viewer and counted in the line it leaves with. A message over
// kMostInputMessageBytes closes the connection; so do frames unacknowledged for the ack timeout.

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/websocket/stream.hpp>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "serve/http_answers.h"
#include "serve/input_message.h"
#include "serve/server_core.h"

namespace nbody {

class ViewerSession : public std::enable_shared_from_this<ViewerSession> {
 public:
  // `viewer` has joined the board already; the session leaves it when it ends.
  ViewerSession(ServerCore& core, boost::beast::tcp_stream stream, ViewerId viewer,
                std::string peer);
  ~ViewerSession();
  ViewerSession(const ViewerSession&) = delete;
  ViewerSession& operator=(const ViewerSession&) = delete;

  // Completes the handshake of `request`, echoing the subprotocol nbody.v1.
  void accept(const HttpRequest& request);

  ViewerId id() const { return viewer_; }
  const std::string& peer() const { return peer_; }
  // Starts a write of what is due, unless one is under way: a text message, else a frame.
  void sendWhatIsDue();
  void tellControl(std::optional<ViewerId> controller);
  void tellStatus(std::string message);
  // Closes the connection when a frame sent has waited for its acknowledgement too long.
  void checkAcknowledgements(double nowSeconds);
  // Closes the connection; the pending read ends it.
  void closeNow();

 private:
  // How many messages of each kind this viewer had dropped.
  struct Drops {
    std::uint64_t unreadable = 0, overRate = 0, withoutControl = 0;
  };
  struct SentFrame {
    std::uint64_t sequence = 0;
    double sentAt = 0;
  };

  void onAccepted(const boost::system::error_code& error);
  void readNext();
  void onRead(const boost::system::error_code& error);
  void receive(std::string_view text);
  void dropUnreadable(std::string_view reason);
  void forward(InputMessage message);
  void acknowledge(std::uint64_t sequence);
  void takeControl();
  void write(std::vector<std::uint8_t> bytes, bool binary);
  void onWritten(const boost::system::error_code& error);
  void finish(std::string_view why);

  ServerCore& core_;
  boost::beast::websocket::stream<boost::beast::tcp_stream> socket_;
  boost::beast::flat_buffer incoming_;
  std::vector<std::uint8_t> outgoing_;
  const ViewerId viewer_;
  const std::string peer_;
  MessageRate rate_;
  bool open_ = false, writing_ = false, finished_ = false;
  std::optional<std::string> controlMessage_, statusMessage_;
  // The (you, controller) last told, so that only a change is told.
  std::optional<std::pair<bool, std::optional<ViewerId>>> controlTold_;
  std::deque<SentFrame> unacknowledged_;
  Drops drops_;
};

}  // namespace nbody
