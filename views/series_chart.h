#pragma once
// The panels' one chart: lines of values over a window of whole-second points, drawn the same
// way in every panel. A NaN is a gap (nothing measured then, or before the recording began),
// never a zero; a window that is not full yet fills from the left, so a line's right end is
// always now. UI thread only (QPainter).
#include <QColor>
#include <QRectF>
#include <QString>
#include <cstddef>
#include <functional>
#include <optional>
#include <utility>

class QPainter;

namespace ft::views {

struct ChartLine {
    std::function<float(std::size_t)> value; // the i-th point (0: the oldest), NaN: a gap
    QColor colour;
    float lo = 0, hi = 1; // the value range the plot spans, bottom to top
    double width = 2;
};

// Draws each line over `plot` with `points` values of a window of `capacity` points: point i
// at x = (capacity - points + i) / (capacity - 1) of the width. Values outside [lo, hi] are
// clamped to the plot's edge.
void drawChartLines(QPainter& p, const QRectF& plot, std::size_t points, std::size_t capacity,
                    std::initializer_list<ChartLine> lines);

// The smallest and largest finite value of `count` values (nothing when all are gaps).
std::optional<std::pair<float, float>> finiteRange(std::size_t count,
                                                   const std::function<float(std::size_t)>& value);

// A chart's frame: a rounded dark box with its caption top left, and, while fewer than two
// points are known, `empty` in its middle. Returns the plot rectangle under the caption.
QRectF drawChartFrame(QPainter& p, const QRectF& box, const QString& caption, std::size_t points,
                      const QString& empty);

} // namespace ft::views
