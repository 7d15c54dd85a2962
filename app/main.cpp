// floortwin: the demo (no arguments), a floor viewer, a screenshot tool and a headless runner.
#include "command_line.h"
#include "floor_loading.h"
#include "headless_run.h"
#include "main_window.h"
#include "views/floor_view.h"

#include <QApplication>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QSurfaceFormat>
#include <QTimer>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <cstdio>
#include <iostream>

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

void setGlFormat() {
    QSurfaceFormat format;
    format.setRenderableType(QSurfaceFormat::OpenGL);
    format.setVersion(3, 2);
    format.setProfile(QSurfaceFormat::CoreProfile);
    format.setDepthBufferSize(24);
    format.setStencilBufferSize(8);
    format.setAlphaBufferSize(8);
    format.setSamples(0); // no multisampling: llvmpipe pays for every sample
    format.setSwapInterval(0);
    QSurfaceFormat::setDefaultFormat(format);
}

// "rack:A03", "gpu:100", "compute_tray:7", "cdu:0" -> an entity of this floor.
std::expected<model::EntityRef, std::string> resolveSelection(const model::Topology& t, const std::string& text) {
    const auto colon = text.find(':');
    const auto kind = model::entityKindFromName(text.substr(0, colon == std::string::npos ? 0 : colon));
    if (colon == std::string::npos || !kind)
        return std::unexpected("--select: expected KIND:NAME or KIND:ID (kinds: rack, compute_tray, gpu, switch_tray, cdu), got '" + text + "'");
    const std::string what = text.substr(colon + 1);
    if (*kind == model::EntityKind::Rack)
        for (model::EntityId r = 0; r < t.count(*kind); ++r)
            if (t.racks.name[r] == what) return model::EntityRef{*kind, r};
    char* end = nullptr;
    const unsigned long id = std::strtoul(what.c_str(), &end, 10);
    if (!what.empty() && *end == '\0' && id < t.count(*kind)) return model::EntityRef{*kind, static_cast<model::EntityId>(id)};
    return std::unexpected("--select: no " + std::string(model::entityKindName(*kind)) + " '" + what + "' on this floor");
}

int takeScreenshot(const app::Options& o, std::shared_ptr<const model::Topology> topology, model::SimCore& core,
                   model::ChannelId metric, std::optional<model::EntityRef> selection) {
    const bool thermal = std::ranges::find(o.layers, "thermal") != o.layers.end();
    const bool lifecycle = std::ranges::find(o.layers, "lifecycle") != o.layers.end();
    const int w = o.width > 0 ? o.width : 1920, h = o.height > 0 ? o.height : 1080;
    if (o.windowShot) {
        app::MainWindow window(topology, core);
        window.setMetric(metric);
        window.setThermal(thermal);
        window.setLifecycle(lifecycle);
        window.floorView()->setShowFrameStats(false);
        window.floorView()->setAnimated(false);
        window.setAttribute(Qt::WA_DontShowOnScreen, true);
        window.resize(w, h);
        window.show();
        if (selection) window.floorView()->setSelection(selection);
        QCoreApplication::processEvents();
        const QImage image = window.grab().toImage();
        if (image.isNull() || !image.save(QString::fromStdString(o.screenshot))) return fail("cannot write " + o.screenshot);
        std::cout << "wrote " << o.screenshot << " (" << image.width() << "x" << image.height() << ")\n";
        return 0;
    }
    views::FloorView view(topology, [&core] { return core.latest(); });
    view.setShowFrameStats(false); // screenshots must be repeatable
    view.setAnimated(false);
    view.setMetric(metric);
    view.setThermalVisible(thermal);
    view.setLifecycleVisible(lifecycle);
    view.setWallMode(o.wall);
    view.setSelection(selection);
    if (!o.layers.empty() && std::ranges::find(o.layers, "racks") == o.layers.end()) view.setRacksVisible(false);
    view.setAttribute(Qt::WA_DontShowOnScreen, true);
    view.resize(w, h);
    view.show();
    QCoreApplication::processEvents();
    const QImage image = view.grabFramebuffer();
    if (image.isNull() || image.width() != w || image.height() != h)
        return fail("could not render the screenshot (no OpenGL 3.2 context? run under X or xvfb-run)");
    if (!image.save(QString::fromStdString(o.screenshot))) return fail("cannot write " + o.screenshot);
    std::cout << "wrote " << o.screenshot << " (" << w << "x" << h << ")\n";
    return 0;
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
    auto topology = app::loadTopology(o.floor);
    if (!topology) return fail(topology.error());
    auto scenario = app::loadScenario(o.scenario, **topology);
    if (!scenario) return fail(scenario.error());
    if (o.headless) {
        QCoreApplication app(argc, argv);
        return app::runHeadless(o, *topology, std::move(*scenario));
    }
    std::optional<model::EntityRef> selection;
    if (!o.select.empty()) {
        auto ref = resolveSelection(**topology, o.select);
        if (!ref) return fail(ref.error(), 2);
        selection = *ref;
    }
    model::TimeNs at = 0;
    if (!o.at.empty() && !model::parseDuration(o.at, at)) return fail("--at: '" + o.at + "' is not a time such as 90s or 10m", 2);

    setGlFormat();
    QApplication app(argc, argv);
    model::SimConfig config;
    config.seed = o.seed;
    if (o.screenshot.empty()) {
        // The live demo starts at the current wall-clock time; screenshots and tests use the
        // fixed default start so that they are repeatable.
        const auto now = std::chrono::system_clock::now().time_since_epoch();
        config.startTime = std::chrono::duration_cast<std::chrono::seconds>(now).count() * model::kNsPerSecond;
    }
    model::SimCore core(*topology, config, std::move(*scenario));
    if (at > 0) core.runUntil(core.startTime() + at);
    if (!o.screenshot.empty()) return takeScreenshot(o, *topology, core, *metric, selection);

    app::MainWindow window(*topology, core);
    if (!o.metric.empty()) window.setMetric(*metric);
    if (selection) window.floorView()->setSelection(selection);
    if (std::ranges::find(o.layers, "thermal") != o.layers.end()) window.setThermal(true);
    if (std::ranges::find(o.layers, "lifecycle") != o.layers.end()) window.setLifecycle(true);
    if (!o.layers.empty() && std::ranges::find(o.layers, "racks") == o.layers.end()) window.floorView()->setRacksVisible(false);
    if (o.firstFrameMs) {
        QObject::connect(window.floorView(), &views::FloorView::firstFrame, &app, [&] {
            std::cout << "first_frame_ms " << sinceStart.nsecsElapsed() / 1e6 << std::endl;
            QTimer::singleShot(0, &app, &QCoreApplication::quit);
        });
    }
    core.start(o.speed);
    window.show();
    if (o.wall) window.setWallMode(true);
    const int rc = app.exec();
    core.stop();
    return rc;
}
