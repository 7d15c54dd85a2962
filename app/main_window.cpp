#include "main_window.h"

#include "floor_loading.h"
#include "importers/floor/floor_file.h"
#include "importers/formats/telemetry_loader.h"
#include "importers/recording/recording_incidents.h"
#include "incident_report.h"
#include "live_sources.h"
#include "source_kinds.h"
#include "story_player.h"
#include "views/cooling_panel.h"
#include "views/fabric_panel.h"
#include "views/floor_view.h"
#include "views/incidents_panel.h"
#include "views/inspector_panel.h"
#include "views/layer_registry.h"
#include "views/layers_panel.h"
#include "views/lifecycle_board.h"
#include "views/power_panel.h"
#include "views/sources_panel.h"
#include "views/storage_panel.h"
#include "views/timeline_panel.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDateTime>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QProcess>
#include <QProgressDialog>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QThread>
#include <filesystem>
#include <fstream>

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
    m_cooling = new views::CoolingPanel(m_view);
    auto* coolingDock = dock(tr("Cooling"), "coolingDock", m_cooling, Qt::RightDockWidgetArea);
    tabifyDockWidget(inspectorDock, coolingDock);
    m_storagePanel = new views::StoragePanel(m_view);
    auto* storageDock = dock(tr("Storage"), "storageDock", m_storagePanel, Qt::RightDockWidgetArea);
    tabifyDockWidget(coolingDock, storageDock);
    m_fabric = new views::FabricPanel(m_view);
    auto* fabricDock = dock(tr("Fabric"), "fabricDock", m_fabric, Qt::RightDockWidgetArea);
    tabifyDockWidget(storageDock, fabricDock);
    m_power = new views::PowerPanel(m_view);
    auto* powerDock = dock(tr("Power"), "powerDock", m_power, Qt::RightDockWidgetArea);
    tabifyDockWidget(fabricDock, powerDock);
    m_sources = new views::SourcesPanel(m_view);
    auto* sourcesDock = dock(tr("Sources"), "sourcesDock", m_sources, Qt::RightDockWidgetArea);
    connect(m_view, &views::FloorView::sourcesRequested, this, [this, sourcesDock] {
        sourcesDock->show();
        sourcesDock->raise();
        m_sources->showMapping();
    });
    tabifyDockWidget(powerDock, sourcesDock);
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
    if (session.compare) showBaselineEvents();
    auto* timelineDock = dock(tr("Timeline"), "timelineDock", m_timeline, Qt::BottomDockWidgetArea);
    m_board = new views::LifecycleBoard(m_view);
    auto* boardDock =
        dock(tr("Lifecycle board"), "lifecycleDock", m_board, Qt::BottomDockWidgetArea);
    tabifyDockWidget(timelineDock, boardDock);
    timelineDock->raise();

    if (session.replay) {
        auto& replay = *session.replay;
        m_timeline->axis()->setEvents(replay.reader().events());
        m_timeline->setBookmarkSink(
            [this, &replay](model::TimeNs t,
                            const std::string& text) -> std::optional<std::string> {
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
        // The panels' charts read the recording's past: full after a seek, and backwards.
        const views::ChannelHistory past = [&replay](model::ChannelId c, model::TimeNs t,
                                                     std::vector<float>& out) {
            return replay.channelAt(c, t, out);
        };
        m_cooling->setHistorySource(past);
        m_storagePanel->setHistorySource(past);
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

    QSettings settings;
    resize(1600, 950);
    if (restoreLayout) {
        restoreGeometry(settings.value("window/geometry").toByteArray());
        restoreState(settings.value("window/state").toByteArray());
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
    QSettings().setValue("layers/" + id, visible);
    const views::Layer* layer = m_view->layer(id.toStdString());
    if (!visible || !layer || layer->info().panel.empty()) return;
    // Looking at a domain: bring its panel forward.
    const auto& panel = layer->info().panel;
    if (auto* d = findChild<QDockWidget*>(
            QString::fromUtf8(panel.data(), static_cast<int>(panel.size()))))
        d->raise();
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open recording…"), QKeySequence::Open, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open recording"), QString(),
                                                          tr("floortwin recordings (*.ftrec)"));
        if (!path.isEmpty()) emit openRecordingRequested(path);
    });
    file->addAction(tr("&Compare with…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Compare with a baseline recording"), QString(), tr("Recordings (*.ftrec)"));
        if (path.isEmpty()) return;
        if (auto ok = compareWith(path.toStdString()); !ok)
            QMessageBox::warning(this, tr("Compare"), QString::fromStdString(ok.error()));
    });
    file->addAction(tr("&End the comparison"), this, [this] {
        m_view->setBaselineSource({}, "");
        m_timeline->axis()->setBaselineEvents({}, 0);
        m_session.compare.reset();
    });
    file->addAction(tr("&Import telemetry file…"), this, &MainWindow::importFileDialog);
    file->addAction(tr("Import incident &window from Prometheus…"), this,
                    &MainWindow::importWindowDialog);
    file->addAction(tr("Import in&ventory (CSV, NetBox)…"), this,
                    &MainWindow::importInventoryDialog);
    file->addSeparator();
    file->addAction(tr("Export view as &PNG…"), this, &MainWindow::exportViewDialog);
    QAction* frames = file->addAction(tr("Export &frames…"), this, &MainWindow::exportFramesDialog);
    frames->setEnabled(m_session.replay != nullptr);
    frames->setToolTip(
        tr("A time range of a replay as numbered PNGs (and a video when ffmpeg is installed)"));
    file->addSeparator();
    file->addAction(tr("Play &demo…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Play demo"), QString(), tr("floortwin demos (*.json);;Bundled (:/demos/*)"));
        if (!path.isEmpty()) emit playDemoRequested(path);
    });
    file->addAction(tr("Play the bundled demo"), this,
                    [this] { emit playDemoRequested("vera-rubin-floor"); });
    file->addAction(tr("Render demo to &video…"), this, [this] {
        const QString demo = QFileDialog::getOpenFileName(this, tr("Demo to render"), QString(),
                                                          tr("floortwin demos (*.json)"));
        if (demo.isEmpty()) return;
        const QString out = QFileDialog::getSaveFileName(this, tr("Write the video"), "demo.mp4",
                                                         tr("H.264 video (*.mp4)"));
        if (!out.isEmpty()) emit renderVideoRequested(demo, out);
    });
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    quit->setMenuRole(QAction::QuitRole);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    QMenu* layers = view->addMenu(tr("&Layers"));
    for (const auto& layer : m_view->layers()) {
        const std::string id(layer->id());
        const auto& title = layer->info().title;
        QAction* a =
            layers->addAction(QString::fromUtf8(title.data(), static_cast<int>(title.size())));
        a->setCheckable(true);
        a->setChecked(layer->visible());
        connect(a, &QAction::toggled, m_view,
                [this, id](bool on) { m_view->setLayerVisible(id, on); });
        connect(m_view, &views::FloorView::layerVisibilityChanged, a,
                [a, id](const QString& changed, bool on) {
                    if (changed.toStdString() != id) return;
                    const QSignalBlocker block(a);
                    a->setChecked(on);
                });
    }
    view->addAction(tr("&Overview"), QKeySequence(Qt::Key_R), m_view,
                    &views::FloorView::resetCamera);
    view->addAction(tr("&Top view"), QKeySequence(Qt::Key_T), m_view, &views::FloorView::topView);
    view->addAction(tr("&Frame selection"), QKeySequence(Qt::Key_F), m_view,
                    &views::FloorView::frameSelection);
    view->addSeparator();
    for (auto* d : findChildren<QDockWidget*>())
        view->addAction(d->toggleViewAction());
    view->addSeparator();
    QAction* fill = view->addAction(tr("Fill gaps with the &model"));
    fill->setCheckable(true);
    fill->setChecked(m_view->fillModelled());
    fill->setToolTip(tr("With telemetry: draw what was never measured with the model's values, "
                        "desaturated and hatched"));
    connect(fill, &QAction::toggled, m_view, &views::FloorView::setFillModelled);
    connect(m_view, &views::FloorView::fillModelledChanged, fill, [fill](bool on) {
        const QSignalBlocker block(fill);
        fill->setChecked(on);
    });
    QMenu* tour = view->addMenu(tr("T&our"));
    tour->addAction(tr("Run the &NOC tour"), this, [this] { startTour("noc"); });
    tour->addAction(tr("Run a tour &file…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Run a tour"), QString(),
                                                          tr("floortwin tours (*.json)"));
        if (!path.isEmpty()) startTour(path.toStdString());
    });
    tour->addAction(tr("&Stop the tour"), this, &MainWindow::stopStory);
    // Theme and palette: kept for the next start.
    QMenu* theme = view->addMenu(tr("T&heme"));
    auto* themes = new QActionGroup(theme);
    for (std::size_t i = 0; i < views::kThemeNames.size(); ++i) {
        static const char* const kTitles[] = {"&Standard", "&Dim (dark NOC)",
                                              "&Bright (lit room, projector)"};
        QAction* a = theme->addAction(tr(kTitles[i]));
        a->setCheckable(true);
        a->setChecked(static_cast<std::size_t>(m_view->theme()) == i);
        themes->addAction(a);
        connect(a, &QAction::triggered, this, [this, i] {
            m_view->setTheme(static_cast<views::DisplayTheme>(i));
            QSettings().setValue("view/theme", QString::fromUtf8(views::kThemeNames[i].data()));
        });
    }
    QMenu* palette = view->addMenu(tr("Colour &palette"));
    auto* palettes = new QActionGroup(palette);
    for (std::size_t i = 0; i < views::kPaletteNames.size(); ++i) {
        static const char* const kTitles[] = {"&Turbo", "&Viridis (colour-vision safe)",
                                              "&Cividis (colour-vision safe)"};
        QAction* a = palette->addAction(tr(kTitles[i]));
        a->setCheckable(true);
        a->setChecked(static_cast<std::size_t>(views::ColorScale::currentPalette()) == i);
        palettes->addAction(a);
        connect(a, &QAction::triggered, this, [this, i] {
            m_view->setPalette(static_cast<views::Palette>(i));
            QSettings().setValue("view/palette", QString::fromUtf8(views::kPaletteNames[i].data()));
        });
    }
    QAction* wall = view->addAction(tr("&Wall display mode"), QKeySequence(Qt::Key_F11));
    wall->setCheckable(true);
    connect(wall, &QAction::toggled, this, &MainWindow::setWallMode);
    addAction(wall); // keeps F11 working while the menu bar is hidden

    QMenu* play = menuBar()->addMenu(m_session.replay ? tr("&Playback") : tr("&Simulation"));
    play->addAction(tr("Play / pause\tSpace"), this,
                    [this] { applySpeed(m_transport.speed(), !m_transport.paused()); });
    for (double s : {1.0, 10.0, 60.0, 600.0})
        play->addAction(tr("Speed %1×").arg(s), this, [this, s] { applySpeed(s, false); });
    if (m_session.replay) {
        play->addSeparator();
        play->addAction(tr("Previous event\t["), this,
                        [this] { m_session.replay->jumpToEvent(-1); });
        play->addAction(tr("Next event\t]"), this, [this] { m_session.replay->jumpToEvent(1); });
        play->addAction(tr("Bookmark this moment\tB"), m_timeline,
                        &views::TimelinePanel::addBookmark);
        play->addAction(tr("Save bookmarks as a &demo…"), this, &MainWindow::saveBookmarksAsDemo);
        play->addAction(tr("&Fork here (what-if)…"), this, [this] {
            // A simulation from this moment, with the scenario the user picks added to it.
            QStringList choices{tr("(no further actions)")};
            for (const auto& n : bundledScenarios())
                choices << QString::fromStdString(n);
            choices << tr("A scenario file…");
            bool ok = false;
            const QString pick = QInputDialog::getItem(
                this, tr("Fork here"), tr("Run on from this moment with:"), choices, 0, false, &ok);
            if (!ok) return;
            QString scenario;
            if (pick == choices.back())
                scenario = QFileDialog::getOpenFileName(this, tr("Scenario"), QString(),
                                                        tr("Scenarios (*.json)"));
            else if (pick != choices.front())
                scenario = pick;
            const auto at = m_session.replay->position() - m_session.replay->beginTime();
            emit forkRequested(at, scenario);
        });
        play->addAction(tr("Export incident &report…"), this, [this] {
            const QString dir = QFileDialog::getExistingDirectory(this, tr("Report into folder"));
            if (dir.isEmpty()) return;
            auto report = writeIncidentReport(m_session, dir.toStdString());
            if (!report)
                QMessageBox::warning(this, tr("Incident report"),
                                     QString::fromStdString(report.error()));
            else
                QMessageBox::information(this, tr("Incident report"),
                                         tr("Wrote %1 with %2 moments.")
                                             .arg(QString::fromStdString(report->markdown))
                                             .arg(report->moments));
        });
    }
}

