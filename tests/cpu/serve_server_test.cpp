// The network side of `nbody serve` (serve/viewer_server.h) against a real server on 127.0.0.1,
// port 0: Beast clients in the test ask for the page and the status, make WebSocket handshakes
// with and without the rights, and play viewers (fast, slow, silent, hostile) while the test
// publishes small made-up frames. Every wait is on a condition with a generous deadline, for slow
// CI machines; none is a sleep standing in for one.

#include "serve/viewer_server.h"

#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <variant>
#include <vector>

namespace nbody {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr auto kPatience = std::chrono::seconds(10);

// The lines the server logged, for the test to read and wait for.
class LogLines {
 public:
  ServerLog sink() {
    return [this](std::string_view line) {
      {
        std::lock_guard lock(mutex_);
        lines_.emplace_back(line);
      }
      logged_.notify_all();
    };
  }
  std::size_t count(std::string_view part) const {
    std::lock_guard lock(mutex_);
    std::size_t found = 0;
    for (const std::string& line : lines_) found += line.find(part) != std::string::npos;
    return found;
  }
  // The first line that holds `part`, once there is one (empty when none came in time).
  std::string waitFor(std::string_view part) {
    std::unique_lock lock(mutex_);
    std::string found;
    logged_.wait_for(lock, kPatience, [&] {
      for (const std::string& line : lines_)
        if (line.find(part) != std::string::npos) found = line;
      return !found.empty();
    });
    return found;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable logged_;
  std::vector<std::string> lines_;
};

// Whether `condition` came true within the patience, looking every few milliseconds (for state
// that signals nothing, as the board's count of viewers).
template <class Condition>
bool eventually(Condition condition) {
  const auto deadline = Clock::now() + kPatience;
  while (!condition()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

// Runs `io` until `done` is set by a handler, or the patience runs out.
bool runUntil(net::io_context& io, const bool& done) {
  io.restart();
  const auto deadline = Clock::now() + kPatience;
  while (!done)
    if (io.run_one_until(deadline) == 0) break;
  return done;
}

tcp::endpoint loopback(std::uint16_t port) { return {net::ip::make_address("127.0.0.1"), port}; }

std::string loopbackHost(std::uint16_t port) { return "127.0.0.1:" + std::to_string(port); }

ViewerServerOptions optionsFor(LogLines& log) {
  ViewerServerOptions options;
  options.token = makeToken();
  options.log = log.sink();
  return options;
}

std::shared_ptr<const EncodedFrame> frameOf(std::uint64_t sequence) {
  auto frame = std::make_shared<EncodedFrame>();
  frame->sequence = sequence;
  frame->width = 320;
  frame->height = 200;
  frame->serverTime = 1.5;
  frame->jpeg = {0xff, 0xd8, std::uint8_t(sequence), 0x42, 0xff, 0xd9};
  return frame;
}

using Headers = std::vector<std::pair<std::string, std::string>>;
using Answer = http::response<http::string_body>;

// One request on a connection of its own; the answer, or status 0 when none came.
Answer ask(std::uint16_t port, std::string_view target, const Headers& headers,
           http::verb verb = http::verb::get) {
  net::io_context io;
  beast::tcp_stream stream(io);
  stream.connect(loopback(port));
  http::request<http::empty_body> request{verb, beast::string_view(target.data(), target.size()),
                                          11};
  for (const auto& [name, value] : headers) request.set(name, value);
  http::write(stream, request);
  beast::flat_buffer buffer;
  Answer answer;
  bool done = false;
  http::async_read(stream, buffer, answer, [&](beast::error_code, std::size_t) { done = true; });
  if (!runUntil(io, done)) {
    stream.close();
    io.run();
    ADD_FAILURE() << "no answer to " << target;
  }
  return answer;
}

// A WebSocket handshake as a browser makes it, with `origin` and `protocols` (empty: left out).
Answer handshake(std::uint16_t port, const std::string& origin, const std::string& protocols) {
  Headers headers{{"Host", loopbackHost(port)},
                  {"Upgrade", "websocket"},
                  {"Connection", "Upgrade"},
                  {"Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="},
                  {"Sec-WebSocket-Version", "13"}};
  if (!origin.empty()) headers.emplace_back("Origin", origin);
  if (!protocols.empty()) headers.emplace_back("Sec-WebSocket-Protocol", protocols);
  return ask(port, "/ws", headers);
}

std::string header(const Answer& answer, std::string_view name) {
  const auto value = answer[beast::string_view(name.data(), name.size())];
  return {value.data(), value.size()};
}

struct ReceivedFrame {
  std::uint64_t sequence = 0;
  unsigned width = 0, height = 0, codec = 0, flags = 0;
  double serverTime = 0;
  std::vector<std::uint8_t> picture;
};

std::uint64_t littleEndian(const std::string& bytes, std::size_t offset, std::size_t size) {
  std::uint64_t value = 0;
  for (std::size_t k = 0; k < size; ++k)
    value |= std::uint64_t(static_cast<unsigned char>(bytes.at(offset + k))) << (8 * k);
  return value;
}

// The message decoded by hand against the layout of serve/viewers.h.
ReceivedFrame decodeFrame(const std::string& bytes) {
  EXPECT_GE(bytes.size(), kFrameHeaderBytes);
  EXPECT_EQ(bytes.substr(0, 4), "NBF1");
  ReceivedFrame frame;
  frame.sequence = littleEndian(bytes, 4, 8);
  frame.width = unsigned(littleEndian(bytes, 12, 2));
  frame.height = unsigned(littleEndian(bytes, 14, 2));
  frame.codec = unsigned(littleEndian(bytes, 16, 1));
  frame.flags = unsigned(littleEndian(bytes, 17, 1));
  const std::uint64_t time = littleEndian(bytes, 20, 8);
  std::memcpy(&frame.serverTime, &time, sizeof time);
  frame.picture.assign(bytes.begin() + kFrameHeaderBytes, bytes.end());
  return frame;
}

struct Message {
  bool binary = false;
  std::string bytes;
};

// A viewer played by the test: it makes the handshake the page makes, and reads with deadlines.
class Viewer {
 public:
  Viewer(std::uint16_t port, const std::string& token) : socket_(io_) {
    beast::get_lowest_layer(socket_).connect(loopback(port));
    const std::string origin = "http://" + loopbackHost(port);
    const std::string protocols = "nbody.v1, token." + token;
    socket_.set_option(websocket::stream_base::decorator([=](websocket::request_type& request) {
      request.set(http::field::origin, origin);
      request.set(http::field::sec_websocket_protocol, protocols);
    }));
    bool done = false;
    beast::error_code error;
    socket_.async_handshake(handshakeAnswer_, loopbackHost(port), "/ws", [&](beast::error_code e) {
      error = e;
      done = true;
    });
    if (!runUntil(io_, done) || error)
      throw std::runtime_error("the handshake failed: " + error.message());
    id_ = nextControl().at("id").get<ViewerId>();
  }

  ViewerId id() const { return id_; }
  const websocket::response_type& handshakeAnswer() const { return handshakeAnswer_; }

  void send(std::string_view text) {
    beast::error_code ignored;
    socket_.text(true);
    socket_.write(net::buffer(text.data(), text.size()), ignored);
  }
  void sendBinary(std::string_view bytes) {
    beast::error_code ignored;
    socket_.binary(true);
    socket_.write(net::buffer(bytes.data(), bytes.size()), ignored);
  }
  void acknowledge(std::uint64_t sequence) {
    send(R"({"type":"ack","seq":)" + std::to_string(sequence) + "}");
  }
  void sendKey(std::string_view code) {
    send(R"({"type":"key","down":true,"code":")" + std::string(code) +
         R"(","key":"a","repeat":false,"mods":0})");
  }

  // The next message from the socket, past any the test has put aside; nothing once it closed.
  std::optional<Message> readOne();
  // The next binary message as it came, and decoded.
  std::string nextFrameBytes();
  ReceivedFrame nextFrame();
  Json nextControl();
  // Takes control and waits for the answer; whether it came.
  bool takeControl();
  // Closes as a browser does: a close frame, and the server's in answer.
  void close();
  std::size_t framesPutAside() const { return frames_.size(); }
  // Why the socket closed: the close frame's code, if the server sent one.
  websocket::close_reason closeReason() const { return socket_.reason(); }
  bool closed() const { return closed_; }

 private:
  net::io_context io_;
  websocket::stream<beast::tcp_stream> socket_;
  websocket::response_type handshakeAnswer_;
  ViewerId id_ = 0;
  bool closed_ = false;
  std::deque<Message> frames_, texts_;
};

std::optional<Message> Viewer::readOne() {
  if (closed_) return std::nullopt;
  beast::flat_buffer buffer;
  bool done = false;
  beast::error_code error;
  socket_.async_read(buffer, [&](beast::error_code e, std::size_t) {
    error = e;
    done = true;
  });
  if (!runUntil(io_, done)) {
    beast::get_lowest_layer(socket_).close();
    io_.restart();
    io_.run();
    closed_ = true;
    ADD_FAILURE() << "viewer " << id_ << " waited in vain for a message";
    return std::nullopt;
  }
  if (error) {
    closed_ = true;
    return std::nullopt;
  }
  return Message{socket_.got_binary(), beast::buffers_to_string(buffer.data())};
}

std::string Viewer::nextFrameBytes() {
  while (frames_.empty()) {
    std::optional<Message> message = readOne();
    if (!message) throw std::runtime_error("the viewer's socket closed before a frame came");
    (message->binary ? frames_ : texts_).push_back(std::move(*message));
  }
  std::string bytes = std::move(frames_.front().bytes);
  frames_.pop_front();
  return bytes;
}

ReceivedFrame Viewer::nextFrame() { return decodeFrame(nextFrameBytes()); }

Json Viewer::nextControl() {
  for (;;) {
    while (texts_.empty()) {
      std::optional<Message> message = readOne();
      if (!message) throw std::runtime_error("the viewer's socket closed before a message came");
      (message->binary ? frames_ : texts_).push_back(std::move(*message));
    }
    const Json message = Json::parse(texts_.front().bytes);
    texts_.pop_front();
    if (message.at("type") == "control") return message;
  }
}

void Viewer::close() {
  bool done = false;
  socket_.async_close(websocket::close_code::normal, [&](beast::error_code) { done = true; });
  EXPECT_TRUE(runUntil(io_, done));
  closed_ = true;
}

bool Viewer::takeControl() {
  send(R"({"type":"take_control"})");
  for (;;) {
    const Json control = nextControl();
    if (control.at("you").get<bool>()) return true;
  }
}

std::vector<ViewerId> sendersOf(const std::vector<ViewerInput>& inputs) {
  std::vector<ViewerId> senders;
  for (const ViewerInput& input : inputs) senders.push_back(input.viewer);
  return senders;
}

TEST(ServeServer, InputQueueDropsTheOldestBeyondItsCapacity) {
  InputQueue queue(3);
  for (ViewerId viewer = 1; viewer <= 5; ++viewer) queue.push({viewer, TakeControl{}});
  EXPECT_EQ(queue.dropped(), 2u);
  EXPECT_TRUE(queue.waitForInput(std::chrono::milliseconds(0)));
  EXPECT_EQ(sendersOf(queue.drainAll()), (std::vector<ViewerId>{3, 4, 5}));
  EXPECT_TRUE(queue.drainAll().empty());
  EXPECT_FALSE(queue.waitForInput(std::chrono::milliseconds(1)));
  EXPECT_THROW(InputQueue(0), std::invalid_argument);
}

TEST(ServeServer, BindsAFreePortAndSaysWhyItCannotListen) {
  LogLines log;
  ViewerServer first(optionsFor(log));
  ASSERT_NE(first.port(), 0);
  EXPECT_EQ(first.url(), viewerUrl("127.0.0.1", first.port(), first.policy().token));
  EXPECT_TRUE(first.loopbackOnly());
  ViewerServerOptions everywhere = optionsFor(log);
  everywhere.ip = "0.0.0.0";
  EXPECT_FALSE(ViewerServer{everywhere}.loopbackOnly());  // what `serve --ip` warns of
  ViewerServerOptions taken = optionsFor(log);
  taken.port = first.port();
  try {
    ViewerServer second(taken);
    ADD_FAILURE() << "a second server listened on port " << first.port();
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()),
              "cannot listen on " + loopbackHost(first.port()) + ": Address already in use");
  }
  ViewerServerOptions nowhere = optionsFor(log);
  nowhere.ip = "nowhere";
  EXPECT_THROW(ViewerServer{nowhere}, std::runtime_error);
}

