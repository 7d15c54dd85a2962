#include "video_writer.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
}

namespace ft::app {

namespace {

std::string avError(int code) {
    char buf[AV_ERROR_MAX_STRING_SIZE] = {};
    av_strerror(code, buf, sizeof buf);
    return buf;
}

} // namespace

struct VideoWriter::Impl {
    AVFormatContext* format = nullptr;
    AVCodecContext* codec = nullptr;
    AVStream* stream = nullptr;
    AVFrame* frame = nullptr;
    AVPacket* packet = nullptr;
    SwsContext* scale = nullptr;
    bool headerWritten = false;
    bool finished = false;

    ~Impl() {
        sws_freeContext(scale);
        av_packet_free(&packet);
        av_frame_free(&frame);
        avcodec_free_context(&codec);
        if (format) {
            if (format->pb) avio_closep(&format->pb);
            avformat_free_context(format);
        }
    }

    // Sends a frame (or nullptr: flush) and writes what the encoder gives back.
    std::expected<void, std::string> encode(AVFrame* in) {
        if (int rc = avcodec_send_frame(codec, in); rc < 0)
            return std::unexpected("encoding failed: " + avError(rc));
        while (true) {
            const int rc = avcodec_receive_packet(codec, packet);
            if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF) return {};
            if (rc < 0) return std::unexpected("encoding failed: " + avError(rc));
            // Every frame lasts one tick of the codec's clock (1/fps). x264 leaves a packet's
            // duration at 0; the MP4 muxer then ends the edit list at the last frame's start,
            // and players drop that frame (2 s at 10 fps decoded to 19 frames, 1.9 s).
            packet->duration = 1;
            av_packet_rescale_ts(packet, codec->time_base, stream->time_base);
            packet->stream_index = stream->index;
            if (int w = av_interleaved_write_frame(format, packet); w < 0)
                return std::unexpected("cannot write the video: " + avError(w));
        }
    }
};

std::expected<std::unique_ptr<VideoWriter>, std::string>
VideoWriter::open(const std::string& path, int width, int height, int fps) {
    if (width % 2 || height % 2)
        return std::unexpected("the video's size must be even, e.g. 1280x720 (got " +
                               std::to_string(width) + "x" + std::to_string(height) + ")");
    av_log_set_level(AV_LOG_ERROR); // the encoder's statistics are not for the user
    std::unique_ptr<VideoWriter> w(new VideoWriter);
    w->m_path = path;
    w->m_impl = std::make_unique<Impl>();
    Impl& v = *w->m_impl;
    if (int rc = avformat_alloc_output_context2(&v.format, nullptr, "mp4", path.c_str()); rc < 0)
        return std::unexpected(path + ": " + avError(rc));
    v.format->flags |= AVFMT_FLAG_BITEXACT; // no encoder version or times in the file
    const AVCodec* codec = avcodec_find_encoder_by_name("libx264");
    if (!codec) codec = avcodec_find_encoder(AV_CODEC_ID_H264);
    if (!codec)
        return std::unexpected("no H.264 encoder in this FFmpeg (Debian's libavcodec59 has "
                               "libx264)");
    v.stream = avformat_new_stream(v.format, nullptr);
    v.codec = avcodec_alloc_context3(codec);
    if (!v.stream || !v.codec) return std::unexpected("out of memory opening the video");
    v.codec->width = width;
    v.codec->height = height;
    v.codec->time_base = AVRational{1, fps};
    v.codec->framerate = AVRational{fps, 1};
    v.codec->pix_fmt = AV_PIX_FMT_YUV420P;
    v.codec->gop_size = fps * 2;
    v.codec->max_b_frames = 2;
    // The same encoder threads everywhere: x264's output depends on their number.
    v.codec->thread_count = 2;
    v.codec->flags |= AV_CODEC_FLAG_BITEXACT;
    if (v.format->oformat->flags & AVFMT_GLOBALHEADER)
        v.codec->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    AVDictionary* opts = nullptr;
    av_dict_set(&opts, "preset", "veryfast", 0);
    av_dict_set(&opts, "crf", "20", 0);
    const int rc = avcodec_open2(v.codec, codec, &opts);
    av_dict_free(&opts);
    if (rc < 0) return std::unexpected("cannot open the H.264 encoder: " + avError(rc));
    if (int p = avcodec_parameters_from_context(v.stream->codecpar, v.codec); p < 0)
        return std::unexpected(avError(p));
    v.stream->time_base = v.codec->time_base;
    if (int o = avio_open(&v.format->pb, path.c_str(), AVIO_FLAG_WRITE); o < 0)
        return std::unexpected("cannot write " + path + ": " + avError(o));
    if (int h = avformat_write_header(v.format, nullptr); h < 0)
        return std::unexpected("cannot write " + path + ": " + avError(h));
    v.headerWritten = true;
    v.frame = av_frame_alloc();
    v.packet = av_packet_alloc();
    if (!v.frame || !v.packet) return std::unexpected("out of memory opening the video");
    v.frame->format = v.codec->pix_fmt;
    v.frame->width = width;
    v.frame->height = height;
    if (int b = av_frame_get_buffer(v.frame, 0); b < 0) return std::unexpected(avError(b));
    return w;
}

VideoWriter::~VideoWriter() {
    if (m_impl && m_impl->headerWritten && !m_impl->finished) (void)finish();
}

std::expected<void, std::string> VideoWriter::write(const QImage& image) {
    Impl& v = *m_impl;
    QImage rgb = image.convertToFormat(QImage::Format_RGB888);
    v.scale = sws_getCachedContext(v.scale, rgb.width(), rgb.height(), AV_PIX_FMT_RGB24,
                                   v.codec->width, v.codec->height, AV_PIX_FMT_YUV420P,
                                   SWS_BICUBIC | SWS_BITEXACT | SWS_ACCURATE_RND, nullptr, nullptr,
                                   nullptr);
    if (!v.scale) return std::unexpected("cannot convert the frame for the video");
    if (int rc = av_frame_make_writable(v.frame); rc < 0) return std::unexpected(avError(rc));
    const uint8_t* src[1] = {rgb.constBits()};
    const int stride[1] = {static_cast<int>(rgb.bytesPerLine())};
    sws_scale(v.scale, src, stride, 0, rgb.height(), v.frame->data, v.frame->linesize);
    v.frame->pts = m_frames;
    if (auto e = v.encode(v.frame); !e) return std::unexpected(m_path + ": " + e.error());
    ++m_frames;
    return {};
}

std::expected<void, std::string> VideoWriter::finish() {
    Impl& v = *m_impl;
    if (v.finished) return {};
    v.finished = true;
    if (auto e = v.encode(nullptr); !e) return std::unexpected(m_path + ": " + e.error());
    if (int rc = av_write_trailer(v.format); rc < 0)
        return std::unexpected("cannot finish " + m_path + ": " + avError(rc));
    if (int rc = avio_closep(&v.format->pb); rc < 0)
        return std::unexpected("cannot finish " + m_path + ": " + avError(rc));
    return {};
}

} // namespace ft::app
