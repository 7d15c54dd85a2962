#pragma once
// MainWindow: the floor view in the centre, the layers and inspector panels docked at the
// sides, menus and a status line; keeps its layout and choices in QSettings. Wires the sim core
// (speed, pause) to the view. UI thread only.
#include "model/sim_core.h"

#include <QMainWindow>
#include <QTimer>

class QLabel;

namespace ft::views {
class FloorView;
class InspectorPanel;
class CoolingPanel;
class LifecycleBoard;
class LayersPanel;
} // namespace ft::views

namespace ft::app {

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    MainWindow(std::shared_ptr<const model::Topology> topology, model::SimCore& core, QWidget* parent = nullptr);
    ~MainWindow() override;

    views::FloorView* floorView() const { return m_view; }
    void setMetric(model::ChannelId channel);
    void setWallMode(bool wall);
    void setThermal(bool on);
    void setLifecycle(bool on);

protected:
    void closeEvent(QCloseEvent* e) override;

private:
    void buildMenus();
    void applySpeed(double speed, bool paused);
    void updateStatus();

    model::SimCore& m_core;
    views::FloorView* m_view;
    views::LayersPanel* m_layers;
    views::InspectorPanel* m_inspector;
    views::CoolingPanel* m_cooling;
    views::LifecycleBoard* m_board;
    QLabel* m_status;
    QTimer m_statusTimer;
    bool m_wall = false;
};

} // namespace ft::app
