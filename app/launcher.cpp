#include "launcher.h"

#include "alert_writing.h"
#include "check_source.h"
#include "floor_loading.h"
#include "headless_run.h"
#include "importers/floor/floor_file.h"
#include "incident_report.h"
#include "launcher_parts.h"
#include "link_server.h"
#include "live_sources.h"
#include "main_window.h"
#include "source_kinds.h"
#include "story_player.h"
#include "video_render.h"
#include "views/floor_view.h"
#include "views/layer_registry.h"
#include "views/timeline_panel.h"
#include "wall_group.h"

#include <QApplication>
#include <QDateTime>
#include <QImage>
#include <QMessageBox>
#include <QProgressDialog>
#include <QSettings>
#include <QTimer>
#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <sys/resource.h>
#include <thread>

namespace ft::app {

int fail(const std::string& message, int code) {
    std::cerr << "floortwin: " << message << "\n";
    return code;
}

namespace {

std::expected<model::ChannelId, std::string> resolveMetric(const std::string& name) {
    if (name.empty()) return model::ch::GpuTemperature;
    if (auto c = model::findChannel(name)) return *c;
    std::string known;
    for (const auto& info : model::kChannels)
        known += (known.empty() ? "" : ", ") + std::string(info.name);
    return std::unexpected("--metric: unknown channel '" + name + "' (known: " + known + ")");
}

// "rack:A03", "gpu:100", "compute_tray:7", "cdu:0" -> an entity of this floor.
std::expected<model::EntityRef, std::string> resolveSelection(const model::Topology& t,
                                                              const std::string& text) {
    auto ref = importers::resolveEntity(t, text);
    if (!ref) return std::unexpected("--select: " + ref.error());
    return *ref;
}

} // namespace

// This program's peak resident memory, in MiB: the high-water mark of its own address space
// (VmHWM). getrusage's ru_maxrss is not that on Linux: exec keeps the larger of it and the
// peak of the process image it replaced, so a floortwin started by a large process (the
// benchmark, late in its run) reported that process's peak (2.6 GiB where it used 0.4).
double peakResidentMiB() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.starts_with("VmHWM:")) return std::stod(line.substr(6)) / 1024.0;
    rusage self{}; // no procfs: the best there is
    getrusage(RUSAGE_SELF, &self);
    return static_cast<double>(self.ru_maxrss) / 1024.0;
}

namespace {

// --at (or a link's at): the moment to open at, in the run's time; nothing for "now".
// A replay: a time since its start or an instant within it. The simulator: it runs there first
// (live sources have nothing to run). A story plays its own times.
std::expected<std::optional<model::TimeNs>, std::string> startMoment(const Options& o,
                                                                     const Session& s, bool story) {
    if (o.at.empty() || story) return std::nullopt;
    auto at = parseLinkTime(o.at);
    if (!at) return std::unexpected("--" + at.error());
    if (s.replay) {
        const auto begin = s.replay->beginTime(), end = s.replay->endTime();
        const auto t = at->sinceStart ? begin + at->value : at->value;
        if (t < begin || t > end)
            return std::unexpected("at " + o.at + " is outside the recording (" +
                                   model::formatUtc(begin) + " to " + model::formatUtc(end) +
                                   "): opened at its start");
        return t;
    }
    if (!s.sources.empty()) {
        if (at->sinceStart) return std::nullopt; // a live screenshot waits this long for data
        return std::unexpected("at " + o.at +
                               ": a live floor shows the present; a moment is "
                               "opened in a replay");
    }
    const auto start = s.sim->startTime();
    const auto t = at->sinceStart ? start + at->value : at->value;
    if (t < start)
        return std::unexpected("at " + o.at + " is before the simulation's start (" +
                               model::formatUtc(start) + ")");
    if (t - start > model::TimeNs{7} * 24 * 3600 * model::kNsPerSecond)
        return std::unexpected("at " + o.at +
                               " is more than a week after the simulation's "
                               "start (" +
                               model::formatUtc(start) + ")");
    return t == start ? std::optional<model::TimeNs>() : t;
}

} // namespace

