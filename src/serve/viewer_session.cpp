#include "serve/viewer_session.h"

#include <boost/asio/buffer.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/websocket/error.hpp>
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

std::string whyReadFailed(const boost::system::error_code& error, bool stopping) {
  if (stopping) return "the server stopped";
  if (error == websocket::error::closed) return "closed by the viewer";
  if (error == websocket::error::message_too_big)
    return "it sent a message over " + std::to_string(kMostInputMessageBytes) + " bytes";
  if (error == beast::error::timeout) return "it stopped answering";
  if (error == net::error::eof || error == net::error::connection_reset)
    return "its connection closed without a close frame";
  return error.message();
}

std::vector<std::uint8_t> bytesOf(std::string_view text) { return {text.begin(), text.end()}; }

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
  websocket::stream_base::timeout timeouts{};
  timeouts.handshake_timeout = core_.options.requestTimeout;
  timeouts.idle_timeout = kViewerIdleTimeout;
  timeouts.keep_alive_pings = true;
  socket_.set_option(timeouts);
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
    std::vector<std::uint8_t> bytes = bytesOf(**text);
    text->reset();
    return write(std::move(bytes), false);
  }
  const auto frame = core_.board.takeFrameFor(viewer_);
  if (!frame) return;
  unacknowledged_.push_back({frame->sequence, core_.seconds()});
  write(frameMessage(*frame), true);
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
  if (finished_ || unacknowledged_.empty()) return;
  const double waited = nowSeconds - unacknowledged_.front().sentAt;
  const double most = std::chrono::duration<double>(core_.options.ackTimeout).count();
  if (waited > most)
    finish("it acknowledged no frame for " + std::to_string(core_.options.ackTimeout.count()) +
           " ms");
}

void ViewerSession::closeNow() { beast::get_lowest_layer(socket_).close(); }

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

// An acknowledgement covers the frames sent before it too (the board's rule, mirrored here for
// the timeout).
void ViewerSession::acknowledge(std::uint64_t sequence) {
  core_.board.acknowledge(viewer_, sequence);
  for (auto sent = unacknowledged_.begin(); sent != unacknowledged_.end(); ++sent) {
    if (sent->sequence != sequence) continue;
    unacknowledged_.erase(unacknowledged_.begin(), sent + 1);
    break;
  }
  sendWhatIsDue();
}

// The viewer that asks is told even when it had control already: the page waits for the answer.
void ViewerSession::takeControl() {
  core_.board.takeControl(viewer_);
  controlTold_.reset();
  core_.tellControl();
}

void ViewerSession::write(std::vector<std::uint8_t> bytes, bool binary) {
  outgoing_ = std::move(bytes);
  writing_ = true;
  socket_.binary(binary);
  socket_.async_write(net::buffer(outgoing_),
                      [self = shared_from_this()](const boost::system::error_code& error,
                                                  std::size_t) { self->onWritten(error); });
}

void ViewerSession::onWritten(const boost::system::error_code& error) {
  writing_ = false;
  if (error) {
    finish(core_.stopping() ? "the server stopped" : "cannot send to it: " + error.message());
    return;
  }
  sendWhatIsDue();
}

void ViewerSession::finish(std::string_view why) {
  if (finished_) return;
  finished_ = true;
  const ViewerCounters counters = core_.board.countersOf(viewer_).value_or(ViewerCounters{});
  core_.board.leave(viewer_);
  core_.removeViewer(viewer_);
  closeNow();
  // Control may have passed to a viewer whose handshake then failed: the others learn who has it.
  if (!core_.stopping()) core_.tellControl();
  if (!open_) return;
  std::string line = "serve: viewer " + std::to_string(viewer_) + " left (" + std::string(why) +
                     "): " + std::to_string(counters.framesSent) + " frames sent, " +
                     std::to_string(counters.framesAcknowledged) + " acknowledged";
  for (const auto& [count, what] : {std::pair{drops_.unreadable, "unreadable messages"},
                                    {drops_.overRate, "messages over the rate"},
                                    {drops_.withoutControl, "messages without control"}})
    if (count > 0) line += ", " + std::to_string(count) + " " + what + " dropped";
  core_.log(line);
}

}  // namespace nbody
