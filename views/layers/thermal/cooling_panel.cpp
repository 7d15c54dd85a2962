#include "cooling_panel.h"

#include "thermal_layer.h"
#include "views/coverage.h"
#include "views/floor_view.h"
#include "views/hud.h"
#include "views/series_chart.h"
#include "views/value_format.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>
#include <limits>

namespace ft::views {

using model::EntityKind;
namespace ch = model::ch;

namespace {
constexpr std::size_t kHistoryPoints = 600; // ten minutes at one point per simulated second
const QColor kText(225, 232, 242);
const QColor kMutedText(150, 162, 178);
const QColor kPanel(22, 28, 38);
const QColor kLine(70, 84, 104);

QColor coolant(float c) {
    const Rgb rgb = ThermalLayer::coolantColor(c);
    return {rgb.r, rgb.g, rgb.b};
}
} // namespace

// One paint of the panel: the snapshot, the CDU, the fonts and the pen's position. Values read
// through their coverage: "no data" where nothing was measured, never the model's number.
struct CoolingPanel::Paint {
    QPainter& p;
    const model::Snapshot& s;
    const model::Topology& t;
    model::EntityId c;
    bool fill;
    int w, lh;
    QFont base, bold, title;
    int y = 8;

    QString value(model::ChannelId ch, model::EntityId e) const {
        return QString::fromStdString(formatCoveredValue(s, ch, e, fill));
    }
    // The coolant's colour for a measured temperature; grey for one nobody measured.
    QColor tint(model::ChannelId ch, model::EntityId e) const {
        return std::isfinite(shownValue(s, ch, e, fill)) ? coolant(s.value(ch, e)) : kMutedText;
    }
};

CoolingPanel::CoolingPanel(FloorView* view, QWidget* parent)
    : QWidget(parent), m_view(view), m_history(kHistoryPoints) {
    setMinimumSize(320, 420);
    connect(m_view, &FloorView::snapshotChanged, this, &CoolingPanel::onSnapshot);
    connect(m_view, &FloorView::selectionChanged, this, &CoolingPanel::followSelection);
    m_hover.attach(this);
}

std::vector<CoolingPanel::HistoryPoint> CoolingPanel::history(model::EntityId cdu) const {
    std::vector<HistoryPoint> out;
    out.reserve(m_history.size());
    for (const auto& [time, all] : m_history.points())
        if (cdu < all.size()) out.push_back(all[cdu]);
    return out;
}

void CoolingPanel::setCdu(model::EntityId cdu) {
    if (cdu >= m_view->topology().count(EntityKind::Cdu)) return;
    m_cdu = cdu;
    update();
}

void CoolingPanel::followSelection() {
    const auto sel = m_view->selection();
    if (!sel) return;
    const auto& t = m_view->topology();
    switch (sel->kind) {
    case EntityKind::Cdu:
        setCdu(sel->id);
        break;
    case EntityKind::Pump:
        setCdu(t.pumps.cdu[sel->id]);
        break;
    default:
        // Anything in a rack shows the CDU that cools the rack.
        if (const auto rack = t.rackOf(sel->kind, sel->id)) setCdu(t.racks.cdu[*rack]);
        break;
    }
}

void CoolingPanel::onSnapshot() {
    const auto s = m_view->snapshot();
    if (!s) return;
    static constexpr model::ChannelId kCharted[4] = {
        ch::CduSupplyTemperature, ch::CduReturnTemperature, ch::CduFlow, ch::CduHeatLoad};
    const auto cdus = static_cast<model::EntityId>(m_view->topology().count(EntityKind::Cdu));
    auto point = [cdus](auto value) {
        std::vector<HistoryPoint> all(cdus);
        for (model::EntityId c = 0; c < cdus; ++c)
            all[c] = {value(0, c), value(1, c), value(2, c), value(3, c)};
        return all;
    };
    HistoryWindow<std::vector<HistoryPoint>>::Past past;
    if (m_view->hasPast())
        past = [this, point](model::TimeNs t) -> std::optional<std::vector<HistoryPoint>> {
            std::vector<float> columns[4];
            for (int k = 0; k < 4; ++k)
                if (!m_view->pastChannel(kCharted[k], t, columns[k])) return std::nullopt;
            return point([&](int k, model::EntityId e) {
                return e < columns[k].size() ? columns[k][e]
                                             : std::numeric_limits<float>::quiet_NaN();
            });
        };
    const bool fill = m_view->fillModelled();
    m_history.update(
        s->time,
        [&] {
            return point(
                [&](int k, model::EntityId e) { return shownValue(*s, kCharted[k], e, fill); });
        },
        past);
    if (isVisible()) update();
}

void CoolingPanel::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), kPanel);
    const auto s = m_view->snapshot();
    const auto& t = m_view->topology();
    if (!s || m_cdu >= t.count(EntityKind::Cdu)) return;
    QFont bold = font();
    bold.setBold(true);
    QFont title = bold;
    title.setPointSizeF(font().pointSizeF() * 1.3);
    Paint paint{
        p,      *s,   t,    m_cdu, m_view->fillModelled(), width(), QFontMetrics(font()).height(),
        font(), bold, title};
    m_hover.begin();
    paintHeader(paint);
    paintBody(paint);
    paintRacks(paint);
    paintHistory(paint);
    m_hover.paint(p, rect());
}

