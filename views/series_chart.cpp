#include "series_chart.h"

#include <QFontMetrics>
#include <QMouseEvent>
#include <QObject>
#include <QPainter>
#include <QPainterPath>
#include <QWidget>
#include <algorithm>
#include <cmath>

namespace ft::views {

namespace {
const QColor kChartBack(16, 20, 28), kChartEdge(70, 84, 104), kChartText(150, 162, 178);
}

void drawChartLines(QPainter& p, const QRectF& plot, std::size_t points, std::size_t capacity,
                    std::initializer_list<ChartLine> lines) {
    if (points == 0 || capacity < 2) return;
    const std::size_t shown = std::min(points, capacity);
    const std::size_t skip = points - shown; // the oldest that do not fit
    const auto first = static_cast<double>(capacity - shown);
    p.save();
    p.setBrush(Qt::NoBrush);
    for (const auto& line : lines) {
        QPainterPath path;
        bool pen = false;
        const double span = std::max(1e-6, static_cast<double>(line.hi - line.lo));
        for (std::size_t i = 0; i < shown; ++i) {
            const float v = line.value(skip + i);
            if (!std::isfinite(v)) {
                pen = false; // a gap: nothing is known here
                continue;
            }
            const double x = plot.left() + plot.width() * (first + static_cast<double>(i)) /
                                               static_cast<double>(capacity - 1);
            const double f = std::clamp((static_cast<double>(v) - line.lo) / span, 0.0, 1.0);
            const double y = plot.bottom() - plot.height() * f;
            if (pen)
                path.lineTo(x, y);
            else
                path.moveTo(x, y);
            pen = true;
        }
        p.setPen(QPen(line.colour, line.width));
        p.drawPath(path);
    }
    p.restore();
}

std::optional<std::pair<float, float>> finiteRange(std::size_t count,
                                                   const std::function<float(std::size_t)>& value) {
    std::optional<std::pair<float, float>> range;
    for (std::size_t i = 0; i < count; ++i) {
        const float v = value(i);
        if (!std::isfinite(v)) continue;
        if (!range)
            range.emplace(v, v);
        else
            range = std::pair{std::min(range->first, v), std::max(range->second, v)};
    }
    return range;
}

QRectF drawChartFrame(QPainter& p, const QRectF& box, const QString& caption, std::size_t points,
                      const QString& empty) {
    p.save();
    p.setPen(kChartEdge);
    p.setBrush(kChartBack);
    p.drawRoundedRect(box, 6, 6);
    p.setPen(kChartText);
    p.drawText(box.adjusted(8, 4, -8, 0), Qt::AlignLeft | Qt::AlignTop, caption);
    if (points < 2) p.drawText(box, Qt::AlignCenter, empty);
    p.restore();
    const double lh = QFontMetrics(p.font()).height();
    return box.adjusted(8, lh + 8, -8, -8);
}

void ChartHover::attach(QWidget* panel) {
    panel->setMouseTracking(true);
    panel->installEventFilter(this);
}

bool ChartHover::eventFilter(QObject* watched, QEvent* event) {
    auto* panel = qobject_cast<QWidget*>(watched);
    if (!panel) return false;
    if (event->type() == QEvent::MouseMove) {
        m_mouse = static_cast<QMouseEvent*>(event)->position();
        panel->update();
    } else if (event->type() == QEvent::Leave) {
        m_mouse.reset();
        panel->update();
    }
    return false;
}

void ChartHover::begin() {
    m_lines.clear();
    m_colours.clear();
}

void ChartHover::chart(const QRectF& plot, std::size_t points, std::size_t capacity,
                       const std::vector<Series>& series) {
    if (!m_mouse || !plot.contains(*m_mouse) || points == 0 || capacity < 2) return;
    const std::size_t shown = std::min(points, capacity);
    const double f = (m_mouse->x() - plot.left()) / std::max(1.0, plot.width());
    const auto slot =
        static_cast<std::ptrdiff_t>(std::lround(f * static_cast<double>(capacity - 1)));
    const std::ptrdiff_t index = slot - static_cast<std::ptrdiff_t>(capacity - shown);
    m_lines.clear();
    m_colours.clear();
    m_plot = plot;
    m_cursorX =
        plot.left() + plot.width() * static_cast<double>(slot) / static_cast<double>(capacity - 1);
    if (index < 0) {
        m_lines << QObject::tr("before this window's first point: no data");
        return;
    }
    const std::size_t i = points - shown + static_cast<std::size_t>(index);
    const std::size_t ago = points - 1 - i; // the points are whole seconds, the last one now
    m_lines << (ago == 0 ? QObject::tr("now") : QObject::tr("%1 s ago").arg(ago));
    for (const auto& s : series) {
        const float v = s.value(i);
        m_lines << QString("%1: %2").arg(s.name, std::isfinite(v)
                                                     ? QString::number(v, 'f', s.decimals) + s.unit
                                                     : QObject::tr("no data"));
        m_colours.push_back(s.colour);
    }
}

void ChartHover::paint(QPainter& p, const QRectF& bounds) const {
    if (m_lines.isEmpty()) return;
    p.save();
    p.setPen(QPen(QColor(230, 236, 245, 170), 1, Qt::DashLine));
    p.drawLine(QPointF(m_cursorX, m_plot.top()), QPointF(m_cursorX, m_plot.bottom()));
    const QFontMetrics fm(p.font());
    double w = 0;
    for (const auto& line : m_lines)
        w = std::max(w, static_cast<double>(fm.horizontalAdvance(line)));
    const double lh = fm.height();
    QRectF box(0, 0, w + 16, lh * static_cast<double>(m_lines.size()) + 10);
    // Beside the cursor, on the side with room, inside the panel.
    const double x = m_cursorX + 10 + box.width() <= bounds.right() ? m_cursorX + 10
                                                                    : m_cursorX - 10 - box.width();
    box.moveTo(std::max(bounds.left(), x),
               std::clamp(m_plot.top(), bounds.top(), bounds.bottom() - box.height()));
    p.setPen(kChartEdge);
    p.setBrush(QColor(10, 13, 19, 235));
    p.drawRoundedRect(box, 4, 4);
    for (int k = 0; k < m_lines.size(); ++k) {
        p.setPen(k == 0 ? kChartText : m_colours[static_cast<std::size_t>(k - 1)]);
        p.drawText(QPointF(box.left() + 8, box.top() + 5 + fm.ascent() + lh * k), m_lines[k]);
    }
    p.restore();
}

} // namespace ft::views
