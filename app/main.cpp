// floortwin: the demo (no arguments), a floor viewer, a recorder and replayer, a screenshot tool
// and a headless runner.
#include "command_line.h"
#include "floor_loading.h"
#include "headless_run.h"
#include "main_window.h"
#include "session.h"
#include "views/floor_view.h"
#include "views/timeline_panel.h"

#include <QApplication>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QMessageBox>
#include <QProgressDialog>
#include <QSurfaceFormat>
#include <QTimer>

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

void applyLayers(const app::Options& o, app::MainWindow& window) {
    if (has(o, "thermal")) window.setThermal(true);
    if (has(o, "lifecycle")) window.setLifecycle(true);
    if (has(o, "storage")) window.setStorage(true);
    if (has(o, "nvlink")) window.setNvlink(true);
    if (has(o, "rails")) window.setRails(true);
    if (!o.layers.empty() && !has(o, "racks")) window.floorView()->setRacksVisible(false);
}

int takeScreenshot(const app::Options& o, app::Session& session, model::ChannelId metric, std::optional<model::EntityRef> selection) {
    const int w = o.width > 0 ? o.width : 1920, h = o.height > 0 ? o.height : 1080;
    QImage image;
    if (o.windowShot) {
        app::MainWindow window(session, nullptr, false);
        window.setMetric(metric);
        applyLayers(o, window);
        window.floorView()->setShowFrameStats(false);
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
        view.setReplay(session.replay != nullptr);
        view.setSpeed(transport.speed(), transport.paused());
        view.setMetric(metric);
        view.setThermalVisible(has(o, "thermal"));
        view.setLifecycleVisible(has(o, "lifecycle"));
        view.setStorageVisible(has(o, "storage"));
        view.setNvlinkVisible(has(o, "nvlink"));
        view.setRailsVisible(has(o, "rails"));
        view.setWallMode(o.wall);
        view.setSelection(selection);
        if (selection && o.frameSelection) view.frameSelection();
        if (!o.layers.empty() && !has(o, "racks")) view.setRacksVisible(false);
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
    } else if (at > 0) {
        (*session)->sim->runUntil((*session)->sim->startTime() + at);
    }

    views::FloorView::setDefaultSurfaceFormat();
    QApplication app(argc, argv);
    if (!o.screenshot.empty()) return takeScreenshot(o, **session, *metric, selection);

    std::shared_ptr<app::Session> current = std::move(*session);
    std::unique_ptr<app::MainWindow> window;
    // A window per session; File > Open recording swaps in a replay session and a new window.
    std::function<void()> showWindow = [&] {
        window = std::make_unique<app::MainWindow>(*current);
        if (!o.metric.empty()) window->setMetric(*metric);
        if (selection) window->floorView()->setSelection(selection);
        applyLayers(o, *window);
        if (o.firstFrameMs) {
            QObject::connect(window->floorView(), &views::FloorView::firstFrame, &app, [&] {
                std::cout << "first_frame_ms " << sinceStart.nsecsElapsed() / 1e6 << std::endl;
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
    else current->sim->start(o.speed);
    showWindow();
    const int rc = app.exec();
    window.reset();
    current.reset();
    return rc;
}
