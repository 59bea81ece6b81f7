#pragma once
// One viewer of `nbody serve` on its WebSocket (docs/serve.md, "The viewer's WebSocket"), private
// to the server's sources. It lives on the server's thread, kept alive by its pending operations.
//
// Out: the board's frames as binary messages (serve/viewers.h, frameMessageParts: this viewer's
// header, then the frame's own picture bytes, shared with every other viewer's write) whenever
// the board gives one, and JSON text messages: who has control when that changes for this viewer,
// and the owner's status now and then. One write at a time; a text message waiting goes before a
// frame, and a newer one of the same kind replaces it.
//
// In: JSON text messages (serve/input_message.h), each within the viewer's message rate. `ack` and
// `take_control` are the server's; the rest go to the input queue while this viewer has control.
// A message that cannot be read, one over the rate and one without control are dropped, and each
// kind is logged once per viewer and counted in the line it leaves with.
//
// How it ends: a message over kMostInputMessageBytes, or a frame Beast cannot read, makes Beast
// send close code 1009 (too big) or 1002 (protocol error) and close. The server ends a viewer
// with a close frame too: 1008 (policy violation) when it has had frames unacknowledged and
// acknowledged none for the ack timeout, 1001 (going away) when the server stops. A peer that
// does not answer a close frame within kCloseTimeout is cut off: it holds neither a viewer slot
// (the viewer leaves the board as the close frame goes) nor the server's stop.

#include <array>
#include <boost/asio/buffer.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/websocket/stream.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "serve/http_answers.h"
#include "serve/input_message.h"
#include "serve/server_core.h"

namespace nbody {

// A browser answers a close frame at once; Beast cuts off a peer that has not within this.
inline constexpr std::chrono::milliseconds kCloseTimeout{1000};

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
  // Ends the viewer (close code 1008) when it has had frames unacknowledged and acknowledged none
  // for the ack timeout.
  void checkAcknowledgements(double nowSeconds);
  // Ends the viewer as the server stops: close code 1001, or a bare close before the handshake.
  void closeAsServerStops();

 private:
  // How many messages of each kind this viewer had dropped.
  struct Drops {
    std::uint64_t unreadable = 0, overRate = 0, withoutControl = 0;
  };
  using CloseReason = boost::beast::websocket::close_reason;

  void onAccepted(const boost::system::error_code& error);
  void readNext();
  void onRead(const boost::system::error_code& error);
  void receive(std::string_view text);
  void dropUnreadable(std::string_view reason);
  void forward(InputMessage message);
  void acknowledge(std::uint64_t sequence);
  void takeControl();
  void writeText(std::string text);
  void writeFrame(std::shared_ptr<const EncodedFrame> frame);
  void write(const std::array<net::const_buffer, 2>& message, bool binary);
  void onWritten(const boost::system::error_code& error);
  // Leaves the board and logs why; then closes the connection, with `closeFrame` when the
  // WebSocket is open and one is given, otherwise at once.
  void finish(std::string_view why, const std::optional<CloseReason>& closeFrame = std::nullopt);
  void logLeaving(std::string_view why, const ViewerCounters& counters);
  void sendClose(const CloseReason& reason);
  void closeNow();

  ServerCore& core_;
  boost::beast::websocket::stream<boost::beast::tcp_stream> socket_;
  // Beast's close timer starts once the close frame may be written: a write the peer never
  // drains holds it back, so this deadline, later than Beast's, closes the socket regardless.
  net::steady_timer closeDeadline_;
  boost::beast::flat_buffer incoming_;
  // What the write under way sends: a text, or a header and the frame whose picture follows it.
  std::string outgoingText_;
  std::array<std::uint8_t, kFrameHeaderBytes> outgoingHeader_{};
  std::shared_ptr<const EncodedFrame> outgoingFrame_;
  const ViewerId viewer_;
  const std::string peer_;
  MessageRate rate_;
  bool open_ = false, writing_ = false, finished_ = false;
  std::optional<std::string> controlMessage_, statusMessage_;
  // The (you, controller) last told, so that only a change is told.
  std::optional<std::pair<bool, std::optional<ViewerId>>> controlTold_;
  // Where the ack timeout runs from while the board has frames of this viewer unacknowledged: the
  // frame sent while none was, or the last acknowledgement that left some. (Which frames wait is
  // the board's to know.)
  std::optional<double> waitingSince_;
  Drops drops_;
};

}  // namespace nbody
