// Movies in a build without FFmpeg (the web page, tools/web.cmake): no VideoWriter can be made, so
// a recording is refused in one line where it would start; nothing else here is ever reached.
#include <stdexcept>

#include "io/video_writer.h"

namespace nbody {

struct VideoWriter::Ffmpeg {
  std::string description;
};

void checkVideoSettings(const VideoSettings&) {}

VideoWriter::VideoWriter(const std::filesystem::path& path, const VideoSettings& settings)
    : settings_(settings) {
  throw std::runtime_error(path.string() +
                           ": this build of nbody makes no movies (the web page's has no FFmpeg)");
}
VideoWriter::~VideoWriter() = default;
const std::string& VideoWriter::encoderName() const { return ffmpeg_->description; }
void VideoWriter::addFrame(const std::uint8_t*, std::ptrdiff_t, std::int64_t) {}
void VideoWriter::finish(const std::function<void()>&) {}

VideoEncoderThread::VideoEncoderThread(std::unique_ptr<VideoWriter> writer, int depth)
    : writer_(std::move(writer)), depth_(std::size_t(depth)) {}
VideoEncoderThread::~VideoEncoderThread() = default;
void VideoEncoderThread::submit(Frame) {}
void VideoEncoderThread::finish(const std::function<void()>&) {}
double VideoEncoderThread::busySeconds() const { return 0.0; }

}  // namespace nbody
