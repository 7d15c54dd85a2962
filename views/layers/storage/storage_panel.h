#pragma once
// StoragePanel: where the data goes, as a Sankey-style diagram — dataset reads split into cache
// hits and bucket reads, checkpoint writes into the local hot tier and on to the remote region —
// with the tiers of each region and the migration backlog over the last ten minutes (from the
// recording in a replay, whichever way it plays). UI thread.
#include "model/snapshot.h"
#include "views/history_window.h"
#include "views/series_chart.h"

#include <QWidget>
#include <deque>

class QPainter;

namespace ft::views {

class FloorView;

class StoragePanel : public QWidget {
    Q_OBJECT
public:
    explicit StoragePanel(FloorView* view, QWidget* parent = nullptr);
    QSize sizeHint() const override { return {380, 640}; }
    struct Point {
        model::TimeNs time;
        float backlogTb, oldestS, migrationGBps;
    };
    // The last ten minutes, one point a second.
    std::vector<Point> history() const;

protected:
    void paintEvent(QPaintEvent* e) override;

private:
    // The panel's parts, top to bottom; each returns where the next begins.
    int paintSankey(QPainter& p, const model::Snapshot& s) const;
    int paintTiers(QPainter& p, const model::Snapshot& s, int y) const;
    void paintBacklog(QPainter& p, const model::Snapshot& s, int y) const;
    void onSnapshot();
    FloorView* m_view;
    HistoryWindow<Point> m_history{600};
    mutable ChartHover m_hover; // the chart's readout under the mouse
};

} // namespace ft::views
