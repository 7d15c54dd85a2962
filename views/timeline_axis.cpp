// TimelineAxis: the timeline's drawing and its mouse, keys and tooltips (timeline_panel.h).
#include "timeline_panel.h"
#include "transport_observer.h"

#include <QFontMetricsF>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <limits>

namespace ft::views {

namespace {
constexpr double kMargin = 12;

QColor eventColor(const model::Event& e) {
    switch (e.kind) {
    case model::EventKind::ScenarioInjection:
        return {255, 190, 60};
    case model::EventKind::Protection:
        return {255, 70, 60};
    case model::EventKind::Lifecycle:
        return e.severity == model::Severity::Critical ? QColor(235, 95, 175)
                                                       : QColor(120, 170, 255);
    case model::EventKind::AlarmRaised:
        return e.severity == model::Severity::Critical ? QColor(255, 110, 80)
                                                       : QColor(255, 170, 90);
    case model::EventKind::AlarmCleared:
        return {90, 200, 120};
    case model::EventKind::DeviceReport:
        return e.severity == model::Severity::Critical  ? QColor(255, 80, 200)
               : e.severity == model::Severity::Warning ? QColor(240, 150, 230)
                                                        : QColor(180, 160, 200);
    case model::EventKind::Scheduler:
        return e.severity == model::Severity::Info ? QColor(150, 200, 230) : QColor(250, 140, 60);
    case model::EventKind::Alert:
        // Alertmanager's own: the pager's colours, never the twin's alarm reds.
        return e.severity == model::Severity::Critical  ? QColor(230, 60, 120)
               : e.severity == model::Severity::Warning ? QColor(235, 200, 60)
                                                        : QColor(140, 170, 200);
    }
    return Qt::white;
}
// An incident's colour: its root's domain (cooling blue, power amber, fabric violet...).
QColor domainColor(model::CauseDomain d) {
    static const QColor kDomain[] = {
        QColor(80, 170, 255), QColor(255, 190, 70),  QColor(190, 120, 255), QColor(90, 210, 170),
        QColor(255, 120, 90), QColor(230, 230, 120), QColor(160, 160, 170)};
    return kDomain[std::min<std::size_t>(static_cast<std::size_t>(d), std::size(kDomain) - 1)];
}

QString clock(model::TimeNs t) {
    return QString::fromStdString(model::formatUtc(t, true)).left(23);
}
} // namespace

TimelineAxis::TimelineAxis(model::Transport& transport, QWidget* parent)
    : QWidget(parent), m_transport(transport) {
    setMouseTracking(true);
    setFocusPolicy(Qt::ClickFocus); // Escape closes an open chain
    fitLanes();
}

void TimelineAxis::fitLanes() {
    // A strip, not a pane, unless a chain is open: then room for its lanes, and the panel holding
    // the strip grows with it.
    const int extra = laneRows() * kLaneHeight;
    setMinimumHeight(64 + extra);
    setMaximumHeight(120 + extra);
    if (auto* panel = qobject_cast<TimelinePanel*>(parentWidget()))
        panel->setMaximumHeight(175 + extra);
    updateGeometry();
}

void TimelineAxis::setLiveEvents(std::shared_ptr<const model::EventLog> events) {
    if (events == m_liveEvents) return;
    m_liveEvents = std::move(events);
    update();
}

std::pair<model::TimeNs, model::TimeNs> TimelineAxis::visibleRange() const {
    if (m_view) return *m_view;
    return {m_transport.beginTime(),
            std::max(m_transport.endTime(), m_transport.beginTime() + m_transport.tickLength())};
}

double TimelineAxis::xAt(model::TimeNs t) const {
    const auto [a, b] = visibleRange();
    return kMargin + (width() - 2 * kMargin) * static_cast<double>(t - a) /
                         static_cast<double>(std::max<model::TimeNs>(1, b - a));
}

model::TimeNs TimelineAxis::timeAt(double x) const {
    const auto [a, b] = visibleRange();
    const double f = std::clamp((x - kMargin) / std::max(1.0, width() - 2 * kMargin), 0.0, 1.0);
    return a + static_cast<model::TimeNs>(f * static_cast<double>(b - a));
}

void TimelineAxis::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), QColor(18, 22, 30));
    const auto [a, b] = visibleRange();
    const int axisY = height() - 22;
    // Ticks at a readable interval.
    const double span = model::toSeconds(b - a);
    const double steps[] = {1, 5, 10, 30, 60, 300, 600, 1800, 3600, 7200, 21600, 43200, 86400};
    double step = steps[0];
    for (double s : steps)
        if (span / s <= 10) {
            step = s;
            break;
        } else
            step = s;
    p.setPen(QColor(60, 70, 88));
    p.drawLine(QPointF(kMargin, axisY), QPointF(width() - kMargin, axisY));
    // Marks reach down to the axis from under the bands and the open chain's lanes.
    const int lanesTop = 18 + 3 * 11 + 4;
    const int marksTop = lanesTop + laneRows() * kLaneHeight;
    const model::TimeNs stepNs = model::fromSeconds(step);
    for (model::TimeNs t = (a / stepNs + 1) * stepNs; t < b; t += stepNs) {
        const double x = xAt(t);
        p.setPen(QColor(60, 70, 88));
        p.drawLine(QPointF(x, axisY - 4), QPointF(x, axisY + 4));
        p.setPen(QColor(150, 162, 178));
        p.drawText(QPointF(x - 24, height() - 4),
                   QString::fromStdString(model::formatUtc(t)).mid(11, step < 60 ? 8 : 5));
    }
    // Loop range.
    if (const auto loop = m_transport.loop()) {
        p.fillRect(QRectF(QPointF(xAt(loop->first), 4), QPointF(xAt(loop->second), axisY)),
                   QColor(80, 140, 255, 50));
        p.setPen(QColor(80, 140, 255));
        p.drawLine(QPointF(xAt(loop->first), 4), QPointF(xAt(loop->first), axisY));
        p.drawLine(QPointF(xAt(loop->second), 4), QPointF(xAt(loop->second), axisY));
    }
    // Events: a mark per event, coloured by kind (cleared alarms short and green).
    auto drawEvents = [&](const auto& events) {
        for (const auto& e : events) {
            if (e.time < a || e.time > b) continue;
            const double x = xAt(e.time);
            const int top =
                e.kind == model::EventKind::AlarmCleared
                    ? axisY - 10
                    : (e.kind == model::EventKind::AlarmRaised ? axisY - 18
                                                               : (m_expanded ? marksTop : 8));
            p.setPen(QPen(eventColor(e), 2));
            p.drawLine(QPointF(x, top), QPointF(x, axisY));
        }
    };
    drawEvents(m_events);
    if (m_liveEvents) drawEvents(*m_liveEvents);
    // The baseline's events: short marks hanging below the axis, greyed.
    for (const auto& e : m_baselineEvents) {
        if (e.time < a || e.time > b) continue;
        const double x = xAt(e.time);
        QColor c = eventColor(e);
        c.setAlpha(150);
        p.setPen(QPen(c, 1.5));
        p.drawLine(QPointF(x, axisY + 1), QPointF(x, axisY + 7));
    }
    paintIncidentBands(p, a, b);
    paintOpenChain(p, a, b, lanesTop);
    // Bookmarks: flags.
    for (const auto& bm : m_bookmarks) {
        if (bm.time < a || bm.time > b) continue;
        const double x = xAt(bm.time);
        p.setPen(QPen(QColor(120, 200, 255), 2));
        p.drawLine(QPointF(x, 4), QPointF(x, axisY));
        QPolygonF flag;
        flag << QPointF(x, 4) << QPointF(x + 10, 8) << QPointF(x, 12);
        p.setBrush(QColor(120, 200, 255));
        p.drawPolygon(flag);
    }
    // The live edge, then the position.
    if (!m_transport.isReplay()) {
        p.setPen(QColor(90, 220, 130));
        p.drawText(QPointF(xAt(m_transport.endTime()) - 34, 14), "LIVE");
    }
    if (const auto s = m_transport.latest()) {
        const double x = xAt(s->time);
        p.setPen(QPen(Qt::white, 2));
        p.drawLine(QPointF(x, 2), QPointF(x, axisY + 6));
        p.setBrush(Qt::white);
        QPolygonF head;
        head << QPointF(x - 5, axisY + 6) << QPointF(x + 5, axisY + 6) << QPointF(x, axisY);
        p.drawPolygon(head);
    }
}

