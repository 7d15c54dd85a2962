#include "power_panel.h"

#include "power_layer.h"
#include "views/coverage.h"
#include "views/floor_view.h"
#include "views/hud.h"
#include "views/series_chart.h"

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

PowerPanel::PowerPanel(FloorView* view, QWidget* parent)
    : QWidget(parent), m_view(view), m_history(kHistoryPoints) {
    setMinimumSize(320, 440);
    connect(m_view, &FloorView::snapshotChanged, this, &PowerPanel::onSnapshot);
    connect(m_view, &FloorView::selectionChanged, this, &PowerPanel::followSelection);
    m_hover.attach(this);
}

std::vector<PowerPanel::HistoryPoint> PowerPanel::history(EntityId rack) const {
    std::vector<HistoryPoint> out;
    out.reserve(m_history.size());
    for (const auto& [time, all] : m_history.points())
        if (rack < all.size()) out.push_back(all[rack]);
    return out;
}

void PowerPanel::setRack(EntityId rack) {
    if (rack >= m_view->topology().count(EntityKind::Rack)) return;
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
    const auto racks = static_cast<EntityId>(m_view->topology().count(EntityKind::Rack));
    auto point = [racks](auto draw, auto budget) {
        std::vector<HistoryPoint> all(racks);
        for (EntityId r = 0; r < racks; ++r)
            all[r] = {draw(r), budget(r)};
        return all;
    };
    HistoryWindow<std::vector<HistoryPoint>>::Past past;
    if (m_view->hasPast())
        past = [this, point](model::TimeNs t) -> std::optional<std::vector<HistoryPoint>> {
            std::vector<float> draw, budget;
            if (!m_view->pastChannel(ch::RackPower, t, draw) ||
                !m_view->pastChannel(ch::RackPowerBudget, t, budget))
                return std::nullopt;
            auto at = [](const std::vector<float>& column) {
                return
                    [&column](EntityId r) { return r < column.size() ? column[r] : std::nanf(""); };
            };
            return point(at(draw), at(budget));
        };
    // What was not measured is a gap in the history, not the model's line.
    const bool fill = m_view->fillModelled();
    m_history.update(
        s->time,
        [&] {
            return point([&](EntityId r) { return shownValue(*s, ch::RackPower, r, fill); },
                         [&](EntityId r) { return shownValue(*s, ch::RackPowerBudget, r, fill); });
        },
        past);
    if (isVisible()) update();
}

// One paint of the panel: the snapshot, the rack, the pen's position, and the values read
// through their coverage.
struct PowerPanel::Paint {
    QPainter& p;
    const model::Snapshot& s;
    const model::Topology& t;
    EntityId r;
    bool fill;
    float w;
    QFont font;
    float y = 12;

    void text(const QString& str, const QColor& c, int size = 10, bool bold = false) {
        QFont f = font;
        f.setPointSize(size);
        f.setBold(bold);
        p.setFont(f);
        p.setPen(c);
        p.drawText(QRectF(12, y, w, 20), Qt::AlignLeft | Qt::AlignVCenter, str);
        y += static_cast<float>(size) * 2.0f;
    }
    float v(model::ChannelId c, EntityId e) const { return s.value(c, e); }
    Coverage cov(model::ChannelId c, EntityId e) const { return coverageOf(s, c, e, fill); }
    // A value as its coverage allows: the number, "(model)" after a modelled one, "no data".
    QString num(model::ChannelId c, EntityId e, int decimals = 0) const {
        switch (cov(c, e)) {
        case Coverage::NoData:
            return {"no data"};
        case Coverage::Stale:
            return QString("%1 (stale)").arg(v(c, e), 0, 'f', decimals);
        case Coverage::Modelled:
            return QString("%1 (model)").arg(v(c, e), 0, 'f', decimals);
        case Coverage::Measured:
            break;
        }
        return QString::number(v(c, e), 'f', decimals);
    }
    bool known(model::ChannelId c, EntityId e) const {
        const Coverage k = cov(c, e);
        return k == Coverage::Measured || k == Coverage::Modelled;
    }
    static QColor paint(const QColor& c, Coverage k, bool stripe = false) {
        return qc(paintCoverage(Rgb{static_cast<std::uint8_t>(c.red()),
                                    static_cast<std::uint8_t>(c.green()),
                                    static_cast<std::uint8_t>(c.blue())},
                                k, stripe));
    }
    bool capping() const {
        return known(ch::RackPowerCapping, r) && v(ch::RackPowerCapping, r) > 0.5f;
    }
};

void PowerPanel::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), kPanel);
    const auto s = m_view->snapshot();
    if (!s) return;
    Paint d{p,
            *s,
            m_view->topology(),
            m_rack,
            m_view->fillModelled(),
            static_cast<float>(width()) - 24,
            font()};
    m_hover.begin();
    paintSummary(d);
    paintBusways(d);
    paintShelves(d);
    paintFeeds(d);
    paintHistory(d);
    m_hover.paint(p, rect());
}

