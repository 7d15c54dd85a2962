#include "video_render.h"

#include "story_player.h"
#include "video_writer.h"
#include "views/floor_view.h"

#include <QCoreApplication>
#include <QDir>
#include <cmath>
#include <cstdio>
#include <filesystem>

namespace ft::app {

void moveTo(Session& session, const std::optional<importers::Story>& story, double speed,
            double storySeconds) {
    const bool demo = story && story->kind == importers::Story::Kind::Demo;
    const double seconds = demo ? story->simSecondsAt(storySeconds) : storySeconds * speed;
    if (session.replay) {
        const double from = demo ? story->replayFrom : 0.0;
        session.replay->seek(session.replay->beginTime() + model::fromSeconds(from + seconds));
        session.replay->renderNow();
    } else if (session.sim) {
        session.sim->runUntil(session.sim->startTime() + model::fromSeconds(seconds));
    }
}

std::expected<RenderResult, std::string> renderVideo(Session& session, const RenderJob& job,
                                                     const std::function<bool(double)>& progress) {
    if (!session.sim && !session.replay)
        return std::unexpected("video renders the simulator or a recording");
    const double seconds = job.seconds > 0 ? job.seconds : (job.story ? job.story->length : 0.0);
    if (seconds <= 0) return std::unexpected("--render-video needs --duration (or a demo)");
    const auto frames = static_cast<long long>(std::llround(seconds * job.fps));
    if (frames < 1) return std::unexpected("the video would have no frames");
    if (!job.framesDir.empty() && !QDir().mkpath(QString::fromStdString(job.framesDir)))
        return std::unexpected("cannot create " + job.framesDir);
    std::unique_ptr<VideoWriter> writer;
    if (!job.videoPath.empty()) {
        auto opened = VideoWriter::open(job.videoPath, job.width, job.height, job.fps);
        if (!opened) return std::unexpected(opened.error());
        writer = std::move(*opened);
    }

    auto& transport = session.transport();
    const bool demo = job.story && job.story->kind == importers::Story::Kind::Demo;
    transport.setSpeed(demo ? job.story->speed : job.speed);
    views::FloorView view(session.topology, [&transport] { return transport.latest(); });
    view.setShowFrameStats(false);
    view.setFrameStep(1000.0 / job.fps); // animation moves by the video's clock, not the wall's
    view.setSourceLabel(session.sourceLabel);
    view.setTransport(&transport);
    view.setMetric(job.metric);
    if (!job.layers.empty())
        for (const auto& layer : view.layers())
            view.setLayerVisible(layer->id(),
                                 std::ranges::find(job.layers, std::string(layer->id())) !=
                                     job.layers.end());
    view.setWallMode(job.wall);
    view.setTheme(job.theme);
    view.setPalette(job.palette);
    view.setSelection(job.selection);
    view.setAttribute(Qt::WA_DontShowOnScreen, true);
    view.setMinimumSize(16, 16); // offscreen: any size, however small
    view.resize(job.width, job.height);
    view.show();
    QCoreApplication::processEvents();
    std::unique_ptr<StoryPlayer> player;
    if (job.story) {
        player = std::make_unique<StoryPlayer>(*job.story, view, &transport);
        player->setFocusHold(job.focusHold);
        player->setAlarmFocus(job.focusHold > 0);
    }

    for (long long i = 0; i < frames; ++i) {
        const double t = static_cast<double>(i) / job.fps;
        moveTo(session, job.story, job.speed, t);
        view.refreshSnapshot();
        if (player) player->advance(i == 0 ? 0.0 : 1.0 / job.fps);
        const QImage image = view.grabFramebuffer();
        if (image.isNull() || image.width() != job.width || image.height() != job.height)
            return std::unexpected(
                image.isNull() ? "could not render a frame (no OpenGL 3.2 context? run under X or "
                                 "xvfb-run)"
                               : "the view rendered " + std::to_string(image.width()) + "x" +
                                     std::to_string(image.height()) + ", not " +
                                     std::to_string(job.width) + "x" + std::to_string(job.height));
        if (writer)
            if (auto w = writer->write(image); !w) return std::unexpected(w.error());
        if (!job.framesDir.empty()) {
            char name[32];
            std::snprintf(name, sizeof name, "frame-%05lld.png", i + 1);
            const auto path = std::filesystem::path(job.framesDir) / name;
            if (!image.save(QString::fromStdString(path.string())))
                return std::unexpected("cannot write " + path.string());
        }
        if (progress && !progress(static_cast<double>(i + 1) / static_cast<double>(frames))) {
            writer.reset();
            if (!job.videoPath.empty()) std::filesystem::remove(job.videoPath);
            return std::unexpected("cancelled");
        }
    }
    if (writer)
        if (auto f = writer->finish(); !f) return std::unexpected(f.error());
    return RenderResult{frames, static_cast<double>(frames) / job.fps};
}

} // namespace ft::app
