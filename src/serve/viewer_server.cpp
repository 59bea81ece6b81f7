#include "serve/viewer_server.h"

#include <boost/asio/post.hpp>
#include <exception>
#include <utility>

#include "serve/server_core.h"

namespace nbody {
namespace {

// The server's thread: runs until shutDown has closed everything and the last handler has run. A
// handler that throws is a bug; the line says so and the loop goes on, so that stop() still ends.
void runServer(ServerCore& core) {
  for (;;) {
    try {
      core.io.run();
      return;
    } catch (const std::exception& failure) {
      core.log(std::string("serve: internal error: ") + failure.what());
    }
  }
}

}  // namespace

ViewerServer::ViewerServer(ViewerServerOptions options)
    : core_(std::make_unique<ServerCore>(std::move(options))) {
  core_->listen();
  net::post(core_->io, [core = core_.get()] { core->start(); });
  thread_ = std::thread(runServer, std::ref(*core_));
}

ViewerServer::~ViewerServer() { stop(); }

std::uint16_t ViewerServer::port() const { return core_->port; }

bool ViewerServer::loopbackOnly() const { return core_->loopbackOnly; }

const AccessPolicy& ViewerServer::policy() const { return core_->policy; }

std::string ViewerServer::url() const {
  return viewerUrl(core_->options.ip, core_->port, core_->options.token);
}

ViewerBoard& ViewerServer::board() { return core_->board; }

InputQueue& ViewerServer::input() { return core_->input; }

void ViewerServer::publish(std::shared_ptr<const EncodedFrame> frame) {
  core_->board.publish(std::move(frame));
  core_->framePublished();
}

void ViewerServer::framePublished() { core_->framePublished(); }

void ViewerServer::setStatus(std::string json) { core_->setStatus(std::move(json)); }

void ViewerServer::stop() {
  if (!thread_.joinable()) return;
  net::post(core_->io, [core = core_.get()] { core->shutDown(); });
  thread_.join();
}

}  // namespace nbody