void CoolingPanel::paintHeader(Paint& d) const {
    auto& p = d.p;
    const auto& t = d.t;
    const auto c = d.c;
    const int lh = d.lh;
    // Title.
    p.setFont(d.title);
    p.setPen(kText);
    const auto first = t.cdus.firstRack[c];
    const auto count = t.cdus.rackCount[c];
    p.drawText(10, d.y + QFontMetrics(d.title).ascent(),
               QString::fromStdString(t.name(EntityKind::Cdu, c)));
    d.y += QFontMetrics(d.title).height();
    p.setFont(d.base);
    p.setPen(kMutedText);
    p.drawText(10, d.y + lh - 4,
               tr("serves %1 – %2 · setpoint %3")
                   .arg(QString::fromStdString(t.racks.name[first]),
                        QString::fromStdString(t.racks.name[first + count - 1]),
                        d.value(ch::CduSetpoint, c)));
    d.y += lh + 8;

    // Facility water.
    const QRect facility(10, d.y, d.w - 20, 2 * lh + 8);
    p.setPen(kLine);
    p.setBrush(QColor(30, 38, 52));
    p.drawRoundedRect(facility, 6, 6);
    p.setPen(kText);
    p.drawText(facility.adjusted(8, 4, -8, 0), Qt::AlignLeft | Qt::AlignTop,
               tr("Facility water (primary)"));
    p.setPen(d.tint(ch::CduPrimarySupplyTemperature, c));
    p.drawText(facility.adjusted(8, lh + 4, -8, 0), Qt::AlignLeft | Qt::AlignTop,
               tr("in %1").arg(d.value(ch::CduPrimarySupplyTemperature, c)));
    p.setPen(d.tint(ch::CduPrimaryReturnTemperature, c));
    p.drawText(facility.adjusted(8, lh + 4, -8, 0), Qt::AlignHCenter | Qt::AlignTop,
               tr("out %1").arg(d.value(ch::CduPrimaryReturnTemperature, c)));
    p.setPen(kMutedText);
    p.drawText(facility.adjusted(8, lh + 4, -8, 0), Qt::AlignRight | Qt::AlignTop,
               d.value(ch::CduPrimaryFlow, c));
    d.y = facility.bottom() + 8;
}

