#pragma once
// Reads a movie back through libavformat and libavcodec, as a player would: the stream's codec,
// size, pixel format and frame rate, and every picture as RGBA (BT.709, limited range, as
// VideoWriter writes). For the tests of `record` and of the window's recording.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

#include "io/image.h"

namespace nbody::test {

struct DecodedMovie {
  std::string codec, pixelFormat, container;
  int width = 0, height = 0;
  double framesPerSecond = 0;  // the stream's average rate
  double durationSeconds = 0;
  bool indexAtFront = false;  // faststart: the moov box comes before mdat
  std::vector<Image> frames;
};

namespace detail {

inline void check(int code, const std::string& what) {
  if (code >= 0) return;
  char reason[AV_ERROR_MAX_STRING_SIZE] = {};
  av_strerror(code, reason, sizeof reason);
  throw std::runtime_error(what + ": " + reason);
}

inline Image toRgba(const AVFrame* frame, SwsContext*& converter) {
  converter =
      sws_getCachedContext(converter, frame->width, frame->height, AVPixelFormat(frame->format),
                           frame->width, frame->height, AV_PIX_FMT_RGBA,
                           SWS_BICUBIC | SWS_FULL_CHR_H_INT | SWS_ACCURATE_RND, nullptr, nullptr,
                           nullptr);  // a careful player's colour upsampling
  const int* bt709 = sws_getCoefficients(SWS_CS_ITU709);
  sws_setColorspaceDetails(converter, bt709, 0, bt709, 1, 0, 1 << 16, 1 << 16);
  Image image(frame->width, frame->height);
  std::uint8_t* destination[1] = {image.rgba.data()};
  const int stride[1] = {frame->width * 4};
  sws_scale(converter, frame->data, frame->linesize, 0, frame->height, destination, stride);
  return image;
}

// The top-level boxes of an MP4 in order: faststart puts "moov" before "mdat".
inline bool moovBeforeMdat(const std::filesystem::path& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) return false;
  bool moovFirst = false;
  unsigned char header[8];
  while (std::fread(header, 1, 8, file) == 8) {
    const std::uint32_t size = std::uint32_t(header[0]) << 24 | std::uint32_t(header[1]) << 16 |
                               std::uint32_t(header[2]) << 8 | header[3];
    const std::string type(reinterpret_cast<char*>(header) + 4, 4);
    if (type == "moov") moovFirst = true;
    if (type == "mdat" || size < 8) break;
    std::fseek(file, long(size) - 8, SEEK_CUR);
  }
  std::fclose(file);
  return moovFirst;
}

// The library objects of one decoding, freed together.
struct Decoding {
  AVFormatContext* format = nullptr;
  AVCodecContext* decoder = nullptr;
  AVFrame* frame = av_frame_alloc();
  AVPacket* packet = av_packet_alloc();
  SwsContext* converter = nullptr;
  ~Decoding() {
    sws_freeContext(converter);
    av_packet_free(&packet);
    av_frame_free(&frame);
    avcodec_free_context(&decoder);
    avformat_close_input(&format);
  }
};

}  // namespace detail

// Throws std::runtime_error when the file does not open or decode.
inline DecodedMovie decodeMovie(const std::filesystem::path& path) {
  DecodedMovie movie;
  detail::Decoding d;
  detail::check(avformat_open_input(&d.format, path.c_str(), nullptr, nullptr),
                "cannot open " + path.string());
  detail::check(avformat_find_stream_info(d.format, nullptr), "no stream information");
  const int index = av_find_best_stream(d.format, AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
  detail::check(index, "no video stream");
  const AVStream* stream = d.format->streams[index];
  const AVCodec* codec = avcodec_find_decoder(stream->codecpar->codec_id);
  d.decoder = avcodec_alloc_context3(codec);
  detail::check(avcodec_parameters_to_context(d.decoder, stream->codecpar), "bad codec parameters");
  detail::check(avcodec_open2(d.decoder, codec, nullptr), "cannot open the decoder");
  movie.container = d.format->iformat->name;
  movie.codec = codec->name;
  movie.width = stream->codecpar->width;
  movie.height = stream->codecpar->height;
  movie.pixelFormat = av_get_pix_fmt_name(AVPixelFormat(stream->codecpar->format));
  movie.framesPerSecond = av_q2d(stream->avg_frame_rate);
  const auto receive = [&] {
    while (avcodec_receive_frame(d.decoder, d.frame) >= 0)
      movie.frames.push_back(detail::toRgba(d.frame, d.converter));
  };
  // How long it plays: from the first picture's time to the end of the last's. (The track's own
  // duration sums decoding times, which with B-frames and uneven times end before the last
  // picture does.)
  std::int64_t firstTime = INT64_MAX, endTime = INT64_MIN;
  while (av_read_frame(d.format, d.packet) >= 0) {
    if (d.packet->stream_index == index) {
      firstTime = std::min(firstTime, d.packet->pts);
      endTime = std::max(endTime, d.packet->pts + d.packet->duration);
      detail::check(avcodec_send_packet(d.decoder, d.packet), "cannot decode");
    }
    av_packet_unref(d.packet);
    receive();
  }
  avcodec_send_packet(d.decoder, nullptr);
  receive();
  if (endTime > firstTime)
    movie.durationSeconds = double(endTime - firstTime) * av_q2d(stream->time_base);
  movie.indexAtFront = detail::moovBeforeMdat(path);
  return movie;
}

// Peak signal-to-noise ratio of the R, G and B channels, in dB (infinite for equal pictures).
inline double psnr(const Image& a, const Image& b) {
  if (a.width != b.width || a.height != b.height)
    throw std::invalid_argument("pictures of different sizes");
  double squares = 0.0;
  for (std::size_t i = 0; i < a.rgba.size(); ++i) {
    if (i % 4 == 3) continue;
    const double d = double(a.rgba[i]) - double(b.rgba[i]);
    squares += d * d;
  }
  const double mean = squares / (double(a.rgba.size()) * 0.75);
  return mean == 0.0 ? INFINITY : 10.0 * std::log10(255.0 * 255.0 / mean);
}

}  // namespace nbody::test
