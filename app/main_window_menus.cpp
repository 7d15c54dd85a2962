// MainWindow's menus: File (open, compare, import, export, demos), View (layers, tours, theme,
// palette, wall mode) and Playback / Simulation (speed, fork, bookmarks, incident reports).
#include "floor_loading.h"
#include "importers/floor/floor_file.h"
#include "importers/formats/telemetry_loader.h"
#include "importers/recording/recording_incidents.h"
#include "incident_report.h"
#include "live_sources.h"
#include "main_window.h"
#include "source_kinds.h"
#include "story_player.h"
#include "views/floor_view.h"
#include "views/incidents_panel.h"
#include "views/inspector_panel.h"
#include "views/layer_registry.h"
#include "views/layers_panel.h"
#include "views/sources_panel.h"
#include "views/timeline_panel.h"

#include <QAction>
#include <QActionGroup>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>

namespace ft::app {

void MainWindow::buildMenus() {
    buildFileMenu();
    buildViewMenu();
    buildPlayMenu();
}

void MainWindow::buildFileMenu() {
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
}

void MainWindow::buildViewMenu() {
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
    view->addAction(tr("Copy &link to this view"), QKeySequence(tr("Ctrl+Shift+C")), this,
                    [this] { copyLink(); });
    view->addAction(tr("Lin&ks…"), this, &MainWindow::editLinkTemplates);
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
    m_wallAction = view->addAction(tr("&Wall display mode"), QKeySequence(Qt::Key_F11));
    m_wallAction->setCheckable(true);
    connect(m_wallAction, &QAction::toggled, this, &MainWindow::setWallMode);
    addAction(m_wallAction); // keeps F11 working while the menu bar is hidden
}

void MainWindow::buildPlayMenu() {
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

} // namespace ft::app
