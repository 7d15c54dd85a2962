#pragma once
// VideoWriter: frames (QImage) into an H.264 MP4 through FFmpeg's libraries. Built for
// repeatable output: a fixed frame rate, a fixed encoder thread count and bit-exact muxing, so
// the same frames make the same file on any machine. One thread.
#include <QImage>
#include <expected>
#include <memory>
#include <string>

namespace ft::app {

class VideoWriter {
public:
    // width and height even (H.264 in 4:2:0 needs it).
    static std::expected<std::unique_ptr<VideoWriter>, std::string>
    open(const std::string& path, int width, int height, int fps);
    ~VideoWriter();
    VideoWriter(const VideoWriter&) = delete;
    VideoWriter& operator=(const VideoWriter&) = delete;

    // Appends one frame (scaled to the video's size if it differs).
    std::expected<void, std::string> write(const QImage& frame);
    // Flushes the encoder and writes the index; the file is complete after this.
    std::expected<void, std::string> finish();
    long long framesWritten() const { return m_frames; }

private:
    VideoWriter() = default;
    struct Impl;
    std::unique_ptr<Impl> m_impl;
    long long m_frames = 0;
    std::string m_path;
};

} // namespace ft::app
