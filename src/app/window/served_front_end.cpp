#include "app/window/served_front_end.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <glad/gl.h>
#include <imgui.h>
#include <nlohmann/json.hpp>

#include "app/run/engine_session.h"
#include "app/window/imgui_layer.h"
#include "app/window/served_input.h"
#include "gl/objects.h"
#include "gl/pixel_readback.h"
#include "render/offscreen.h"
#include "serve/access.h"
#include "serve/frame_encoder.h"
#include "serve/viewer_server.h"

namespace nbody {
namespace {

using Clock = std::chrono::steady_clock;

// A token of at least 128 bits: 22 or more characters of base64url, as makeToken writes.
std::string readToken(const std::string& path) {
  std::ifstream file(path);
  std::string token;
  if (!file || !(file >> token))
    throw std::runtime_error("serve: cannot read a token from " + path);
  const bool plain = std::all_of(token.begin(), token.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '-' || c == '_';
  });
  if (!plain || token.size() < 22 || token.size() > 256)
    throw std::runtime_error("serve: the token in " + path +
                             " must be 22 to 256 characters of A-Z a-z 0-9 - _ (128 bits or more)");
  return token;
}

ViewerServerOptions serverOptions(const ServeSettings& serve) {
  ViewerServerOptions options;
  options.ip = serve.ip;
  options.port = std::uint16_t(serve.port);
  options.token = serve.tokenFile.empty() ? makeToken() : readToken(serve.tokenFile);
  options.extraHosts = serve.allowHosts;
  options.extraOrigins = serve.allowOrigins;
  options.mostViewers = std::size_t(serve.mostViewers);
  return options;
}

// Where to open the session, and how to reach it from a laptop; on stdout for scripts.
void printWhereToOpen(const ViewerServer& server, const ServeSettings& serve) {
  if (!server.loopbackOnly())
    std::fprintf(stderr,
                 "serve: warning: listening on %s: anyone who reaches this machine on port %u "
                 "and holds the token can watch and steer the run\n",
                 serve.ip.c_str(), unsigned(server.port()));
  std::printf("serve: from another machine: %s, then open the address below\n",
              tunnelHint(server.port()).c_str());
  std::printf("serve: open %s\n", server.url().c_str());
  std::fflush(stdout);
}

// The picture's framebuffer, the size the viewer asked for, and the ring that reads it back.
struct PictureTarget {
  std::unique_ptr<OffscreenTarget> offscreen;
  std::unique_ptr<gl::PixelReadbackRing> readback;

  glm::ivec2 size() const { return offscreen->size(); }
  void resize(glm::ivec2 wanted) {
    if (offscreen && wanted == offscreen->size()) return;
    readback.reset();
    offscreen = std::make_unique<OffscreenTarget>(wanted);
    readback = std::make_unique<gl::PixelReadbackRing>(wanted, 2);
  }
};

}  // namespace

class ServedFrontEnd::Parts {
 public:
  Parts(const WindowOptions& window, const ServeSettings& serve)
      : context(openHeadlessContext()),
        input(glm::ivec2(window.width, window.height)),
        server(serverOptions(serve)),
        encoder(
            server.board(), [this] { return secondsSince(began); },
            [this] { server.framePublished(); }),
        deadline(serve.seconds > 0 ? began + std::chrono::duration_cast<Clock::duration>(
                                                 std::chrono::duration<double>(serve.seconds))
                                   : Clock::time_point::max()) {
    picture.resize(input.pictureSize());
    printWhereToOpen(server, serve);
  }

  static double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
  }
  void handOldestPicture();
  void pace();

  const Clock::time_point began = Clock::now();
  std::unique_ptr<gl::HeadlessContext> context;
  ImGuiLayer imgui;
  ServedInput input;
  PictureTarget picture;
  ViewerServer server;
  FrameEncoder encoder;
  Clock::time_point deadline;
  Clock::time_point lastFrame = began, nextFrame = began;
};

// The picture read back a frame ago (the GPU has long finished it), to the encoder.
void ServedFrontEnd::Parts::handOldestPicture() {
  gl::PixelReadbackRing& ring = *picture.readback;
  const gl::PixelReadbackRing::Pixels pixels = ring.takeOldest();
  const glm::ivec2 size = ring.size();
  const std::size_t bytes = std::size_t(size.x) * std::size_t(size.y) * 4;
  encoder.offer({{pixels.bottomRow, bytes}, size.x, size.y}, input.interactive(Clock::now()));
  ring.release(pixels.slot);
}

