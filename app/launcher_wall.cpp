// The Launcher's wall: this process as one screen of a wall group (wall_group.h). The leader's
// window is captured into the group's state; a follower's window takes it — the clock (a
// replay sought, a simulator paused or hurried to the leader's moment), the camera, layers,
// metric, selection, caption and alarm focus — and a screen that shows its own view takes only
// the moment and the selection.
#include "launcher.h"
#include "main_window.h"
#include "story_player.h"
#include "views/floor_view.h"
#include "wall_group.h"

#include <QCoreApplication>
#include <QTimer>
#include <algorithm>
#include <cmath>
#include <deque>
#include <iostream>

namespace ft::app {

namespace {

std::string screenName(const WallConfig& c, int index) {
    return std::to_string(index % c.cols) + "," + std::to_string(index / c.cols);
}

} // namespace

views::HudInput::WallPlace wallPlaceOf(const WallConfig& config) {
    const WallScreen& me = config.me();
    const auto s = config.sliceOf(config.self);
    views::HudInput::WallPlace place;
    place.col = me.col;
    place.row = me.row;
    place.cols = config.cols;
    place.rows = config.rows;
    place.offsetX = static_cast<float>((s.x0 + 1) / (s.x1 - s.x0));
    place.offsetY = static_cast<float>((1 - s.y1) / (s.y1 - s.y0));
    place.wallWidth = static_cast<float>(2 / (s.x1 - s.x0));
    place.wallHeight = static_cast<float>(2 / (s.y1 - s.y0));
    place.strideX =
        static_cast<float>((config.screenWidthMm + config.bezelXMm) / config.screenWidthMm);
    place.strideY =
        static_cast<float>((config.screenHeightMm + config.bezelYMm) / config.screenHeightMm);
    return place;
}

bool Launcher::startWall() {
    const WallConfig& config = *m_wallConfig;
    m_wall = std::make_unique<WallGroup>(config);
    m_wallLog = std::make_unique<WallClockLog>();
    m_wallStartedAt = WallGroup::wallNowNs();
    std::string error;
    if (!m_wall->start(&error)) {
        std::cerr << "floortwin: " << error << "\n";
        m_wall.reset();
        return false;
    }
    m_wall->setCapture([this] { return captureWall(); });
    QObject::connect(m_wall.get(), &WallGroup::stateReceived, qApp,
                     [this](const WallState& state) { applyWall(state); });
    QObject::connect(m_wall.get(), &WallGroup::linkReceived, qApp,
                     [this](const QString& link) { openLink(link.toStdString(), true); });
    QObject::connect(m_wall.get(), &WallGroup::roleChanged, qApp, [this] { onWallRole(); });
    std::cerr << "floortwin: wall " << config.group << ": screen "
              << screenName(config, config.self) << " of " << config.cols << "x" << config.rows
              << ", UDP port " << config.me().port << "\n";
    if (const char* every = std::getenv("FLOORTWIN_WALL_STATS")) {
        // Benchmarks and tests: the skew and the traffic, every N seconds.
        auto* timer = new QTimer(m_wall.get());
        QObject::connect(timer, &QTimer::timeout, qApp, [this] { printWallStats(); });
        timer->start(std::max(1, std::atoi(every)) * 1000);
    }
    return true;
}

void Launcher::printWallStats() const {
    if (!m_wall || !m_wallLog) return;
    auto skew = m_wallLog->skewMs;
    for (auto& s : skew)
        s = std::abs(s);
    std::ranges::sort(skew);
    auto pct = [&](double p) {
        return skew.empty()
                   ? 0.0
                   : skew[std::min(skew.size() - 1,
                                   static_cast<std::size_t>(p * static_cast<double>(skew.size())))];
    };
    const auto& c = m_wall->counters();
    const double seconds =
        std::max(1e-3, static_cast<double>(WallGroup::wallNowNs() - m_wallStartedAt) / 1e9);
    std::cout << "wall_stats screen=" << screenName(*m_wallConfig, m_wallConfig->self)
              << " leading=" << m_wall->leading() << " leader=" << m_wall->leader()
              << " term=" << m_wall->term() << " samples=" << skew.size()
              << " skew_ms_p50=" << pct(0.5) << " skew_ms_p99=" << pct(0.99)
              << " sent_Bps=" << static_cast<double>(c.bytesSent) / seconds
              << " received_Bps=" << static_cast<double>(c.bytesReceived) / seconds
              << " foreign=" << c.foreign << " malformed=" << c.malformed << std::endl;
}

void Launcher::onWallRole() {
    if (!m_wall) return;
    const WallConfig& config = *m_wallConfig;
    const std::string me = screenName(config, config.self);
    if (m_wall->leading()) {
        std::cerr << "floortwin: wall: screen " << me << " leads (term " << m_wall->term() << ")\n";
    } else if (m_wall->leader() >= 0) {
        std::cerr << "floortwin: wall: screen " << me << " follows "
                  << screenName(config, m_wall->leader()) << " (term " << m_wall->term() << ")"
                  << std::endl;
    } else if (m_wall->leaderLost()) {
        std::cerr << "floortwin: wall: screen " << me
                  << " lost its leader; it runs on its own clock" << std::endl;
    }
    if (!m_window) return;
    auto* view = m_window->floorView();
    // The tour plays on the leader alone; a new leader takes it up where the old one was.
    if (m_wall->leading() && m_story && !m_window->storyPlayer()) {
        m_window->playStory(*m_story, m_focusHold);
        if (const auto& last = m_wall->lastState(); last && last->storyClock > 0) {
            m_window->storyPlayer()->advance(last->storyClock);
            std::cerr << "floortwin: wall: screen " << me << " takes up the tour at "
                      << last->storyClock << " s" << std::endl;
        }
    } else if (!m_wall->leading() && m_window->storyPlayer()) {
        m_window->stopStory();
    }
    // The transport runs at the leader's speed again once it leads or is lost.
    if (m_wallLog->hurried) {
        if (const auto& last = m_wall->lastState()) m_session->transport().setSpeed(last->speed);
        m_session->transport().setPaused(m_wall->lastState() && m_wall->lastState()->paused);
        m_wallLog->hurried = false;
    }
    const std::string lost = "WALL: the leader is lost; this screen runs on its own clock";
    if (m_wall->leaderLost())
        view->setCaption(lost);
    else if (view->caption() == lost)
        view->setCaption({});
}

void Launcher::applyScreenLook() {
    if (!m_window) return;
    auto* view = m_window->floorView();
    if (m_wallConfig) {
        const WallScreen& me = m_wallConfig->me();
        if (me.slice) {
            const auto s = m_wallConfig->sliceOf(m_wallConfig->self);
            view->setSlice(views::ViewSlice{s.x0, s.x1, s.y0, s.y1, s.wallAspect},
                           wallPlaceOf(*m_wallConfig));
        }
        view->setHudVisible(me.hud);
    }
    if (m_wallLog) {
        QObject::connect(view, &views::FloorView::snapshotChanged, m_window.get(), [this, view] {
            if (const auto snap = view->snapshot())
                m_wallLog->shownHere(snap->time, WallGroup::wallNowNs());
        });
    }
}

WallState Launcher::captureWall() const {
    WallState s;
    if (!m_window || !m_session) return s;
    const auto* view = m_window->floorView();
    const auto& transport = m_session->transport();
    if (const auto snap = view->snapshot()) {
        s.time = snap->time;
        s.shownSince = m_wallLog && m_wallLog->shown == snap->time ? m_wallLog->shownSince
                                                                   : WallGroup::wallNowNs();
    }
    s.position = m_session->replay ? m_session->replay->position() : s.time;
    s.speed = transport.speed();
    s.paused = transport.paused();
    s.reverse = transport.reverse();
    const auto& rig = view->camera();
    s.camera = {rig.focus.x,    rig.focus.y,      rig.focus.z,     rig.distance,
                rig.azimuthDeg, rig.elevationDeg, rig.viewAngleDeg};
    s.hasCamera = true;
    if (const auto sel = view->selection()) s.selection = selectText(view->topology(), *sel);
    for (const auto& l : view->layers())
        if (l->visible()) s.layers.emplace_back(l->id());
    s.metric = std::string(model::channelInfo(view->colourMetric()).name);
    s.caption = view->caption();
    if (const auto& f = view->focus()) {
        s.focus = true;
        s.focusCritical = f->critical;
        s.focusTitle = f->title;
        s.focusDetail = f->detail;
        s.focusIndex = f->index;
        s.focusOf = f->of;
    }
    if (const auto* player = m_window->storyPlayer()) s.storyClock = player->storyClock();
    return s;
}

void Launcher::applyWall(const WallState& state) {
    if (!m_window || !m_session) return;
    applyWallTo(*m_window->floorView(), *m_session, state, m_wallConfig->me().slice,
                m_wallLog.get());
}

void applyWallTo(views::FloorView& view, Session& session, const WallState& state, bool slice,
                 WallClockLog* log) {
    // The clock. A replay's playhead is where the leader's was when it sent, moved on by the
    // time since; a simulator's moment is the one the leader first showed at `shownSince`.
    auto& transport = session.transport();
    if (transport.paused() != state.paused && !(log && log->hurried))
        transport.setPaused(state.paused);
    if (transport.reverse() != state.reverse) transport.setReverse(state.reverse);
    if (session.replay && transport.speed() != state.speed) transport.setSpeed(state.speed);
    const auto now = WallGroup::wallNowNs();
    const double direction = state.paused ? 0.0 : (state.reverse ? -1.0 : 1.0);
    auto moved = [&](std::int64_t since) {
        return static_cast<model::TimeNs>(direction * state.speed *
                                          static_cast<double>(now - since));
    };
    const auto snap = transport.latest();
    const bool settled = !log || now - log->lastCorrection > 300 * model::kNsPerMs;
    if (session.replay) {
        const auto leaderNow = state.position + moved(state.sentAt);
        const auto drift = session.replay->position() - leaderNow; // > 0: ahead
        if (log && !state.paused) log->skew(static_cast<double>(drift) / state.speed / 1e6);
        // 4 ms of the wall in the leader's time (an eighth of a frame), never less than 1 ms.
        const auto tolerance = std::max<model::TimeNs>(
            model::kNsPerMs, static_cast<model::TimeNs>(state.speed * 4.0 * 1e6));
        if (std::llabs(drift) > tolerance && settled) {
            session.replay->seek(
                std::clamp(leaderNow, session.replay->beginTime(), session.replay->endTime()));
            if (state.paused || !log) session.replay->renderNow();
            if (log) log->lastCorrection = now;
        }
    } else if (snap && session.sources.empty()) {
        const auto leaderNow = state.time + moved(state.shownSince);
        if (!log) {
            // A picture of a wall screen: its own simulator, not running, run to the moment.
            if (leaderNow > snap->time) session.sim->runUntil(leaderNow);
        } else {
            // A simulator held still is where it stands (not where its clock would be).
            const std::int64_t since = log->shown == snap->time ? log->shownSince : now;
            const auto mine = transport.paused() ? snap->time : snap->time + moved(since);
            const auto drift = mine - leaderNow; // > 0: ahead
            if (!state.paused) log->skew(static_cast<double>(drift) / state.speed / 1e6);
            // Two frames at 30 fps of the leader's time, and never less than a tick.
            const auto tolerance = std::max<model::TimeNs>(
                transport.tickLength(), static_cast<model::TimeNs>(state.speed * 66.0 * 1e6));
            // A simulator cannot seek: ahead, it waits; behind, it runs at twice the speed.
            if (drift > tolerance && !state.paused) {
                transport.setPaused(true);
                log->hurried = true;
            } else if (drift < -tolerance && !state.paused) {
                transport.setPaused(false);
                transport.setSpeed(state.speed * 2);
                log->hurried = true;
            } else if (log->hurried && std::llabs(drift) <= tolerance / 2) {
                transport.setPaused(state.paused);
                transport.setSpeed(state.speed);
                log->hurried = false;
            }
            if (!log->hurried && transport.speed() != state.speed) transport.setSpeed(state.speed);
        }
    }
    // The selection on every screen; the rest only where the screen is a slice of the view.
    std::optional<model::EntityRef> selection;
    if (!state.selection.empty())
        if (auto ref = importers::resolveEntity(view.topology(), state.selection)) selection = *ref;
    if (selection != view.selection()) view.setSelection(selection);
    if (!slice) return;
    if (state.hasCamera) {
        views::CameraRig rig;
        rig.focus = {static_cast<float>(state.camera[0]), static_cast<float>(state.camera[1]),
                     static_cast<float>(state.camera[2])};
        rig.distance = state.camera[3];
        rig.azimuthDeg = state.camera[4];
        rig.elevationDeg = state.camera[5];
        rig.viewAngleDeg = state.camera[6];
        const auto& mine = view.camera();
        const bool same = mine.focus.x == rig.focus.x && mine.focus.y == rig.focus.y &&
                          mine.focus.z == rig.focus.z && mine.distance == rig.distance &&
                          mine.azimuthDeg == rig.azimuthDeg &&
                          mine.elevationDeg == rig.elevationDeg &&
                          mine.viewAngleDeg == rig.viewAngleDeg;
        if (!same) view.setCamera(rig);
    }
    for (const auto& l : view.layers()) {
        const bool on = std::ranges::find(state.layers, l->id()) != state.layers.end();
        if (l->visible() != on) view.setLayerVisible(l->id(), on);
    }
    if (!state.metric.empty())
        if (auto c = model::findChannel(state.metric); c && *c != view.colourMetric())
            view.setMetric(*c);
    view.setCaption(state.caption);
    if (state.focus)
        view.setFocus(views::HudFocus{state.focusCritical, state.focusTitle, state.focusDetail,
                                      state.focusIndex, state.focusOf});
    else
        view.setFocus(std::nullopt);
}

} // namespace ft::app
