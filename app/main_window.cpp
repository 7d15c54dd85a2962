#include "main_window.h"

#include "floor_loading.h"
#include "importers/floor/floor_file.h"
#include "importers/formats/telemetry_loader.h"
#include "importers/recording/recording_incidents.h"
#include "incident_report.h"
#include "live_sources.h"
#include "source_kinds.h"
#include "story_player.h"
#include "views/floor_view.h"
#include "views/incidents_panel.h"
#include "views/inspector_panel.h"
#include "views/layer_registry.h"
#include "views/layers_panel.h"
#include "views/sources_panel.h"
#include "views/timeline_panel.h"

#include <QCloseEvent>
#include <QDockWidget>
#include <QKeyEvent>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QSignalBlocker>
#include <QStatusBar>
#include <filesystem>

namespace ft::app {

MainWindow::MainWindow(Session& session, QWidget* parent, bool restoreLayout)
    : QMainWindow(parent), m_session(session), m_transport(session.transport()) {
    const auto& topology = session.topology;
    setWindowTitle(QStringLiteral("floortwin — %1%2")
                       .arg(QString::fromStdString(topology->spec().name),
                            session.replay
                                ? QString(" — replay of %1")
                                      .arg(QString::fromStdString(session.replay->reader().path()))
                                : QString()));
    m_view = new views::FloorView(
        topology, [&t = m_transport] { return t.latest(); }, this);
    m_view->setSourceLabel(session.sourceLabel);
    m_view->setTransport(&m_transport);
    if (session.compare)
        m_view->setBaselineSource([&session](model::TimeNs t) { return session.compareAt(t); },
                                  std::filesystem::path(session.comparePath).filename().string());
    setCentralWidget(m_view);

    buildDocks();
    if (session.replay) connectReplay(*session.replay);

    m_status = new QLabel(this);
    statusBar()->addPermanentWidget(m_status, 1);
    connect(&m_statusTimer, &QTimer::timeout, this, &MainWindow::updateStatus);
    m_statusTimer.start(500);
    connect(m_view, &views::FloorView::snapshotChanged, m_timeline, &views::TimelinePanel::refresh);
    connect(m_view, &views::FloorView::snapshotChanged, this,
            [this] { m_timeline->axis()->setIncidents(m_view->incidents()); });

    connect(m_layers, &views::LayersPanel::metricChosen, this, [](model::ChannelId c) {
        QSettings().setValue("view/metric",
                             QString::fromUtf8(model::kChannels[c].name.data(),
                                               static_cast<int>(model::kChannels[c].name.size())));
    });
    connect(m_view, &views::FloorView::layerVisibilityChanged, this,
            &MainWindow::onLayerVisibilityChanged);
    buildMenus();
    connectLinks();

    QSettings settings;
    resize(1600, 950);
    if (restoreLayout) {
        restoreGeometry(settings.value("window/geometry").toByteArray());
        m_layoutRestored = restoreState(settings.value("window/state").toByteArray());
        for (const auto& layer : m_view->layers()) {
            const QString key = "layers/" + QString::fromUtf8(layer->id().data(),
                                                              static_cast<int>(layer->id().size()));
            if (settings.contains(key))
                m_view->setLayerVisible(layer->id(), settings.value(key).toBool());
        }
    }
    const auto saved = model::findChannel(
        settings.value("view/metric", "gpu.temperature").toString().toStdString());
    setMetric(saved.value_or(model::ch::GpuTemperature));
    applySpeed(m_transport.speed(), m_transport.paused() && session.replay);
}

void MainWindow::buildDocks() {
    auto dock = [&](const QString& title, const char* name, QWidget* content,
                    Qt::DockWidgetArea area) {
        auto* d = new QDockWidget(title, this);
        d->setObjectName(name);
        content->setParent(d);
        d->setWidget(content);
        addDockWidget(area, d);
        return d;
    };
    m_layers = new views::LayersPanel(m_view, &m_transport);
    dock(tr("Layers"), "layersDock", m_layers, Qt::LeftDockWidgetArea);
    m_inspector = new views::InspectorPanel(m_view);
    auto* inspectorDock =
        dock(tr("Inspector"), "inspectorDock", m_inspector, Qt::RightDockWidgetArea);
    // Each layer's panel, from the layer registry: beside the floor with the inspector, or under
    // it with the timeline (tabbed there below).
    QDockWidget* lastSide = inspectorDock;
    std::vector<QDockWidget*> bottomPanels;
    for (const auto& layer : m_view->layers()) {
        const auto& panel = layer->info().panel;
        if (!panel.make) continue;
        const bool side = panel.place == views::PanelPlace::Side;
        auto* d = dock(QString::fromUtf8(panel.title.data(), static_cast<int>(panel.title.size())),
                       std::string(panel.dockName).c_str(), panel.make(*m_view),
                       side ? Qt::RightDockWidgetArea : Qt::BottomDockWidgetArea);
        if (side) {
            tabifyDockWidget(lastSide, d);
            lastSide = d;
        } else {
            bottomPanels.push_back(d);
        }
    }
    m_sources = new views::SourcesPanel(m_view);
    auto* sourcesDock = dock(tr("Sources"), "sourcesDock", m_sources, Qt::RightDockWidgetArea);
    connect(m_view, &views::FloorView::sourcesRequested, this, [this, sourcesDock] {
        sourcesDock->show();
        sourcesDock->raise();
        m_sources->showMapping();
    });
    tabifyDockWidget(lastSide, sourcesDock);
    m_incidents = new views::IncidentsPanel(m_view);
    auto* incidentsDock =
        dock(tr("Incidents"), "incidentsDock", m_incidents, Qt::RightDockWidgetArea);
    tabifyDockWidget(sourcesDock, incidentsDock);
    connect(m_view, &views::FloorView::snapshotChanged, m_incidents,
            &views::IncidentsPanel::refresh);
    connect(m_incidents, &views::IncidentsPanel::seekRequested, this, [this](model::TimeNs t) {
        if (m_session.replay) m_transport.seek(t);
    });
    inspectorDock->raise();
    m_timeline = new views::TimelinePanel(m_transport);
    if (m_session.compare) showBaselineEvents();
    auto* timelineDock = dock(tr("Timeline"), "timelineDock", m_timeline, Qt::BottomDockWidgetArea);
    QDockWidget* lastBottom = timelineDock;
    for (auto* d : bottomPanels) {
        tabifyDockWidget(lastBottom, d);
        lastBottom = d;
    }
    timelineDock->raise();
}

void MainWindow::showEvent(QShowEvent* e) {
    QMainWindow::showEvent(e);
    if (m_docksSized || m_layoutRestored) return;
    m_docksSized = true;
    // The floor is the point: the docks start narrow (a saved layout replaces this).
    auto* layers = findChild<QDockWidget*>("layersDock");
    auto* inspector = findChild<QDockWidget*>("inspectorDock");
    auto* timeline = findChild<QDockWidget*>("timelineDock");
    if (layers && inspector) resizeDocks({layers, inspector}, {300, 380}, Qt::Horizontal);
    if (timeline) resizeDocks({timeline}, {170}, Qt::Vertical);
}

void MainWindow::connectReplay(importers::ReplayTransport& replay) {
    m_timeline->axis()->setEvents(replay.reader().events());
    m_timeline->setBookmarkSink(
        [this, &replay](model::TimeNs t, const std::string& text) -> std::optional<std::string> {
            // With the camera, so that bookmarks can become a demo.
            const auto& rig = m_view->camera();
            const nlohmann::ordered_json camera{
                {"focus", {rig.focus.x, rig.focus.y, rig.focus.z}},
                {"distance", rig.distance},
                {"azimuth", rig.azimuthDeg},
                {"elevation", std::clamp(rig.elevationDeg, 4.0, 89.5)}};
            auto saved = replay.reader().addBookmark(t, text, camera.dump());
            if (!saved) return saved.error().toString();
            refreshBookmarks();
            return std::nullopt;
        });
    // Every chart reads the recording's past: full after a seek, and backwards.
    m_view->setHistorySource(
        [&replay](model::ChannelId c, model::TimeNs t, bool fill, std::vector<float>& out) {
            return replay.channelAt(c, t, fill, out);
        });
    connect(m_timeline, &views::TimelinePanel::jumpToEvent, this,
            [&replay](int direction) { replay.jumpToEvent(direction); });
    refreshBookmarks();
    for (const auto& w : replay.reader().warnings())
        statusBar()->showMessage(QString::fromStdString(w), 15000);
    // The recording's incidents, worked out once in the background over all of it.
    m_incidentPass = std::jthread([this, path = replay.reader().path()] {
        auto found = importers::recordingIncidents(path, m_cancelIncidents);
        if (m_cancelIncidents) return;
        QMetaObject::invokeMethod(
            this,
            [this, found = std::move(found)] {
                if (!found) {
                    statusBar()->showMessage(
                        tr("Incidents: %1").arg(QString::fromStdString(found.error())), 15000);
                    return;
                }
                m_view->setIncidents(std::make_shared<const model::IncidentList>(*found));
            },
            Qt::QueuedConnection);
    });
}

std::expected<void, std::string> MainWindow::compareWith(const std::string& path) {
    if (auto ok = attachCompare(m_session, path, ""); !ok) return ok;
    m_view->setBaselineSource([this](model::TimeNs t) { return m_session.compareAt(t); },
                              std::filesystem::path(m_session.comparePath).filename().string());
    showBaselineEvents();
    return {};
}

void MainWindow::showBaselineEvents() {
    if (!m_session.compare) return;
    auto& base = *m_session.compare;
    const model::TimeNs shift = base.beginTime() + m_session.compareOffset - m_session.beginTime();
    m_timeline->axis()->setBaselineEvents(base.reader().events(), shift);
}

MainWindow::~MainWindow() {
    m_cancelIncidents = true;
    if (m_incidentPass.joinable()) m_incidentPass.join();
}

void MainWindow::refreshBookmarks() {
    if (!m_session.replay) return;
    std::vector<views::TimelineBookmark> marks;
    for (const auto& b : m_session.replay->reader().bookmarks())
        marks.push_back({b.time, b.text});
    m_timeline->axis()->setBookmarks(std::move(marks));
}

void MainWindow::setMetric(model::ChannelId channel) {
    m_view->setMetric(channel);
    m_layers->setMetric(channel);
}

void MainWindow::onLayerVisibilityChanged(const QString& id, bool visible) {
    if (m_saveLayers) QSettings().setValue("layers/" + id, visible);
    const views::Layer* layer = m_view->layer(id.toStdString());
    if (!visible || !layer || !layer->info().panel.make) return;
    // Looking at a domain: bring its panel forward.
    const auto& name = layer->info().panel.dockName;
    if (auto* d =
            findChild<QDockWidget*>(QString::fromUtf8(name.data(), static_cast<int>(name.size()))))
        d->raise();
}

void MainWindow::startTour(const std::string& nameOrPath) {
    auto story = loadStory(nameOrPath, *m_session.topology, views::layerIds());
    if (!story || story->kind != importers::Story::Kind::Tour) {
        QMessageBox::warning(
            this, tr("Tour"),
            QString::fromStdString(story ? nameOrPath + " is a demo, not a tour" : story.error()));
        return;
    }
    playStory(*story);
}

void MainWindow::playStory(const importers::Story& story, double focusHold) {
    m_player.reset();
    m_player = std::make_unique<StoryPlayer>(story, *m_view, &m_transport);
    m_player->setMetricSink([this](model::ChannelId c) { setMetric(c); });
    m_player->setFocusHold(focusHold);
    m_player->setAlarmFocus(focusHold > 0);
    m_player->start();
}

void MainWindow::stopStory() {
    m_player.reset();
}

void MainWindow::keyPressEvent(QKeyEvent* e) {
    if (!m_timeline->handleKey(e->key(), e->modifiers())) QMainWindow::keyPressEvent(e);
}

void MainWindow::applySpeed(double speed, bool paused) {
    m_transport.setSpeed(speed);
    m_transport.setPaused(paused);
}

void MainWindow::setWallMode(bool wall) {
    m_wall = wall;
    if (m_wallAction && m_wallAction->isChecked() != wall) {
        // Started with --wall: the action says so, and one F11 leaves.
        const QSignalBlocker quiet(m_wallAction);
        m_wallAction->setChecked(wall);
    }
    for (auto* d : findChildren<QDockWidget*>())
        d->setVisible(!wall);
    menuBar()->setVisible(!wall);
    statusBar()->setVisible(!wall);
    m_view->setWallMode(wall);
    m_view->setShowFrameStats(!wall);
    if (wall)
        showFullScreen();
    else
        showNormal();
}

void MainWindow::updateStatus() {
    QStringList parts;
    if (m_session.sim) {
        const auto stats = m_session.sim->stats();
        parts << tr("Simulator · tick %1 · %2 ms per tick · %3 samples in · %4 batches dropped")
                     .arg(stats.ticks)
                     .arg(stats.meanTickMs, 0, 'f', 2)
                     .arg(stats.samplesApplied)
                     .arg(stats.batchesDropped);
    }
    if (m_session.replay) {
        const auto stats = m_session.replay->stats();
        parts << tr("Replay · %1 frames decoded · %2 ms each (max %3)")
                     .arg(stats.published)
                     .arg(stats.meanDecodeMs, 0, 'f', 1)
                     .arg(stats.maxDecodeMs, 0, 'f', 1);
        if (!m_session.replay->lastError().empty())
            parts << QString::fromStdString(m_session.replay->lastError());
    }
    if (m_session.recorder) {
        const auto r = m_session.recorder->stats();
        parts << tr("Recording %1 · %2 samples · %3 MB · %4 dropped")
                     .arg(QString::fromStdString(m_session.recordingPath))
                     .arg(r.samples)
                     .arg(static_cast<double>(r.bytes) / 1e6, 0, 'f', 1)
                     .arg(r.dropped);
        if (!m_session.recorder->error().empty())
            parts << QString::fromStdString(m_session.recorder->error());
        // On the scene too: a wall has no status line, and a recording with holes must not
        // pass for a whole one.
        const std::string error = m_session.recorder->error();
        m_view->setWarning(!error.empty()  ? "RECORDING FAILED: " + error
                           : r.dropped > 0 ? "RECORDING INCOMPLETE: " + std::to_string(r.dropped) +
                                                 " snapshots dropped (the recorder fell behind)"
                                           : std::string());
    }
    m_status->setText(parts.join("   |   "));
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