// --layers: exactly the layers named show.
void applyLayers(const Options& o, views::FloorView& view) {
    view.setFillModelled(o.fillModelled);
    if (o.layers.empty()) {
        // What the sources read shows without asking: an Alertmanager source, its alerts.
        for (const auto& layer : sourceLayers(o))
            view.setLayerVisible(layer, true);
        return;
    }
    for (const auto& layer : view.layers())
        view.setLayerVisible(layer->id(), std::ranges::find(o.layers, std::string(layer->id())) !=
                                              o.layers.end());
}

// --theme and --palette; without them the window takes what was last chosen in its menus,
// screenshots and videos the standard look (they must be repeatable).
void applyLook(const Options& o, views::FloorView& view, bool fromSettings) {
    const QSettings settings;
    std::string theme = o.theme, palette = o.palette;
    if (theme.empty() && fromSettings)
        theme = settings.value("view/theme", "standard").toString().toStdString();
    if (palette.empty() && fromSettings)
        palette = settings.value("view/palette", "turbo").toString().toStdString();
    for (std::size_t i = 0; i < views::kThemeNames.size(); ++i)
        if (views::kThemeNames[i] == theme) view.setTheme(static_cast<views::DisplayTheme>(i));
    view.setPalette(views::paletteFromName(palette).value_or(views::Palette::Turbo));
}

Launcher::Launcher(Options options, int& argc, char** argv)
    : m_options(std::move(options)), m_startOptions(m_options), m_argc(argc), m_argv(argv) {
    m_sinceStart.start();
}

// The members go in reverse order: the window before the session it shows, both before the
// wall group and the link server that reach them.
Launcher::~Launcher() = default;