void MainWindow::saveBookmarksAsDemo() {
    if (!m_session.replay) return;
    std::vector<importers::StoryMark> marks;
    for (const auto& b : m_session.replay->reader().bookmarks())
        marks.push_back({b.time, b.text, b.camera});
    if (marks.empty()) {
        QMessageBox::information(this, tr("Save bookmarks as a demo"),
                                 tr("This recording has no bookmarks yet (B adds one)."));
        return;
    }
    const QString recording =
        QFileInfo(QString::fromStdString(m_session.recordingPath)).absoluteFilePath();
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save bookmarks as a demo"),
        QFileInfo(recording).completeBaseName() + "-demo.json", tr("floortwin demos (*.json)"));
    if (path.isEmpty()) return;
    QFile out(path);
    const std::string text =
        importers::demoFromBookmarks(marks, recording.toStdString(), m_session.replay->beginTime());
    if (!out.open(QIODevice::WriteOnly) ||
        out.write(text.data(), static_cast<qint64>(text.size())) !=
            static_cast<qint64>(text.size()))
        QMessageBox::warning(this, tr("Save bookmarks as a demo"), tr("Cannot write %1").arg(path));
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
    }
    m_status->setText(parts.join("   |   "));
}

bool MainWindow::runWithProgress(
    const QString& label,
    const std::function<void(const std::function<void(double)>&, const std::atomic<bool>*)>& work) {
    std::atomic<bool> cancel{false};
    std::atomic<double> progress{0.0};
    std::atomic<bool> finished{false};
    QThread* worker = QThread::create([&] {
        work([&](double p) { progress = p; }, &cancel);
        finished = true;
    });
    QProgressDialog dialog(label, tr("Cancel"), 0, 1000, this);
    dialog.setWindowModality(Qt::WindowModal);
    dialog.setMinimumDuration(0);
    connect(&dialog, &QProgressDialog::canceled, this, [&] { cancel = true; });
    worker->start();
    while (!finished) {
        dialog.setValue(static_cast<int>(progress.load() * 1000));
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        QThread::msleep(20);
    }
    worker->wait();
    delete worker;
    dialog.close();
    return !cancel;
}

