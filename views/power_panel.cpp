#include "power_panel.h"

#include "floor_view.h"
#include "hud.h"
#include "power_layer.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>

namespace ft::views {

using model::EntityId;
using model::EntityKind;
namespace ch = model::ch;

namespace {
constexpr std::size_t kHistoryPoints = 600; // ten minutes at one point per simulated second
const QColor kText(225, 232, 242);
const QColor kMutedText(150, 162, 178);
const QColor kPanel(22, 28, 38);
const QColor kLine(70, 84, 104);
const QColor kOk(80, 200, 120), kNoInput(95, 100, 110), kFailed(225, 60, 50);
const QColor kCapped(245, 170, 50), kDraw(80, 190, 170);

QColor qc(Rgb c) {
    return {c.r, c.g, c.b};
}
} // namespace

PowerPanel::PowerPanel(FloorView* view, QWidget* parent) : QWidget(parent), m_view(view) {
    m_history.resize(view->topology().count(EntityKind::Rack));
    setMinimumSize(320, 520);
    connect(m_view, &FloorView::snapshotChanged, this, &PowerPanel::onSnapshot);
    connect(m_view, &FloorView::selectionChanged, this, &PowerPanel::followSelection);
}

void PowerPanel::setRack(EntityId rack) {
    if (rack >= m_history.size()) return;
    m_rack = rack;
    update();
}

void PowerPanel::followSelection() {
    const auto sel = m_view->selection();
    if (!sel) return;
    const auto& t = m_view->topology();
    switch (sel->kind) {
    case EntityKind::Rack:
        setRack(sel->id);
        break;
    case EntityKind::ComputeTray:
        setRack(t.computeTrays.rack[sel->id]);
        break;
    case EntityKind::Gpu:
        setRack(t.gpus.rack[sel->id]);
        break;
    case EntityKind::SwitchTray:
        setRack(t.switchTrays.rack[sel->id]);
        break;
    case EntityKind::PowerShelf:
        setRack(t.powerShelves.rack[sel->id]);
        break;
    case EntityKind::Psu:
        setRack(t.psus.rack[sel->id]);
        break;
    case EntityKind::PowerFeed:
        setRack(t.rows.firstRack[t.powerFeeds.row[sel->id]]);
        break;
    default:
        break;
    }
}

void PowerPanel::onSnapshot() {
    const auto s = m_view->snapshot();
    if (!s) return;
    if (s->time < m_lastSample) {
        for (auto& h : m_history)
            h.clear(); // a replay jumped back
    }
    if (s->time - m_lastSample >= model::kNsPerSecond || s->time < m_lastSample) {
        m_lastSample = s->time;
        for (EntityId r = 0; r < m_history.size(); ++r) {
            auto& h = m_history[r];
            h.push_back({s->value(ch::RackPower, r), s->value(ch::RackPowerBudget, r)});
            if (h.size() > kHistoryPoints) h.pop_front();
        }
    }
    if (isVisible()) update();
}

void PowerPanel::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), kPanel);
    const auto s = m_view->snapshot();
    if (!s) return;
    const auto& t = m_view->topology();
    const EntityId r = m_rack;
    const float w = static_cast<float>(width()) - 24;
    float y = 12;
    auto text = [&](const QString& str, const QColor& c, int size = 10, bool bold = false) {
        QFont f = font();
        f.setPointSize(size);
        f.setBold(bold);
        p.setFont(f);
        p.setPen(c);
        p.drawText(QRectF(12, y, w, 20), Qt::AlignLeft | Qt::AlignVCenter, str);
        y += static_cast<float>(size) * 2.0f;
    };
    auto v = [&](model::ChannelId c, EntityId e) { return s->value(c, e); };
    const bool capping = v(ch::RackPowerCapping, r) > 0.5f;
    text(QString("Power — %1 (row %2)")
             .arg(QString::fromStdString(t.racks.name[r]),
                  QString::fromStdString(t.rows.name[t.racks.row[r]])),
         kText, 12, true);
    const float rated = t.racks.ratedPowerKw[r];
    text(QString("draw %1 kW of %2 · budget %3 kW · in %4 kW")
             .arg(v(ch::RackPower, r), 0, 'f', 0)
             .arg(rated, 0, 'f', 0)
             .arg(v(ch::RackPowerBudget, r), 0, 'f', 0)
             .arg(v(ch::RackPowerInput, r), 0, 'f', 0),
         kText);
    text(capping
             ? QString("Racky caps the GPUs at %1 W").arg(v(ch::RackGpuPowerCap, r), 0, 'f', 0)
             : QString("not capped (GPUs up to %1 W)").arg(v(ch::RackGpuPowerCap, r), 0, 'f', 0),
         capping ? kCapped : kMutedText);
    text(v(ch::RackPowerRedundant, r) > 0.5f ? "2N: either feed alone carries the rack"
                                             : "redundancy lost: one feed cannot carry the rack",
         v(ch::RackPowerRedundant, r) > 0.5f ? kOk : kCapped);
    if (v(ch::RackPowerOn, r) < 0.5f) text("the rack has no power", kFailed, 10, true);

    // The row's busways.
    y += 4;
    for (int side = 0; side < 2; ++side) {
        const EntityId f = t.feedOf(t.racks.row[r], side);
        const bool tripped = v(ch::FeedState, f) >= 2.0f;
        const float load = v(ch::FeedLoad, f);
        const QRectF bar(12, y + 18, w, 10);
        text(QString("%1  %2").arg(QString::fromStdString(t.name(EntityKind::PowerFeed, f)),
                                   tripped ? QString("TRIPPED")
                                           : QString("%1 %  %2 kW  %3 A")
                                                 .arg(load, 0, 'f', 0)
                                                 .arg(v(ch::FeedPower, f), 0, 'f', 0)
                                                 .arg(v(ch::FeedCurrent, f), 0, 'f', 0)),
             tripped ? kFailed : kText);
        p.fillRect(bar, kLine);
        if (!tripped)
            p.fillRect(QRectF(bar.x(), bar.y(), bar.width() * std::clamp(load / 120.0f, 0.0f, 1.0f),
                              bar.height()),
                       qc(PowerLayer::loadColor(load)));
        p.setPen(QPen(kText, 1.5));
        const auto rating = static_cast<float>(bar.x() + bar.width() / 1.2);
        p.drawLine(QPointF(rating, bar.y() - 2), QPointF(rating, bar.bottom() + 2));
        y += 16;
    }

    // Shelves and their PSUs.
    y += 6;
    text("power shelves (PSUs: green delivering, grey no input, red failed)", kMutedText, 9);
    const int shelves = t.spec().rack.powerShelves, perShelf = t.spec().power.psusPerShelf;
    for (int k = 0; k < shelves; ++k) {
        const auto shelf = static_cast<EntityId>(r * static_cast<EntityId>(shelves) + k);
        p.setPen(kText);
        QFont f = font();
        f.setPointSize(9);
        p.setFont(f);
        p.drawText(QRectF(12, y, 60, 16), Qt::AlignLeft | Qt::AlignVCenter,
                   QString("shelf %1").arg(k + 1));
        for (int i = 0; i < perShelf; ++i) {
            const auto psu = static_cast<EntityId>(shelf * static_cast<EntityId>(perShelf) + i);
            const float st = v(ch::PsuState, psu);
            p.fillRect(QRectF(74 + i * 18, y + 2, 14, 12), st < 0.5f   ? kOk
                                                           : st < 1.5f ? kNoInput
                                                                       : kFailed);
        }
        p.setPen(kMutedText);
        p.drawText(QRectF(74 + perShelf * 18 + 8, y, 120, 16), Qt::AlignLeft | Qt::AlignVCenter,
                   QString("%1 kW").arg(v(ch::ShelfOutput, shelf), 0, 'f', 1));
        y += 17;
    }

    // Ten minutes of draw against budget.
    y += 8;
    text("last 10 min: draw (teal), budget (white)", kMutedText, 9);
    const QRectF chart(12, y, w, std::max(60.0f, static_cast<float>(height()) - y - 12));
    p.fillRect(chart, QColor(16, 20, 28));
    const auto& h = m_history[r];
    if (h.size() > 1) {
        const float top = rated * 1.15f;
        auto line = [&](auto get, const QColor& c) {
            QPainterPath path;
            for (std::size_t i = 0; i < h.size(); ++i) {
                const double x = chart.x() + chart.width() * static_cast<double>(i) /
                                                 static_cast<double>(kHistoryPoints - 1);
                const double yy =
                    chart.bottom() - chart.height() * std::clamp(get(h[i]) / top, 0.0f, 1.0f);
                if (i == 0)
                    path.moveTo(x, yy);
                else
                    path.lineTo(x, yy);
            }
            p.setPen(QPen(c, 1.6));
            p.drawPath(path);
        };
        line([](const HistoryPoint& q) { return q.budget; }, kText);
        line([](const HistoryPoint& q) { return q.draw; }, capping ? kCapped : kDraw);
    }
}

} // namespace ft::views