void TimelineAxis::paintIncidentBands(QPainter& p, model::TimeNs a, model::TimeNs b) {
    // Incidents: a band each, stacked in up to three rows, coloured by the root's domain.
    m_bands.clear();
    {
        constexpr int kRows = 3;
        model::TimeNs rowEnd[kRows] = {std::numeric_limits<model::TimeNs>::min(),
                                       std::numeric_limits<model::TimeNs>::min(),
                                       std::numeric_limits<model::TimeNs>::min()};
        const model::TimeNs now = m_transport.latest() ? m_transport.latest()->time : b;
        for (std::size_t i = 0; i < m_incidents.size(); ++i) {
            const auto& inc = m_incidents[i];
            const model::TimeNs end = inc.end > 0 ? inc.end : now;
            if (end < a || inc.start > b) continue;
            int row = 0;
            while (row < kRows - 1 && rowEnd[row] > inc.start)
                ++row;
            rowEnd[row] = end;
            const QRectF r(QPointF(std::max(xAt(inc.start), double(kMargin)), 18 + row * 11),
                           QPointF(std::max(xAt(end), xAt(inc.start) + 3), 27 + row * 11));
            const QColor c = domainColor(inc.domain);
            p.setPen(Qt::NoPen);
            p.setBrush(QColor(c.red(), c.green(), c.blue(), inc.end > 0 ? 90 : 150));
            p.drawRoundedRect(r, 3, 3);
            if (m_expanded == inc.id) {
                p.setPen(QPen(Qt::white, 1.5));
                p.setBrush(Qt::NoBrush);
                p.drawRoundedRect(r.adjusted(-1, -1, 1, 1), 3, 3);
            }
            p.setPen(QPen(c.lighter(130), 1));
            for (const auto& step : inc.chain)
                if (step.time >= a && step.time <= b)
                    p.drawLine(QPointF(xAt(step.time), r.top()),
                               QPointF(xAt(step.time), r.bottom()));
            m_bands.push_back({r, i});
        }
    }
}