void PowerPanel::paintSummary(Paint& d) const {
    const auto& t = d.t;
    const EntityId r = d.r;
    const bool capping = d.capping();
    d.text(QString("Power — %1 (row %2)")
               .arg(QString::fromStdString(t.racks.name[r]),
                    QString::fromStdString(t.rows.name[t.racks.row[r]])),
           kText, 12, true);
    const float rated = t.racks.ratedPowerKw[r];
    d.text(QString("draw %1 kW of %2 · budget %3 kW · in %4 kW")
               .arg(d.num(ch::RackPower, r))
               .arg(rated, 0, 'f', 0)
               .arg(d.num(ch::RackPowerBudget, r))
               .arg(d.num(ch::RackPowerInput, r)),
           kText);
    if (d.known(ch::RackGpuPowerCap, r))
        d.text(capping ? QString("Racky caps the GPUs at %1 W").arg(d.num(ch::RackGpuPowerCap, r))
                       : QString("not capped (GPUs up to %1 W)").arg(d.num(ch::RackGpuPowerCap, r)),
               capping ? kCapped : kMutedText);
    else
        d.text("GPU power cap: no data", kMutedText);
    if (d.known(ch::RackPowerRedundant, r))
        d.text(d.v(ch::RackPowerRedundant, r) > 0.5f
                   ? "2N: either feed alone carries the rack"
                   : "redundancy lost: one feed cannot carry the rack",
               d.v(ch::RackPowerRedundant, r) > 0.5f ? kOk : kCapped);
    if (d.known(ch::RackPowerOn, r) && d.v(ch::RackPowerOn, r) < 0.5f)
        d.text("the rack has no power", kFailed, 10, true);
}

void PowerPanel::paintBusways(Paint& d) const {
    auto& p = d.p;
    const auto& t = d.t;
    const EntityId r = d.r;
    const float w = d.w;
    // The row's busways.
    d.y += 4;
    for (int side = 0; side < 2; ++side) {
        const EntityId f = t.feedOf(t.racks.row[r], side);
        const bool stateKnown = d.known(ch::FeedState, f);
        const bool tripped = stateKnown && d.v(ch::FeedState, f) >= 2.0f;
        const float load = d.v(ch::FeedLoad, f);
        const QRectF bar(12, d.y + 18, w, 10);
        d.text(QString("%1  %2").arg(QString::fromStdString(t.name(EntityKind::PowerFeed, f)),
                                     tripped ? QString("TRIPPED")
                                             : QString("%1 %  %2 kW  %3 A  %4 V")
                                                   .arg(d.num(ch::FeedLoad, f))
                                                   .arg(d.num(ch::FeedPower, f))
                                                   .arg(d.num(ch::FeedCurrent, f))
                                                   .arg(d.num(ch::FeedVoltage, f))),
               tripped ? kFailed : kText);
        p.fillRect(bar, kLine);
        if (!tripped && d.known(ch::FeedLoad, f))
            p.fillRect(QRectF(bar.x(), bar.y(), bar.width() * std::clamp(load / 120.0f, 0.0f, 1.0f),
                              bar.height()),
                       d.paint(qc(PowerLayer::loadColor(load)), d.cov(ch::FeedLoad, f)));
        p.setPen(QPen(kText, 1.5));
        const auto rating = static_cast<float>(bar.x() + bar.width() / 1.2);
        p.drawLine(QPointF(rating, bar.y() - 2), QPointF(rating, bar.bottom() + 2));
        d.y += 16;
    }
}

void PowerPanel::paintShelves(Paint& d) const {
    auto& p = d.p;
    const auto& t = d.t;
    const EntityId r = d.r;
    // Shelves and their PSUs.
    d.y += 6;
    d.text("power shelves (PSUs: green delivering, grey no input, red failed, hatched no data)",
           kMutedText, 9);
    const int shelves = t.spec().rack.powerShelves, perShelf = t.spec().power.psusPerShelf;
    QFont small = font();
    small.setPointSize(9);
    for (int k = 0; k < shelves; ++k) {
        const auto shelf = static_cast<EntityId>(r * static_cast<EntityId>(shelves) + k);
        p.setPen(kText);
        p.setFont(small);
        p.drawText(QRectF(12, d.y, 60, 16), Qt::AlignLeft | Qt::AlignVCenter,
                   QString("shelf %1").arg(k + 1));
        for (int i = 0; i < perShelf; ++i) {
            const auto psu = static_cast<EntityId>(shelf * static_cast<EntityId>(perShelf) + i);
            const float st = d.v(ch::PsuState, psu);
            const QColor c = st < 0.5f ? kOk : st < 1.5f ? kNoInput : kFailed;
            const QRectF box(74 + i * 18, d.y + 2, 14, 12);
            const Coverage k2 = d.cov(ch::PsuState, psu);
            p.fillRect(box, d.paint(c, k2, false));
            if (k2 != Coverage::Measured) // hatch: the other stripe on the lower half
                p.fillRect(QRectF(box.x(), box.y() + 6, box.width(), 6), d.paint(c, k2, true));
        }
        p.setPen(kMutedText);
        p.drawText(QRectF(74 + perShelf * 18 + 8, d.y, 140, 16), Qt::AlignLeft | Qt::AlignVCenter,
                   QString("%1 kW").arg(d.num(ch::ShelfOutput, shelf, 1)));
        d.y += 17;
    }
}

