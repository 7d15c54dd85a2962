// floortwin: the demo (no arguments), a floor viewer, a recorder and replayer, a screenshot tool
// and a headless runner.
#include "command_line.h"
#include "floor_loading.h"
#include "headless_run.h"
#include "main_window.h"
#include "live_sources.h"
#include "session.h"
#include "views/floor_view.h"
#include "views/timeline_panel.h"

#include <QApplication>
#include <QDateTime>
#include <filesystem>
#include <atomic>
#include <thread>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QMessageBox>
#include <QProgressDialog>
#include <QSurfaceFormat>
#include <QTimer>

#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <optional>

namespace {

using namespace ft;

int fail(const std::string& message, int code = 1) {
    std::cerr << "floortwin: " << message << "\n";
    return code;
}

std::expected<model::ChannelId, std::string> resolveMetric(const std::string& name) {
    if (name.empty()) return model::ch::GpuTemperature;
    if (auto c = model::findChannel(name)) return *c;
    std::string known;
    for (const auto& info : model::kChannels) known += (known.empty() ? "" : ", ") + std::string(info.name);
    return std::unexpected("--metric: unknown channel '" + name + "' (known: " + known + ")");
}

// "rack:A03", "gpu:100", "compute_tray:7", "cdu:0" -> an entity of this floor.
std::expected<model::EntityRef, std::string> resolveSelection(const model::Topology& t, const std::string& text) {
    const auto colon = text.find(':');
    const auto kind = model::entityKindFromName(text.substr(0, colon == std::string::npos ? 0 : colon));
    if (colon == std::string::npos || !kind)
        return std::unexpected("--select: expected KIND:NAME or KIND:ID (kinds: rack, compute_tray, gpu, switch_tray, cdu), got '" + text + "'");
    if (auto id = t.find(*kind, text.substr(colon + 1))) return model::EntityRef{*kind, *id};
    return std::unexpected("--select: no " + std::string(model::entityKindName(*kind)) + " '" + text.substr(colon + 1) + "' on this floor");
}

bool has(const app::Options& o, const char* layer) { return std::ranges::find(o.layers, layer) != o.layers.end(); }

// --layers: exactly the layers named show.
void applyLayers(const app::Options& o, views::FloorView& view) {
    if (o.layers.empty()) return;
    for (const auto& layer : view.layers()) view.setLayerVisible(layer->id(), has(o, std::string(layer->id()).c_str()));
}

int takeScreenshot(const app::Options& o, app::Session& session, model::ChannelId metric, std::optional<model::EntityRef> selection) {
    const int w = o.width > 0 ? o.width : 1920, h = o.height > 0 ? o.height : 1080;
    QImage image;
    if (o.windowShot) {
        app::MainWindow window(session, nullptr, false);
        window.setMetric(metric);
        applyLayers(o, *window.floorView());
        window.floorView()->setShowFrameStats(false);
        if (!session.sources.empty()) window.floorView()->setSourceStatus([&session] { return app::sourceStatus(session.sources); });
        window.floorView()->setAnimated(false);
        window.setAttribute(Qt::WA_DontShowOnScreen, true);
        window.resize(w, h);
        window.show();
        if (selection) window.floorView()->setSelection(selection);
        if (selection && o.frameSelection) window.floorView()->frameSelection();
        QCoreApplication::processEvents();
        window.timeline()->refresh();
        image = window.grab().toImage();
    } else {
        auto& transport = session.transport();
        views::FloorView view(session.topology, [&transport] { return transport.latest(); });
        view.setShowFrameStats(false); // screenshots must be repeatable
        view.setAnimated(false);
        view.setSourceLabel(session.sourceLabel);
        view.setTransport(&transport);
        if (!session.sources.empty()) view.setSourceStatus([&session] { return app::sourceStatus(session.sources); });
        view.setMetric(metric);
        applyLayers(o, view);
        view.setWallMode(o.wall);
        view.setSelection(selection);
        if (selection && o.frameSelection) view.frameSelection();
        view.setAttribute(Qt::WA_DontShowOnScreen, true);
        view.resize(w, h);
        view.show();
        QCoreApplication::processEvents();
        image = view.grabFramebuffer();
        if (image.isNull() || image.width() != w || image.height() != h)
            return fail("could not render the screenshot (no OpenGL 3.2 context? run under X or xvfb-run)");
    }
    if (!image.save(QString::fromStdString(o.screenshot))) return fail("cannot write " + o.screenshot);
    std::cout << "wrote " << o.screenshot << " (" << image.width() << "x" << image.height() << ")\n";
    return 0;
}

std::expected<std::unique_ptr<app::Session>, std::string> makeSession(const app::Options& o, bool headless) {
    if (!o.replay.empty()) return app::makeReplaySession(o.replay);
    // The live demo starts at the wall clock; screenshots and headless runs are repeatable.
    // A paced headless recorder behaves like a live one: it drops rather than stalls.
    return app::makeSimSession(o, !headless && o.screenshot.empty(), headless && !o.realtime);
}

// --import FILE / --import-window FROM,TO: telemetry into a recording. Headless: print the
// summary. With a window: a progress dialog, then the recording opens for replay.
int runImport(const app::Options& o, int argc, char** argv) {
    auto topology = app::loadTopology(o.floor);
    if (!topology) return fail(topology.error());
    std::string out = o.record;
    if (out.empty()) out = (std::filesystem::temp_directory_path() / ("floortwin-import-" + std::to_string(QDateTime::currentSecsSinceEpoch()) + ".ftrec")).string();
    auto run = [&](const std::function<void(double)>& progress, const std::atomic<bool>* cancel) {
        return !o.importFile.empty() ? app::importFileToRecording(o, *topology, o.importFile, out, progress, cancel)
                                     : app::importWindowToRecording(o, *topology, o.importWindow, out, progress, cancel);
    };
    if (o.headless) {
        QCoreApplication app(argc, argv);
        auto summary = run({}, nullptr);
        if (!summary) return fail(summary.error(), 1);
        std::cout << summary->dump(2) << "\n";
        return 0;
    }
    views::FloorView::setDefaultSurfaceFormat();
    QApplication app(argc, argv);
    std::atomic<bool> cancel{false};
    std::atomic<double> progress{0.0};
    std::optional<std::expected<nlohmann::json, std::string>> result;
    std::thread worker([&] { result = run([&](double p) { progress = p; }, &cancel); });
    QProgressDialog dialog(QObject::tr("Importing %1…").arg(QString::fromStdString(!o.importFile.empty() ? o.importFile : o.importWindow)),
                           QObject::tr("Cancel"), 0, 1000);
    dialog.setMinimumDuration(0);
    QObject::connect(&dialog, &QProgressDialog::canceled, [&] { cancel = true; });
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, [&] { dialog.setValue(static_cast<int>(progress.load() * 1000)); });
    poll.start(100);
    while (!result) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        if (result) break;
    }
    worker.join();
    poll.stop();
    dialog.close();
    if (!*result) {
        if (!cancel) QMessageBox::warning(nullptr, QObject::tr("Import"), QString::fromStdString(result->error()));
        return 1;
    }
    auto session = app::makeReplaySession(out);
    if (!session) return fail(session.error());
    app::MainWindow window(**session);
    (*session)->replay->start();
    window.show();
    return app.exec();
}

} // namespace

