#include "power_panel.h"

#include "coverage.h"
#include "floor_view.h"
#include "hud.h"
#include "power_layer.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <array>
#include <cmath>

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
    setMinimumSize(320, 640);
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
    // A busway shows its row (from its first rack); anything in a rack, the rack.
    if (sel->kind == EntityKind::PowerFeed)
        setRack(t.rows.firstRack[t.powerFeeds.row[sel->id]]);
    else if (const auto rack = t.rackOf(sel->kind, sel->id))
        setRack(*rack);
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
        const bool fill = m_view->fillModelled();
        const float none = std::nanf("");
        for (EntityId r = 0; r < m_history.size(); ++r) {
            auto& h = m_history[r];
            // What was not measured is a gap in the history, not the model's line.
            auto shown = [&](model::ChannelId c) {
                const Coverage cov = coverageOf(*s, c, r, fill);
                return cov == Coverage::Measured || cov == Coverage::Modelled ? s->value(c, r)
                                                                              : none;
            };
            h.push_back({shown(ch::RackPower), shown(ch::RackPowerBudget)});
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
    const bool fill = m_view->fillModelled();
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
    auto cov = [&](model::ChannelId c, EntityId e) { return coverageOf(*s, c, e, fill); };
    // A value as its coverage allows: the number, "(model)" after a modelled one, "no data".
    auto num = [&](model::ChannelId c, EntityId e, int decimals = 0) {
        switch (cov(c, e)) {
        case Coverage::NoData:
            return QString("no data");
        case Coverage::Stale:
            return QString("%1 (stale)").arg(v(c, e), 0, 'f', decimals);
        case Coverage::Modelled:
            return QString("%1 (model)").arg(v(c, e), 0, 'f', decimals);
        case Coverage::Measured:
            break;
        }
        return QString::number(v(c, e), 'f', decimals);
    };
    auto known = [&](model::ChannelId c, EntityId e) {
        const Coverage k = cov(c, e);
        return k == Coverage::Measured || k == Coverage::Modelled;
    };
    auto paint = [&](const QColor& c, Coverage k, bool stripe = false) {
        return qc(paintCoverage(Rgb{static_cast<std::uint8_t>(c.red()),
                                    static_cast<std::uint8_t>(c.green()),
                                    static_cast<std::uint8_t>(c.blue())},
                                k, stripe));
    };
    const bool capping = known(ch::RackPowerCapping, r) && v(ch::RackPowerCapping, r) > 0.5f;
    text(QString("Power — %1 (row %2)")
             .arg(QString::fromStdString(t.racks.name[r]),
                  QString::fromStdString(t.rows.name[t.racks.row[r]])),
         kText, 12, true);
    const float rated = t.racks.ratedPowerKw[r];
    text(QString("draw %1 kW of %2 · budget %3 kW · in %4 kW")
             .arg(num(ch::RackPower, r))
             .arg(rated, 0, 'f', 0)
             .arg(num(ch::RackPowerBudget, r))
             .arg(num(ch::RackPowerInput, r)),
         kText);
    if (known(ch::RackGpuPowerCap, r))
        text(capping ? QString("Racky caps the GPUs at %1 W").arg(num(ch::RackGpuPowerCap, r))
                     : QString("not capped (GPUs up to %1 W)").arg(num(ch::RackGpuPowerCap, r)),
             capping ? kCapped : kMutedText);
    else
        text("GPU power cap: no data", kMutedText);
    if (known(ch::RackPowerRedundant, r))
        text(v(ch::RackPowerRedundant, r) > 0.5f
                 ? "2N: either feed alone carries the rack"
                 : "redundancy lost: one feed cannot carry the rack",
             v(ch::RackPowerRedundant, r) > 0.5f ? kOk : kCapped);
    if (known(ch::RackPowerOn, r) && v(ch::RackPowerOn, r) < 0.5f)
        text("the rack has no power", kFailed, 10, true);

    // The row's busways.
    y += 4;
    for (int side = 0; side < 2; ++side) {
        const EntityId f = t.feedOf(t.racks.row[r], side);
        const bool stateKnown = known(ch::FeedState, f);
        const bool tripped = stateKnown && v(ch::FeedState, f) >= 2.0f;
        const float load = v(ch::FeedLoad, f);
        const QRectF bar(12, y + 18, w, 10);
        text(QString("%1  %2").arg(QString::fromStdString(t.name(EntityKind::PowerFeed, f)),
                                   tripped ? QString("TRIPPED")
                                           : QString("%1 %  %2 kW  %3 A  %4 V")
                                                 .arg(num(ch::FeedLoad, f))
                                                 .arg(num(ch::FeedPower, f))
                                                 .arg(num(ch::FeedCurrent, f))
                                                 .arg(num(ch::FeedVoltage, f))),
             tripped ? kFailed : kText);
        p.fillRect(bar, kLine);
        if (!tripped && known(ch::FeedLoad, f))
            p.fillRect(QRectF(bar.x(), bar.y(), bar.width() * std::clamp(load / 120.0f, 0.0f, 1.0f),
                              bar.height()),
                       paint(qc(PowerLayer::loadColor(load)), cov(ch::FeedLoad, f)));
        p.setPen(QPen(kText, 1.5));
        const auto rating = static_cast<float>(bar.x() + bar.width() / 1.2);
        p.drawLine(QPointF(rating, bar.y() - 2), QPointF(rating, bar.bottom() + 2));
        y += 16;
    }

    // Shelves and their PSUs.
    y += 6;
    text("power shelves (PSUs: green delivering, grey no input, red failed, hatched no data)",
         kMutedText, 9);
    const int shelves = t.spec().rack.powerShelves, perShelf = t.spec().power.psusPerShelf;
    QFont small = font();
    small.setPointSize(9);
    for (int k = 0; k < shelves; ++k) {
        const auto shelf = static_cast<EntityId>(r * static_cast<EntityId>(shelves) + k);
        p.setPen(kText);
        p.setFont(small);
        p.drawText(QRectF(12, y, 60, 16), Qt::AlignLeft | Qt::AlignVCenter,
                   QString("shelf %1").arg(k + 1));
        for (int i = 0; i < perShelf; ++i) {
            const auto psu = static_cast<EntityId>(shelf * static_cast<EntityId>(perShelf) + i);
            const float st = v(ch::PsuState, psu);
            const QColor c = st < 0.5f ? kOk : st < 1.5f ? kNoInput : kFailed;
            const QRectF box(74 + i * 18, y + 2, 14, 12);
            const Coverage k2 = cov(ch::PsuState, psu);
            p.fillRect(box, paint(c, k2, false));
            if (k2 != Coverage::Measured) // hatch: the other stripe on the lower half
                p.fillRect(QRectF(box.x(), box.y() + 6, box.width(), 6), paint(c, k2, true));
        }
        p.setPen(kMutedText);
        p.drawText(QRectF(74 + perShelf * 18 + 8, y, 140, 16), Qt::AlignLeft | Qt::AlignVCenter,
                   QString("%1 kW").arg(num(ch::ShelfOutput, shelf, 1)));
        y += 17;
    }

    // Feeds x racks: what each rack of the row draws from its A and from its B busway, so a
    // trip shows as one column emptying and the other taking the load.
    y += 8;
    const EntityId row = t.racks.row[r];
    text(QString("row %1: kW from each busway (A | B)")
             .arg(QString::fromStdString(t.rows.name[row])),
         kMutedText, 9);
    const std::size_t perRack =
        static_cast<std::size_t>(shelves) * static_cast<std::size_t>(perShelf);
    const float chartMin = 60;
    const float rowH = 13;
    const auto fits = static_cast<std::size_t>(
        std::max(0.0f, (static_cast<float>(height()) - y - chartMin - 40) / rowH));
    const std::size_t racks = t.rows.rackCount[row];
    const float colW = (w - 48) / 2;
    float maxSide = 1;
    struct Side {
        float kw = 0;
        std::size_t known = 0;
    };
    std::vector<std::array<Side, 2>> sides(racks);
    for (std::size_t i = 0; i < racks; ++i) {
        const EntityId rack = t.rows.firstRack[row] + static_cast<EntityId>(i);
        for (std::size_t k = 0; k < perRack; ++k) {
            const auto psu = static_cast<EntityId>(rack * perRack + k);
            if (!known(ch::PsuInput, psu)) continue;
            Side& side = sides[i][t.psus.side[psu]];
            side.kw += v(ch::PsuInput, psu);
            ++side.known;
        }
        maxSide = std::max({maxSide, sides[i][0].kw, sides[i][1].kw});
    }
    maxSide = std::max(maxSide, rated);
    p.setFont(small);
    for (std::size_t i = 0; i < racks && i < fits; ++i) {
        const EntityId rack = t.rows.firstRack[row] + static_cast<EntityId>(i);
        p.setPen(rack == r ? kText : kMutedText);
        p.drawText(QRectF(12, y, 44, rowH), Qt::AlignLeft | Qt::AlignVCenter,
                   QString::fromStdString(t.racks.name[rack]));
        for (int side = 0; side < 2; ++side) {
            const Side& sd = sides[i][static_cast<std::size_t>(side)];
            const QRectF cell(60 + side * (colW + 6), y + 2, colW, rowH - 3);
            p.fillRect(cell, kLine);
            if (sd.known == 0) {
                p.fillRect(cell, paint(kDraw, Coverage::NoData, side == 0));
                p.setPen(kMutedText);
                p.drawText(cell, Qt::AlignCenter, "no data");
                continue;
            }
            const EntityId feed = t.feedOf(row, side);
            const bool open = known(ch::FeedState, feed) && v(ch::FeedState, feed) >= 2.0f;
            if (open) p.fillRect(cell, QColor(96, 30, 30)); // its busway is down
            const QColor c = open ? kFailed : kDraw;
            p.fillRect(QRectF(cell.x(), cell.y(), cell.width() * std::min(1.0f, sd.kw / maxSide),
                              cell.height()),
                       c);
            p.setPen(kText);
            p.drawText(cell.adjusted(4, 0, -4, 0), Qt::AlignRight | Qt::AlignVCenter,
                       QString("%1 kW%2")
                           .arg(sd.kw, 0, 'f', 0)
                           .arg(sd.known < perRack / 2 ? " (partial)" : ""));
        }
        y += rowH;
    }
    if (racks > fits)
        text(QString("… %1 more racks (make the dock taller)").arg(racks - fits), kMutedText, 9);

    // Ten minutes of draw against budget.
    y += 8;
    text("last 10 min: draw (teal), budget (white); gaps: no data", kMutedText, 9);
    const QRectF chart(12, y, w, std::max(chartMin, static_cast<float>(height()) - y - 12));
    p.fillRect(chart, QColor(16, 20, 28));
    const auto& h = m_history[r];
    if (h.size() > 1) {
        const float top = rated * 1.15f;
        auto line = [&](auto get, const QColor& c) {
            QPainterPath path;
            bool pen = false;
            for (std::size_t i = 0; i < h.size(); ++i) {
                const float value = get(h[i]);
                if (std::isnan(value)) {
                    pen = false;
                    continue;
                }
                const double x = chart.x() + chart.width() * static_cast<double>(i) /
                                                 static_cast<double>(kHistoryPoints - 1);
                const double yy =
                    chart.bottom() - chart.height() * std::clamp(value / top, 0.0f, 1.0f);
                if (!pen)
                    path.moveTo(x, yy);
                else
                    path.lineTo(x, yy);
                pen = true;
            }
            p.setPen(QPen(c, 1.6));
            p.drawPath(path);
        };
        line([](const HistoryPoint& q) { return q.budget; }, kText);
        line([](const HistoryPoint& q) { return q.draw; }, capping ? kCapped : kDraw);
    }
}

} // namespace ft::views