// At most 60 frames a second, as a display's vsync would pace them.
void ServedFrontEnd::Parts::pace() {
  const auto period = std::chrono::microseconds(1000000 / 60);
  nextFrame = std::max(nextFrame + period, Clock::now() - period);
  std::this_thread::sleep_until(nextFrame);
}

ServedFrontEnd::ServedFrontEnd(const WindowOptions& window, const ServeSettings& serve)
    : parts_(std::make_unique<Parts>(window, serve)) {}

ServedFrontEnd::~ServedFrontEnd() = default;

bool ServedFrontEnd::takeInput(KeyPresses& keys) {
  if (Clock::now() >= parts_->deadline) return false;
  std::vector<InputMessage> messages;
  for (ViewerInput& input : parts_->server.input().drainAll())
    messages.push_back(std::move(input.message));
  parts_->input.add(messages);
  parts_->input.applyFrame(keys, Clock::now());
  return true;
}

DrawTarget ServedFrontEnd::target() {
  parts_->picture.resize(parts_->input.pictureSize());
  return {parts_->picture.offscreen->framebuffer(), GL_COLOR_ATTACHMENT0, parts_->picture.size()};
}

void ServedFrontEnd::waitWhileHidden() {
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

void ServedFrontEnd::beginPanelFrame() {
  parts_->imgui.beginRendererFrame();
  ImGuiIO& io = ImGui::GetIO();
  const auto ratio = float(parts_->input.pixelRatio());
  const glm::ivec2 size = parts_->picture.size();
  io.DisplaySize = ImVec2(float(size.x) / ratio, float(size.y) / ratio);
  io.DisplayFramebufferScale = ImVec2(ratio, ratio);
  const Clock::time_point now = Clock::now();
  io.DeltaTime = std::max(1e-4f, std::chrono::duration<float>(now - parts_->lastFrame).count());
  parts_->lastFrame = now;
  ImGui::NewFrame();
}

void ServedFrontEnd::drawPanel() { parts_->imgui.draw(); }

void ServedFrontEnd::present() {
  PictureTarget& picture = parts_->picture;
  glBindFramebuffer(GL_READ_FRAMEBUFFER, picture.offscreen->framebuffer());
  glReadBuffer(GL_COLOR_ATTACHMENT0);
  picture.readback->request();
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  if (picture.readback->pending() > 1) parts_->handOldestPicture();
  if (paced_) parts_->pace();
}

const gl::ContextInfo& ServedFrontEnd::contextInfo() const { return parts_->context->info(); }

void ServedFrontEnd::publishStatus(const LiveSession::Progress& progress) {
  const ServedFigures served = figures();
  const nlohmann::json status{{"step", progress.step},
                              {"time", progress.time},
                              {"frames", progress.frames},
                              {"steps_per_second", progress.iterationsPerSecond},
                              {"paused", progress.paused},
                              {"bodies", progress.bodies},
                              {"engine", progress.engine},
                              {"method", progress.method},
                              {"width", served.width},
                              {"height", served.height},
                              {"frames_published", served.framesPublished},
                              {"pictures_drawn", served.picturesHanded},
                              {"pictures_unchanged", served.picturesUnchanged},
                              {"pictures_replaced", served.picturesReplaced},
                              {"encodings_failed", served.encodingsFailed}};
  parts_->server.setStatus(status.dump());
}

ServedFigures ServedFrontEnd::figures() const {
  const FrameEncoderCounters counters = parts_->encoder.counters();
  ServedFigures figures;
  figures.framesPublished = counters.framesPublished;
  figures.picturesHanded = counters.picturesHanded;
  figures.encodingsFailed = counters.encodingsFailed;
  figures.picturesUnchanged = counters.picturesUnchanged;
  figures.picturesReplaced = counters.picturesReplaced;
  figures.meanEncodeMilliseconds = counters.meanEncodeMilliseconds;
  figures.width = parts_->picture.size().x;
  figures.height = parts_->picture.size().y;
  return figures;
}

}  // namespace nbody
