#include "lifecycle_board.h"

#include "lifecycle_layer.h"
#include "views/floor_view.h"
#include "views/lifecycle_style.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollArea>
#include <QScrollBar>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>

namespace ft::views {

using model::EntityKind;
using model::RackLifecycle;

namespace {
QColor qcolor(Rgb c) {
    return {c.r, c.g, c.b};
}
constexpr int kAxisHeight = 22;
} // namespace

LifecycleLanes::LifecycleLanes(FloorView* view, QWidget* parent) : QWidget(parent), m_view(view) {
    setMouseTracking(true);
    setMinimumWidth(300);
}

void LifecycleLanes::setFilter(std::optional<RackLifecycle> state) {
    m_filter = state;
    rebuild();
}

void LifecycleLanes::rebuild() {
    const auto s = m_view->snapshot();
    m_lanes.clear();
    if (!s) return;
    const auto& t = m_view->topology();
    std::vector<std::uint8_t> hasHistory(t.count(EntityKind::Rack), 0);
    m_t1 = s->time;
    m_t0 = s->time - 3600LL * model::kNsPerSecond;
    if (s->lifecycleHistory)
        for (const auto& tr : *s->lifecycleHistory) {
            hasHistory[tr.rack] = 1;
            m_t0 = std::min(m_t0, tr.time);
        }
    // Leave a little room before the first transition.
    m_t0 -= (m_t1 - m_t0) / 50;
    for (model::EntityId r = 0; r < t.count(EntityKind::Rack) && r < s->rackLifecycle.size(); ++r) {
        const RackLifecycle st = s->rackLifecycle[r];
        if (m_filter ? st != *m_filter : (st == RackLifecycle::Production && !hasHistory[r]))
            continue;
        m_lanes.push_back(r);
    }
    setMinimumHeight(kAxisHeight + static_cast<int>(m_lanes.size()) * kLaneHeight + 4);
    update();
}

int LifecycleLanes::laneTop(model::EntityId rack) const {
    const auto it = std::ranges::find(m_lanes, rack);
    return it == m_lanes.end() ? -1
                               : kAxisHeight + static_cast<int>(it - m_lanes.begin()) * kLaneHeight;
}

double LifecycleLanes::timeToX(model::TimeNs time) const {
    const double w = std::max(1, width() - kNameWidth - 8);
    return kNameWidth + w * static_cast<double>(time - m_t0) /
                            static_cast<double>(std::max<model::TimeNs>(1, m_t1 - m_t0));
}

model::TimeNs LifecycleLanes::xToTime(double x) const {
    const double w = std::max(1, width() - kNameWidth - 8);
    const double f = std::clamp((x - kNameWidth) / w, 0.0, 1.0);
    return m_t0 + static_cast<model::TimeNs>(f * static_cast<double>(m_t1 - m_t0));
}

void LifecycleLanes::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), QColor(20, 25, 34));
    const auto s = m_view->snapshot();
    if (!s) return;
    const auto& t = m_view->topology();
    p.setPen(QColor(150, 162, 178));
    if (m_lanes.empty()) {
        p.drawText(rect(), Qt::AlignCenter,
                   m_filter ? tr("No rack is in this state.")
                            : tr("Every rack is in production with no history yet.\nRun --scenario "
                                 "bring-up to watch a wave arrive."));
        return;
    }
    // Time axis: hours since the first event.
    const double hours = model::toSeconds(m_t1 - m_t0) / 3600.0;
    const double step = hours > 24 ? 6 : hours > 8 ? 2 : hours > 3 ? 1 : 0.25;
    for (double h = 0; h <= hours; h += step) {
        const double x = timeToX(m_t0 + model::fromSeconds(h * 3600));
        p.setPen(QColor(45, 54, 68));
        p.drawLine(QPointF(x, kAxisHeight - 4), QPointF(x, height()));
        p.setPen(QColor(150, 162, 178));
        p.drawText(QPointF(x + 2, kAxisHeight - 8),
                   QString::fromStdString(
                       model::formatUtc(m_t0 + model::fromSeconds(h * 3600)).substr(11, 5)));
    }
    // Per lane: the stages as bars, failures as markers.
    std::vector<std::vector<const model::LifecycleTransition*>> byRack(t.count(EntityKind::Rack));
    if (s->lifecycleHistory)
        for (const auto& tr : *s->lifecycleHistory)
            byRack[tr.rack].push_back(&tr);
    const auto selection = m_view->selection();
    for (std::size_t i = 0; i < m_lanes.size(); ++i) {
        const model::EntityId r = m_lanes[i];
        const int y = kAxisHeight + static_cast<int>(i) * kLaneHeight;
        const bool selected =
            selection && selection->kind == EntityKind::Rack && selection->id == r;
        if (selected) p.fillRect(QRect(0, y, width(), kLaneHeight), QColor(60, 80, 110));
        p.setPen(QColor(225, 232, 242));
        p.drawText(QRect(6, y, kNameWidth - 8, kLaneHeight), Qt::AlignVCenter,
                   QString::fromStdString(t.racks.name[r]));
        const auto& trs = byRack[r];
        // The state before the first transition, then each transition's target until the next.
        RackLifecycle state = trs.empty() ? s->rackLifecycle[r] : trs.front()->from;
        model::TimeNs from = m_t0;
        auto bar = [&](model::TimeNs a, model::TimeNs b, RackLifecycle st) {
            const double x0 = timeToX(a), x1 = std::max(x0 + 1.0, timeToX(b));
            p.fillRect(QRectF(x0, y + 4, x1 - x0, kLaneHeight - 8), qcolor(lifecycleColor(st)));
        };
        for (const auto* tr : trs) {
            bar(from, tr->time, state);
            state = tr->to;
            from = tr->time;
        }
        bar(from, m_t1, state);
        for (const auto* tr : trs)
            if (tr->failure) {
                const double x = timeToX(tr->time);
                QPolygonF mark;
                mark << QPointF(x, y + 2) << QPointF(x - 6, y + kLaneHeight - 2)
                     << QPointF(x + 6, y + kLaneHeight - 2);
                p.setPen(QPen(Qt::white, 1));
                p.setBrush(QColor(255, 60, 50));
                p.drawPolygon(mark);
            }
    }
    // Now.
    p.setPen(QPen(QColor(255, 255, 255, 200), 2));
    const double now = timeToX(m_t1);
    p.drawLine(QPointF(now - 1, kAxisHeight - 4), QPointF(now - 1, height()));
}

