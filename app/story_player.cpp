#include "story_player.h"

#include "views/alarm_causes.h"
#include "views/floor_view.h"
#include "views/hud.h"

#include <algorithm>
#include <cmath>

namespace ft::app {

using importers::StoryCamera;
using model::EntityKind;

namespace {

constexpr double kFocusFlight = 2.5; // seconds to fly to an alarm
constexpr int kTickMs = 33;

std::string forHowLong(double seconds) {
    char buf[48];
    if (seconds < 90)
        std::snprintf(buf, sizeof buf, "for %.0f s", seconds);
    else if (seconds < 5400)
        std::snprintf(buf, sizeof buf, "for %.0f min", seconds / 60);
    else
        std::snprintf(buf, sizeof buf, "for %.1f h", seconds / 3600);
    return buf;
}

// The critical causes, worst first: the most entities, then the longest standing.
std::vector<const views::AlarmCause*> criticalFirst(const std::vector<views::AlarmCause>& causes) {
    std::vector<const views::AlarmCause*> critical;
    for (const auto& c : causes)
        if (c.worst->severity == model::Severity::Critical) critical.push_back(&c);
    std::ranges::stable_sort(critical, [](const auto* a, const auto* b) {
        return a->count != b->count ? a->count > b->count : a->worst->since < b->worst->since;
    });
    return critical;
}

} // namespace

StoryPlayer::StoryPlayer(importers::Story story, views::FloorView& view,
                         model::Transport* transport, QObject* parent)
    : QObject(parent), m_story(std::move(story)), m_view(view), m_transport(transport),
      m_setMetric([&view](model::ChannelId c) { view.setMetric(c); }) {
    m_timer.setInterval(kTickMs);
    connect(&m_timer, &QTimer::timeout, this, [this] {
        const qint64 now = m_wall.nsecsElapsed();
        const double dt = static_cast<double>(now - m_lastWallNs) / 1e9;
        m_lastWallNs = now;
        play(std::min(dt, 0.25)); // a stalled event loop must not skip stops
    });
    connect(&view, &views::FloorView::userInteracted, this, &StoryPlayer::onUserInteracted);
}

StoryPlayer::~StoryPlayer() {
    m_view.setCaption({});
    m_view.setFocus(std::nullopt);
}

void StoryPlayer::start() {
    // A demo on a recording starts the replay where the story begins, playing.
    if (m_current < 0 && m_transport && m_transport->isReplay() &&
        m_story.kind == importers::Story::Kind::Demo && !m_story.replay.empty()) {
        m_transport->seek(m_transport->beginTime() + model::fromSeconds(m_story.replayFrom));
        m_transport->setSpeed(m_story.speed);
        m_transport->setPaused(false);
    }
    m_wall.start();
    m_lastWallNs = 0;
    if (m_current < 0) advance(0);
    m_timer.start();
}

void StoryPlayer::stop() {
    m_timer.stop();
}

bool StoryPlayer::finished() const {
    return m_story.kind == importers::Story::Kind::Demo && m_time >= m_story.length;
}

void StoryPlayer::onUserInteracted() {
    if (m_story.kind != importers::Story::Kind::Tour) return;
    m_heldFor = 0;
    m_flight.reset();
}

void StoryPlayer::play(double seconds) {
    // A demo holds while the presenter pauses the floor (Space): its captions and steps wait
    // with it. A tour flies on over a paused floor.
    if (m_story.kind == importers::Story::Kind::Demo && m_transport && m_transport->paused())
        return;
    advance(seconds);
}

void StoryPlayer::advance(double dt) {
    m_clock += dt;
    const bool tour = m_story.kind == importers::Story::Kind::Tour;
    if (m_heldFor >= 0) {
        m_heldFor += dt;
        if (m_heldFor < m_story.resumeAfter) return;
        dt = m_heldFor - m_story.resumeAfter; // the story moves on only past the hold
        m_heldFor = -1;
        if (m_focus) {
            m_flight = views::CameraFlight{m_view.camera(), m_view.camera(), kFocusFlight};
            m_flightStart = m_clock;
            m_settled = false;
        } else if (m_current >= 0) {
            enter(m_current, true);
        }
    }
    const bool focusing = tour && m_alarmFocus && updateFocus();
    if (!focusing) {
        m_time += dt;
        if (tour && m_time >= m_story.length) {
            m_time = std::fmod(m_time, m_story.length);
            m_current = -1; // the loop starts over: enter the first stop again
        }
        int index = -1;
        for (std::size_t i = 0; i < m_story.steps.size(); ++i)
            if (m_story.steps[i].at <= m_time) index = static_cast<int>(i);
        if (index != m_current && index >= 0) enter(index, false);
    }
    if (m_flight) {
        const bool done = m_flight->done(m_clock - m_flightStart);
        bool moved = false;
        // Framed entities are fitted beside the HUD's panels as they are now: follow them.
        if (m_reframe) {
            const auto to = target(*m_reframe);
            moved = std::abs(to.distance - m_flight->to.distance) > 0.01 * m_flight->to.distance ||
                    std::abs(to.focus.x - m_flight->to.focus.x) > 0.05f ||
                    std::abs(to.focus.y - m_flight->to.focus.y) > 0.05f ||
                    std::abs(to.focus.z - m_flight->to.focus.z) > 0.05f;
            if (moved && done) {
                m_flight = views::CameraFlight{m_view.camera(), to, 1.0};
                m_flightStart = m_clock;
            } else if (moved) {
                m_flight->to = to;
            }
        }
        // A camera at rest is not set again: the view redraws only when something changes.
        if (!done || moved || !m_settled) m_view.setCamera(m_flight->at(m_clock - m_flightStart));
        m_settled = done && !moved;
        if (done && !m_reframe) m_flight.reset();
    }
    if (finished() && !m_finishedSent) {
        m_finishedSent = true;
        emit finishedPlaying();
    }
}

void StoryPlayer::enter(int index, bool fromHere) {
    m_current = index;
    const auto& step = m_story.steps[static_cast<std::size_t>(index)];
    if (step.layers)
        for (const auto& layer : m_view.layers()) {
            const std::string id(layer->id());
            m_view.setLayerVisible(id, std::ranges::find(*step.layers, id) != step.layers->end());
        }
    if (step.metric) m_setMetric(*step.metric);
    if (step.setSelection) m_view.setSelection(step.selection);
    if (m_story.kind == importers::Story::Kind::Tour)
        m_view.setCaption(step.caption.value_or(std::string()));
    else if (step.caption)
        m_view.setCaption(*step.caption);
    if (step.speed && m_transport) m_transport->setSpeed(*step.speed);
    if (step.camera) {
        StoryCamera camera = *step.camera;
        if (camera.kind == StoryCamera::Kind::Hottest) {
            // The rack with the hottest GPU now, with its neighbours in the row for context.
            const auto snap = m_view.snapshot();
            if (snap) {
                const auto sum = views::summarize(m_view.topology(), *snap);
                const auto& t = m_view.topology();
                const auto rack = t.gpus.rack[sum.hottestGpu];
                const auto row = t.racks.row[rack];
                const auto first = t.rows.firstRack[row];
                const auto last = first + t.rows.rackCount[row] - 1;
                camera.kind = StoryCamera::Kind::Frame;
                for (auto r = rack > first + 1 ? rack - 2 : first; r <= std::min(last, rack + 2);
                     ++r)
                    camera.entities.push_back({EntityKind::Rack, r});
                if (!step.caption && m_story.kind == importers::Story::Kind::Tour && snap)
                    m_view.setCaption(
                        "Hottest GPU now: " + t.name(EntityKind::Gpu, sum.hottestGpu) + "  " +
                        views::formatValue(sum.hottestGpuC, model::ch::GpuTemperature));
            } else {
                camera.kind = StoryCamera::Kind::Overview;
            }
        }
        m_reframe = camera.kind == StoryCamera::Kind::Frame ? std::optional(camera) : std::nullopt;
        m_flight = views::CameraFlight{m_view.camera(), target(camera), step.flight};
        // Entered late (a long frame): the flight is as far along as the story is.
        m_flightStart = fromHere ? m_clock : m_clock - std::max(0.0, m_time - step.at);
        m_settled = false;
    }
    emit stepChanged(index);
}

views::CameraRig StoryPlayer::target(const StoryCamera& camera) {
    const auto& t = m_view.topology();
    views::CameraRig rig;
    switch (camera.kind) {
    case StoryCamera::Kind::Overview:
    case StoryCamera::Kind::Hottest: // resolved on entering; an empty floor has nothing hotter
        rig = m_view.overviewRig();
        break;
    case StoryCamera::Kind::Top:
        rig = views::CameraRig::top(t, m_view.aspect());
        break;
    case StoryCamera::Kind::Fabric:
        rig = views::CameraRig::overview(t, m_view.aspect(), 0, true);
        break;
    case StoryCamera::Kind::Frame:
        return frame(camera.entities, camera.azimuthDeg, camera.elevationDeg);
    case StoryCamera::Kind::Explicit:
        rig.focus = camera.focus;
        rig.distance = camera.distance;
        rig.azimuthDeg = camera.azimuthDeg.value_or(rig.azimuthDeg);
        rig.elevationDeg = camera.elevationDeg.value_or(rig.elevationDeg);
        return rig;
    }
    if (camera.azimuthDeg || camera.elevationDeg) {
        rig.azimuthDeg = camera.azimuthDeg.value_or(rig.azimuthDeg);
        rig.elevationDeg = camera.elevationDeg.value_or(rig.elevationDeg);
        rig.fitDistance(t.boundsMin, t.boundsMax, m_view.aspect(), 0.9);
    }
    return rig;
}

views::CameraRig StoryPlayer::frame(const std::vector<model::EntityRef>& named,
                                    std::optional<double> azimuth,
                                    std::optional<double> elevation) const {
    views::CameraRig rig;
    rig.azimuthDeg = azimuth.value_or(-15.0);
    rig.elevationDeg = elevation.value_or(24.0);
    // Framing is asked again every tick while the panels may move; the entities' box is not
    // (a leaf's racks are a scan of every NIC): work it out once per entity list.
    if (!m_box || m_boxFor != named) {
        m_boxFor = named;
        m_box = views::focusBox(m_view.topology(), named);
    }
    auto box = *m_box;
    if (!box) return m_view.overviewRig();
    box->max.z += 0.6f; // the rack labels above the tops
    // The box's shape on the screen from these angles, then the largest part of the screen the
    // HUD's panels leave free for that shape.
    const double aspect = m_view.aspect();
    rig.fitWindow(box->min, box->max, aspect, {});
    const auto shape = rig.projected(box->min, box->max, aspect);
    rig.fitWindow(box->min, box->max, aspect, freeWindow(shape));
    return rig;
}

views::CameraRig::Window StoryPlayer::freeWindow(const views::CameraRig::Window& shape) const {
    const auto w = static_cast<float>(std::max(1, m_view.width()));
    const auto h = static_cast<float>(std::max(1, m_view.height()));
    const float margin = 0.015f * h;
    std::vector<views::ScreenRect> panels;
    for (const auto& p : m_view.hudPanels())
        panels.push_back({p.x0 - margin, p.y0 - margin, p.x1 + margin, p.y1 + margin});
    // Every rectangle with edges on the screen's and the panels' edges that no panel overlaps;
    // the best holds the box's on-screen shape at the largest scale.
    // Off the screen's edges by the same margin.
    const float left = margin, right = w - margin, top = margin, bottom = h - margin;
    std::vector<float> xs{left, right}, ys{top, bottom};
    for (const auto& p : panels) {
        xs.insert(xs.end(), {std::clamp(p.x0, left, right), std::clamp(p.x1, left, right)});
        ys.insert(ys.end(), {std::clamp(p.y0, top, bottom), std::clamp(p.y1, top, bottom)});
    }
    std::ranges::sort(xs);
    std::ranges::sort(ys);
    const double shapeW = std::max(1e-3, (shape.x1 - shape.x0) * w / 2);
    const double shapeH = std::max(1e-3, (shape.y1 - shape.y0) * h / 2);
    views::ScreenRect best{0.2f * w, 0.25f * h, 0.8f * w, 0.75f * h};
    double bestScale = 0;
    for (std::size_t a = 0; a < xs.size(); ++a)
        for (std::size_t b = a + 1; b < xs.size(); ++b)
            for (std::size_t c = 0; c < ys.size(); ++c)
                for (std::size_t d = c + 1; d < ys.size(); ++d) {
                    const views::ScreenRect r{xs[a], ys[c], xs[b], ys[d]};
                    const double scale = std::min((r.x1 - r.x0) / shapeW, (r.y1 - r.y0) / shapeH);
                    if (scale <= bestScale) continue;
                    if (std::ranges::any_of(panels, [&](const auto& p) { return p.overlaps(r); }))
                        continue;
                    best = r;
                    bestScale = scale;
                }
    return {2.0 * best.x0 / w - 1.0, 2.0 * best.x1 / w - 1.0, 1.0 - 2.0 * best.y1 / h,
            1.0 - 2.0 * best.y0 / h};
}

bool StoryPlayer::updateFocus() {
    const auto snap = m_view.snapshot();
    if (!snap) return m_focus.has_value();
    const auto& t = m_view.topology();
    const auto causes = views::groupAlarms(t, snap->alarms);
    const auto critical = criticalFirst(causes);
    auto present = [&](const std::string& key) {
        return std::ranges::any_of(critical, [&](const auto* c) { return c->key == key; });
    };
    std::erase_if(m_shown, [&](const std::string& key) { return !present(key); });
    const bool wasFocusing = m_focus.has_value();
    if (m_focus && present(m_focus->key) && m_clock - m_focus->since < m_focusHold) {
        showFocus();
        return true;
    }
    m_focus.reset();
    for (const auto* c : critical) {
        if (m_shown.contains(c->key)) continue;
        m_focus = Focus{c->key, m_clock, c->entities};
        m_shown.insert(c->key);
        StoryCamera camera;
        camera.kind = StoryCamera::Kind::Frame;
        camera.entities = c->entities;
        m_reframe = camera;
        m_flight = views::CameraFlight{m_view.camera(), target(camera), kFocusFlight};
        m_flightStart = m_clock;
        m_settled = false;
        showFocus();
        return true;
    }
    if (wasFocusing) {
        // Every cause shown (or cleared): back to the tour where it was.
        m_view.setFocus(std::nullopt);
        m_reframe.reset();
        if (m_current >= 0) enter(m_current, true);
    }
    return false;
}

void StoryPlayer::showFocus() {
    const auto snap = m_view.snapshot();
    if (!snap || !m_focus) return;
    const auto& t = m_view.topology();
    const auto causes = views::groupAlarms(t, snap->alarms);
    const auto critical = criticalFirst(causes);
    int index = 0;
    const views::AlarmCause* shown = nullptr;
    for (std::size_t i = 0; i < critical.size(); ++i)
        if (critical[i]->key == m_focus->key) shown = critical[i], index = static_cast<int>(i) + 1;
    if (!shown) return;
    const auto& a = *shown->worst;
    views::HudFocus focus;
    focus.critical = true;
    focus.title = std::string(a.title);
    std::string detail;
    if (shown->count == 1)
        detail = t.name(a.kind, a.entity);
    else
        detail = std::to_string(shown->count) + " " + std::string(model::entityKindName(a.kind)) +
                 "s on " + shown->where;
    if (!model::kChannels[a.channel].unit.empty())
        detail += " · " + t.name(a.kind, a.entity) + " " + views::formatValue(a.value, a.channel) +
                  " (limit " + views::formatValue(a.threshold, a.channel) + ")";
    detail += " · " + forHowLong(std::max(0.0, model::toSeconds(snap->time - a.since)));
    focus.detail = std::move(detail);
    focus.index = index;
    focus.of = static_cast<int>(critical.size());
    m_view.setFocus(std::move(focus));
}

} // namespace ft::app
