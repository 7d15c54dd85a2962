#include "cooling_panel.h"

#include "floor_view.h"
#include "hud.h"
#include "thermal_layer.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>
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
QString value(const model::Snapshot& s, model::ChannelId c, model::EntityId e) {
    return QString::fromStdString(formatValue(s.value(c, e), c));
}
} // namespace

CoolingPanel::CoolingPanel(FloorView* view, QWidget* parent)
    : QWidget(parent), m_view(view), m_history(kHistoryPoints) {
    setMinimumSize(320, 560);
    connect(m_view, &FloorView::snapshotChanged, this, &CoolingPanel::onSnapshot);
    connect(m_view, &FloorView::selectionChanged, this, &CoolingPanel::followSelection);
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
    const auto cdus = static_cast<model::EntityId>(m_view->topology().count(EntityKind::Cdu));
    auto point = [cdus](auto value) {
        std::vector<HistoryPoint> all(cdus);
        for (model::EntityId c = 0; c < cdus; ++c)
            all[c] = {value(ch::CduSupplyTemperature, c), value(ch::CduReturnTemperature, c),
                      value(ch::CduFlow, c), value(ch::CduHeatLoad, c)};
        return all;
    };
    HistoryWindow<std::vector<HistoryPoint>>::Past past;
    if (m_past)
        past = [this, point](model::TimeNs t) -> std::optional<std::vector<HistoryPoint>> {
            std::vector<float> columns[4];
            const model::ChannelId channels[4] = {
                ch::CduSupplyTemperature, ch::CduReturnTemperature, ch::CduFlow, ch::CduHeatLoad};
            for (int k = 0; k < 4; ++k)
                if (!m_past(channels[k], t, columns[k])) return std::nullopt;
            return point([&](model::ChannelId c, model::EntityId e) {
                for (int k = 0; k < 4; ++k)
                    if (channels[k] == c && e < columns[k].size()) return columns[k][e];
                return std::numeric_limits<float>::quiet_NaN();
            });
        };
    m_history.update(
        s->time,
        [&] {
            return point([&](model::ChannelId c, model::EntityId e) { return s->value(c, e); });
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
    const auto c = m_cdu;
    const int w = width();
    QFont base = font();
    QFont bold = base;
    bold.setBold(true);
    QFont title = bold;
    title.setPointSizeF(base.pointSizeF() * 1.3);
    const int lh = QFontMetrics(base).height();
    int y = 8;

    // Title.
    p.setFont(title);
    p.setPen(kText);
    const auto first = t.cdus.firstRack[c];
    const auto count = t.cdus.rackCount[c];
    p.drawText(10, y + QFontMetrics(title).ascent(),
               QString::fromStdString(t.name(EntityKind::Cdu, c)));
    y += QFontMetrics(title).height();
    p.setFont(base);
    p.setPen(kMutedText);
    p.drawText(10, y + lh - 4,
               tr("serves %1 – %2 · setpoint %3")
                   .arg(QString::fromStdString(t.racks.name[first]),
                        QString::fromStdString(t.racks.name[first + count - 1]),
                        value(*s, ch::CduSetpoint, c)));
    y += lh + 8;

    // Facility water.
    const QRect facility(10, y, w - 20, 2 * lh + 8);
    p.setPen(kLine);
    p.setBrush(QColor(30, 38, 52));
    p.drawRoundedRect(facility, 6, 6);
    p.setPen(kText);
    p.drawText(facility.adjusted(8, 4, -8, 0), Qt::AlignLeft | Qt::AlignTop,
               tr("Facility water (primary)"));
    p.setPen(coolant(s->value(ch::CduPrimarySupplyTemperature, c)));
    p.drawText(facility.adjusted(8, lh + 4, -8, 0), Qt::AlignLeft | Qt::AlignTop,
               tr("in %1").arg(value(*s, ch::CduPrimarySupplyTemperature, c)));
    p.setPen(coolant(s->value(ch::CduPrimaryReturnTemperature, c)));
    p.drawText(facility.adjusted(8, lh + 4, -8, 0), Qt::AlignHCenter | Qt::AlignTop,
               tr("out %1").arg(value(*s, ch::CduPrimaryReturnTemperature, c)));
    p.setPen(kMutedText);
    p.drawText(facility.adjusted(8, lh + 4, -8, 0), Qt::AlignRight | Qt::AlignTop,
               value(*s, ch::CduPrimaryFlow, c));
    y = facility.bottom() + 8;

    // CDU body: heat exchanger, level, pumps.
    const int perCdu = t.spec().cooling.pumpsPerCdu;
    const QRect body(10, y, w - 20, (1 + perCdu) * (lh + 4) + 12);
    p.setPen(kLine);
    p.setBrush(QColor(28, 54, 62));
    p.drawRoundedRect(body, 6, 6);
    p.setPen(kText);
    p.drawText(body.adjusted(8, 4, -8, 0), Qt::AlignLeft | Qt::AlignTop,
               tr("Heat exchanger  %1").arg(value(*s, ch::LoopHeatRemoved, 2 * c)));
    p.drawText(body.adjusted(8, 4, -8, 0), Qt::AlignRight | Qt::AlignTop,
               tr("level %1").arg(value(*s, ch::CduCoolantLevel, c)));
    for (int i = 0; i < perCdu; ++i) {
        const auto pump = static_cast<model::EntityId>(c * perCdu + i);
        const float health = s->value(ch::PumpHealth, pump);
        const QColor colour = health < 0.5f
                                  ? QColor(80, 200, 120)
                                  : (health < 1.5f ? QColor(255, 190, 60) : QColor(255, 80, 70));
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
                       .arg(value(*s, ch::PumpSpeed, pump), value(*s, ch::PumpHealth, pump)));
    }
    y = body.bottom() + 8;

    // Secondary loop summary.
    p.setPen(coolant(s->value(ch::CduSupplyTemperature, c)));
    p.drawText(10, y + lh, tr("supply %1").arg(value(*s, ch::CduSupplyTemperature, c)));
    p.setPen(coolant(s->value(ch::CduReturnTemperature, c)));
    p.drawText(w / 2 - 20, y + lh, tr("return %1").arg(value(*s, ch::CduReturnTemperature, c)));
    y += lh + 2;
    p.setPen(kMutedText);
    p.drawText(10, y + lh,
               tr("flow %1 · ΔP %2 · ΔT %3")
                   .arg(value(*s, ch::CduFlow, c), value(*s, ch::CduDeltaPressure, c),
                        value(*s, ch::CduDeltaTemperature, c)));
    y += lh + 8;

    // Racks: flow bar (against design flow), valve, ΔT, heat.
    const auto design =
        static_cast<float>(t.spec().rack.ratedPowerKw * t.spec().cooling.flowLpmPerKw);
    p.setFont(bold);
    p.setPen(kMutedText);
    p.drawText(10, y + lh, tr("rack"));
    p.drawText(60, y + lh, tr("flow"));
    p.drawText(w - 190, y + lh, tr("valve"));
    p.drawText(w - 130, y + lh, tr("ΔT"));
    p.drawText(w - 70, y + lh, tr("heat"));
    p.setFont(base);
    y += lh + 4;
    std::vector<std::uint8_t> alarm(count, 0);
    for (const auto& a : s->alarms)
        if (a.kind == EntityKind::Rack && a.entity >= first && a.entity < first + count)
            alarm[a.entity - first] = std::max<std::uint8_t>(
                alarm[a.entity - first], a.severity == model::Severity::Critical ? 2 : 1);
    const int rowH = lh + 4;
    for (std::uint32_t i = 0; i < count && y + rowH < height() - 150; ++i) {
        const auto r = first + i;
        p.setPen(alarm[i] == 2   ? QColor(255, 90, 80)
                 : alarm[i] == 1 ? QColor(255, 190, 60)
                                 : kText);
        p.drawText(10, y + lh, QString::fromStdString(t.racks.name[r]));
        const QRect bar(60, y + 4, w - 260, lh - 4);
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(40, 48, 62));
        p.drawRect(bar);
        const float frac = std::clamp(s->value(ch::RackFlow, r) / (1.3f * design), 0.0f, 1.0f);
        p.setBrush(coolant(s->value(ch::RackReturnTemperature, r)));
        p.drawRect(
            QRect(bar.left(), bar.top(), static_cast<int>(bar.width() * frac), bar.height()));
        p.setPen(kText);
        p.drawText(bar.adjusted(4, -3, 0, 3), Qt::AlignVCenter | Qt::AlignLeft,
                   value(*s, ch::RackFlow, r));
        p.drawText(w - 190, y + lh, value(*s, ch::RackValvePosition, r));
        p.drawText(w - 130, y + lh, value(*s, ch::RackDeltaTemperature, r));
        p.drawText(w - 70, y + lh, value(*s, ch::RackHeatRemoved, r));
        y += rowH;
    }

    // History: supply and return temperature, and heat, over the last ten minutes.
    const auto h = history(c);
    const QRect chart(10, height() - 140, w - 20, 130);
    p.setPen(kLine);
    p.setBrush(QColor(16, 20, 28));
    p.drawRoundedRect(chart, 6, 6);
    p.setPen(kMutedText);
    p.drawText(chart.adjusted(8, 4, -8, 0), Qt::AlignLeft | Qt::AlignTop,
               tr("last %1 min: supply, return (°C), heat (kW)")
                   .arg(std::max<std::size_t>(1, h.size() / 60)));
    if (h.size() < 2)
        p.drawText(chart, Qt::AlignCenter, tr("history builds up while the twin runs"));
    else {
        float tLo = 1e9f, tHi = -1e9f, qHi = 1;
        for (const auto& pt : h) {
            tLo = std::min({tLo, pt.supply, pt.ret});
            tHi = std::max({tHi, pt.supply, pt.ret});
            qHi = std::max(qHi, pt.heat);
        }
        tLo = std::floor(tLo - 1), tHi = std::ceil(tHi + 1);
        const QRectF plot = QRectF(chart).adjusted(8, lh + 8, -8, -8);
        auto line = [&](auto get, float lo, float hi, QColor colour) {
            QPainterPath path;
            for (std::size_t i = 0; i < h.size(); ++i) {
                const double x =
                    plot.left() + plot.width() * static_cast<double>(i) / (kHistoryPoints - 1);
                const double yv =
                    plot.bottom() - plot.height() * (get(h[i]) - lo) / std::max(0.1f, hi - lo);
                i == 0 ? path.moveTo(x, yv) : path.lineTo(x, yv);
            }
            p.setPen(QPen(colour, 2));
            p.setBrush(Qt::NoBrush);
            p.drawPath(path);
        };
        line([](const HistoryPoint& pt) { return pt.heat; }, 0.0f, qHi * 1.1f,
             QColor(120, 130, 150));
        line([](const HistoryPoint& pt) { return pt.supply; }, tLo, tHi, coolant(45));
        line([](const HistoryPoint& pt) { return pt.ret; }, tLo, tHi, coolant(56));
        p.setPen(kMutedText);
        p.drawText(plot, Qt::AlignRight | Qt::AlignTop, QString("%1 °C").arg(tHi, 0, 'f', 0));
        p.drawText(plot, Qt::AlignRight | Qt::AlignBottom, QString("%1 °C").arg(tLo, 0, 'f', 0));
    }
}

} // namespace ft::views
