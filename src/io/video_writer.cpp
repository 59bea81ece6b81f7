#include "io/video_writer.h"

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <stdexcept>
#include <utility>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
}

#include "io/output_file.h"
#include "util/system_limits.h"

namespace nbody {
namespace {

// x264's speed preset: the encoder keeps up with 60 pictures a second at 1920 x 1080 on a host's
// CPU shared with the GPU's thread and the colour conversion. "veryfast" is about three times
// "medium" and keeps CABAC, B-frames and the look-ahead; at a constant CRF the faster presets cost
// bytes rather than looks (docs/performance-history.md, Movies, has the measured rates).
constexpr const char* kX264Preset = "veryfast";
// No macroblock tree: it spends bits on what later frames refer to, and lets the rest go. The
// bodies' light is fine detail in chaotic motion that later frames barely refer to, so mb-tree
// mostly lowers the quality of the last second of a movie: 160 x 120, N = 1024, CRF 20, the last
// frame against `shot` of the same state: 33.4 dB with it, 36.7 dB without (37.9 dB is what
// yuv420p itself allows), for files ~50% larger at the same CRF.
constexpr const char* kX264Params = "mbtree=0";

// FFmpeg reports details through its log, not through return codes. Its lines are kept here
// (the latest error) instead of printed, so that a failure is one line with the detail in it.
std::mutex libraryMessageMutex;
std::string latestLibraryMessage;

void keepLibraryMessage(void*, int level, const char* format, va_list arguments) {
  if (level > AV_LOG_ERROR) return;
  char line[512];
  std::vsnprintf(line, sizeof line, format, arguments);
  std::string text(line);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  const std::lock_guard lock(libraryMessageMutex);
  latestLibraryMessage = text;
}

std::string takeLibraryMessage() {
  const std::lock_guard lock(libraryMessageMutex);
  return std::exchange(latestLibraryMessage, {});
}

[[noreturn]] void failWith(const std::string& what, int code, const std::string& detail) {
  char reason[AV_ERROR_MAX_STRING_SIZE] = {};
  av_strerror(code, reason, sizeof reason);
  throw std::runtime_error(what + ": " + reason + (detail.empty() ? "" : " (" + detail + ")"));
}

[[noreturn]] void fail(const std::string& what, int code) {
  failWith(what, code, takeLibraryMessage());
}

const AVCodec* findH264Encoder(const std::string& name) {
  const AVCodec* codec = avcodec_find_encoder_by_name(name.c_str());
  if (!codec)
    throw std::runtime_error("no video encoder named " + name + " in this FFmpeg (" +
                             av_version_info() + ")");
  if (codec->id != AV_CODEC_ID_H264)
    throw std::runtime_error("the video encoder " + name + " does not make H.264");
  return codec;
}

}  // namespace

void checkVideoSettings(const VideoSettings& s) {
  const auto side = [](int pixels) {
    return pixels >= kSmallestVideoSide && pixels <= kLargestVideoSide;
  };
  if (!side(s.width) || !side(s.height))
    throw std::invalid_argument("a movie is " + std::to_string(kSmallestVideoSide) + " to " +
                                std::to_string(kLargestVideoSide) + " pixels wide and high, not " +
                                std::to_string(s.width) + " x " + std::to_string(s.height));
  if ((long long)s.width * s.height > kLargestVideoPixels)
    throw std::invalid_argument(std::to_string(s.width) + " x " + std::to_string(s.height) +
                                " pixels are more than H.264 allows (8192 x 4352)");
  if (s.width % 2 != 0 || s.height % 2 != 0)
    throw std::invalid_argument("a movie's width and height must be even (yuv420p), not " +
                                std::to_string(s.width) + " x " + std::to_string(s.height));
  if (s.framesPerSecond < 1 || s.framesPerSecond > kFastestVideoRate)
    throw std::invalid_argument("a movie has 1 to " + std::to_string(kFastestVideoRate) +
                                " frames per second, not " + std::to_string(s.framesPerSecond));
  if (s.crf < 0 || s.crf > 51)
    throw std::invalid_argument("the CRF is 0 to 51, not " + std::to_string(s.crf));
}

struct VideoWriter::Ffmpeg {
  explicit Ffmpeg(const std::filesystem::path& path) : output(path) {}
  ~Ffmpeg() {
    sws_freeContext(converter);
    av_packet_free(&packet);
    av_frame_free(&picture);
    avcodec_free_context(&encoder);
    avformat_free_context(format);
    if (bytes) av_freep(&bytes->buffer);
    avio_context_free(&bytes);  // before `output` (declared first) removes an uncommitted file
  }
  OutputFile output;
  AVIOContext* bytes = nullptr;  // libavformat's writes, through `output`
  AVFormatContext* format = nullptr;
  AVStream* stream = nullptr;
  AVCodecContext* encoder = nullptr;
  AVFrame* picture = nullptr;  // yuv420p, what the encoder gets
  AVPacket* packet = nullptr;
  SwsContext* converter = nullptr;  // RGBA to yuv420p
  std::string description;
};

namespace {

bool isX264(const AVCodec* codec) { return std::string(codec->name) == "libx264"; }

void openEncoder(AVCodecContext* encoder, const AVCodec* codec, const VideoSettings& s,
                 bool globalHeader) {
  encoder->width = s.width;
  encoder->height = s.height;
  encoder->pix_fmt = AV_PIX_FMT_YUV420P;
  encoder->time_base = AVRational{1, s.framesPerSecond};
  encoder->framerate = AVRational{s.framesPerSecond, 1};
  encoder->color_range = AVCOL_RANGE_MPEG;
  encoder->colorspace = AVCOL_SPC_BT709;
  encoder->color_primaries = AVCOL_PRI_BT709;
  encoder->color_trc = AVCOL_TRC_BT709;
  // 0: x264 picks its frame threads from the cores (1.5 per core), which is what reaches 60
  // pictures a second at 1080p; sliced threads would cut latency, which a file does not need.
  encoder->thread_count = 0;
  if (globalHeader) encoder->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  AVDictionary* options = nullptr;
  if (isX264(codec)) {  // other encoders have other presets and quality settings: their defaults
    av_dict_set(&options, "preset", kX264Preset, 0);
    av_dict_set_int(&options, "crf", s.crf, 0);
    av_dict_set(&options, "x264-params", kX264Params, 0);
  }
  const int opened = avcodec_open2(encoder, codec, &options);
  av_dict_free(&options);
  if (opened < 0)
    fail("cannot open the video encoder " + std::string(codec->name) + limitsThatMayBeBehind(),
         opened);
}

SwsContext* makeConverter(const VideoSettings& s) {
  // Bicubic: the filter that halves the colour resolution. Sprites a few pixels wide lose more to
  // yuv420p than to the encoder; bicubic keeps more of them than bilinear for a little more time.
  SwsContext* converter =
      sws_getContext(s.width, s.height, AV_PIX_FMT_RGBA, s.width, s.height, AV_PIX_FMT_YUV420P,
                     SWS_BICUBIC, nullptr, nullptr, nullptr);
  if (!converter) throw std::runtime_error("no RGBA to yuv420p conversion in this libswscale");
  // The picture's RGB is full range; the movie is BT.709, limited range, as its stream says.
  const int* bt709 = sws_getCoefficients(SWS_CS_ITU709);
  sws_setColorspaceDetails(converter, bt709, 1, bt709, 0, 0, 1 << 16, 1 << 16);
  return converter;
}

// libavformat writes through the output's tryWrite() and seek() (io/output_file.h decides where
// the bytes go and makes the file appear whole); its callback's buffer became const in FFmpeg 7.
#if LIBAVFORMAT_VERSION_MAJOR >= 61
using PacketBytes = const std::uint8_t*;
#else
using PacketBytes = std::uint8_t*;
#endif

int writeToOutput(void* output, PacketBytes bytes, int size) {
  return static_cast<OutputFile*>(output)->tryWrite(bytes, std::size_t(size)) ? size : AVERROR(EIO);
}

std::int64_t seekInOutput(void* output, std::int64_t offset, int whence) {
  auto* file = static_cast<OutputFile*>(output);
  if (whence & AVSEEK_SIZE) return file->length();
  errno = 0;
  const std::int64_t at = file->seek(offset, whence & ~AVSEEK_FORCE);
  return at >= 0 ? at
                 : AVERROR(errno > 0 ? errno : EIO);  // a write that failed before sets no errno
}

// A regular file seeks: the MP4's index goes to its front (faststart), for which libavformat
// reads the file back by its (temporary) name. A pipe or a device does not: the movie is then a
// fragmented MP4, which needs no going back (`nbody record -o /dev/stdout | ffplay -`).
AVIOContext* openBytes(OutputFile& output) {
  constexpr int kBufferBytes = 1 << 16;
  auto* buffer = static_cast<unsigned char*>(av_malloc(kBufferBytes));
  if (!buffer) throw std::bad_alloc();
  AVIOContext* bytes = avio_alloc_context(buffer, kBufferBytes, 1, &output, nullptr, writeToOutput,
                                          output.seekable() ? seekInOutput : nullptr);
  if (!bytes) {
    av_free(buffer);
    throw std::bad_alloc();
  }
  return bytes;
}

const char* movieLayout(const OutputFile& output) {
  return output.seekable() ? "+faststart" : "+frag_keyframe+empty_moov+default_base_moof";
}

}  // namespace

VideoWriter::VideoWriter(const std::filesystem::path& path, const VideoSettings& settings)
    : settings_(settings), ffmpeg_(std::make_unique<Ffmpeg>(path)) {
  checkVideoSettings(settings);
  static std::once_flag quietLibraries;
  std::call_once(quietLibraries, [] { av_log_set_callback(keepLibraryMessage); });
  const AVCodec* codec = findH264Encoder(settings.encoder);
  Ffmpeg& f = *ffmpeg_;
  const std::string file = path.string();
  const std::string readBackName = "file:" + f.output.temporaryPath().string();
  const int allocated =
      avformat_alloc_output_context2(&f.format, nullptr, "mp4", readBackName.c_str());
  if (allocated < 0) fail("cannot make an MP4 muxer for " + file, allocated);
  f.stream = avformat_new_stream(f.format, nullptr);
  f.encoder = avcodec_alloc_context3(codec);
  f.picture = av_frame_alloc();
  f.packet = av_packet_alloc();
  if (!f.stream || !f.encoder || !f.picture || !f.packet) throw std::bad_alloc();
  openEncoder(f.encoder, codec, settings, f.format->oformat->flags & AVFMT_GLOBALHEADER);
  f.description = std::string(codec->name) +
                  (isX264(codec) ? std::string(" (preset ") + kX264Preset + ", " + kX264Params +
                                       ", crf " + std::to_string(settings.crf) + ")"
                                 : " (its own default quality)");
  avcodec_parameters_from_context(f.stream->codecpar, f.encoder);
  f.stream->time_base = f.encoder->time_base;
  f.stream->avg_frame_rate = f.encoder->framerate;

  f.picture->format = AV_PIX_FMT_YUV420P;
  f.picture->width = settings.width;
  f.picture->height = settings.height;
  if (const int made = av_frame_get_buffer(f.picture, 0); made < 0)
    fail("no memory for a picture", made);
  f.converter = makeConverter(settings);

  f.bytes = openBytes(f.output);
  f.format->pb = f.bytes;
  f.format->flags |= AVFMT_FLAG_CUSTOM_IO;
  AVDictionary* muxerOptions = nullptr;
  av_dict_set(&muxerOptions, "movflags", movieLayout(f.output), 0);
  const int written = avformat_write_header(f.format, &muxerOptions);
  av_dict_free(&muxerOptions);
  if (written < 0) failWriting(written);
}

// A write that failed: the output's own message (which file, which error) where it has one.
void VideoWriter::failWriting(int code) {
  const std::string detail = takeLibraryMessage();  // not left behind for the next failure
  ffmpeg_->output.flush();  // throws the output's own message where a write failed
  failWith("cannot write " + ffmpeg_->output.target().string(), code, detail);
}

VideoWriter::~VideoWriter() = default;

const std::string& VideoWriter::encoderName() const { return ffmpeg_->description; }

void VideoWriter::addFrame(const std::uint8_t* firstRow, std::ptrdiff_t rowBytes,
                           std::int64_t frameIndex) {
  if (frameIndex <= lastFrameIndex_)
    throw std::logic_error("VideoWriter::addFrame: frame indices must increase");
  Ffmpeg& f = *ffmpeg_;
  if (const int writable = av_frame_make_writable(f.picture); writable < 0)
    fail("no memory for a picture", writable);
  const std::uint8_t* const source[1] = {firstRow};
  const int sourceStride[1] = {int(rowBytes)};
  sws_scale(f.converter, source, sourceStride, 0, settings_.height, f.picture->data,
            f.picture->linesize);
  f.picture->pts = frameIndex;
  if (const int sent = avcodec_send_frame(f.encoder, f.picture); sent < 0)
    fail("encoding " + f.output.target().string() + " failed" + limitsThatMayBeBehind(), sent);
  lastFrameIndex_ = frameIndex;
  ++framesWritten_;
  writePackets();
}

// Moves what the encoder has finished into the file.
void VideoWriter::writePackets() {
  Ffmpeg& f = *ffmpeg_;
  while (true) {
    const int received = avcodec_receive_packet(f.encoder, f.packet);
    if (received == AVERROR(EAGAIN) || received == AVERROR_EOF) return;
    if (received < 0)
      fail("encoding " + f.output.target().string() + " failed" + limitsThatMayBeBehind(),
           received);
    if (f.packet->duration == 0) f.packet->duration = 1;  // the last picture lasts a frame too
    av_packet_rescale_ts(f.packet, f.encoder->time_base, f.stream->time_base);
    f.packet->stream_index = f.stream->index;
    if (const int written = av_interleaved_write_frame(f.format, f.packet); written < 0)
      failWriting(written);
  }
}

void VideoWriter::finish(const std::function<void()>& beforePublishing) {
  Ffmpeg& f = *ffmpeg_;
  const std::string file = f.output.target().string();
  if (const int sent = avcodec_send_frame(f.encoder, nullptr); sent < 0)
    fail("encoding " + file + " failed" + limitsThatMayBeBehind(), sent);
  writePackets();
  if (const int written = av_write_trailer(f.format); written < 0) failWriting(written);
  avio_flush(f.bytes);
  f.output.commit(beforePublishing);  // throws what a write met
}

// --- VideoEncoderThread

VideoEncoderThread::VideoEncoderThread(std::unique_ptr<VideoWriter> writer, int depth)
    : writer_(std::move(writer)),
      depth_(std::size_t(std::max(depth, 1))),
      thread_([this] { run(); }) {}

VideoEncoderThread::~VideoEncoderThread() {
  {
    const std::lock_guard lock(mutex_);
    closing_ = true;
    for (Frame& frame : queue_)
      if (frame.release) frame.release();
    queue_.clear();
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void VideoEncoderThread::rethrowFailure() {
  if (failure_) std::rethrow_exception(failure_);
}

void VideoEncoderThread::submit(Frame frame) {
  std::unique_lock lock(mutex_);
  const auto began = std::chrono::steady_clock::now();
  changed_.wait(lock, [&] { return queue_.size() < depth_ || failure_; });
  waitedSeconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  if (failure_) {
    if (frame.release) frame.release();
    rethrowFailure();
  }
  queue_.push_back(std::move(frame));
  changed_.notify_all();
}

void VideoEncoderThread::run() {
  std::unique_lock lock(mutex_);
  while (true) {
    changed_.wait(lock, [&] { return !queue_.empty() || closing_; });
    if (queue_.empty()) return;  // closing, and everything queued was encoded
    Frame frame = std::move(queue_.front());
    queue_.pop_front();
    working_ = true;
    lock.unlock();
    const auto began = std::chrono::steady_clock::now();
    std::exception_ptr failed;
    try {
      if (!failure_) writer_->addFrame(frame.firstRow, frame.rowBytes, frame.frameIndex);
    } catch (...) {
      failed = std::current_exception();
    }
    if (frame.release) frame.release();
    const double busy =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    lock.lock();
    busySeconds_ += busy;
    if (failed && !failure_) failure_ = failed;
    working_ = false;
    changed_.notify_all();
  }
}

void VideoEncoderThread::finish(const std::function<void()>& beforePublishing) {
  {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return (queue_.empty() && !working_) || failure_; });
    rethrowFailure();
  }
  const auto began = std::chrono::steady_clock::now();
  writer_->finish(beforePublishing);  // the thread is idle: nothing else touches the writer
  const std::lock_guard lock(mutex_);
  busySeconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
}

double VideoEncoderThread::busySeconds() const {
  const std::lock_guard lock(mutex_);
  return busySeconds_;
}

}  // namespace nbody