void MainWindow::runImport(const QString& what,
                           const std::function<std::expected<nlohmann::json, std::string>(
                               const std::function<void(double)>&, const std::atomic<bool>*)>& work,
                           const QString& outPath) {
    std::expected<nlohmann::json, std::string> result = std::unexpected(std::string("not run"));
    const bool done =
        runWithProgress(tr("Importing %1…").arg(what),
                        [&](const std::function<void(double)>& progress,
                            const std::atomic<bool>* cancel) { result = work(progress, cancel); });
    if (!result) {
        if (done) QMessageBox::warning(this, tr("Import"), QString::fromStdString(result.error()));
        return;
    }
    statusBar()->showMessage(
        tr("Imported %1 samples into %2")
            .arg(QString::number((*result)["recorded_samples"].get<double>(), 'f', 0), outPath),
        10000);
    emit openRecordingRequested(outPath);
}

void MainWindow::importFileDialog() {
    const QString file = QFileDialog::getOpenFileName(
        this, tr("Import telemetry"), QString(),
        tr("Telemetry (%1);;All files (*)")
            .arg(QString::fromStdString(importers::telemetryFilePatterns())));
    if (file.isEmpty()) return;
    const QString out = QFileDialog::getSaveFileName(this, tr("Save the recording as"),
                                                     QFileInfo(file).completeBaseName() + ".ftrec",
                                                     tr("floortwin recordings (*.ftrec)"));
    if (out.isEmpty()) return;
    auto topology = m_session.topology;
    runImport(
        QFileInfo(file).fileName(),
        [=](const std::function<void(double)>& progress, const std::atomic<bool>* cancel) {
            return importFileToRecording(Options{}, topology, file.toStdString(), out.toStdString(),
                                         progress, cancel);
        },
        out);
}