void TimelineAxis::paintOpenChain(QPainter& p, model::TimeNs, model::TimeNs b, int lanesTop) {
    // The open chain: a lane per step from when it began to the incident's end, in its domain's
    // colour, with what it was and how far it spread; the root first.
    m_lanes.clear();
    if (const model::Incident* inc = expanded()) {
        const model::TimeNs now = m_transport.latest() ? m_transport.latest()->time : b;
        const model::TimeNs end = inc->end > 0 ? inc->end : now;
        p.fillRect(QRectF(0, lanesTop - 2, width(), laneRows() * kLaneHeight + 2),
                   QColor(26, 31, 42));
        QFont small = p.font();
        small.setPointSizeF(small.pointSizeF() * 0.85);
        p.setFont(small);
        const QFontMetricsF fm(small);
        auto lane = [&](int row, model::TimeNs t, model::CauseDomain domain, const QString& text) {
            const double y = lanesTop + row * kLaneHeight;
            const QRectF r(QPointF(kMargin, y), QPointF(width() - kMargin, y + kLaneHeight - 2));
            const QColor c = domainColor(domain);
            const double x0 = std::clamp(xAt(t), kMargin, width() - kMargin);
            const double x1 = std::clamp(xAt(end), x0 + 2, width() - kMargin);
            p.fillRect(QRectF(QPointF(x0, y + 3), QPointF(x1, y + kLaneHeight - 5)),
                       QColor(c.red(), c.green(), c.blue(), 110));
            p.setPen(QPen(c.lighter(130), 2));
            p.drawLine(QPointF(x0, y + 1), QPointF(x0, y + kLaneHeight - 3));
            // The words after the mark while they fit, else before it.
            const QString words = clock(t).mid(11, 8) + "  " + text;
            const double w = fm.horizontalAdvance(words);
            const double tx =
                x0 + 6 + w < width() - kMargin ? x0 + 6 : std::max(kMargin, x0 - 6 - w);
            p.setPen(QColor(225, 230, 238));
            p.drawText(QPointF(tx, y + kLaneHeight - 4),
                       fm.elidedText(words, Qt::ElideRight, width() - kMargin - tx));
            m_lanes.push_back({r, t});
        };
        lane(0, inc->start, inc->domain,
             QString::fromStdString("ROOT " + inc->rootText + "  (" + inc->rootKind + ")"));
        std::vector<const model::IncidentStep*> steps;
        steps.reserve(inc->chain.size());
        for (const auto& step : inc->chain)
            steps.push_back(&step);
        std::ranges::stable_sort(steps, {}, &model::IncidentStep::time);
        const std::size_t shown = std::min(
            steps.size(),
            static_cast<std::size_t>(kMaxLanes - 1 - (steps.size() + 1 > kMaxLanes ? 1 : 0)));
        for (std::size_t i = 0; i < shown; ++i) {
            const auto& st = *steps[i];
            QString reach;
            if (st.entities.size() > 1)
                reach = QString("  (%1 %2s)")
                            .arg(st.entities.size())
                            .arg(QString::fromUtf8(model::entityKindName(st.kind).data()));
            lane(static_cast<int>(i) + 1, st.time, st.domain,
                 QString::fromStdString(st.what) + reach);
        }
        if (shown < steps.size()) {
            p.setPen(QColor(150, 162, 178));
            p.drawText(QPointF(kMargin, lanesTop + (static_cast<int>(shown) + 2) * kLaneHeight - 4),
                       QString("+ %1 more steps (the Incidents dock lists them all)")
                           .arg(steps.size() - shown));
        }
        p.setFont(font());
    }
}