int main(int argc, char** argv) {
    QElapsedTimer sinceStart;
    sinceStart.start();
    std::vector<std::string> args(argv + 1, argv + argc);
    auto parsed = app::parseCommandLine(args);
    if (!parsed) return fail(parsed.error(), 2);
    const app::Options& o = *parsed;
    if (o.help) {
        std::cout << app::helpText();
        return 0;
    }
    if (o.version) {
        std::cout << "floortwin 0.1.0\n";
        return 0;
    }
    auto metric = resolveMetric(o.metric);
    if (!metric) return fail(metric.error(), 2);
    QCoreApplication::setOrganizationName("floortwin");
    QCoreApplication::setApplicationName("floortwin");

    // Everything that can be wrong with the arguments is checked before any window exists, so
    // errors need no display.
    if (!o.importFile.empty() || !o.importWindow.empty()) return runImport(o, argc, argv);
    auto session = makeSession(o, o.headless);
    if (!session) return fail(session.error());
    if (o.headless) {
        QCoreApplication app(argc, argv);
        return app::runHeadless(o, **session);
    }
    std::optional<model::EntityRef> selection;
    if (!o.select.empty()) {
        auto ref = resolveSelection(*(*session)->topology, o.select);
        if (!ref) return fail(ref.error(), 2);
        selection = *ref;
    }
    model::TimeNs at = 0;
    if (!o.at.empty() && !model::parseDuration(o.at, at)) return fail("--at: '" + o.at + "' is not a time such as 90s or 10m", 2);
    if ((*session)->replay) {
        auto& replay = *(*session)->replay;
        replay.seek(replay.beginTime() + at);
        replay.renderNow();
        for (const auto& w : replay.reader().warnings()) std::cerr << "floortwin: warning: " << w << "\n";
    } else if (!(*session)->sources.empty()) {
        // Live: nothing to pre-run; a screenshot waits for the sources below.
    } else if (at > 0) {
        (*session)->sim->runUntil((*session)->sim->startTime() + at);
    }

    views::FloorView::setDefaultSurfaceFormat();
    QApplication app(argc, argv);
    if (!o.screenshot.empty() && !(*session)->sources.empty()) {
        // A screenshot of live data: let the sources deliver for --at of wall time (3 s).
        (*session)->sim->start(1.0);
        (*session)->startSources();
        QElapsedTimer waited;
        waited.start();
        while (waited.nsecsElapsed() < (at > 0 ? at : 3 * model::kNsPerSecond)) QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    }
    if (!o.screenshot.empty()) {
        const int rc = takeScreenshot(o, **session, *metric, selection);
        for (auto& s : (*session)->sources) s->stop(); // while the application still exists
        return rc;
    }

    std::shared_ptr<app::Session> current = std::move(*session);
    std::unique_ptr<app::MainWindow> window;
    // A window per session; File > Open recording swaps in a replay session and a new window.
    std::function<void()> showWindow = [&] {
        window = std::make_unique<app::MainWindow>(*current);
        if (!current->sources.empty())
            window->floorView()->setSourceStatus([&current] { return app::sourceStatus(current->sources); });
        if (!o.metric.empty()) window->setMetric(*metric);
        if (selection) window->floorView()->setSelection(selection);
        applyLayers(o, *window->floorView());
        if (o.firstFrameMs) {
            QObject::connect(window->floorView(), &views::FloorView::firstFrame, &app, [&] {
                std::cout << "first_frame_ms " << sinceStart.nsecsElapsed() / 1e6 << std::endl;
                rusage self{};
                getrusage(RUSAGE_SELF, &self); // this process only (benchmarks run other tools too)
                std::cout << "peak_rss_mb " << static_cast<double>(self.ru_maxrss) / 1024.0 << std::endl;
                QTimer::singleShot(0, &app, &QCoreApplication::quit);
            });
        }
        QObject::connect(window.get(), &app::MainWindow::openRecordingRequested, &app, [&](const QString& path) {
            QProgressDialog progress(QObject::tr("Opening %1…").arg(path), QString(), 0, 0, window.get());
            progress.setWindowModality(Qt::WindowModal);
            progress.show();
            QCoreApplication::processEvents();
            auto next = app::makeReplaySession(path.toStdString());
            progress.close();
            if (!next) {
                QMessageBox::warning(window.get(), QObject::tr("Open recording"), QString::fromStdString(next.error()));
                return;
            }
            QTimer::singleShot(0, &app, [&, fresh = std::shared_ptr<app::Session>(std::move(*next))]() mutable {
                window.reset();
                current = fresh;
                current->replay->start();
                selection.reset();
                showWindow();
            });
        });
        window->show();
        if (o.wall) window->setWallMode(true);
    };
    if (current->replay) current->replay->start();
    else current->sim->start(current->sources.empty() ? o.speed : 1.0);
    current->startSources();
    showWindow();
    const int rc = app.exec();
    window.reset();
    current.reset();
    return rc;
}