void MainWindow::importInventoryDialog() {
    QDialog ask(this);
    ask.setWindowTitle(tr("Import inventory"));
    auto* form = new QFormLayout(&ask);
    auto* kind = new QComboBox(&ask);
    kind->addItems({tr("CSV or TSV export"), tr("NetBox server (REST API)"),
                    tr("NetBox dump (a folder of API pages)")});
    QSettings settings;
    kind->setCurrentIndex(settings.value("inventory/kind", 0).toInt());
    auto* where = new QLineEdit(settings.value("inventory/where").toString(), &ask);
    auto* browse = new QPushButton(tr("Browse…"), &ask);
    auto* whereRow = new QHBoxLayout;
    whereRow->addWidget(where, 1);
    whereRow->addWidget(browse);
    auto* token = new QLineEdit(settings.value("inventory/token_file").toString(), &ask);
    token->setPlaceholderText(tr("a file holding the API token"));
    auto* out = new QLineEdit(settings.value("inventory/floor", "floor.json").toString(), &ask);
    form->addRow(tr("Inventory"), kind);
    form->addRow(tr("File, URL or folder"), whereRow);
    form->addRow(tr("Token file"), token);
    form->addRow(tr("Write the floor to"), out);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &ask);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, &ask, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &ask, &QDialog::reject);
    auto update = [=] {
        token->setEnabled(kind->currentIndex() == 1);
        browse->setEnabled(kind->currentIndex() != 1);
        where->setPlaceholderText(kind->currentIndex() == 1 ? "https://netbox.example" : QString());
    };
    connect(kind, &QComboBox::currentIndexChanged, &ask, update);
    update();
    connect(browse, &QPushButton::clicked, &ask, [=, &ask] {
        const QString picked =
            kind->currentIndex() == 0
                ? QFileDialog::getOpenFileName(&ask, tr("Inventory export"), where->text(),
                                               tr("Inventories (*.csv *.tsv *.txt);;All files (*)"))
                : QFileDialog::getExistingDirectory(&ask, tr("NetBox dump folder"), where->text());
        if (!picked.isEmpty()) where->setText(picked);
    });
    if (ask.exec() != QDialog::Accepted || where->text().isEmpty() || out->text().isEmpty()) return;
    settings.setValue("inventory/kind", kind->currentIndex());
    settings.setValue("inventory/where", where->text());
    settings.setValue("inventory/token_file", token->text());
    settings.setValue("inventory/floor", out->text());
    const std::string inventory = (kind->currentIndex() == 1   ? "netbox="
                                   : kind->currentIndex() == 2 ? "netbox-dump="
                                                               : "") +
                                  where->text().toStdString();
    const std::string tokenFile = token->text().toStdString(), outPath = out->text().toStdString();

    std::expected<nlohmann::ordered_json, std::string> result =
        std::unexpected(std::string("not run"));
    const bool done = runWithProgress(
        tr("Reading %1…").arg(where->text()),
        [&](const std::function<void(double)>& progress, const std::atomic<bool>* cancel) {
            nlohmann::ordered_json summary;
            InventoryAccess access{tokenFile, {}, false, progress, cancel};
            auto spec = loadInventory(inventory, {}, &summary, access);
            if (!spec) {
                result = std::unexpected(spec.error());
            } else if (auto t = model::Topology::build(*spec); !t) {
                result = std::unexpected(inventory + ": " + t.error());
            } else {
                std::ofstream file(outPath, std::ios::binary);
                file << importers::floorSpecToJson(*spec) << "\n";
                result = file ? std::expected<nlohmann::ordered_json, std::string>(summary)
                              : std::unexpected("cannot write " + outPath);
            }
        });
    if (!result) {
        if (done)
            QMessageBox::warning(this, tr("Import inventory"),
                                 QString::fromStdString(result.error()));
        return;
    }
    statusBar()->showMessage(tr("Inventory: %1 hosts in %2 racks, %3 rows; floor written to %4")
                                 .arg((*result)["hosts"].get<int>())
                                 .arg((*result)["racks"].get<int>())
                                 .arg((*result)["rows"].get<int>())
                                 .arg(out->text()),
                             15000);
    emit openFloorRequested(out->text());
}