void TimelineAxis::setBaselineEvents(std::vector<model::Event> events, model::TimeNs shift) {
    for (auto& e : events) {
        e.time -= shift;
        e.text = "baseline: " + e.text;
    }
    m_baselineEvents = std::move(events);
    update();
}

void TimelineAxis::setIncidents(const model::IncidentList* incidents) {
    const int rows = laneRows();
    if (incidents)
        m_incidents = *incidents;
    else
        m_incidents = {};
    if (laneRows() != rows) fitLanes(); // the open chain grew, or its incident is gone
    update();
}

const model::Incident* TimelineAxis::expanded() const {
    if (!m_expanded) return nullptr;
    for (const auto& inc : m_incidents)
        if (inc.id == *m_expanded) return &inc;
    return nullptr;
}

int TimelineAxis::laneRows() const {
    const model::Incident* inc = expanded();
    return inc ? std::min(static_cast<int>(inc->chain.size()) + 1, kMaxLanes) : 0;
}

void TimelineAxis::setExpandedIncident(std::optional<std::uint32_t> id) {
    m_expanded = id;
    fitLanes();
    update();
}

std::vector<QRectF> TimelineAxis::bandRects() const {
    std::vector<QRectF> out;
    out.reserve(m_bands.size());
    for (const auto& band : m_bands)
        out.push_back(band.rect);
    return out;
}

std::vector<std::pair<QRectF, model::TimeNs>> TimelineAxis::lanes() const {
    std::vector<std::pair<QRectF, model::TimeNs>> out;
    out.reserve(m_lanes.size());
    for (const auto& lane : m_lanes)
        out.emplace_back(lane.rect, lane.time);
    return out;
}

void TimelineAxis::mouseDoubleClickEvent(QMouseEvent* e) {
    for (const auto& band : m_bands)
        if (band.rect.adjusted(-2, -2, 2, 2).contains(e->position())) {
            const std::uint32_t id = m_incidents[band.incident].id;
            setExpandedIncident(m_expanded == id ? std::nullopt : std::optional(id));
            return;
        }
    QWidget::mouseDoubleClickEvent(e);
}

void TimelineAxis::keyPressEvent(QKeyEvent* e) {
    if (e->key() == Qt::Key_Escape && m_expanded) {
        setExpandedIncident(std::nullopt);
        return;
    }
    QWidget::keyPressEvent(e);
}