void expectCommonHeaders(const Answer& answer) {
  EXPECT_EQ(header(answer, "Cache-Control"), "no-store");
  EXPECT_EQ(header(answer, "X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(header(answer, "Referrer-Policy"), "no-referrer");
}

TEST(ServeServer, PageNeedsAnAllowedHostAndCarriesAStrictPolicy) {
  LogLines log;
  ViewerServer server(optionsFor(log));
  const std::uint16_t port = server.port();
  const Answer page = ask(port, "/", {{"Host", loopbackHost(port)}});
  ASSERT_EQ(page.result_int(), 200);
  expectCommonHeaders(page);
  EXPECT_EQ(header(page, "Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(page.body().find("\"nbody.v1\""), std::string::npos);
  EXPECT_EQ(page.body().find("NBODY_NONCE"), std::string::npos);
  // The script and the style carry the nonce the policy names, and nothing else may load.
  const std::string policy = header(page, "Content-Security-Policy");
  const std::size_t nonceAt = policy.find("'nonce-");
  ASSERT_NE(nonceAt, std::string::npos) << policy;
  const std::string nonce =
      policy.substr(nonceAt + 7, policy.find('\'', nonceAt + 7) - nonceAt - 7);
  EXPECT_NE(page.body().find("<script nonce=\"" + nonce + "\">"), std::string::npos);
  EXPECT_NE(policy.find("default-src 'none'"), std::string::npos);
  EXPECT_NE(policy.find("img-src blob:"), std::string::npos);
  EXPECT_EQ(policy.find("unsafe"), std::string::npos);
  EXPECT_NE(ask(port, "/", {{"Host", loopbackHost(port)}}).body(), page.body());  // a new nonce

  EXPECT_EQ(ask(port, "/index.html", {{"Host", "localhost:" + std::to_string(port)}}).result_int(),
            200);
  EXPECT_EQ(ask(port, "/favicon.ico", {{"Host", loopbackHost(port)}}).result_int(), 204);
  EXPECT_EQ(ask(port, "/secret", {{"Host", loopbackHost(port)}}).result_int(), 404);
  const Answer posted = ask(port, "/", {{"Host", loopbackHost(port)}}, http::verb::post);
  EXPECT_EQ(posted.result_int(), 405);
  EXPECT_EQ(header(posted, "Allow"), "GET");

  const Answer rebound = ask(port, "/", {{"Host", "evil.example"}});
  EXPECT_EQ(rebound.result_int(), 403);
  expectCommonHeaders(rebound);
  EXPECT_EQ(rebound.body(),
            "forbidden: " + std::string(refusalReason(Refusal::foreignHost)) + "\n");
  EXPECT_NE("", log.waitFor("serve: refused 127.0.0.1:"));
  EXPECT_EQ(log.count(refusalReason(Refusal::foreignHost)), 1u);
  EXPECT_EQ(ask(port, "/", {}).result_int(), 403);
  EXPECT_EQ(ask(port, "/secret", {{"Host", "evil.example"}}).result_int(), 403);
}

TEST(ServeServer, StatusNeedsTheBearerToken) {
  LogLines log;
  ViewerServer server(optionsFor(log));
  const std::uint16_t port = server.port();
  server.setStatus(R"({"step":3,"viewers":"the server's count wins"})");
  const std::string token = server.policy().token;
  const Answer status =
      ask(port, "/status", {{"Host", loopbackHost(port)}, {"Authorization", "Bearer " + token}});
  ASSERT_EQ(status.result_int(), 200);
  EXPECT_TRUE(status.keep_alive()) << "a request with the token may ask again";
  expectCommonHeaders(status);
  EXPECT_EQ(header(status, "Content-Type"), "application/json");
  const Json report = Json::parse(status.body());
  EXPECT_EQ(report.at("step"), 3);
  EXPECT_EQ(report.at("viewers"), 0);
  EXPECT_TRUE(report.at("controller").is_null());

  EXPECT_EQ(ask(port, "/status", {{"Host", loopbackHost(port)}}).result_int(), 403);
  EXPECT_EQ(ask(port, "/status", {{"Host", loopbackHost(port)}, {"Authorization", "Bearer x"}})
                .result_int(),
            403);
  EXPECT_EQ(ask(port, "/status", {{"Host", "evil.example"}, {"Authorization", "Bearer " + token}})
                .result_int(),
            403);
  server.setStatus("not json");
  const Answer broken =
      ask(port, "/status", {{"Host", loopbackHost(port)}, {"Authorization", "Bearer " + token}});
  EXPECT_TRUE(Json::parse(broken.body()).contains("status_error"));
}

TEST(ServeServer, HandshakesWithoutTheirRightsAreRefusedBeforeTheUpgrade) {
  LogLines log;
  ViewerServer server(optionsFor(log));
  const std::uint16_t port = server.port();
  const std::string page = "http://" + loopbackHost(port);
  const std::string token = server.policy().token;
  struct Case {
    std::string origin, protocols;
    Refusal refusal;
  };
  const Case cases[] = {
      {page, "nbody.v1", Refusal::missingToken},
      {page, "nbody.v1, token.wrong", Refusal::wrongToken},
      {"http://evil.example", "nbody.v1, token." + token, Refusal::foreignOrigin},
      {"", "nbody.v1, token." + token, Refusal::missingOrigin},
      {page, "token." + token, Refusal::missingProtocol},
  };
  for (const Case& refused : cases) {
    const Answer answer = handshake(port, refused.origin, refused.protocols);
    EXPECT_EQ(answer.result_int(), 403) << refused.origin << " " << refused.protocols;
    EXPECT_EQ(header(answer, "Upgrade"), "");
    EXPECT_EQ(header(answer, "Sec-WebSocket-Accept"), "");
    EXPECT_EQ(answer.body(), "forbidden: " + std::string(refusalReason(refused.refusal)) + "\n");
  }
  EXPECT_EQ(server.board().viewerCount(), 0u);
  EXPECT_EQ(handshake(port, page, "nbody.v1, token." + token).result_int(), 101);
}

TEST(ServeServer, AViewerGetsEachFrameAsNbf1AndThePicture) {
  LogLines log;
  ViewerServer server(optionsFor(log));
  Viewer viewer(server.port(), server.policy().token);
  EXPECT_EQ(viewer.handshakeAnswer()[http::field::sec_websocket_protocol], "nbody.v1");
  EXPECT_EQ(viewer.handshakeAnswer()[http::field::cache_control], "no-store");
  EXPECT_NE("", log.waitFor("serve: viewer " + std::to_string(viewer.id()) + " joined from"));
  server.publish(frameOf(7));
  const ReceivedFrame frame = viewer.nextFrame();
  EXPECT_EQ(frame.sequence, 7u);
  EXPECT_EQ(frame.width, 320u);
  EXPECT_EQ(frame.height, 200u);
  EXPECT_EQ(frame.codec, kJpegCodec);
  EXPECT_EQ(frame.flags, 0u);
  EXPECT_EQ(frame.serverTime, 1.5);
  EXPECT_EQ(frame.picture, frameOf(7)->jpeg);
}

TEST(ServeServer, WithoutAcknowledgementsAViewerGetsTwoFramesAndThenNone) {
  LogLines log;
  ViewerServer server(optionsFor(log));
  Viewer viewer(server.port(), server.policy().token);
  server.publish(frameOf(1));
  EXPECT_EQ(viewer.nextFrame().sequence, 1u);
  server.publish(frameOf(2));
  EXPECT_EQ(viewer.nextFrame().sequence, 2u);
  server.publish(frameOf(3));
  server.publish(frameOf(4));
  // The answer to take_control comes on the same stream after anything sent before it: no frame.
  viewer.send(R"({"type":"take_control"})");
  const std::optional<Message> next = viewer.readOne();
  ASSERT_TRUE(next);
  EXPECT_FALSE(next->binary);
  viewer.acknowledge(2);
  EXPECT_EQ(viewer.nextFrame().sequence, 4u);  // the latest; 3 is skipped
  EXPECT_EQ(viewer.framesPutAside(), 0u);
}

TEST(ServeServer, OnlyTheControllingViewersInputReachesTheQueue) {
  LogLines log;
  ViewerServer server(optionsFor(log));
  Viewer first(server.port(), server.policy().token);
  Viewer second(server.port(), server.policy().token);
  ASSERT_EQ(server.board().controller(), first.id());
  second.sendKey("KeyB");
  ASSERT_TRUE(second.takeControl());  // its key came before, without control
  EXPECT_TRUE(server.input().drainAll().empty());
  EXPECT_NE("",
            log.waitFor("viewer " + std::to_string(second.id()) + " sends input without control"));
  second.sendKey("KeyB");
  ASSERT_TRUE(server.input().waitForInput(kPatience));
  const std::vector<ViewerInput> fromSecond = server.input().drainAll();
  ASSERT_EQ(sendersOf(fromSecond), std::vector<ViewerId>{second.id()});
  EXPECT_EQ(std::get<KeyInput>(fromSecond[0].message).code, "KeyB");

  EXPECT_FALSE(first.nextControl().at("you").get<bool>());  // told it lost control
  first.sendKey("KeyA");
  ASSERT_TRUE(first.takeControl());
  first.sendKey("KeyA");
  ASSERT_TRUE(server.input().waitForInput(kPatience));
  EXPECT_EQ(sendersOf(server.input().drainAll()), std::vector<ViewerId>{first.id()});
  EXPECT_EQ(server.board().controller(), first.id());
}

TEST(ServeServer, AViewerThatNeverAcknowledgesDoesNotSlowAnother) {
  LogLines log;
  ViewerServer server(optionsFor(log));
  Viewer silent(server.port(), server.policy().token);
  Viewer fast(server.port(), server.policy().token);
  constexpr std::uint64_t kFrames = 20;
  for (std::uint64_t sequence = 1; sequence <= kFrames; ++sequence) {
    server.publish(frameOf(sequence));
    ASSERT_EQ(fast.nextFrame().sequence, sequence);
    fast.acknowledge(sequence);
  }
  ASSERT_TRUE(silent.takeControl());  // everything sent to it before is in
  // Its credit of two frames, each the latest when its writer took one: 1 and 2 where the writer
  // kept up with the publishing, a later second where it did not (a busy machine: 1 and 3 seen).
  const std::uint64_t first = silent.nextFrame().sequence, second = silent.nextFrame().sequence;
  EXPECT_GE(first, 1u);
  EXPECT_GT(second, first);
  EXPECT_LE(second, kFrames);
  EXPECT_EQ(silent.framesPutAside(), 0u);

  const std::uint16_t port = server.port();
  ASSERT_TRUE(eventually([&] {
    const auto counters = server.board().countersOf(fast.id());
    return counters && counters->framesAcknowledged == kFrames;
  }));
  const Answer status =
      ask(port, "/status",
          {{"Host", loopbackHost(port)}, {"Authorization", "Bearer " + server.policy().token}});
  const Json report = Json::parse(status.body());
  EXPECT_EQ(report.at("viewers"), 2);
  EXPECT_EQ(report.at("controller"), silent.id());
  ASSERT_EQ(report.at("viewer_list").size(), 2u);
  for (const Json& viewer : report.at("viewer_list")) {
    const bool isFast = viewer.at("id") == fast.id();
    EXPECT_EQ(viewer.at("frames_sent"), isFast ? kFrames : 2u);
    EXPECT_EQ(viewer.at("frames_acknowledged"), isFast ? kFrames : 0u);
  }
}

TEST(ServeServer, BadMessagesAreDroppedAndAnOversizedOneClosesOnlyItsViewer) {
  LogLines log;
  ViewerServer server(optionsFor(log));
  Viewer hostile(server.port(), server.policy().token);
  Viewer fast(server.port(), server.policy().token);
  for (const char* garbage : {"not json", "{}", R"({"type":"key"})", R"({"type":"ack","seq":-1})",
                              R"({"type":"move","x":1e999,"y":0,"buttons":0})", "[1,2,3]", ""})
    hostile.send(garbage);
  hostile.sendBinary("\x01\x02\x03");
  hostile.send(std::string(kMostInputMessageBytes, ' '));  // as long as allowed: not JSON
  ASSERT_TRUE(hostile.takeControl());                      // still served
  const std::string hostileName = "viewer " + std::to_string(hostile.id());
  EXPECT_EQ(log.count(hostileName + " sent a message that was dropped"), 1u);

  hostile.send(std::string(kMostInputMessageBytes + 1, 'x'));
  EXPECT_FALSE(hostile.readOne());
  EXPECT_EQ(hostile.closeReason().code, websocket::close_code::too_big);
  EXPECT_NE("", log.waitFor(hostileName + " left (it sent a message over 4096 bytes)"));
  EXPECT_EQ(log.count("9 unreadable messages dropped"), 1u);
  server.publish(frameOf(1));
  EXPECT_EQ(fast.nextFrame().sequence, 1u);
  EXPECT_EQ(server.board().controller(), fast.id());
  EXPECT_TRUE(fast.nextControl().at("you").get<bool>());
}

TEST(ServeServer, AFloodIsCutToTheViewersRate) {
  LogLines log;
  ViewerServerOptions options = optionsFor(log);
  options.messagesPerSecond = 20;
  options.messageBurst = 40;
  ViewerServer server(options);
  Viewer flooder(server.port(), server.policy().token);
  constexpr std::size_t kSent = 400;
  for (std::size_t k = 0; k < kSent; ++k) flooder.sendKey("KeyF");
  EXPECT_NE("", log.waitFor("sends over 20 messages a second: the excess is dropped"));
  // Its close comes after the flood on the same stream: the line it leaves with counts them all.
  flooder.close();
  const std::string left = log.waitFor("viewer " + std::to_string(flooder.id()) + " left");
  const std::size_t overRateAt = left.find(" messages over the rate dropped");
  ASSERT_NE(overRateAt, std::string::npos) << left;
  const std::size_t dropped = std::stoul(left.substr(left.rfind(", ", overRateAt) + 2));
  const std::size_t forwarded = server.input().drainAll().size();
  EXPECT_EQ(forwarded + dropped, kSent) << left;
  EXPECT_GE(forwarded, 40u);  // the burst
  EXPECT_LT(forwarded, kSent);
}

TEST(ServeServer, MoreViewersThanAllowedAreRefusedBeforeTheUpgrade) {
  LogLines log;
  ViewerServerOptions options = optionsFor(log);
  options.mostViewers = 2;
  ViewerServer server(options);
  const std::uint16_t port = server.port();
  const std::string page = "http://" + loopbackHost(port);
  const std::string protocols = "nbody.v1, token." + server.policy().token;
  auto first = std::make_unique<Viewer>(port, server.policy().token);
  Viewer second(port, server.policy().token);
  const Answer busy = handshake(port, page, protocols);
  EXPECT_EQ(busy.result_int(), 503);
  EXPECT_EQ(header(busy, "Upgrade"), "");
  EXPECT_NE("", log.waitFor("2 viewers are connected already, the most allowed"));
  first.reset();  // leaves: room for one again
  ASSERT_TRUE(eventually([&] { return server.board().viewerCount() == 1; }));
  EXPECT_EQ(server.board().controller(), second.id());
  Viewer third(port, server.policy().token);
  EXPECT_EQ(server.board().viewerCount(), 2u);
}

// Connections that need no token cannot hold every slot: the oldest gives way to the newest, and
// one that asked for the page is closed once answered.
TEST(ServeServer, TheOldestHttpConnectionGivesWayWhenAllAreTaken) {
  LogLines log;
  ViewerServerOptions options = optionsFor(log);
  options.mostHttpConnections = 2;
  ViewerServer server(options);
  net::io_context io;
  std::vector<tcp::socket> idle;
  for (int k = 0; k < 2; ++k) idle.emplace_back(io).connect(loopback(server.port()));
  const Answer page = ask(server.port(), "/", {{"Host", loopbackHost(server.port())}});
  EXPECT_EQ(page.result_int(), 200);
  EXPECT_FALSE(page.keep_alive()) << "a page answered closes its connection";
  char byte = 0;
  bool done = false;
  beast::error_code error;
  idle[0].async_read_some(net::buffer(&byte, 1), [&](beast::error_code e, std::size_t) {
    error = e;
    done = true;
  });
  ASSERT_TRUE(runUntil(io, done));
  EXPECT_EQ(error, net::error::eof);
  EXPECT_NE("", log.waitFor("2 HTTP connections are open, the most allowed: the oldest is closed"));
}

// A server that drops a viewer after 200 ms without an acknowledgement, and a viewer that has had
// its first frame.
ViewerServerOptions impatientOptions(LogLines& log) {
  ViewerServerOptions options = optionsFor(log);
  options.ackTimeout = std::chrono::milliseconds(200);
  return options;
}

struct ImpatientServerAndViewer {
  ImpatientServerAndViewer() {
    server.publish(frameOf(1));
    EXPECT_EQ(viewer.nextFrame().sequence, 1u);
  }
  LogLines log;
  ViewerServer server{impatientOptions(log)};
  Viewer viewer{server.port(), server.policy().token};
};

TEST(ServeServer, AViewerThatStopsAcknowledgingIsDropped) {
  ImpatientServerAndViewer setUp;
  auto& [log, server, viewer] = setUp;
  EXPECT_FALSE(viewer.readOne());  // closed by the server, well within the patience
  EXPECT_EQ(viewer.closeReason().code, websocket::close_code::policy_error);
  EXPECT_EQ(viewer.closeReason().reason, "it acknowledged no frame for 200 ms");
  EXPECT_NE("", log.waitFor("left (it acknowledged no frame for 200 ms)"));
  EXPECT_EQ(server.board().viewerCount(), 0u);
}

// Only an acknowledgement that returns credit counts: one of a frame never sent keeps no viewer.
TEST(ServeServer, AcknowledgementsOfFramesNeverSentDoNotHoldOffTheAckTimeout) {
  ImpatientServerAndViewer setUp;
  auto& [log, server, viewer] = setUp;
  const std::string dropped = "viewer " + std::to_string(viewer.id()) + " left (it acknowledged";
  const auto deadline = Clock::now() + kPatience;
  while (log.count(dropped) == 0 && Clock::now() < deadline) {
    viewer.acknowledge(99);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(log.count(dropped), 1u);
  while (viewer.readOne()) {
  }
  EXPECT_EQ(viewer.closeReason().code, websocket::close_code::policy_error);
}

// A frame goes out of the one buffer the encoder made: byte for byte the same to every viewer.
TEST(ServeServer, TwoViewersGetTheSameBytesOfAFrame) {
  LogLines log;
  ViewerServer server(optionsFor(log));
  Viewer first(server.port(), server.policy().token);
  Viewer second(server.port(), server.policy().token);
  auto frame = std::make_shared<EncodedFrame>(*frameOf(3));
  frame->jpeg.resize(300 * 1024);
  for (std::size_t k = 0; k < frame->jpeg.size(); ++k) frame->jpeg[k] = std::uint8_t(k * 131 >> 3);
  const std::vector<std::uint8_t> expected = frameMessage(*frame);
  server.publish(frame);
  const std::string toFirst = first.nextFrameBytes();
  EXPECT_EQ(toFirst, second.nextFrameBytes());
  EXPECT_EQ(toFirst, std::string(expected.begin(), expected.end()));
}

TEST(ServeServer, StopWithViewersAndIdleConnectionsReturnsPromptly) {
  LogLines log;
  ViewerServer server(optionsFor(log));
  Viewer first(server.port(), server.policy().token);
  Viewer second(server.port(), server.policy().token);
  server.publish(frameOf(1));
  EXPECT_EQ(first.nextFrame().sequence, 1u);
  EXPECT_EQ(second.nextFrame().sequence, 1u);
  net::io_context io;
  tcp::socket idle(io);
  idle.connect(loopback(server.port()));
  const auto started = Clock::now();
  server.stop();  // the viewers answer no close frame: each is cut off after a second
  EXPECT_LT(Clock::now() - started, std::chrono::seconds(3));
  for (Viewer* viewer : {&first, &second}) {
    EXPECT_FALSE(viewer->readOne());
    EXPECT_EQ(viewer->closeReason().code, websocket::close_code::going_away);
    EXPECT_EQ(viewer->closeReason().reason, "the server is stopping");
  }
  EXPECT_EQ(server.board().viewerCount(), 0u);
  server.stop();  // again: nothing to do
  EXPECT_THROW(Viewer(server.port(), server.policy().token), std::exception);
}

// A viewer that answers the close frame is gone at once: the stop waits for no timeout.
TEST(ServeServer, AViewerThatAnswersTheCloseFrameLetsTheServerStopAtOnce) {
  LogLines log;
  ViewerServer server(optionsFor(log));
  Viewer viewer(server.port(), server.policy().token);
  EXPECT_NE("", log.waitFor("viewer " + std::to_string(viewer.id()) + " joined"));
  std::thread reader([&] {
    while (viewer.readOne()) {
    }
  });
  const auto started = Clock::now();
  server.stop();
  const auto stopping = Clock::now() - started;
  reader.join();
  EXPECT_LT(stopping, std::chrono::milliseconds(900)) << "less than the close timeout";
  EXPECT_EQ(viewer.closeReason().code, websocket::close_code::going_away);
  EXPECT_NE("", log.waitFor("left (the server stopped)"));
}

// A frame the viewer never reads holds the server's write, and Beast's close frame behind it: the
// close deadline still ends the connection, so the stop does not wait for the idle timeout.
TEST(ServeServer, StopCutsOffAViewerThatReadsNothing) {
  LogLines log;
  ViewerServer server(optionsFor(log));
  Viewer viewer(server.port(), server.policy().token);
  auto huge = std::make_shared<EncodedFrame>(*frameOf(1));
  huge->jpeg.assign(64 << 20, 0x42);  // far beyond what the sockets buffer
  server.publish(huge);
  ASSERT_TRUE(eventually([&] {
    const auto counters = server.board().countersOf(viewer.id());
    return counters && counters->framesSent == 1;
  }));
  const auto started = Clock::now();
  server.stop();
  EXPECT_LT(Clock::now() - started, std::chrono::seconds(5));
  EXPECT_NE("", log.waitFor("left (the server stopped)"));
}

}  // namespace
}  // namespace nbody