void MainWindow::importWindowDialog() {
    bool ok = false;
    const QString url = QInputDialog::getText(
        this, tr("Import incident window"),
        tr("Prometheus URL (or Thanos, Mimir, VictoriaMetrics):"), QLineEdit::Normal,
        QSettings().value("import/prometheus", "http://127.0.0.1:9090").toString(), &ok);
    if (!ok || url.isEmpty()) return;
    const QString to = QDateTime::currentDateTimeUtc().toString(Qt::ISODate);
    const QString from = QDateTime::currentDateTimeUtc().addSecs(-3600).toString(Qt::ISODate);
    const QString window =
        QInputDialog::getText(this, tr("Import incident window"), tr("From,To (UTC, RFC 3339):"),
                              QLineEdit::Normal, from + "," + to, &ok);
    if (!ok || window.isEmpty()) return;
    const QString out = QFileDialog::getSaveFileName(
        this, tr("Save the recording as"), "incident.ftrec", tr("floortwin recordings (*.ftrec)"));
    if (out.isEmpty()) return;
    QSettings().setValue("import/prometheus", url);
    Options o;
    o.sources = {std::string(windowSourceKind().scheme) + "=" + url.toStdString()};
    auto topology = m_session.topology;
    runImport(
        window,
        [=](const std::function<void(double)>& progress, const std::atomic<bool>* cancel) {
            return importWindowToRecording(o, topology, window.toStdString(), out.toStdString(),
                                           progress, cancel);
        },
        out);
}

