#pragma once
// LifecycleBoard: one swimlane per rack over time, a Gantt of its lifecycle stages with gate
// failures marked (hover for the cause), the current time as a cursor. Lanes are the racks that
// are not in production or have a history, optionally only those in one state. Clicking a lane
// selects the rack on the floor (and, in a replay, seeks to the moment clicked); selecting a
// rack on the floor highlights and reveals its lane.
// UI thread only.
#include "model/lifecycle.h"
#include "model/snapshot.h"
#include "model/topology.h"

#include <QWidget>
#include <optional>
#include <vector>

class QComboBox;
class QScrollArea;

namespace ft::views {

class FloorView;

class LifecycleLanes : public QWidget {
    Q_OBJECT
public:
    explicit LifecycleLanes(FloorView* view, QWidget* parent = nullptr);
    void rebuild(); // lanes for the current snapshot and filter
    void setFilter(std::optional<model::RackLifecycle> state);
    const std::vector<model::EntityId>& lanes() const { return m_lanes; }
    int laneTop(model::EntityId rack) const; // y of a rack's lane, -1 when not shown
    static constexpr int kLaneHeight = 24;
    static constexpr int kNameWidth = 64;

signals:
    // A lane was clicked: its rack, and the moment under the pointer (nothing on the names).
    void laneClicked(model::EntityId rack, std::optional<model::TimeNs> time);

protected:
    void paintEvent(QPaintEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    bool event(QEvent* e) override; // tooltips with failure causes

private:
    double timeToX(model::TimeNs t) const;
    model::TimeNs xToTime(double x) const;

    FloorView* m_view;
    std::optional<model::RackLifecycle> m_filter;
    std::vector<model::EntityId> m_lanes;
    model::TimeNs m_t0 = 0, m_t1 = 1;
};

class LifecycleBoard : public QWidget {
    Q_OBJECT
public:
    explicit LifecycleBoard(FloorView* view, QWidget* parent = nullptr);
    LifecycleLanes* lanes() const { return m_lanes; }
    QComboBox* filter() const { return m_filterBox; }

private:
    void followSelection();

    FloorView* m_view;
    QComboBox* m_filterBox;
    QScrollArea* m_scroll;
    LifecycleLanes* m_lanes;
};

} // namespace ft::views
