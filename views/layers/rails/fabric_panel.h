#pragma once
// FabricPanel: the scale-out fabric in 2D, as a heat map a network operator scans in a second:
// for each plane, one row per rail with a cell per leaf, and a row of spines, each cell coloured
// by utilization (red: down, amber edge: degraded). Hover shows a switch's figures; a click
// selects it on the floor and points the camera at it. Follows the selection (a leaf, spine,
// NIC link or bundle is outlined). UI thread only.
#include "model/entity_kind.h"

#include <QWidget>
#include <optional>
#include <vector>

namespace ft::views {

class FloorView;

class FabricPanel : public QWidget {
    Q_OBJECT
public:
    explicit FabricPanel(FloorView* view, QWidget* parent = nullptr);
    QSize sizeHint() const override { return {380, 520}; }
    // The switch drawn at a widget point (also used by tests).
    std::optional<model::EntityRef> switchAt(const QPointF& p) const;
    // Where a switch's cell is drawn (for tests and tooltips).
    std::optional<QRectF> cellOf(model::EntityRef ref) const;

protected:
    void paintEvent(QPaintEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;

private:
    void layoutCells();

    FloorView* m_view;
    struct Cell {
        QRectF rect;
        model::EntityRef ref;
    };
    std::vector<Cell> m_cells;
    struct Label {
        QPointF at;
        QString text;
        model::EntityKind kind;
        model::EntityId id;
    };
    std::vector<Label> m_labels;
};

} // namespace ft::views
