#pragma once
// CoolingPanel: a live schematic of one CDU — facility water in and out, heat exchanger and
// setpoint, pumps with speed and health, the secondary loop — its racks with flow, valve, ΔT and
// heat, and ten minutes of history (from the recording in a replay, whichever way it plays).
// Follows the selection (a rack, tray, GPU or pump shows its CDU). Keeps history for every CDU
// so switching is instant. UI thread only.
#include "model/snapshot.h"
#include "model/topology.h"
#include "views/history_window.h"
#include "views/series_chart.h"

#include <QWidget>
#include <deque>
#include <memory>
#include <vector>

namespace ft::views {

class FloorView;

class CoolingPanel : public QWidget {
    Q_OBJECT
public:
    explicit CoolingPanel(FloorView* view, QWidget* parent = nullptr);
    model::EntityId cdu() const { return m_cdu; }
    void setCdu(model::EntityId cdu);
    QSize sizeHint() const override { return {380, 720}; }

    struct HistoryPoint {
        float supply = 0, ret = 0, flow = 0, heat = 0;
    };
    // The last ten minutes of a CDU, one point a second.
    std::vector<HistoryPoint> history(model::EntityId cdu) const;

protected:
    void paintEvent(QPaintEvent* e) override;

private:
    struct Paint;
    void paintHeader(Paint& d) const;
    void paintBody(Paint& d) const;
    void paintRacks(Paint& d) const;
    void paintHistory(Paint& d) const;
    void onSnapshot();
    void followSelection();

    FloorView* m_view;
    model::EntityId m_cdu = 0;
    HistoryWindow<std::vector<HistoryPoint>> m_history; // per time: every CDU
    mutable ChartHover m_hover;                         // the chart's readout under the mouse
};

} // namespace ft::views