void TimelineAxis::mousePressEvent(QMouseEvent* e) {
    const double x = e->position().x();
    if (e->button() == Qt::LeftButton && m_transport.isReplay()) {
        for (const auto& band : m_bands)
            if (band.rect.adjusted(-2, -2, 2, 2).contains(e->position())) {
                m_transport.seek(m_incidents[band.incident].start);
                return;
            }
        for (const auto& lane : m_lanes)
            if (lane.rect.contains(e->position())) {
                m_transport.seek(lane.time);
                return;
            }
    }
    if (e->button() == Qt::RightButton) {
        m_drag = Drag::Pan;
        m_panX = x;
        return;
    }
    if (!m_transport.isReplay() || e->button() != Qt::LeftButton) return;
    m_dragStart = timeAt(x);
    if (e->modifiers() & Qt::ShiftModifier)
        m_drag = Drag::Loop;
    else {
        m_drag = Drag::Seek;
        m_transport.seek(m_dragStart);
    }
    update();
}

void TimelineAxis::mouseMoveEvent(QMouseEvent* e) {
    const double x = e->position().x();
    switch (m_drag) {
    case Drag::Seek:
        m_transport.seek(timeAt(x));
        break;
    case Drag::Loop: {
        const auto t = timeAt(x);
        m_transport.setLoop(std::pair{std::min(m_dragStart, t), std::max(m_dragStart, t)});
        break;
    }
    case Drag::Pan: {
        auto [a, b] = visibleRange();
        const auto shift = static_cast<model::TimeNs>(
            (m_panX - x) / std::max(1.0, width() - 2 * kMargin) * static_cast<double>(b - a));
        m_view = std::pair{a + shift, b + shift};
        m_panX = x;
        break;
    }
    case Drag::None:
        return;
    }
    update();
}

void TimelineAxis::mouseReleaseEvent(QMouseEvent*) {
    m_drag = Drag::None;
}

void TimelineAxis::wheelEvent(QWheelEvent* e) {
    // Zoom around the pointer; zooming out past the whole range shows the whole range.
    auto [a, b] = visibleRange();
    const model::TimeNs pivot = timeAt(e->position().x());
    const double factor = std::pow(0.8, e->angleDelta().y() / 120.0);
    const model::TimeNs fullSpan =
        std::max<model::TimeNs>(1, m_transport.endTime() - m_transport.beginTime());
    const auto span = static_cast<model::TimeNs>(static_cast<double>(b - a) * factor);
    if (span >= fullSpan)
        m_view.reset();
    else {
        const double f =
            static_cast<double>(pivot - a) / static_cast<double>(std::max<model::TimeNs>(1, b - a));
        const model::TimeNs lo =
            pivot - static_cast<model::TimeNs>(f * static_cast<double>(std::max<model::TimeNs>(
                                                       span, 10 * m_transport.tickLength())));
        m_view = std::pair{lo, lo + std::max<model::TimeNs>(span, 10 * m_transport.tickLength())};
    }
    update();
}

bool TimelineAxis::event(QEvent* e) {
    if (e->type() != QEvent::ToolTip) return QWidget::event(e);
    auto* help = static_cast<QHelpEvent*>(e);
    QString text;
    auto near = [&](model::TimeNs t) { return std::abs(xAt(t) - help->pos().x()) < 4; };
    for (const auto& band : m_bands)
        if (band.rect.adjusted(-2, -2, 2, 2).contains(help->pos()))
            text += QString::fromStdString(m_incidents[band.incident].summary()) + "\n";
    for (const auto& bm : m_bookmarks)
        if (near(bm.time))
            text +=
                QString("Bookmark %1  %2\n").arg(clock(bm.time), QString::fromStdString(bm.text));
    auto collect = [&](const auto& events) {
        int n = 0;
        for (const auto& ev : events)
            if (near(ev.time) && n++ < 8)
                text += QString("%1  %2\n")
                            .arg(clock(ev.time).mid(11), QString::fromStdString(ev.text));
    };
    collect(m_events);
    if (m_liveEvents) collect(*m_liveEvents);
    collect(m_baselineEvents);
    if (text.isEmpty()) text = clock(timeAt(help->pos().x()));
    QToolTip::showText(help->globalPos(), text.trimmed(), this);
    return true;
}

} // namespace ft::views
