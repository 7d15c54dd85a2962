// The Launcher's pictures: a screenshot (of the view, of the whole window, of one screen of a
// wall) and a video or frames rendered offscreen.
#include "launcher.h"
#include "launcher_parts.h"
#include "live_sources.h"
#include "main_window.h"
#include "story_player.h"
#include "video_render.h"
#include "views/floor_view.h"
#include "views/layer_registry.h"
#include "views/timeline_panel.h"
#include "wall_group.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

namespace ft::app {

int Launcher::runScreenshot(Session& session) {
    const Options& o = m_options;
    const int w = o.width > 0 ? o.width : 1920, h = o.height > 0 ? o.height : 1080;
    QImage image;
    if (o.windowShot) {
        MainWindow window(session, nullptr, false);
        window.setMetric(m_metric);
        applyLayers(o, *window.floorView());
        applyLook(o, *window.floorView(), false);
        window.floorView()->setShowFrameStats(false);
        if (!session.sources.empty())
            window.floorView()->setSourceStatus(
                [&session] { return sourceStatus(session.sources, session.suggester.get()); });
        window.floorView()->setAnimated(false);
        window.setAttribute(Qt::WA_DontShowOnScreen, true);
        window.resize(w, h);
        window.show();
        if (m_selection) window.floorView()->setSelection(m_selection);
        if (m_selection && o.frameSelection) window.floorView()->frameSelection();
        if (m_camera) window.floorView()->setCamera(rigOf(*m_camera, window.floorView()->camera()));
        QCoreApplication::processEvents();
        window.timeline()->refresh();
        image = window.grab().toImage();
    } else {
        auto& transport = session.transport();
        views::FloorView view(session.topology, [&transport] { return transport.latest(); });
        view.setShowFrameStats(false); // screenshots must be repeatable
        view.setAnimated(false);
        view.setSourceLabel(session.sourceLabel);
        view.setTransport(&transport);
        if (session.compare)
            view.setBaselineSource([&session](model::TimeNs t) { return session.compareAt(t); },
                                   std::filesystem::path(session.comparePath).filename().string());
        if (!session.sources.empty())
            view.setSourceStatus(
                [&session] { return sourceStatus(session.sources, session.suggester.get()); });
        view.setMetric(m_metric);
        applyLayers(o, view);
        applyLook(o, view, false);
        view.setWallMode(o.wall);
        view.setSelection(m_selection);
        if (m_selection && o.frameSelection) view.frameSelection();
        if (m_camera) view.setCamera(rigOf(*m_camera, view.camera()));
        view.setAttribute(Qt::WA_DontShowOnScreen, true);
        view.setMinimumSize(16, 16); // offscreen: any size, however small
        view.resize(w, h);
        view.show();
        QCoreApplication::processEvents();
        if (m_wallConfig)
            if (auto rc = followWallForPicture(view, session)) return *rc;
        std::unique_ptr<StoryPlayer> player; // its caption shows while it lives
        // (A wall's leader gave the moment, camera and caption: its tour is not played here.)
        if (m_story && session.sources.empty() && !m_wallFollowed) {
            // The story --at seconds in: the simulator and the player move on together, and
            // the last seconds are drawn so that framing beside the HUD's panels settles.
            player = std::make_unique<StoryPlayer>(*m_story, view, &transport);
            player->setFocusHold(m_focusHold);
            player->setAlarmFocus(m_focusHold > 0);
            model::TimeNs at = 0;
            if (!o.at.empty()) model::parseDuration(o.at, at);
            const double until = model::toSeconds(at);
            const bool demo = m_story->kind == importers::Story::Kind::Demo;
            transport.setSpeed(demo ? m_story->speed : o.speed);
            for (double t = 0;; t = std::min(until, t + (until - t > 4 ? 1.0 : 0.5))) {
                moveTo(session, m_story, o.speed, t);
                view.refreshSnapshot();
                player->advance(t - player->storyClock());
                if (until - t <= 4) (void)view.grabFramebuffer();
                if (t >= until) break;
            }
        }
        image = view.grabFramebuffer();
        if (image.isNull() || image.width() != w || image.height() != h)
            return fail(
                "could not render the screenshot (no OpenGL 3.2 context? run under X or xvfb-run)");
    }
    if (!image.save(QString::fromStdString(o.screenshot)))
        return fail("cannot write " + o.screenshot);
    std::cout << "wrote " << o.screenshot << " (" << image.width() << "x" << image.height()
              << ")\n";
    return 0;
}

std::optional<int> Launcher::followWallForPicture(views::FloorView& view, Session& session) {
    // A picture of one screen of a wall: its slice and HUD, and what the wall's leader shows
    // (its moment, camera, layers, selection), heard as an observer of the group.
    const WallConfig& config = *m_wallConfig;
    const WallScreen& me = config.me();
    if (me.slice) {
        const auto s = config.sliceOf(config.self);
        view.setSlice(views::ViewSlice{s.x0, s.x1, s.y0, s.y1, s.wallAspect}, wallPlaceOf(config));
    }
    view.setHudVisible(me.hud);
    WallGroup observer(config, true);
    std::string error;
    if (!observer.start(&error)) return fail(error);
    QElapsedTimer waited;
    waited.start();
    while (!observer.lastState() && waited.elapsed() < 5000)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    const std::string screen = std::to_string(me.col) + "," + std::to_string(me.row);
    if (!observer.lastState()) {
        std::cerr << "floortwin: wall " << config.group << ": no leader heard in 5 s; screen "
                  << screen << " drawn from its own options\n";
        return std::nullopt;
    }
    const WallState state = *observer.lastState();
    applyWallTo(view, session, state, me.slice, nullptr);
    m_wallFollowed = true;
    view.refreshSnapshot();
    QCoreApplication::processEvents();
    const auto snap = view.snapshot();
    std::cout << "wall " << config.group << ": screen " << screen << " follows screen "
              << observer.leader() % config.cols << "," << observer.leader() / config.cols << " at "
              << (snap ? model::formatUtc(snap->time, true) : std::string("?"))
              << (state.selection.empty() ? std::string() : ", selection " + state.selection)
              << "\n";
    return std::nullopt;
}

int Launcher::runVideo(Session& session) {
    const Options& o = m_options;
    RenderJob job;
    job.videoPath = o.renderVideo;
    job.framesDir = o.renderFrames;
    job.width = o.width > 0 ? o.width : 1280;
    job.height = o.height > 0 ? o.height : 720;
    job.fps = o.fps;
    job.speed = o.speed;
    job.story = m_story;
    job.focusHold = m_focusHold;
    job.metric = m_metric;
    job.layers = o.layers;
    job.selection = m_selection;
    job.wall = o.wall;
    for (std::size_t i = 0; i < views::kThemeNames.size(); ++i)
        if (views::kThemeNames[i] == o.theme) job.theme = static_cast<views::DisplayTheme>(i);
    job.palette = views::paletteFromName(o.palette).value_or(views::Palette::Turbo);
    if (!o.duration.empty()) {
        model::TimeNs d = 0;
        if (!model::parseDuration(o.duration, d) || d <= 0)
            return fail("--duration: '" + o.duration + "' is not a time such as 30s", 2);
        job.seconds = model::toSeconds(d);
    } else if (!m_story || m_story->kind != importers::Story::Kind::Demo) {
        job.seconds = 60;
    }
    auto result = renderVideo(session, job, [](double) { return true; });
    if (!result) return fail(result.error());
    nlohmann::ordered_json summary;
    if (!job.videoPath.empty()) summary["video"] = job.videoPath;
    if (!job.framesDir.empty()) summary["frames_dir"] = job.framesDir;
    summary["frames"] = result->frames;
    summary["fps"] = job.fps;
    summary["seconds"] = result->seconds;
    summary["size"] = std::to_string(job.width) + "x" + std::to_string(job.height);
    if (m_story) summary["story"] = m_story->name;
    std::cout << summary.dump(2) << "\n";
    return 0;
}

} // namespace ft::app
