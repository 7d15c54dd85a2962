#include "series_chart.h"

#include <QFontMetrics>
#include <QPainter>
#include <QPainterPath>
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

} // namespace ft::views