int Launcher::run() {
    const Options& o = m_options;
    if (o.help) {
        std::cout << helpText(views::layerIds());
        return 0;
    }
    if (o.helpReference) {
        std::cout << commandLineReference(views::layerIds());
        return 0;
    }
    if (o.version) {
        std::cout << "floortwin 0.1.0\n";
        return 0;
    }
    if (o.registerLinks) return registerLinks();
    auto wall = wallConfigFrom(o);
    if (!wall) return fail(wall.error(), 2);
    m_wallConfig = *wall;
    if (m_wallConfig) m_options.wallGroup = m_wallConfig->group; // a wall file's group too
    auto metric = resolveMetric(o.metric);
    if (!metric) return fail(metric.error(), 2);
    m_metric = *metric;
    QCoreApplication::setOrganizationName("floortwin");
    QCoreApplication::setApplicationName("floortwin");

    // Everything that can be wrong with the arguments is checked before any window exists, so
    // errors need no display.
    if (!o.writeFloor.empty()) return writeFloor();
    if (!o.checkSource.empty()) {
        QCoreApplication app(m_argc, m_argv);
        auto report = checkSource(o);
        if (!report) return fail(report.error(), 1);
        std::cout << report->dump(2) << "\n";
        return 0;
    }
    if (!o.importFile.empty() || !o.importWindow.empty()) return runImport();
    if (!o.focusHold.empty()) {
        model::TimeNs hold = 0;
        if (!model::parseDuration(o.focusHold, hold) || hold < 0)
            return fail("--focus-hold: '" + o.focusHold + "' is not a time such as 60s", 2);
        m_focusHold = model::toSeconds(hold);
    }
    if (forwardLink()) return 0;
    // A demo brings the scenario: its actions, at the simulated times its steps reach.
    ScenarioSource fromDemo;
    if (!o.demo.empty()) fromDemo = demoScenario(o.demo, m_story);
    const bool rendering = !o.renderVideo.empty() || !o.renderFrames.empty();
    // The live demo starts at the wall clock; screenshots, videos and headless runs are
    // repeatable. A paced headless recorder behaves like a live one: it drops rather than stalls.
    // A demo on a recording plays the recording (its floor, its times).
    const auto demoRecording = o.demo.empty() ? std::nullopt : storyRecording(o.demo);
    auto session = !o.forkAt.empty()   ? makeForkSession(o)
                   : !o.replay.empty() ? makeReplaySession(o.replay)
                   : demoRecording
                       ? makeReplaySession(*demoRecording)
                       : makeSimSession(o,
                                        (!o.headless && o.screenshot.empty() && !rendering) ||
                                            !o.wallGroup.empty(),
                                        o.headless && !o.realtime, fromDemo);
    if (!session && o.link && !o.link->namesRun()) return fail(session.error());
    if (!session && o.link) {
        // A link to a recording or floor that is not there: the twin opens on the demo floor.
        m_linkNotes.push_back(session.error() + " (opened the demo floor instead)");
        Options demo = o;
        demo.replay.clear();
        demo.floor.clear();
        demo.inventory.clear();
        demo.sources.clear();
        session = makeSimSession(demo, !o.headless && o.screenshot.empty() && !rendering,
                                 o.headless && !o.realtime);
    }
    if (!session) return fail(session.error());
    if (!o.compare.empty())
        if (auto ok = attachCompare(**session, o.compare, o.compareOffset); !ok)
            return fail(ok.error());
    if (!o.headless)
        if (auto error = loadStoryFor(**session)) return fail(*error, 2);
    if (o.headless) {
        QCoreApplication app(m_argc, m_argv);
        return runHeadless(o, **session);
    }
    // A part of a link that cannot be followed is said and the rest opened; a flag that
    // cannot is an error.
    auto refuse = [this, &o](const std::string& message) -> std::optional<int> {
        if (!o.link) return fail(message, 2);
        m_linkNotes.push_back(message);
        return std::nullopt;
    };
    if (!o.select.empty()) {
        auto ref = resolveSelection(*(*session)->topology, o.select);
        if (ref)
            m_selection = *ref;
        else if (auto rc = refuse(ref.error()))
            return *rc;
    }
    Session& s = **session;
    // A demo plays its own times, and a picture or video of a tour shows it --at seconds in;
    // a window touring a recording opens it at the moment.
    const bool storyTime = m_story && (m_story->kind == importers::Story::Kind::Demo ||
                                       !o.screenshot.empty() || rendering);
    if (auto at = startMoment(o, s, storyTime); !at) {
        if (auto rc = refuse(at.error())) return *rc;
    } else if (*at && s.replay) {
        s.replay->seek(**at);
        s.replay->renderNow();
    } else if (*at) {
        s.sim->runUntil(**at);
    }
    if (s.replay)
        for (const auto& w : s.replay->reader().warnings())
            std::cerr << "floortwin: warning: " << w << "\n";
    if (!o.camera.empty() && !m_story) m_camera = parseLinkCamera(o.camera).value();
    for (const auto& note : m_linkNotes)
        std::cerr << "floortwin: link: " << note << "\n";

    views::FloorView::setDefaultSurfaceFormat();
    QApplication app(m_argc, m_argv);
    if (rendering) return runVideo(s);
    if (!o.report.empty()) {
        auto report = writeIncidentReport(s, o.report, o.width > 0 ? o.width : 1280,
                                          o.height > 0 ? o.height : 720);
        if (!report) return fail(report.error());
        std::cout << "wrote " << report->markdown << " (" << report->moments << " moments)\n";
        return 0;
    }
    if (!o.screenshot.empty()) {
        if (!s.sources.empty()) {
            // A screenshot of live data: let the sources deliver for --at of wall time (3 s).
            s.sim->start(1.0);
            s.startSources();
            QElapsedTimer waited;
            waited.start();
            model::TimeNs wait = 3 * model::kNsPerSecond;
            if (auto at = parseLinkTime(o.at); at && at->sinceStart && at->value > 0)
                wait = at->value;
            while (waited.nsecsElapsed() < wait)
                QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        }
        const int rc = runScreenshot(s);
        for (auto& source : s.sources)
            source->stop(); // while the application still exists
        return rc;
    }
    return runWindow(std::move(*session));
}

