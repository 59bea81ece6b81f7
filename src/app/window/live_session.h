#pragma once
// The interactive session that `nbody run`'s window and `nbody serve`'s viewers show: the live
// simulation, the panel, the picture, and everything the panel and the keys ask for (engines,
// series playback, picking, histograms, overlays, camera paths, recording, snapshots, the
// conservation plots). It knows nothing of GLFW: a front-end (SessionFrontEnd) hands it each
// frame's input through Dear ImGui's IO and the keys pressed, gives it a framebuffer to draw into,
// and shows what it drew (a window's swap, or a JPEG frame streamed to browsers).
//
// Every frame, in the manner of Dear ImGui's examples: take the input, show the panel, apply what
// changed, step, draw the bodies and the panel, present.

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "app/live/window_options.h"
#include "app/window/window_capture.h"
#include "app/window/window_input.h"
#include "gl/context_info.h"

namespace nbody {

// Where a session is shown and steered from. The OpenGL context is current and a Dear ImGui
// context exists, with its renderer backend, before the session is made.
class SessionFrontEnd {
 public:
  virtual ~SessionFrontEnd() = default;
  // Takes the input since the last frame: into ImGui's IO, and the shortcut keys into `keys`.
  // False once the front-end asks the session to end (the window closed).
  virtual bool takeInput(KeyPresses& keys) = 0;
  // Where to draw this frame; a size of 0 when nothing can be shown now (a minimised window).
  virtual DrawTarget target() = 0;
  // While nothing can be shown: waits a little for something to change.
  virtual void waitWhileHidden() = 0;
  // ImGui's backends' NewFrame, then ImGui::NewFrame; and the panel drawn into target().
  virtual void beginPanelFrame() = 0;
  virtual void drawPanel() = 0;
  // Shows the frame drawn into target().
  virtual void present() = 0;
  // The display's refresh rate in Hz, to whose periods vsync holds each frame; 0 where nothing
  // holds a frame to a period (serve caps its frames at 60 a second, and a longer frame lasts as
  // long as its work), so that the steps a frame are chosen as without vsync.
  virtual double refreshRate() const = 0;
  virtual void setVsync(bool on) = 0;
  virtual const gl::ContextInfo& contextInfo() const = 0;
};

// What a session reads before its front-end opens, so that a bad file fails before a window shows.
struct SessionInputs;
std::shared_ptr<SessionInputs> readSessionInputs(const WindowOptions& options);

class LiveSession {
 public:
  LiveSession(const WindowOptions& options, std::shared_ptr<SessionInputs> inputs,
              SessionFrontEnd& frontEnd);
  ~LiveSession();
  LiveSession(const LiveSession&) = delete;
  LiveSession& operator=(const LiveSession&) = delete;

  bool runFrame();  // false once the session should end
  // Completes a recording still running (quitting while filming keeps the movie); a stop found by
  // `beforePublishing` abandons it.
  void finishRecording(const std::function<void()>& beforePublishing);
  bool recording() const;
  void printStats() const;
  int exitCode() const;
  long long frames() const;
  void checkEveryClickCame() const;
  const std::string& renderer() const;
  bool screenshotWritten() const;
  // What a script asks of the session now (nbody serve's status): step, time, paused and rates.
  struct Progress {
    long long step = 0, frames = 0;
    double time = 0, iterationsPerSecond = 0;
    bool paused = false;
    std::size_t bodies = 0;
    std::string engine, method;
  };
  Progress progress() const;

 private:
  class Impl;
  std::shared_ptr<SessionInputs> inputs_;
  std::unique_ptr<Impl> impl_;
};

// Runs a session on `frontEnd` until it ends, as `nbody run` does: the frames, then the recording
// finished, --print-stats, and the exit code. Rank 0 of a distributed run calls it; the other ranks
// follow its orders (app/live/frame_orders.h). `frontEnd` is made by `open`, after the session's
// inputs were read; `eachFrame` runs after every frame.
int runSession(const WindowOptions& options,
               const std::function<std::unique_ptr<SessionFrontEnd>()>& open,
               const std::function<void(const LiveSession&)>& eachFrame = {});

}  // namespace nbody
