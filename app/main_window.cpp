#include "main_window.h"

#include "views/cooling_panel.h"
#include "views/floor_view.h"
#include "views/inspector_panel.h"
#include "views/lifecycle_board.h"
#include "views/layers_panel.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QLabel>
#include <QMenuBar>
#include <QSettings>
#include <QStatusBar>

namespace ft::app {

MainWindow::MainWindow(std::shared_ptr<const model::Topology> topology, model::SimCore& core, QWidget* parent)
    : QMainWindow(parent), m_core(core) {
    setWindowTitle(QStringLiteral("floortwin — %1").arg(QString::fromStdString(topology->spec().name)));
    m_view = new views::FloorView(topology, [&core] { return core.latest(); }, this);
    setCentralWidget(m_view);

    auto* layersDock = new QDockWidget(tr("Layers"), this);
    layersDock->setObjectName("layersDock");
    m_layers = new views::LayersPanel(m_view, layersDock);
    layersDock->setWidget(m_layers);
    addDockWidget(Qt::LeftDockWidgetArea, layersDock);

    auto* inspectorDock = new QDockWidget(tr("Inspector"), this);
    inspectorDock->setObjectName("inspectorDock");
    m_inspector = new views::InspectorPanel(m_view, inspectorDock);
    inspectorDock->setWidget(m_inspector);
    addDockWidget(Qt::RightDockWidgetArea, inspectorDock);

    auto* coolingDock = new QDockWidget(tr("Cooling"), this);
    coolingDock->setObjectName("coolingDock");
    m_cooling = new views::CoolingPanel(m_view, coolingDock);
    coolingDock->setWidget(m_cooling);
    addDockWidget(Qt::RightDockWidgetArea, coolingDock);
    tabifyDockWidget(inspectorDock, coolingDock);
    inspectorDock->raise();

    auto* boardDock = new QDockWidget(tr("Lifecycle board"), this);
    boardDock->setObjectName("lifecycleDock");
    m_board = new views::LifecycleBoard(m_view, boardDock);
    boardDock->setWidget(m_board);
    addDockWidget(Qt::BottomDockWidgetArea, boardDock);
    boardDock->hide(); // shown with the lifecycle layer, or from the View menu

    m_status = new QLabel(this);
    statusBar()->addPermanentWidget(m_status, 1);
    connect(&m_statusTimer, &QTimer::timeout, this, &MainWindow::updateStatus);
    m_statusTimer.start(500);

    connect(m_layers, &views::LayersPanel::speedChosen, this, &MainWindow::applySpeed);
    connect(m_layers, &views::LayersPanel::metricChosen, this, [](model::ChannelId c) {
        QSettings().setValue("view/metric", QString::fromUtf8(model::kChannels[c].name.data(),
                                                              static_cast<int>(model::kChannels[c].name.size())));
    });
    buildMenus();

    QSettings settings;
    resize(1600, 950);
    restoreGeometry(settings.value("window/geometry").toByteArray());
    restoreState(settings.value("window/state").toByteArray());
    const auto saved = model::findChannel(settings.value("view/metric", "gpu.temperature").toString().toStdString());
    setMetric(saved.value_or(model::ch::GpuTemperature));
    applySpeed(m_core.speed(), false);
}

MainWindow::~MainWindow() = default;

void MainWindow::setMetric(model::ChannelId channel) {
    m_view->setMetric(channel);
    m_layers->setMetric(channel);
}

void MainWindow::setThermal(bool on) {
    m_layers->setThermal(on);
    m_view->setThermalVisible(on);
    // Looking at the cooling plant: bring its panel forward.
    if (on)
        if (auto* dock = findChild<QDockWidget*>("coolingDock")) dock->raise();
}

void MainWindow::setLifecycle(bool on) {
    m_layers->setLifecycle(on);
    m_view->setLifecycleVisible(on);
    if (auto* dock = findChild<QDockWidget*>("lifecycleDock"); dock && on) dock->show();
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* quit = file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    quit->setMenuRole(QAction::QuitRole);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(tr("&Overview"), QKeySequence(Qt::Key_R), m_view, &views::FloorView::resetCamera);
    view->addAction(tr("&Top view"), QKeySequence(Qt::Key_T), m_view, &views::FloorView::topView);
    view->addAction(tr("&Frame selection"), QKeySequence(Qt::Key_F), m_view, &views::FloorView::frameSelection);
    view->addSeparator();
    for (auto* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());
    view->addSeparator();
    QAction* wall = view->addAction(tr("&Wall display mode"), QKeySequence(Qt::Key_F11));
    wall->setCheckable(true);
    connect(wall, &QAction::toggled, this, &MainWindow::setWallMode);
    addAction(wall); // keeps F11 working while the menu bar is hidden

    QMenu* sim = menuBar()->addMenu(tr("&Simulation"));
    QAction* pause = sim->addAction(tr("&Pause / resume"), QKeySequence(Qt::Key_Space));
    connect(pause, &QAction::triggered, this, [this] { applySpeed(m_core.speed(), !m_core.paused()); });
    addAction(pause);
    for (double s : {1.0, 10.0, 60.0, 600.0})
        sim->addAction(tr("Speed %1×").arg(s), this, [this, s] { applySpeed(s, false); });
}

void MainWindow::applySpeed(double speed, bool paused) {
    m_core.setSpeed(speed);
    m_core.setPaused(paused);
    m_view->setSpeed(speed, paused);
    m_layers->setSpeed(speed, paused);
}

void MainWindow::setWallMode(bool wall) {
    m_wall = wall;
    for (auto* dock : findChildren<QDockWidget*>()) dock->setVisible(!wall);
    menuBar()->setVisible(!wall);
    statusBar()->setVisible(!wall);
    m_view->setWallMode(wall);
    m_view->setShowFrameStats(!wall);
    if (wall) showFullScreen();
    else showNormal();
}

void MainWindow::updateStatus() {
    const auto stats = m_core.stats();
    const auto snap = m_core.latest();
    m_status->setText(tr("Simulator · tick %1 · %2 ms per tick · %3 samples in · %4 batches dropped · %5")
                          .arg(stats.ticks)
                          .arg(stats.meanTickMs, 0, 'f', 2)
                          .arg(stats.samplesApplied)
                          .arg(stats.batchesDropped)
                          .arg(QString::fromStdString(model::formatUtc(snap->time))));
}

void MainWindow::closeEvent(QCloseEvent* e) {
    if (!m_wall) {
        QSettings settings;
        settings.setValue("window/geometry", saveGeometry());
        settings.setValue("window/state", saveState());
    }
    e->accept();
}

} // namespace ft::app