void CoolingPanel::paintBody(Paint& d) const {
    auto& p = d.p;
    const auto& s = d.s;
    const auto c = d.c;
    const int lh = d.lh, w = d.w;
    // CDU body: heat exchanger, level, pumps.
    const int perCdu = d.t.spec().cooling.pumpsPerCdu;
    const QRect body(10, d.y, w - 20, (1 + perCdu) * (lh + 4) + 12);
    p.setPen(kLine);
    p.setBrush(QColor(28, 54, 62));
    p.drawRoundedRect(body, 6, 6);
    p.setPen(kText);
    p.drawText(body.adjusted(8, 4, -8, 0), Qt::AlignLeft | Qt::AlignTop,
               tr("Heat exchanger  %1").arg(d.value(ch::LoopHeatRemoved, 2 * c)));
    p.drawText(body.adjusted(8, 4, -8, 0), Qt::AlignRight | Qt::AlignTop,
               tr("level %1").arg(d.value(ch::CduCoolantLevel, c)));
    for (int i = 0; i < perCdu; ++i) {
        const auto pump = static_cast<model::EntityId>(c * perCdu + i);
        const float health = shownValue(s, ch::PumpHealth, pump, d.fill);
        const QColor colour = !std::isfinite(health) ? kMutedText
                              : health < 0.5f        ? QColor(80, 200, 120)
                              : health < 1.5f        ? QColor(255, 190, 60)
                                                     : QColor(255, 80, 70);
        const int cx = body.left() + 20;
        const int cy = body.top() + (i + 1) * (lh + 4) + lh / 2 + 6;
        p.setBrush(colour);
        p.setPen(Qt::NoPen);
        p.drawEllipse(QPoint(cx, cy), lh / 2 + 2, lh / 2 + 2);
        p.setPen(kText);
        p.drawText(cx + lh, cy - lh / 2 - 1, body.width() - 2 * lh, lh,
                   Qt::AlignLeft | Qt::AlignVCenter,
                   tr("pump %1   %2   %3")
                       .arg(i + 1)
                       .arg(d.value(ch::PumpSpeed, pump), d.value(ch::PumpHealth, pump)));
    }
    d.y = body.bottom() + 8;

    // Secondary loop summary.
    p.setPen(d.tint(ch::CduSupplyTemperature, c));
    p.drawText(10, d.y + lh, tr("supply %1").arg(d.value(ch::CduSupplyTemperature, c)));
    p.setPen(d.tint(ch::CduReturnTemperature, c));
    p.drawText(w / 2 - 20, d.y + lh, tr("return %1").arg(d.value(ch::CduReturnTemperature, c)));
    d.y += lh + 2;
    p.setPen(kMutedText);
    p.drawText(10, d.y + lh,
               tr("flow %1 · ΔP %2 · ΔT %3")
                   .arg(d.value(ch::CduFlow, c), d.value(ch::CduDeltaPressure, c),
                        d.value(ch::CduDeltaTemperature, c)));
    d.y += lh + 8;
}

