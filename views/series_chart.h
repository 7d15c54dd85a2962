#pragma once
// The panels' one chart: lines of values over a window of whole-second points, drawn the same
// way in every panel. A NaN is a gap (nothing measured then, or before the recording began),
// never a zero; a window that is not full yet fills from the left, so a line's right end is
// always now. UI thread only (QPainter).
#include <QColor>
#include <QObject>
#include <QPointF>
#include <QRectF>
#include <QString>
#include <QStringList>
#include <cstddef>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

class QPainter;
class QWidget;
class QEvent;

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

// The hover readout of a panel's charts. The panel says where the mouse is; each chart it draws
// (its plot, its window and its named series) is read at the point under the mouse while it is
// drawn, so the values are those the chart shows; at the end of the paint a cursor marks that
// point and a box lists each series' value there ("no data" for a gap) and how long ago it was.
class ChartHover : public QObject {
public:
    // Follows the mouse over `panel` (and repaints it as the mouse moves).
    void attach(QWidget* panel);
    struct Series {
        QString name;
        QString unit;
        int decimals = 1;
        std::function<float(std::size_t)> value; // as ChartLine::value
        QColor colour;
    };
    void setMouse(std::optional<QPointF> at) { m_mouse = at; }
    // At the start of a paint: forgets what the last one read.
    void begin();
    // A chart drawn with drawChartLines(plot, points, capacity, ...): read if the mouse is over it.
    void chart(const QRectF& plot, std::size_t points, std::size_t capacity,
               const std::vector<Series>& series);
    // At the end of a paint: the cursor and the readout, if the mouse was over a chart.
    void paint(QPainter& p, const QRectF& bounds) const;
    // What the readout says (its first line: how long ago), for tests.
    const QStringList& lines() const { return m_lines; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    std::optional<QPointF> m_mouse;
    QStringList m_lines;
    std::vector<QColor> m_colours; // one per line after the first
    QRectF m_plot;
    double m_cursorX = 0;
};

} // namespace ft::views
