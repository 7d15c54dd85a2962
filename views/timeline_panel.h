#pragma once
// TimelinePanel: the time axis of a replay (or of a live run, with its live edge): the current
// position, event markers coloured by kind, bookmarks, a loop range, zoom (wheel) and pan
// (right-drag); click or drag to seek, shift-drag to set the loop. Above it, transport buttons
// and the speed. Bookmarks come from a callback so the panel needs no recording of its own.
// UI thread only.
#include "model/incident_tracker.h"
#include "model/transport.h"

#include <QRectF>
#include <QWidget>
#include <functional>
#include <optional>
#include <vector>

class QComboBox;
class QLabel;
class QPushButton;

class QPainter;

namespace ft::views {

struct TimelineBookmark {
    model::TimeNs time = 0;
    std::string text;
};

class TimelineAxis : public QWidget {
    Q_OBJECT
public:
    explicit TimelineAxis(model::Transport& transport, QWidget* parent = nullptr);
    void setEvents(std::vector<model::Event> events) {
        m_events = std::move(events);
        update();
    }
    void setBookmarks(std::vector<TimelineBookmark> bookmarks) {
        m_bookmarks = std::move(bookmarks);
        update();
    }
    void setLiveEvents(std::shared_ptr<const model::EventLog> events);
    // The incidents: one band each across the top, from its root to its end (or the present),
    // a tick at each effect; a click on a band seeks to its root (replays). A double-click opens
    // the band into its chain, a lane per step (what, where it began, how far it spread) that
    // seeks to its step on a click; another double-click, or Escape, closes it.
    void setIncidents(const model::IncidentList* incidents);
    // The incident opened into its chain (its id), if any.
    std::optional<std::uint32_t> expandedIncident() const { return m_expanded; }
    void setExpandedIncident(std::optional<std::uint32_t> id);
    // Where the bands and the open chain's lanes (with the time each seeks to) were drawn by
    // the last paint.
    std::vector<QRectF> bandRects() const;
    std::vector<std::pair<QRectF, model::TimeNs>> lanes() const;
    // A baseline's events (--compare), drawn below the axis line in muted colours, at the times
    // they fall on this clock (`shift` added: the baseline's time minus this one's).
    void setBaselineEvents(std::vector<model::Event> events, model::TimeNs shift);
    const std::vector<model::Event>& baselineEvents() const { return m_baselineEvents; }
    // Visible window (zoom); nothing: the whole range.
    void setView(std::optional<std::pair<model::TimeNs, model::TimeNs>> view) {
        m_view = view;
        update();
    }
    std::pair<model::TimeNs, model::TimeNs> visibleRange() const;
    model::TimeNs timeAt(double x) const;
    double xAt(model::TimeNs t) const;
    QSize sizeHint() const override { return {800, 70 + laneRows() * kLaneHeight}; }
    QSize minimumSizeHint() const override { return {200, 70 + laneRows() * kLaneHeight}; }

protected:
    void paintEvent(QPaintEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void mouseDoubleClickEvent(QMouseEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;
    void wheelEvent(QWheelEvent* e) override;
    bool event(QEvent* e) override;

private:
    model::Transport& m_transport;
    std::vector<model::Event> m_events;
    std::shared_ptr<const model::EventLog> m_liveEvents;
    std::vector<TimelineBookmark> m_bookmarks;
    model::IncidentList m_incidents;
    std::vector<model::Event> m_baselineEvents; // on this clock
    std::string m_baselineLabel;
    // Where each incident's band was drawn, for clicks and tooltips.
    struct Band {
        QRectF rect;
        std::size_t incident = 0;
    };
    std::vector<Band> m_bands;
    // The chain opened under the bands: a lane per step (up to kMaxLanes, then a count).
    static constexpr int kLaneHeight = 15;
    static constexpr int kMaxLanes = 8;
    std::optional<std::uint32_t> m_expanded;
    struct Lane {
        QRectF rect;
        model::TimeNs time = 0;
    };
    std::vector<Lane> m_lanes;
    const model::Incident* expanded() const; // null when none is open (or it is gone)
    int laneRows() const;
    void fitLanes(); // heights for the lanes open
    // The incidents' bands over [a, b], and the open chain's lanes under them.
    void paintIncidentBands(QPainter& p, model::TimeNs a, model::TimeNs b);
    void paintOpenChain(QPainter& p, model::TimeNs a, model::TimeNs b, int lanesTop);
    std::optional<std::pair<model::TimeNs, model::TimeNs>> m_view;
    enum class Drag { None, Seek, Loop, Pan } m_drag = Drag::None;
    model::TimeNs m_dragStart = 0;
    double m_panX = 0;
};

class TimelinePanel : public QWidget {
    Q_OBJECT
public:
    using BookmarkSink =
        std::function<std::optional<std::string>(model::TimeNs time, const std::string& text)>;
    TimelinePanel(model::Transport& transport, QWidget* parent = nullptr);
    TimelineAxis* axis() const { return m_axis; }
    // Where bookmarks are saved; returns an error text on failure.
    void setBookmarkSink(BookmarkSink sink) { m_bookmarkSink = std::move(sink); }
    void refresh();
    // Video-player keys: space, J/K/L, arrows, Home/End, [ ] (events), B (bookmark).
    bool handleKey(int key, Qt::KeyboardModifiers modifiers);
    void addBookmark();

signals:
    void jumpToEvent(int direction);

private:
    model::Transport& m_transport;
    TimelineAxis* m_axis;
    QPushButton* m_back = nullptr;
    QPushButton* m_play;
    QComboBox* m_speed;
    QLabel* m_time;
    BookmarkSink m_bookmarkSink;
};

} // namespace ft::views