void MainWindow::exportViewDialog() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export view"), "floortwin.png",
                                                      tr("PNG images (*.png)"));
    if (path.isEmpty()) return;
    if (!m_view->grabFramebuffer().save(path))
        QMessageBox::warning(this, tr("Export view"), tr("Cannot write %1").arg(path));
}

std::expected<int, std::string> MainWindow::exportFrames(const QString& folder, model::TimeNs from,
                                                         model::TimeNs to, model::TimeNs step) {
    if (!m_session.replay) return std::unexpected("frames are exported from a replay");
    if (!QDir().mkpath(folder)) return std::unexpected("cannot create " + folder.toStdString());
    auto& replay = *m_session.replay;
    const bool wasPaused = replay.paused();
    replay.setPaused(true);
    const int total = static_cast<int>((to - from) / step) + 1;
    QProgressDialog progress(tr("Exporting frames…"), tr("Cancel"), 0, total, this);
    progress.setWindowModality(Qt::WindowModal);
    progress.setMinimumDuration(300);
    m_view->setAnimated(false);
    int written = 0;
    for (model::TimeNs t = from; t <= to && !progress.wasCanceled(); t += step) {
        replay.seek(t);
        replay.renderNow();
        m_view->refreshSnapshot();
        const QString name =
            QString("%1/frame_%2.png").arg(folder).arg(written + 1, 5, 10, QChar('0'));
        if (!m_view->grabFramebuffer().save(name))
            return std::unexpected("cannot write " + name.toStdString());
        progress.setValue(++written);
        QCoreApplication::processEvents();
    }
    m_view->setAnimated(true);
    replay.setPaused(wasPaused);
    // A video too, when ffmpeg is there.
    const QString ffmpeg = QStandardPaths::findExecutable("ffmpeg");
    if (!ffmpeg.isEmpty() && written > 1) {
        QProcess encode;
        encode.start(ffmpeg, {"-y", "-loglevel", "error", "-framerate", "30", "-i",
                              folder + "/frame_%05d.png", "-pix_fmt", "yuv420p", "-vf",
                              "scale=trunc(iw/2)*2:trunc(ih/2)*2", folder + "/floortwin.mp4"});
        encode.waitForFinished(600000);
    }
    return written;
}

void MainWindow::exportFramesDialog() {
    if (!m_session.replay) return;
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Export frames into"));
    if (folder.isEmpty()) return;
    auto& replay = *m_session.replay;
    // The loop range when there is one, else the whole recording.
    const auto range = replay.loop().value_or(std::pair{replay.beginTime(), replay.endTime()});
    bool ok = false;
    const double seconds =
        QInputDialog::getDouble(this, tr("Export frames"), tr("Recording seconds per frame:"),
                                std::max(model::toSeconds(replay.tickLength()),
                                         model::toSeconds(range.second - range.first) / 600.0),
                                model::toSeconds(replay.tickLength()), 3600, 2, &ok);
    if (!ok) return;
    const auto result = exportFrames(folder, range.first, range.second,
                                     std::max(replay.tickLength(), model::fromSeconds(seconds)));
    if (!result)
        QMessageBox::warning(this, tr("Export frames"), QString::fromStdString(result.error()));
    else
        statusBar()->showMessage(tr("Wrote %1 frames to %2").arg(*result).arg(folder), 10000);
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
