#pragma once
// PowerPanel: one rack's power at a glance — its draw against its rated power and Racky's
// budget, the GPU cap, 2N redundancy; its row's two busways with load, current, voltage and
// state; each power shelf's PSUs (green delivering, grey without input, red failed) with the
// shelf's output; the row's feeds x racks (what each rack draws from busway A and from B); and
// ten minutes of the rack's draw against its budget. With telemetry, what was not measured
// reads "no data" (or "(model)" when the user fills gaps) and is drawn hatched. Follows the
// selection (a rack, tray, GPU, shelf, PSU or busway shows its rack). Keeps history for every rack.
// UI thread only.
#include "model/snapshot.h"
#include "model/topology.h"
#include "views/history_window.h"
#include "views/series_chart.h"

#include <QWidget>
#include <deque>
#include <vector>

namespace ft::views {

class FloorView;

class PowerPanel : public QWidget {
    Q_OBJECT
public:
    explicit PowerPanel(FloorView* view, QWidget* parent = nullptr);
    model::EntityId rack() const { return m_rack; }
    void setRack(model::EntityId rack);
    QSize sizeHint() const override { return {400, 820}; }

    struct HistoryPoint {
        float draw = 0, budget = 0;
    };
    // The last ten minutes of a rack, one point a second (NaN: not measured then).
    std::vector<HistoryPoint> history(model::EntityId rack) const;

protected:
    void paintEvent(QPaintEvent* e) override;

private:
    struct Paint;
    void paintSummary(Paint& d) const;
    void paintBusways(Paint& d) const;
    void paintShelves(Paint& d) const;
    void paintFeeds(Paint& d) const;
    void paintHistory(Paint& d) const;
    void onSnapshot();
    void followSelection();

    FloorView* m_view;
    model::EntityId m_rack = 0;
    HistoryWindow<std::vector<HistoryPoint>> m_history; // per time: every rack
    mutable ChartHover m_hover;                         // the chart's readout under the mouse
};

} // namespace ft::views