int Launcher::runWindow(std::unique_ptr<Session> session) {
    m_session = std::move(session);
    if (m_session->replay) m_session->replay->start();
    // A link to a moment of a recording holds it (the reader came for that moment); one with
    // a speed plays at it.
    if (m_session->replay && m_options.link) {
        if (m_options.link->speed) m_session->replay->setSpeed(*m_options.link->speed);
        m_session->replay->setPaused(!m_options.link->speed && m_options.link->at);
    }
    if (!m_session->replay)
        m_session->sim->start(m_session->sources.empty() ? m_options.speed : 1.0);
    m_session->startSources();
    if (m_wallConfig && !startWall()) return 1;
    // The first window a user opens makes floortwin the handler of floortwin:// links (XDG),
    // unless one is registered already and still there.
    if (!linksRegistered()) registerLinks(true);
    showWindow();
    m_linkServer =
        std::make_unique<LinkServer>([this](const std::string& link) { return openLink(link); });
    if (m_linkServer->listen())
        std::cerr << "floortwin: floortwin:// links opened on this display come to this window"
                  << std::endl;
    else
        m_linkServer.reset(); // another twin on this display takes them
    const int rc = QApplication::exec();
    m_wall.reset();
    m_linkServer.reset();
    m_window.reset();
    m_session.reset();
    return rc;
}

void Launcher::showWindow() {
    const Options& o = m_options;
    installAlertWriter(o);
    m_window = std::make_unique<MainWindow>(*m_session);
    if (!m_session->sources.empty())
        m_window->floorView()->setSourceStatus([session = m_session.get()] {
            return sourceStatus(session->sources, session->suggester.get());
        });
    if (!o.metric.empty()) m_window->setMetric(m_metric);
    if (m_selection) m_window->floorView()->setSelection(m_selection);
    // --layers (and the layers the sources switch on) hold for this run: the saved choice stays.
    m_window->setLayersSaved(false);
    applyLayers(o, *m_window->floorView());
    m_window->setLayersSaved(true);
    applyLook(o, *m_window->floorView(), true);
    if (o.firstFrameMs) {
        QObject::connect(m_window->floorView(), &views::FloorView::firstFrame, qApp, [this] {
            std::cout << "first_frame_ms " << static_cast<double>(m_sinceStart.nsecsElapsed()) / 1e6
                      << std::endl;
            std::cout << "peak_rss_mb " << peakResidentMiB() << std::endl;
            QTimer::singleShot(0, qApp, &QCoreApplication::quit);
        });
    }
    QObject::connect(m_window.get(), &MainWindow::openRecordingRequested, qApp,
                     [this](const QString& path) { openRecording(path); });
    QObject::connect(m_window.get(), &MainWindow::openFloorRequested, qApp,
                     [this](const QString& path) { openFloor(path); });
    QObject::connect(m_window.get(), &MainWindow::forkRequested, qApp,
                     [this](model::TimeNs at, const QString& scenario) { fork(at, scenario); });
    m_window->show();
    if (o.wall) m_window->setWallMode(true);
    if (m_selection && o.frameSelection) m_window->floorView()->frameSelection();
    if (m_camera)
        m_window->floorView()->setCamera(rigOf(*m_camera, m_window->floorView()->camera()));
    applyScreenLook();
    // On a wall only the leader plays the tour; the others follow its camera.
    if (m_story && (!m_wall || m_wall->leading())) m_window->playStory(*m_story, m_focusHold);
    if (!m_linkNotes.empty()) {
        reportLinkNotes(m_linkNotes);
        m_linkNotes.clear();
    }
    QObject::connect(m_window.get(), &MainWindow::playDemoRequested, qApp,
                     [this](const QString& path) { playDemo(path); });
    QObject::connect(
        m_window.get(), &MainWindow::renderVideoRequested, qApp,
        [this](const QString& demo, const QString& out) { renderDemoVideo(demo, out); });
}

