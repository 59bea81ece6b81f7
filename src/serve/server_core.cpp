#include "serve/server_core.h"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/websocket/error.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

#include "serve/http_session.h"
#include "serve/viewer_session.h"

namespace nbody {
namespace {

using Json = nlohmann::json;

// Lines a peer can cause: a burst of 20, then 5 a second.
constexpr double kRefusalLinesPerSecond = 5, kRefusalLineBurst = 20;
// The owner's status goes to the viewers at most this often.
constexpr double kStatusSecondsApart = 1;

void writeToStandardError(std::string_view line) {
  std::string text(line);
  text += '\n';
  std::fwrite(text.data(), 1, text.size(), stderr);  // one write: lines of threads do not mix
}

// Often enough to notice a missing acknowledgement within a quarter of the timeout, seldom
// enough to cost nothing.
std::chrono::milliseconds tickInterval(std::chrono::milliseconds ackTimeout) {
  return std::clamp(ackTimeout / 4, std::chrono::milliseconds(10), std::chrono::milliseconds(1000));
}

// The owner's status as a JSON object; nothing when it set none or set something else.
std::optional<Json> ownerObject(const std::string& text) {
  if (text.empty()) return std::nullopt;
  Json status = Json::parse(text, nullptr, false);
  if (status.is_object()) return status;
  return std::nullopt;
}

// The owner's status for /status: the object, or one that says what is wrong with it.
Json ownerStatus(const std::string& text) {
  if (text.empty()) return Json::object();
  return ownerObject(text).value_or(
      Json{{"status_error", "the status the program set is not a JSON object"}});
}

std::string dumped(const Json& json) {
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// A server on an address other than loopback is reached by that address: allow it as a host and
// as the origin of the page it serves.
AccessPolicy policyFor(const ViewerServerOptions& options, const tcp::endpoint& bound) {
  std::vector<std::string> hosts = options.extraHosts, origins = options.extraOrigins;
  const auto address = bound.address();
  if (!address.is_loopback() && !address.is_unspecified()) {
    hosts.push_back(address.to_string());
    origins.push_back("http://" + endpointText(bound));
  }
  return loopbackPolicy(bound.port(), options.token, hosts, origins);
}

}  // namespace

std::string endpointText(const tcp::endpoint& endpoint) {
  const std::string address = endpoint.address().to_string();
  const std::string port = std::to_string(endpoint.port());
  return endpoint.address().is_v6() ? "[" + address + "]:" + port : address + ":" + port;
}

ConnectionEnd connectionEndOf(const boost::system::error_code& error) {
  namespace beast = boost::beast;
  if (error == beast::websocket::error::closed || error == beast::http::error::end_of_stream)
    return ConnectionEnd::closedByPeer;
  if (error == net::error::eof || error == net::error::connection_reset)
    return ConnectionEnd::vanished;
  if (error == beast::error::timeout) return ConnectionEnd::timedOut;
  if (error == net::error::operation_aborted || error == net::error::bad_descriptor)
    return ConnectionEnd::closedHere;
  if (error == beast::websocket::error::message_too_big) return ConnectionEnd::messageTooBig;
  return ConnectionEnd::failed;
}

bool isOrdinaryEnd(ConnectionEnd end) {
  return end != ConnectionEnd::messageTooBig && end != ConnectionEnd::failed;
}

LimitedLog::LimitedLog(const ServerLog& log)
    : log_(log), rate_(kRefusalLinesPerSecond, kRefusalLineBurst) {}

void LimitedLog::write(std::string line, double nowSeconds) {
  if (!rate_.allow(nowSeconds)) {
    ++heldBack_;
    return;
  }
  if (heldBack_ > 0)
    line += " (and " + std::to_string(heldBack_) + " more lines like it held back)";
  heldBack_ = 0;
  log_(line);
}

ServerCore::ServerCore(ViewerServerOptions given)
    : options(std::move(given)),
      board(options.mostViewers, options.frameCredit),
      log_(options.log ? options.log : ServerLog(writeToStandardError)),
      refusals_(log_) {
  // The rate of each viewer is made as it joins: check it here, where the owner hears of it.
  (void)MessageRate(options.messagesPerSecond, options.messageBurst);
}

void ServerCore::listen() {
  boost::system::error_code error;
  const auto address = net::ip::make_address(options.ip, error);
  if (error)
    throw std::runtime_error("cannot listen on " + options.ip + ":" + std::to_string(options.port) +
                             ": not an IP address");
  const tcp::endpoint endpoint{address, options.port};
  acceptor_.open(endpoint.protocol(), error);
  if (!error) acceptor_.set_option(net::socket_base::reuse_address(true), error);
  if (!error) acceptor_.bind(endpoint, error);
  if (!error) acceptor_.listen(net::socket_base::max_listen_connections, error);
  if (error)
    throw std::runtime_error("cannot listen on " + endpointText(endpoint) + ": " + error.message());
  const tcp::endpoint bound = acceptor_.local_endpoint();
  port = bound.port();
  loopbackOnly = bound.address().is_loopback();
  policy = policyFor(options, bound);
}

void ServerCore::start() {
  acceptNext();
  armTick();
}

void ServerCore::shutDown() {
  stopping_ = true;
  boost::system::error_code ignored;
  acceptor_.close(ignored);
  tick_.cancel();
  for (const auto& [id, weak] : std::map(httpSessions_))
    if (const auto session = weak.lock()) session->closeNow();
  for (const auto& viewer : liveViewers()) viewer->closeAsServerStops();
}

void ServerCore::framePublished() {
  if (!wakePosted_.exchange(true)) net::post(io, [this] { wakeViewers(); });
}

void ServerCore::setStatus(std::string json) {
  std::lock_guard lock(statusMutex_);
  status_ = std::move(json);
  ++statusVersion_;
}

double ServerCore::seconds() const {
  return std::chrono::duration<double>(SteadyClock::now() - started_).count();
}

void ServerCore::logRefusal(std::string_view peer, std::string_view reason) {
  refusals_.write("serve: refused " + std::string(peer) + ": " + std::string(reason), seconds());
}

std::string ServerCore::statusReport() const {
  Json report;
  {
    std::lock_guard lock(statusMutex_);
    report = ownerStatus(status_);
  }
  const std::optional<ViewerId> controller = board.controller();
  Json list = Json::array();
  for (const auto& viewer : liveViewers()) {
    const ViewerCounters counters = board.countersOf(viewer->id()).value_or(ViewerCounters{});
    list.push_back({{"id", viewer->id()},
                    {"peer", viewer->peer()},
                    {"control", controller == viewer->id()},
                    {"frames_sent", counters.framesSent},
                    {"frames_acknowledged", counters.framesAcknowledged}});
  }
  report["viewers"] = board.viewerCount();
  report["controller"] = controller ? Json(*controller) : Json(nullptr);
  report["viewer_list"] = std::move(list);
  return dumped(report);
}

std::optional<std::string> ServerCore::ownerStatusMessage() const {
  std::lock_guard lock(statusMutex_);
  const std::optional<Json> status = ownerObject(status_);
  if (!status) return std::nullopt;
  return dumped(Json{{"type", "status"}, {"status", *status}});
}

std::uint64_t ServerCore::addHttpSession(std::weak_ptr<HttpSession> session) {
  const std::uint64_t id = nextHttpSession_++;
  httpSessions_.emplace(id, std::move(session));
  return id;
}

void ServerCore::removeHttpSession(std::uint64_t id) { httpSessions_.erase(id); }

void ServerCore::addViewer(ViewerId id, std::weak_ptr<ViewerSession> session) {
  viewers_.emplace(id, std::move(session));
}

void ServerCore::removeViewer(ViewerId id) { viewers_.erase(id); }

void ServerCore::tellControl() {
  const std::optional<ViewerId> controller = board.controller();
  for (const auto& viewer : liveViewers()) viewer->tellControl(controller);
}

// Copies of the pointers: a viewer told something may finish, and leave the map, meanwhile.
std::vector<std::shared_ptr<ViewerSession>> ServerCore::liveViewers() const {
  std::vector<std::shared_ptr<ViewerSession>> live;
  for (const auto& [id, weak] : viewers_)
    if (auto viewer = weak.lock()) live.push_back(std::move(viewer));
  return live;
}

void ServerCore::acceptNext() {
  acceptor_.async_accept(io, [this](const boost::system::error_code& error, tcp::socket socket) {
    onAccepted(error, std::move(socket));
  });
}

void ServerCore::onAccepted(const boost::system::error_code& error, tcp::socket socket) {
  if (stopping_ || error == net::error::operation_aborted) return;
  if (error) {
    // Out of file descriptors, most likely: try again at the next tick rather than at once.
    refusals_.write("serve: cannot accept a connection: " + error.message(), seconds());
    acceptPaused_ = true;
    return;
  }
  boost::system::error_code unknown;
  const tcp::endpoint remote = socket.remote_endpoint(unknown);
  const std::string peer = unknown ? std::string("an unknown peer") : endpointText(remote);
  if (httpSessions_.size() >= options.mostHttpConnections) closeOldestHttpSession(peer);
  // Small messages (control, acknowledgements) go at once rather than wait for Nagle's timer.
  socket.set_option(tcp::no_delay(true), unknown);
  std::make_shared<HttpSession>(*this, std::move(socket), peer)->start();
  acceptNext();
}

// Every slot taken: the oldest connection gives way to the newest, so that connections held open
// (by another user of the machine, say, who needs no token to open them) cannot lock a viewer out.
void ServerCore::closeOldestHttpSession(const std::string& newcomer) {
  const auto oldest = httpSessions_.begin();
  refusals_.write("serve: " + std::to_string(httpSessions_.size()) +
                      " HTTP connections are open, the most allowed: the oldest is closed for " +
                      newcomer,
                  seconds());
  if (const auto session = oldest->second.lock()) session->closeNow();
  httpSessions_.erase(oldest);
}

void ServerCore::armTick() {
  tick_.expires_after(tickInterval(options.ackTimeout));
  tick_.async_wait([this](const boost::system::error_code& error) {
    if (!error && !stopping_) onTick();
  });
}

void ServerCore::onTick() {
  const double now = seconds();
  for (const auto& viewer : liveViewers()) viewer->checkAcknowledgements(now);
  sendStatusToViewers(now);
  if (acceptPaused_) {
    acceptPaused_ = false;
    acceptNext();
  }
  armTick();
}

void ServerCore::sendStatusToViewers(double now) {
  std::uint64_t version = 0;
  {
    std::lock_guard lock(statusMutex_);
    version = statusVersion_;
  }
  if (version == statusVersionSent_ || now - lastStatusSent_ < kStatusSecondsApart) return;
  statusVersionSent_ = version;
  lastStatusSent_ = now;
  const std::optional<std::string> message = ownerStatusMessage();
  if (!message) return;
  for (const auto& viewer : liveViewers()) viewer->tellStatus(*message);
}

void ServerCore::wakeViewers() {
  wakePosted_ = false;
  for (const auto& viewer : liveViewers()) viewer->sendWhatIsDue();
}

}  // namespace nbody