void LifecycleLanes::mousePressEvent(QMouseEvent* e) {
    const int lane = (static_cast<int>(e->position().y()) - kAxisHeight) / kLaneHeight;
    if (e->position().y() >= kAxisHeight && lane >= 0 && lane < static_cast<int>(m_lanes.size())) {
        const double x = e->position().x();
        emit laneClicked(m_lanes[lane], x >= kNameWidth ? std::optional(xToTime(x)) : std::nullopt);
    }
}

bool LifecycleLanes::event(QEvent* e) {
    if (e->type() != QEvent::ToolTip) return QWidget::event(e);
    auto* help = static_cast<QHelpEvent*>(e);
    const auto s = m_view->snapshot();
    const int lane = (help->pos().y() - kAxisHeight) / kLaneHeight;
    if (!s || !s->lifecycleHistory || help->pos().y() < kAxisHeight || lane < 0 ||
        lane >= static_cast<int>(m_lanes.size())) {
        QToolTip::hideText();
        return true;
    }
    // The transition nearest the pointer on this lane: what happened, and why.
    const model::EntityId r = m_lanes[lane];
    const model::LifecycleTransition* best = nullptr;
    double bestDx = 12;
    for (const auto& tr : *s->lifecycleHistory)
        if (tr.rack == r && std::abs(timeToX(tr.time) - help->pos().x()) < bestDx) {
            bestDx = std::abs(timeToX(tr.time) - help->pos().x());
            best = &tr;
        }
    if (!best) {
        QToolTip::hideText();
        return true;
    }
    QToolTip::showText(help->globalPos(),
                       QString("%1  %2 → %3\n%4")
                           .arg(QString::fromStdString(model::formatUtc(best->time)).left(19),
                                QString::fromUtf8(model::lifecycleTitle(best->from).data()),
                                QString::fromUtf8(model::lifecycleTitle(best->to).data()),
                                QString::fromStdString(best->reason)),
                       this);
    return true;
}

LifecycleBoard::LifecycleBoard(FloorView* view, QWidget* parent) : QWidget(parent), m_view(view) {
    setMinimumHeight(160); // room for the axis and a few lanes; the dock can grow
    auto* layout = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Show"), this));
    m_filterBox = new QComboBox(this);
    m_filterBox->addItem(tr("racks in bring-up or with history"), -1);
    for (std::size_t i = 0; i < model::kLifecycleTitles.size(); ++i)
        m_filterBox->addItem(
            tr("only %1").arg(QString::fromUtf8(model::kLifecycleTitles[i].data())),
            static_cast<int>(i));
    top->addWidget(m_filterBox, 1);
    layout->addLayout(top);
    m_scroll = new QScrollArea(this);
    m_scroll->setWidgetResizable(true);
    m_lanes = new LifecycleLanes(view, m_scroll);
    m_scroll->setWidget(m_lanes);
    layout->addWidget(m_scroll, 1);

    connect(m_view, &FloorView::snapshotChanged, m_lanes, &LifecycleLanes::rebuild);
    connect(m_view, &FloorView::selectionChanged, this, &LifecycleBoard::followSelection);
    connect(m_lanes, &LifecycleLanes::laneClicked, this,
            [this](model::EntityId rack, std::optional<model::TimeNs> time) {
                m_view->setSelection(model::EntityRef{EntityKind::Rack, rack});
                // In a replay the board is a way through time too: go to the moment clicked.
                if (auto* transport = m_view->transport();
                    time && transport && transport->isReplay())
                    transport->seek(*time);
            });
    connect(m_filterBox, &QComboBox::currentIndexChanged, this, [this](int) {
        const int v = m_filterBox->currentData().toInt();
        const auto state = v < 0 ? std::nullopt : std::optional(static_cast<RackLifecycle>(v));
        m_lanes->setFilter(state);
        if (auto* layer = m_view->layer<LifecycleLayer>())
            layer->setFilter(state); // the floor shows the same racks
    });
}

void LifecycleBoard::followSelection() {
    const auto sel = m_view->selection();
    m_lanes->update();
    if (!sel) return;
    const auto rack = m_view->topology().rackOf(sel->kind, sel->id);
    if (!rack) return;
    if (const int y = m_lanes->laneTop(*rack); y >= 0)
        m_scroll->ensureVisible(0, y + LifecycleLanes::kLaneHeight / 2, 0,
                                LifecycleLanes::kLaneHeight);
}

QWidget* makeLifecycleBoard(FloorView& view) {
    return new LifecycleBoard(&view);
}

} // namespace ft::views
