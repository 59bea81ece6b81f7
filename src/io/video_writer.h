#pragma once
// MP4 movies through FFmpeg's libraries: RGBA8 pictures in, H.264 (yuv420p, BT.709, limited
// range: what every player shows alike) out, with the index at the front of the file (faststart)
// so that a browser plays it while it downloads (to a pipe or a device: a fragmented MP4, which
// needs no going back). A file is written under a temporary name and appears under its own only
// when finish() succeeds: a failed or abandoned movie leaves nothing (a pipe or a device has
// received what was encoded until then).
//
// VideoWriter encodes on the caller's thread; VideoEncoderThread runs one on a thread of its own,
// so that whoever makes the pictures (the GPU's thread) does not wait for the encoder.

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace nbody {

struct VideoSettings {
  int width = 1920, height = 1080;  // even: yuv420p halves both for colour
  int framesPerSecond = 60;
  // x264's constant rate factor: 0 lossless, 51 worst; 18 looks like the source to most eyes,
  // 23 is x264's own default. Sprites on black have sharp edges that show blocks early.
  int crf = 20;
  // Any H.264 encoder of libavcodec (h264_nvenc, ...); the preset and the CRF are libx264's, the
  // others keep their own defaults.
  std::string encoder = "libx264";
};

// The limits the command line checks first (bad arguments), and VideoWriter again.
constexpr int kLargestVideoSide = 8192;
constexpr long long kLargestVideoPixels = 8192LL * 4352;  // H.264's largest level (6.2)
constexpr int kSmallestVideoSide = 16;                    // one macroblock
constexpr int kFastestVideoRate = 240;

// Throws std::invalid_argument saying what is wrong with the settings (odd size, ...).
void checkVideoSettings(const VideoSettings& settings);

class VideoWriter {
 public:
  // Finds the encoder and opens the temporary file: an unknown encoder or an unwritable path
  // fails here, before any work. Throws std::runtime_error naming the file and the problem.
  VideoWriter(const std::filesystem::path& path, const VideoSettings& settings);
  ~VideoWriter();  // without finish(): the temporary file is removed
  VideoWriter(const VideoWriter&) = delete;
  VideoWriter& operator=(const VideoWriter&) = delete;

  // One picture of the movie's size, RGBA8. Rows are `rowBytes` apart starting at `firstRow`,
  // the picture's top row; negative rowBytes reads OpenGL's bottom-up rows without a copy.
  // `frameIndex`: when it is shown, in frames of 1/framesPerSecond; strictly increasing (a gap
  // shows the previous picture longer).
  void addFrame(const std::uint8_t* firstRow, std::ptrdiff_t rowBytes, std::int64_t frameIndex);
  // Encodes what the encoder still holds, completes the file and gives it its name.
  // `beforePublishing` as for OutputFile::commit: what it throws abandons the movie.
  void finish(const std::function<void()>& beforePublishing = {});

  const VideoSettings& settings() const { return settings_; }
  const std::string& encoderName() const;  // e.g. "libx264 (preset veryfast, mbtree=0, crf 20)"
  std::int64_t framesWritten() const { return framesWritten_; }

 private:
  struct Ffmpeg;  // the libraries' objects
  void writePackets();
  [[noreturn]] void failWriting(int code);
  VideoSettings settings_;
  std::unique_ptr<Ffmpeg> ffmpeg_;
  std::int64_t framesWritten_ = 0, lastFrameIndex_ = -1;
};

// A VideoWriter on its own thread. submit() hands a picture over and returns at once (it waits
// only while `depth` pictures are already queued); the picture's memory must stay valid until
// its `release` runs, on the encoder's thread, once the picture was converted and copied.
class VideoEncoderThread {
 public:
  VideoEncoderThread(std::unique_ptr<VideoWriter> writer, int depth);
  ~VideoEncoderThread();  // stops the thread; without finish() the movie is abandoned
  VideoEncoderThread(const VideoEncoderThread&) = delete;
  VideoEncoderThread& operator=(const VideoEncoderThread&) = delete;

  struct Frame {
    const std::uint8_t* firstRow = nullptr;
    std::ptrdiff_t rowBytes = 0;
    std::int64_t frameIndex = 0;
    std::function<void()> release;  // may be empty
  };
  // Rethrows a failure of the encoder's thread (then nothing more is encoded).
  void submit(Frame frame);
  // Encodes what is queued and completes the file; rethrows a failure of the encoder's thread.
  void finish(const std::function<void()>& beforePublishing = {});

  const VideoWriter& writer() const { return *writer_; }
  // Seconds the encoder's thread spent converting and encoding (not waiting for pictures).
  double busySeconds() const;
  // Seconds submit() waited for room in the queue: the encoder holding the caller back.
  double waitedSeconds() const { return waitedSeconds_; }

 private:
  void run();
  void rethrowFailure();

  std::unique_ptr<VideoWriter> writer_;
  std::size_t depth_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Frame> queue_;
  bool closing_ = false, working_ = false;
  std::exception_ptr failure_;
  double busySeconds_ = 0.0, waitedSeconds_ = 0.0;
  std::thread thread_;  // last: starts once everything above exists
};

}  // namespace nbody
