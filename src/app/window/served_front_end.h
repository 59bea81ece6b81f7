#pragma once
// `nbody serve`'s front-end of the live session (docs/serve.md): no window and no X. It draws into
// an offscreen framebuffer of a headless (EGL) context at the controlling viewer's size, reads
// each picture back through a ring of pixel buffers, and hands it to the JPEG encoder, which
// streams it to every viewer of the server; the controlling viewer's messages become Dear ImGui's
// input and the window's keys. The simulation never waits on the network: the encoder keeps one
// latest picture, and the server one latest frame.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/live/window_options.h"
#include "app/window/live_session.h"

namespace nbody {

struct ServeSettings {
  std::string ip = "127.0.0.1";
  int port = 8765;        // 0: a free one
  std::string tokenFile;  // the token to require, read from this file; empty: a random one
  std::vector<std::string> allowHosts, allowOrigins;  // beyond the loopback names
  double seconds = 0;                                 // end after this long; 0: when stopped
  int mostViewers = 4;
};

// The served session's own figures, for its status.
struct ServedFigures {
  std::uint64_t framesPublished = 0, picturesHanded = 0, encodingsFailed = 0;
  // Pictures equal to the frame sent before (not sent again), and replaced by a later one before
  // the encoder took them.
  std::uint64_t picturesUnchanged = 0, picturesReplaced = 0;
  double meanEncodeMilliseconds = 0;
  int width = 0, height = 0;
};

class ServedFrontEnd final : public SessionFrontEnd {
 public:
  // Makes the headless context, starts the server and prints where to open it. Throws
  // std::runtime_error with one line (no context, a port taken, an unreadable token file).
  ServedFrontEnd(const WindowOptions& window, const ServeSettings& serve);
  ~ServedFrontEnd() override;

  bool takeInput(KeyPresses& keys) override;
  DrawTarget target() override;
  void waitWhileHidden() override;
  void beginPanelFrame() override;
  void drawPanel() override;
  void present() override;
  double refreshRate() const override { return 0.0; }  // capped at 60 frames a second, not held
  void setVsync(bool on) override { paced_ = on; }
  const gl::ContextInfo& contextInfo() const override;

  // The status that GET /status and the viewers show: the session's progress and the stream's.
  void publishStatus(const LiveSession::Progress& progress);
  ServedFigures figures() const;

 private:
  class Parts;
  std::unique_ptr<Parts> parts_;
  bool paced_ = true;
};

}  // namespace nbody
