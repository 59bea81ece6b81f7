#include "serve/viewer_session.h"

#include <boost/asio/buffer.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <nlohmann/json.hpp>
#include <utility>
#include <variant>

#include "util/printable_text.h"

namespace nbody {
namespace {

namespace beast = boost::beast;
namespace websocket = beast::websocket;
using Json = nlohmann::json;

// Beast pings a viewer silent for half this long and closes one silent for all of it: a browser
// answers pings by itself, so only a vanished viewer is closed.
constexpr std::chrono::seconds kViewerIdleTimeout{60};

// Beast's timeouts for a viewer: `handshake` bounds the opening handshake, and later the closing
// one.
websocket::stream_base::timeout viewerTimeouts(std::chrono::milliseconds handshake) {
  websocket::stream_base::timeout timeouts{};
  timeouts.handshake_timeout = handshake;
  timeouts.idle_timeout = kViewerIdleTimeout;
  timeouts.keep_alive_pings = true;
  return timeouts;
}

// The words of the log line for how the read ended (connectionEndOf classifies).
std::string whyReadFailed(const boost::system::error_code& error, bool stopping) {
  if (stopping) return "the server stopped";
  switch (connectionEndOf(error)) {
    case ConnectionEnd::closedByPeer:
      return "closed by the viewer";
    case ConnectionEnd::vanished:
      return "its connection closed without a close frame";
    case ConnectionEnd::timedOut:
      return "it stopped answering";
    case ConnectionEnd::closedHere:
      return "the server closed its connection";
    case ConnectionEnd::messageTooBig:
      return "it sent a message over " + std::to_string(kMostInputMessageBytes) + " bytes";
    case ConnectionEnd::failed:
      break;
  }
  return error.message();
}

std::string controlMessage(ViewerId viewer, std::optional<ViewerId> controller) {
  const Json message{{"type", "control"},
                     {"you", controller == viewer},
                     {"controller", controller ? Json(*controller) : Json(nullptr)},
                     {"id", viewer}};
  return message.dump();
}

}  // namespace

ViewerSession::ViewerSession(ServerCore& core, beast::tcp_stream stream, ViewerId viewer,
                             std::string peer)
    : core_(core),
      socket_(std::move(stream)),
      closeDeadline_(socket_.get_executor()),
      viewer_(viewer),
      peer_(std::move(peer)),
      rate_(core.options.messagesPerSecond, core.options.messageBurst) {}

// A session that never finished (its handlers destroyed with the io_context) still leaves.
ViewerSession::~ViewerSession() {
  if (finished_) return;
  core_.board.leave(viewer_);
  core_.removeViewer(viewer_);
}

void ViewerSession::accept(const HttpRequest& request) {
  socket_.read_message_max(kMostInputMessageBytes);
  socket_.auto_fragment(false);
  socket_.set_option(viewerTimeouts(core_.options.requestTimeout));
  socket_.set_option(websocket::stream_base::decorator([](websocket::response_type& response) {
    addCommonHeaders(response.base());
    const std::string_view protocol = acceptedProtocol();
    response.set(http::field::sec_websocket_protocol, {protocol.data(), protocol.size()});
  }));
  core_.addViewer(viewer_, weak_from_this());
  socket_.async_accept(request,
                       [self = shared_from_this()](const boost::system::error_code& error) {
                         self->onAccepted(error);
                       });
}

void ViewerSession::onAccepted(const boost::system::error_code& error) {
  if (finished_) return;  // closed (the server stopping) while its handshake was under way
  if (error || core_.stopping()) {
    finish("the WebSocket handshake failed: " + error.message());
    return;
  }
  open_ = true;
  core_.log("serve: viewer " + std::to_string(viewer_) + " joined from " + peer_ + " (" +
            std::to_string(core_.board.viewerCount()) + " connected)");
  statusMessage_ = core_.ownerStatusMessage();
  core_.tellControl();
  readNext();
  sendWhatIsDue();
}

void ViewerSession::sendWhatIsDue() {
  if (!open_ || writing_ || finished_) return;
  for (std::optional<std::string>* text : {&controlMessage_, &statusMessage_}) {
    if (!*text) continue;
    std::string message = std::move(**text);
    text->reset();
    return writeText(std::move(message));
  }
  if (auto frame = core_.board.takeFrameFor(viewer_)) writeFrame(std::move(frame));
}

void ViewerSession::tellControl(std::optional<ViewerId> controller) {
  const std::pair told{controller == viewer_, controller};
  if (controlTold_ == told) return;
  controlTold_ = told;
  controlMessage_ = controlMessage(viewer_, controller);
  sendWhatIsDue();
}

void ViewerSession::tellStatus(std::string message) {
  statusMessage_ = std::move(message);
  sendWhatIsDue();
}

void ViewerSession::checkAcknowledgements(double nowSeconds) {
  if (finished_ || !waitingSince_) return;
  const double most = std::chrono::duration<double>(core_.options.ackTimeout).count();
  if (nowSeconds - *waitingSince_ <= most) return;
  const std::string why =
      "acknowledged no frame for " + std::to_string(core_.options.ackTimeout.count()) + " ms";
  finish("it " + why, CloseReason(websocket::close_code::policy_error, "it " + why));
}

void ViewerSession::closeAsServerStops() {
  finish("the server stopped",
         CloseReason(websocket::close_code::going_away, "the server is stopping"));
}

void ViewerSession::readNext() {
  socket_.async_read(incoming_, [self = shared_from_this()](const boost::system::error_code& error,
                                                            std::size_t) { self->onRead(error); });
}

void ViewerSession::onRead(const boost::system::error_code& error) {
  if (error) {
    finish(whyReadFailed(error, core_.stopping()));
    return;
  }
  const std::string text = beast::buffers_to_string(incoming_.data());
  incoming_.consume(incoming_.size());
  if (!rate_.allow(core_.seconds())) {
    if (drops_.overRate++ == 0)
      core_.log("serve: viewer " + std::to_string(viewer_) + " sends over " +
                std::to_string(int(core_.options.messagesPerSecond)) +
                " messages a second: the excess is dropped");
  } else if (socket_.got_binary()) {
    dropUnreadable("a binary message");
  } else {
    receive(text);
  }
  if (!finished_) readNext();
}

void ViewerSession::receive(std::string_view text) {
  ParsedInput parsed = parseInputMessage(text);
  if (!parsed.message) return dropUnreadable(parsed.refusal);
  if (const auto* ack = std::get_if<FrameAck>(&*parsed.message)) return acknowledge(ack->sequence);
  if (std::holds_alternative<TakeControl>(*parsed.message)) return takeControl();
  forward(std::move(*parsed.message));
}

void ViewerSession::dropUnreadable(std::string_view reason) {
  if (drops_.unreadable++ > 0) return;
  core_.log("serve: viewer " + std::to_string(viewer_) + " sent a message that was dropped (" +
            printable(reason, 200) + "); more such are counted, not logged");
}

void ViewerSession::forward(InputMessage message) {
  if (core_.board.mayControl(viewer_)) {
    core_.input.push({viewer_, std::move(message)});
    return;
  }
  if (drops_.withoutControl++ == 0)
    core_.log("serve: viewer " + std::to_string(viewer_) +
              " sends input without control: dropped until it takes control");
}

// Only an acknowledgement that returned credit restarts the ack timeout: one of a frame never
// sent keeps no viewer alive.
void ViewerSession::acknowledge(std::uint64_t sequence) {
  if (core_.board.acknowledge(viewer_, sequence))
    waitingSince_ = core_.board.awaitsAcknowledgement(viewer_)
                        ? std::optional<double>(core_.seconds())
                        : std::nullopt;
  sendWhatIsDue();
}

// The viewer that asks is told even when it had control already: the page waits for the answer.
void ViewerSession::takeControl() {
  core_.board.takeControl(viewer_);
  controlTold_.reset();
  core_.tellControl();
}

void ViewerSession::writeText(std::string text) {
  outgoingText_ = std::move(text);
  write({net::buffer(outgoingText_), net::const_buffer()}, false);
}

// The picture goes out of the frame itself, held until the write ends: no viewer copies it.
void ViewerSession::writeFrame(std::shared_ptr<const EncodedFrame> frame) {
  if (!waitingSince_) waitingSince_ = core_.seconds();
  const FrameMessageParts parts = frameMessageParts(*frame);
  outgoingHeader_ = parts.header;
  outgoingFrame_ = std::move(frame);
  write({net::buffer(outgoingHeader_), net::buffer(parts.picture.data(), parts.picture.size())},
        true);
}

// One message of the two buffers, in one WebSocket frame (auto_fragment is off).
void ViewerSession::write(const std::array<net::const_buffer, 2>& message, bool binary) {
  writing_ = true;
  socket_.binary(binary);
  socket_.async_write(
      message, [self = shared_from_this()](const boost::system::error_code& error, std::size_t) {
        self->onWritten(error);
      });
}

void ViewerSession::onWritten(const boost::system::error_code& error) {
  writing_ = false;
  outgoingFrame_.reset();  // a frame the board has replaced is freed now
  if (error) {
    finish(core_.stopping() ? "the server stopped" : "cannot send to it: " + error.message());
    return;
  }
  sendWhatIsDue();
}

void ViewerSession::finish(std::string_view why, const std::optional<CloseReason>& closeFrame) {
  if (finished_) return;
  finished_ = true;
  const ViewerCounters counters = core_.board.countersOf(viewer_).value_or(ViewerCounters{});
  core_.board.leave(viewer_);
  core_.removeViewer(viewer_);
  if (open_ && closeFrame)
    sendClose(*closeFrame);
  else
    closeNow();
  // Control may have passed to a viewer whose handshake then failed: the others learn who has it.
  if (!core_.stopping()) core_.tellControl();
  if (open_) logLeaving(why, counters);
}

void ViewerSession::logLeaving(std::string_view why, const ViewerCounters& counters) {
  std::string line = "serve: viewer " + std::to_string(viewer_) + " left (" + std::string(why) +
                     "): " + std::to_string(counters.framesSent) + " frames sent, " +
                     std::to_string(counters.framesAcknowledged) + " acknowledged";
  for (const auto& [count, what] : {std::pair{drops_.unreadable, "unreadable messages"},
                                    {drops_.overRate, "messages over the rate"},
                                    {drops_.withoutControl, "messages without control"}})
    if (count > 0) line += ", " + std::to_string(count) + " " + what + " dropped";
  core_.log(line);
}

// The pending read ends once the close handshake has (with the peer's close frame, or Beast's
// timeout); a write under way goes first, within the deadline.
void ViewerSession::sendClose(const CloseReason& reason) {
  socket_.set_option(viewerTimeouts(kCloseTimeout));
  closeDeadline_.expires_after(2 * kCloseTimeout);
  closeDeadline_.async_wait([self = shared_from_this()](const boost::system::error_code& error) {
    if (error != net::error::operation_aborted) self->closeNow();
  });
  socket_.async_close(reason, [self = shared_from_this()](const boost::system::error_code&) {
    self->closeDeadline_.cancel();
    self->closeNow();
  });
}

void ViewerSession::closeNow() { beast::get_lowest_layer(socket_).close(); }

}  // namespace nbody