void PowerPanel::paintFeeds(Paint& d) const {
    auto& p = d.p;
    const auto& t = d.t;
    const EntityId r = d.r;
    const float w = d.w;
    const float rated = t.racks.ratedPowerKw[r];
    const int shelves = t.spec().rack.powerShelves, perShelf = t.spec().power.psusPerShelf;
    QFont small = font();
    small.setPointSize(9);
    // Feeds x racks: what each rack of the row draws from its A and from its B busway, so a
    // trip shows as one column emptying and the other taking the load.
    d.y += 8;
    const EntityId row = t.racks.row[r];
    d.text(QString("row %1: kW from each busway (A | B)")
               .arg(QString::fromStdString(t.rows.name[row])),
           kMutedText, 9);
    const std::size_t perRack =
        static_cast<std::size_t>(shelves) * static_cast<std::size_t>(perShelf);
    const float chartMin = 60;
    const float rowH = 13;
    const auto fits = static_cast<std::size_t>(
        std::max(0.0f, (static_cast<float>(height()) - d.y - chartMin - 40) / rowH));
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
            if (!d.known(ch::PsuInput, psu)) continue;
            Side& side = sides[i][t.psus.side[psu]];
            side.kw += d.v(ch::PsuInput, psu);
            ++side.known;
        }
        maxSide = std::max({maxSide, sides[i][0].kw, sides[i][1].kw});
    }
    maxSide = std::max(maxSide, rated);
    p.setFont(small);
    for (std::size_t i = 0; i < racks && i < fits; ++i) {
        const EntityId rack = t.rows.firstRack[row] + static_cast<EntityId>(i);
        p.setPen(rack == r ? kText : kMutedText);
        p.drawText(QRectF(12, d.y, 44, rowH), Qt::AlignLeft | Qt::AlignVCenter,
                   QString::fromStdString(t.racks.name[rack]));
        for (int side = 0; side < 2; ++side) {
            const Side& sd = sides[i][static_cast<std::size_t>(side)];
            const QRectF cell(60 + side * (colW + 6), d.y + 2, colW, rowH - 3);
            p.fillRect(cell, kLine);
            if (sd.known == 0) {
                p.fillRect(cell, d.paint(kDraw, Coverage::NoData, side == 0));
                p.setPen(kMutedText);
                p.drawText(cell, Qt::AlignCenter, "no data");
                continue;
            }
            const EntityId feed = t.feedOf(row, side);
            const bool open = d.known(ch::FeedState, feed) && d.v(ch::FeedState, feed) >= 2.0f;
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
        d.y += rowH;
    }
    if (racks > fits)
        d.text(QString("… %1 more racks (make the dock taller)").arg(racks - fits), kMutedText, 9);
}

void PowerPanel::paintHistory(Paint& d) const {
    auto& p = d.p;
    const EntityId r = d.r;
    const float w = d.w;
    const float rated = d.t.racks.ratedPowerKw[r];
    const bool capping = d.capping();
    const float chartMin = 60;
    // Ten minutes of draw against budget.
    d.y += 8;
    d.text("last 10 min: draw (teal), budget (white); gaps: no data", kMutedText, 9);
    const QRectF chart(12, d.y, w, std::max(chartMin, static_cast<float>(height()) - d.y - 12));
    p.fillRect(chart, QColor(16, 20, 28));
    const auto h = history(r);
    const float top = rated * 1.15f;
    drawChartLines(
        p, chart, h.size(), kHistoryPoints,
        {{[&h](std::size_t i) { return h[i].budget; }, kText, 0.0f, top, 1.6},
         {[&h](std::size_t i) { return h[i].draw; }, capping ? kCapped : kDraw, 0.0f, top, 1.6}});
    m_hover.chart(chart, h.size(), kHistoryPoints,
                  {{tr("draw"), " kW", 1, [&h](std::size_t i) { return h[i].draw; },
                    capping ? kCapped : kDraw},
                   {tr("budget"), " kW", 1, [&h](std::size_t i) { return h[i].budget; }, kText}});
}

QWidget* makePowerPanel(FloorView& view) {
    return new PowerPanel(&view);
}

} // namespace ft::views