void CoolingPanel::paintRacks(Paint& d) const {
    auto& p = d.p;
    const auto& s = d.s;
    const auto& t = d.t;
    const int lh = d.lh, w = d.w;
    const auto first = t.cdus.firstRack[d.c];
    const auto count = t.cdus.rackCount[d.c];
    // Racks: flow bar (against design flow), valve, ΔT, heat.
    const auto design =
        static_cast<float>(t.spec().rack.ratedPowerKw * t.spec().cooling.flowLpmPerKw);
    p.setFont(d.bold);
    p.setPen(kMutedText);
    p.drawText(10, d.y + lh, tr("rack"));
    p.drawText(60, d.y + lh, tr("flow"));
    p.drawText(w - 190, d.y + lh, tr("valve"));
    p.drawText(w - 130, d.y + lh, tr("ΔT"));
    p.drawText(w - 70, d.y + lh, tr("heat"));
    p.setFont(d.base);
    d.y += lh + 4;
    std::vector<std::uint8_t> alarm(count, 0);
    for (const auto& a : s.alarms)
        if (a.kind == EntityKind::Rack && a.entity >= first && a.entity < first + count)
            alarm[a.entity - first] = std::max<std::uint8_t>(
                alarm[a.entity - first], a.severity == model::Severity::Critical ? 2 : 1);
    const int rowH = lh + 4;
    for (std::uint32_t i = 0; i < count && d.y + rowH < height() - 150; ++i) {
        const auto r = first + i;
        p.setPen(alarm[i] == 2   ? QColor(255, 90, 80)
                 : alarm[i] == 1 ? QColor(255, 190, 60)
                                 : kText);
        p.drawText(10, d.y + lh, QString::fromStdString(t.racks.name[r]));
        const QRect bar(60, d.y + 4, w - 260, lh - 4);
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(40, 48, 62));
        p.drawRect(bar);
        if (const float flow = shownValue(s, ch::RackFlow, r, d.fill); std::isfinite(flow)) {
            const float frac = std::clamp(flow / (1.3f * design), 0.0f, 1.0f);
            p.setBrush(d.tint(ch::RackReturnTemperature, r));
            p.drawRect(
                QRect(bar.left(), bar.top(), static_cast<int>(bar.width() * frac), bar.height()));
        }
        p.setPen(kText);
        p.drawText(bar.adjusted(4, -3, 0, 3), Qt::AlignVCenter | Qt::AlignLeft,
                   d.value(ch::RackFlow, r));
        p.drawText(w - 190, d.y + lh, d.value(ch::RackValvePosition, r));
        p.drawText(w - 130, d.y + lh, d.value(ch::RackDeltaTemperature, r));
        p.drawText(w - 70, d.y + lh, d.value(ch::RackHeatRemoved, r));
        d.y += rowH;
    }
}

void CoolingPanel::paintHistory(Paint& d) const {
    auto& p = d.p;
    const int w = d.w;
    const auto c = d.c;
    // History: supply and return temperature, and heat, over the last ten minutes.
    const auto h = history(c);
    const QRectF plot =
        drawChartFrame(p, QRectF(10, height() - 140, w - 20, 130),
                       tr("last %1 min: supply, return (°C), heat (kW)").arg(kHistoryPoints / 60),
                       h.size(), tr("history builds up while the twin runs"));
    if (h.size() < 2) return;
    auto at = [&h](auto member) {
        return std::function<float(std::size_t)>(
            [&h, member](std::size_t i) { return h[i].*member; });
    };
    const auto temps = finiteRange(
        2 * h.size(), [&](std::size_t i) { return i % 2 ? h[i / 2].ret : h[i / 2].supply; });
    const auto heat = finiteRange(h.size(), at(&HistoryPoint::heat));
    if (!temps && !heat) {
        p.setPen(kMutedText);
        p.drawText(plot, Qt::AlignCenter, tr("no data: nothing measured in this window"));
        return;
    }
    const float tLo = temps ? std::floor(temps->first - 1) : 0.0f;
    const float tHi = temps ? std::ceil(temps->second + 1) : 1.0f;
    const float qHi = std::max(1.0f, heat ? heat->second : 1.0f) * 1.1f;
    drawChartLines(p, plot, h.size(), kHistoryPoints,
                   {{at(&HistoryPoint::heat), QColor(120, 130, 150), 0.0f, qHi},
                    {at(&HistoryPoint::supply), coolant(45), tLo, tHi},
                    {at(&HistoryPoint::ret), coolant(56), tLo, tHi}});
    m_hover.chart(plot, h.size(), kHistoryPoints,
                  {{tr("supply"), " °C", 1, at(&HistoryPoint::supply), coolant(45)},
                   {tr("return"), " °C", 1, at(&HistoryPoint::ret), coolant(56)},
                   {tr("heat"), " kW", 0, at(&HistoryPoint::heat), QColor(160, 170, 190)}});
    if (temps) {
        p.setPen(kMutedText);
        p.drawText(plot, Qt::AlignRight | Qt::AlignTop, QString("%1 °C").arg(tHi, 0, 'f', 0));
        p.drawText(plot, Qt::AlignRight | Qt::AlignBottom, QString("%1 °C").arg(tLo, 0, 'f', 0));
    }
}

QWidget* makeCoolingPanel(FloorView& view) {
    return new CoolingPanel(&view);
}

} // namespace ft::views