std::optional<std::string> Launcher::loadStoryFor(const Session& session) {
    const Options& o = m_options;
    if (!o.demo.empty()) {
        if (m_story) return std::nullopt; // read with the scenario
        // A demo on a recording: read on the recording's floor.
        auto story = loadStory(o.demo, *session.topology, views::layerIds());
        if (!story) return story.error();
        if (story->kind != importers::Story::Kind::Demo)
            return o.demo + " is a tour: run it with --tour";
        m_story = std::move(*story);
        return std::nullopt;
    }
    const bool rendering = !o.renderVideo.empty() || !o.renderFrames.empty();
    // A wall runs the bundled tour unless told otherwise; screenshots of a wall too, so that
    // they show what the wall shows.
    std::string name = o.tour;
    if (name.empty() && o.wall && !o.noTour && !rendering) name = "noc";
    if (name.empty()) return std::nullopt;
    auto story = loadStory(name, *session.topology, views::layerIds());
    if (!story) return story.error();
    if (story->kind != importers::Story::Kind::Tour)
        return name + " is a demo: play it with --demo";
    m_story = std::move(*story);
    return std::nullopt;
}

int Launcher::writeFloor() {
    const Options& o = m_options;
    nlohmann::ordered_json summary;
    auto spec = loadInventory(o.inventory, o.floor, &summary, {o.tokenFile, o.caFile, o.insecure});
    if (!spec) return fail(spec.error());
    // The floor must build: a host table that names a rack twice fails here, not on load.
    if (auto topology = model::Topology::build(*spec); !topology)
        return fail(o.inventory + ": " + topology.error());
    std::ofstream out(o.writeFloor, std::ios::binary);
    out << importers::floorSpecToJson(*spec) << "\n";
    if (!out) return fail("cannot write " + o.writeFloor);
    summary["floor"] = o.writeFloor;
    std::cout << summary.dump(2) << "\n";
    return 0;
}

// --import FILE / --import-window FROM,TO: telemetry into a recording. Headless: print the
// summary. With a window: a progress dialog, then the recording opens for replay.
int Launcher::runImport() {
    const Options& o = m_options;
    auto topology = loadTopology(o.floor, o.inventory, {o.tokenFile, o.caFile, o.insecure});
    if (!topology) return fail(topology.error());
    std::string out = o.record;
    if (out.empty())
        out =
            (std::filesystem::temp_directory_path() /
             ("floortwin-import-" + std::to_string(QDateTime::currentSecsSinceEpoch()) + ".ftrec"))
                .string();
    auto work = [&](const std::function<void(double)>& progress, const std::atomic<bool>* cancel) {
        return !o.importFile.empty()
                   ? importFileToRecording(o, *topology, o.importFile, out, progress, cancel)
                   : importWindowToRecording(o, *topology, o.importWindow, out, progress, cancel);
    };
    if (o.headless) {
        QCoreApplication app(m_argc, m_argv);
        auto summary = work({}, nullptr);
        if (!summary) return fail(summary.error(), 1);
        std::cout << summary->dump(2) << "\n";
        return 0;
    }
    views::FloorView::setDefaultSurfaceFormat();
    QApplication app(m_argc, m_argv);
    std::atomic<bool> cancel{false};
    std::atomic<double> progress{0.0};
    std::optional<std::expected<nlohmann::json, std::string>> result;
    std::atomic<bool> finished{false};
    std::thread worker([&] {
        result = work([&](double p) { progress = p; }, &cancel);
        finished = true;
    });
    QProgressDialog dialog(
        QObject::tr("Importing %1…")
            .arg(QString::fromStdString(!o.importFile.empty() ? o.importFile : o.importWindow)),
        QObject::tr("Cancel"), 0, 1000);
    dialog.setMinimumDuration(0);
    QObject::connect(&dialog, &QProgressDialog::canceled, [&] { cancel = true; });
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout,
                     [&] { dialog.setValue(static_cast<int>(progress.load() * 1000)); });
    poll.start(100);
    while (!finished)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    worker.join();
    poll.stop();
    dialog.close();
    if (!*result) {
        if (!cancel)
            QMessageBox::warning(nullptr, QObject::tr("Import"),
                                 QString::fromStdString(result->error()));
        return 1;
    }
    auto session = makeReplaySession(out);
    if (!session) return fail(session.error());
    return runWindow(std::move(*session));
}

} // namespace ft::app
