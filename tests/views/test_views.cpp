// Views under a real X display (Xvfb in CI): the rendered default floor against a stored
// baseline, picking, selection to inspector, colour scale, metric switching.
#include "app/alert_writing.h"
#include "app/command_line.h"
#include "app/floor_loading.h"
#include "app/incident_report.h"
#include "app/launcher.h"
#include "app/main_window.h"
#include "app/session.h"
#include "app/story_player.h"
#include "importers/floor/floor_file.h"
#include "importers/floor/story_file.h"
#include "importers/recording/recording_reader.h"
#include "model/lifecycle.h"
#include "model/sim_core.h"
#include "support/loopback_server.h"
#include "support/test_paths.h"
#include "views/alarm_causes.h"
#include "views/camera_flight.h"
#include "views/color_scale.h"
#include "views/fabric_geometry.h"
#include "views/floor_view.h"
#include "views/incidents_panel.h"
#include "views/inspector_panel.h"
#include "views/layer_registry.h"
#include "views/layers/alerts/alert_layer.h"
#include "views/layers/alerts/alert_rows.h"
#include "views/layers/alerts/alert_writer.h"
#include "views/layers/alerts/alerts_panel.h"
#include "views/layers/jobs/job_layer.h"
#include "views/layers/lifecycle/lifecycle_board.h"
#include "views/layers/lifecycle/lifecycle_layer.h"
#include "views/layers/power/power_layer.h"
#include "views/layers/power/power_panel.h"
#include "views/layers/rails/fabric_panel.h"
#include "views/layers/rails/rail_layer.h"
#include "views/layers/storage/storage_panel.h"
#include "views/layers/thermal/cooling_panel.h"
#include "views/layers/thermal/thermal_layer.h"
#include "views/layers_panel.h"
#include "views/screen_labels.h"
#include "views/series_chart.h"
#include "views/sources_panel.h"
#include "views/timeline_panel.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QLabel>
#include <QMenuBar>
#include <QPainter>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSurfaceFormat>
#include <QTabBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTreeWidget>
#include <filesystem>
#include <limits>
#include <mutex>

using namespace ft;
using model::EntityKind;

namespace {

// A window drawn offscreen at this size, its first events handled.
void showOffscreen(QWidget& w, int width, int height) {
    w.setAttribute(Qt::WA_DontShowOnScreen, true);
    w.resize(width, height);
    w.show();
    QCoreApplication::processEvents();
}

// `seconds` of the simulator as `o` says, recorded to o.record (closed), opened for replay.
std::expected<std::unique_ptr<app::Session>, std::string> recordedReplay(const app::Options& o,
                                                                         int seconds) {
    {
        auto live = app::makeSimSession(o, false, true);
        if (!live) return std::unexpected(live.error());
        (*live)->sim->runUntil((*live)->sim->startTime() + seconds * model::kNsPerSecond);
    } // closing the session closes the recording
    return app::makeReplaySession(o.record);
}

struct ImageDiff {
    double meanAbs = 0;
    double fractionOff = 0; // pixels with any channel off by more than 32
    QImage diff;
};

ImageDiff compareImages(const QImage& a0, const QImage& b0) {
    const QImage a = a0.convertToFormat(QImage::Format_RGB32),
                 b = b0.convertToFormat(QImage::Format_RGB32);
    ImageDiff d;
    d.diff = QImage(a.size(), QImage::Format_RGB32);
    double sum = 0;
    std::size_t off = 0;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x) {
            const QRgb p = a.pixel(x, y), q = b.pixel(x, y);
            const int dr = std::abs(qRed(p) - qRed(q)), dg = std::abs(qGreen(p) - qGreen(q)),
                      db = std::abs(qBlue(p) - qBlue(q));
            sum += dr + dg + db;
            const int m = std::max({dr, dg, db});
            if (m > 32) ++off;
            d.diff.setPixel(x, y, qRgb(std::min(255, m * 4), 0, 0));
        }
    d.meanAbs = sum / (3.0 * a.width() * a.height());
    d.fractionOff = static_cast<double>(off) / (static_cast<double>(a.width()) * a.height());
    return d;
}

// A fixed snapshot with a smooth, known pattern, so the rendering baseline tests the views and
// not the simulator (whose numbers change as its models grow).
std::shared_ptr<const model::Snapshot> patternSnapshot(const model::Topology& t) {
    auto s = std::make_shared<model::Snapshot>();
    s->time = 1'790'000'000LL * model::kNsPerSecond;
    s->values.resize(model::ch::Count);
    for (model::ChannelId c = 0; c < model::ch::Count; ++c) {
        const auto& info = model::kChannels[c];
        const std::size_t n = t.count(info.kind);
        auto& column = s->writable(c);
        column.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            const float f = static_cast<float>((i * 7919) % 1000) / 1000.0f;
            column[i] = info.scaleMin + (info.scaleMax - info.scaleMin) * (0.3f + 0.4f * f);
        }
    }
    auto& temps = s->values[model::ch::GpuTemperature];
    for (std::size_t g = 0; g < temps.size(); ++g) {
        const auto rack = static_cast<float>(t.gpus.rack[g]);
        const auto tray = static_cast<float>(t.computeTrays.indexInRack[t.gpus.tray[g]]);
        temps[g] =
            48.0f + 2.5f * rack + 0.6f * tray + 1.5f * static_cast<float>(t.gpus.indexInTray[g]);
    }
    for (std::size_t r = 0; r < t.count(EntityKind::Rack); ++r) {
        float hottest = 0;
        for (std::size_t g = r * 72; g < (r + 1) * 72; ++g)
            hottest = std::max(hottest, temps[g]);
        s->values[model::ch::RackGpuTempMax][r] = hottest;
    }
    // Healthy power: every shelf's PSUs deliver.
    std::ranges::fill(s->values[model::ch::ShelfPsusOk],
                      static_cast<float>(t.spec().power.psusPerShelf));
    // A floor mid bring-up: row B walks through the stages, one rack failed its NVLink check.
    s->rackLifecycle.assign(t.count(EntityKind::Rack), model::RackLifecycle::Production);
    auto history = std::make_shared<std::vector<model::LifecycleTransition>>();
    for (model::EntityId r = 8; r < 16; ++r) {
        const auto stage = static_cast<model::RackLifecycle>(1 + (r - 8) % 6);
        s->rackLifecycle[r] = r == 13 ? model::RackLifecycle::Troubleshooting : stage;
        s->values[model::ch::RackLifecycleProgress][r] = 12.5f * static_cast<float>(r - 7);
        model::TimeNs when =
            s->time - 6 * 3600LL * model::kNsPerSecond + (r - 8) * 1200LL * model::kNsPerSecond;
        for (int k = 0; k < static_cast<int>(stage); ++k, when += 1800LL * model::kNsPerSecond)
            history->push_back({when, r, static_cast<model::RackLifecycle>(k),
                                static_cast<model::RackLifecycle>(k + 1), false, "step"});
        if (r == 13)
            history->push_back({when, r, stage, model::RackLifecycle::Troubleshooting, true,
                                "B06: NVLink 150 TB/s, below the expected range"});
    }
    std::ranges::sort(*history, {}, &model::LifecycleTransition::time);
    s->lifecycleHistory = std::make_shared<const model::LifecycleLog>(model::sharedLogOf(*history));
    s->alarms.push_back({"GPU over temperature", EntityKind::Rack, 15, model::ch::RackGpuTempMax,
                         model::Severity::Critical, 91.3f, 88.0f, s->time});
    return s;
}

// Compares a render with tests/baselines/NAME.png; a missing or different baseline writes
// NAME.actual.png (and NAME.diff.png) into the build tree's baseline-output/ and fails (the
// source tree stays clean).
void checkBaseline(const QImage& actual, const QString& name) {
    const QString baselines = FT_SOURCE_PATH("/tests/baselines/");
    const QString out = FT_BINARY_PATH("/baseline-output/");
    QDir().mkpath(out);
    const QImage baseline(baselines + name + ".png");
    if (baseline.isNull()) {
        actual.save(out + name + ".actual.png");
        QFAIL(qPrintable("no baseline; wrote " + out + name +
                         ".actual.png — look at it, then copy it to " + baselines + name + ".png"));
    }
    QCOMPARE(baseline.size(), actual.size());
    const auto d = compareImages(actual, baseline);
    if (d.meanAbs > 1.5 || d.fractionOff > 0.005) {
        actual.save(out + name + ".actual.png");
        d.diff.save(out + name + ".diff.png");
        QFAIL(qPrintable(QString("%1 differs from its baseline: mean %2, %3 % of pixels off; wrote "
                                 ".actual.png and .diff.png in %4")
                             .arg(name)
                             .arg(d.meanAbs)
                             .arg(d.fractionOff * 100)
                             .arg(out)));
    }
}

// A layer as a plug-in adds one: a class and one registration. It counts what the view asks
// of it, so the test can see it wired into every place a layer shows up.
class ProbeLayer final : public views::Layer {
public:
    static QWidget* makePanel(views::FloorView&) {
        auto* panel = new QLabel("probe panel");
        panel->setObjectName("probePanel");
        return panel;
    }
    static constexpr views::LayerInfo kInfo{
        "probe",
        "Probe layer (test)",
        false,
        {"Probe", "probeDock", views::PanelPlace::Side, &ProbeLayer::makePanel}};
    ProbeLayer(const model::Topology&, vtkRenderer*) : Layer(kInfo) {}
    void update(const model::Snapshot&) override { ++updates; }
    void drawHud(const views::ImGuiOverlay&, const views::HudInput&,
                 views::HudColumns&) const override {
        if (visible()) ++hudDraws;
    }
    static inline int updates = 0, hudDraws = 0;
    static inline bool shown = false;

private:
    void applyVisibility(bool visible) override { shown = visible; }
};

} // namespace

class TestViews : public QObject {
    Q_OBJECT

    std::shared_ptr<const model::Topology> m_topology;
    std::unique_ptr<model::SimCore> m_core;

    std::unique_ptr<views::FloorView> makeView(int w, int h, bool pattern = false) {
        views::FloorView::SnapshotSource source = [this] { return m_core->latest(); };
        if (pattern) source = [s = patternSnapshot(*m_topology)] { return s; };
        return makeViewOf(m_topology, std::move(source), w, h);
    }

    // A still, single-frame view of any floor and source, shown offscreen at w x h.
    static std::unique_ptr<views::FloorView>
    makeViewOf(std::shared_ptr<const model::Topology> topology,
               views::FloorView::SnapshotSource source, int w, int h) {
        auto view = std::make_unique<views::FloorView>(std::move(topology), std::move(source));
        view->setShowFrameStats(false);
        view->setAnimated(false);
        view->setAttribute(Qt::WA_DontShowOnScreen, true);
        view->resize(w, h);
        view->show();
        QCoreApplication::processEvents();
        return view;
    }

private slots:
    void labelsNeverOverlap() {
        views::ScreenLabels labels(800, 600);
        QVERIFY(labels.place(100, 100, 200, 120));
        QVERIFY(!labels.place(150, 110, 260, 130)); // overlaps the first
        QVERIFY(labels.place(200, 100, 300, 120));  // touches it: fine
        QVERIFY(labels.place(150, 121, 260, 140));  // just below
        QVERIFY(!labels.place(-50, -30, -10, -5));  // off screen
        QVERIFY(!labels.place(90, 95, 310, 145));   // covers three
        // Across grid cells: a long box meets a short one far along it.
        QVERIFY(labels.place(400, 300, 790, 320));
        QVERIFY(!labels.place(700, 310, 720, 330));
        QCOMPARE(labels.placed(), std::size_t{4});
    }

    void initTestCase() {
        auto t = app::loadTopology("");
        QVERIFY2(t, t ? "" : t.error().c_str());
        m_topology = *t;
        m_core = std::make_unique<model::SimCore>(m_topology, model::SimConfig{});
    }

    void defaultFloorMatchesBaseline() {
        auto view = makeView(960, 540, true);
        const QImage actual = view->grabFramebuffer();
        QCOMPARE(actual.size(), QSize(960, 540));
        checkBaseline(actual, "default_floor_960x540");
        // Not a blank frame: the floor has many distinct colours.
        QSet<QRgb> colours;
        for (int y = 0; y < actual.height(); y += 4)
            for (int x = 0; x < actual.width(); x += 4)
                colours.insert(actual.pixel(x, y));
        QVERIFY(colours.size() > 200);
    }

    void thermalLayerMatchesBaseline() {
        auto view = makeView(960, 540, true);
        view->setLayerVisible("thermal", true);
        view->setAnimated(false);
        const QImage actual = view->grabFramebuffer();
        checkBaseline(actual, "thermal_960x540");
        // The pipes add colour where there was none: the layer is really drawn.
        view->setLayerVisible("thermal", false);
        QVERIFY(compareImages(actual, view->grabFramebuffer()).fractionOff > 0.01);
    }

    void flowBandsMoveWithTime() {
        auto view = makeView(960, 540, true);
        view->setLayerVisible("thermal", true);
        view->setAnimated(true);
        view->setTransport(m_core.get());
        m_core->setSpeed(200.0); // 200x: bands travel metres between two frames
        m_core->setPaused(false);
        const QImage a = view->grabFramebuffer();
        QTest::qWait(120);
        const QImage b = view->grabFramebuffer();
        // Only the pipes change (the fixed snapshot moves nothing else), and they do.
        const auto moving = compareImages(a, b);
        QVERIFY2(moving.meanAbs > 0.02, qPrintable(QString::number(moving.meanAbs)));
        m_core->setPaused(true); // paused: coolant stands still (alarm flashes may not)
        view->setLayerVisible("thermal", true);
        const QImage c = view->grabFramebuffer();
        QTest::qWait(120);
        const QImage d = view->grabFramebuffer();
        QVERIFY(compareImages(c, d).meanAbs < moving.meanAbs);
        view->setTransport(nullptr);
        m_core->setSpeed(1.0);
        m_core->setPaused(false);
    }

    // Frames where only the moving pipes change reuse the still scene's picture (colour and
    // depth): the same pixels as drawing everything, and drawn again whenever the camera, a
    // layer, the data or the theme changes.
    void stillSceneIsReusedExactly() {
        auto view = makeView(960, 540, true);
        for (const char* layer : {"thermal", "rails", "nvlink", "storage", "power"})
            view->setLayerVisible(layer, true);
        auto same = [](const QImage& a, const QImage& b) {
            const auto d = compareImages(a, b);
            return d.meanAbs < 0.01 && d.fractionOff < 0.0005;
        };
        auto whole = [&] {
            view->setReuseStillScene(false);
            QImage img = view->grabFramebuffer();
            view->setReuseStillScene(true);
            return img;
        };
        const QImage reference = whole();
        view->setReuseStillScene(true);
        const int before = view->stillRenders();
        const QImage first = view->grabFramebuffer();  // draws the still scene and keeps it
        const QImage second = view->grabFramebuffer(); // reuses it
        const QImage third = view->grabFramebuffer();
        QCOMPARE(view->stillRenders() - before, 1);
        QVERIFY(same(reference, first));
        // Pipes behind racks stay hidden in the reused frames: the depth came back too.
        QVERIFY(same(reference, second));
        QVERIFY(same(reference, third));
        // The pipes are really drawn over it (not part of the kept picture).
        view->setLayerVisible("power", false);
        view->setLayerVisible("thermal", false);
        const QImage fewer = view->grabFramebuffer();
        // (Again when the overview re-frames beside the panels the layers took away.)
        QVERIFY(view->stillRenders() - before >= 2);
        QVERIFY(compareImages(reference, fewer).fractionOff > 0.005);
        QVERIFY(same(whole(), fewer));
        // A camera move and a theme change draw the still scene again.
        auto rig = view->camera();
        rig.azimuthDeg += 20;
        view->setCamera(rig);
        const int moved = view->stillRenders();
        const QImage turned = view->grabFramebuffer();
        QCOMPARE(view->stillRenders(), moved + 1);
        QVERIFY(same(whole(), turned));
        view->setTheme(views::DisplayTheme::Bright);
        const int themed = view->stillRenders();
        const QImage bright = view->grabFramebuffer();
        QCOMPARE(view->stillRenders(), themed + 1);
        QVERIFY(same(whole(), bright));
        view->setTheme(views::DisplayTheme::Standard);

        // New data re-colours the racks (their texture's image, which VTK does not count in
        // the actor's redraw time): the still scene is drawn again with it. The racks alone, so
        // no other layer's rebuilt geometry gives the change away.
        auto live = makeView(960, 540);
        for (const auto& type : views::layerTypes())
            live->setLayerVisible(std::string(type.info.id), type.info.id == "racks");
        (void)live->grabFramebuffer();
        const int kept = live->stillRenders();
        (void)live->grabFramebuffer();
        QCOMPARE(live->stillRenders(), kept);
        m_core->runUntil(m_core->latest()->time + 30 * model::kNsPerSecond);
        live->refreshSnapshot();
        const QImage recoloured = live->grabFramebuffer();
        QCOMPARE(live->stillRenders(), kept + 1);
        live->setReuseStillScene(false);
        QVERIFY(same(live->grabFramebuffer(), recoloured));
        live->setReuseStillScene(true);

        // With no pipes to draw, VTK's framebuffer still holds the kept picture: frames show it
        // without copying it back. Pipes turned on later are drawn over it as it is, again
        // over their own last frame, and turned off the picture is copied back without them.
        (void)live->grabFramebuffer();
        const int restores = live->stillRestores(), drawn = live->stillRenders();
        const QImage held = live->grabFramebuffer();
        const QImage heldAgain = live->grabFramebuffer();
        QCOMPARE(live->stillRestores(), restores);
        QCOMPARE(live->stillRenders(), drawn);
        QVERIFY(same(held, recoloured));
        QVERIFY(same(heldAgain, recoloured));
        live->setLayerVisible("thermal", true);
        const QImage piped = live->grabFramebuffer();
        const QImage pipedAgain = live->grabFramebuffer();
        QCOMPARE(live->stillRestores(), restores);
        QVERIFY(compareImages(piped, recoloured).fractionOff > 0.001);
        live->setReuseStillScene(false);
        const QImage pipedWhole = live->grabFramebuffer();
        live->setReuseStillScene(true);
        QVERIFY(same(piped, pipedWhole));
        QVERIFY(same(pipedAgain, pipedWhole));
        QVERIFY(same(live->grabFramebuffer(), pipedWhole)); // the still scene kept again
        live->setLayerVisible("thermal", false);
        const int piping = live->stillRestores() + live->stillRenders();
        QVERIFY(same(live->grabFramebuffer(), recoloured)); // copied back, or drawn anew
        QCOMPARE(live->stillRestores() + live->stillRenders(), piping + 1);
        QVERIFY(same(live->grabFramebuffer(), recoloured));
    }

    void movingPipesOverTheirLastFrame() {
        // The bands move every frame; the pipes are drawn over their own last frame, not over a
        // copy of the still picture. Frame after frame, that is the frame drawn whole.
        auto kept = makeView(960, 540), whole = makeView(960, 540);
        QCoreApplication::processEvents();
        for (auto* v : {kept.get(), whole.get()}) {
            v->setAnimated(true);
            v->setFrameStep(40.0);
            v->setHudVisible(false);
            for (const char* layer : {"thermal", "power"})
                v->setLayerVisible(layer, true);
        }
        kept->setReuseStillScene(true);
        whole->setReuseStillScene(false);
        const QImage first = kept->grabFramebuffer();
        const auto close = [](const QImage& a, const QImage& b, const QString& what) {
            const auto d = compareImages(a, b);
            if (d.meanAbs < 0.01 && d.fractionOff < 0.0005) return true;
            qWarning("%s: %g of the pixels differ", qPrintable(what), d.fractionOff);
            return false;
        };
        QVERIFY(close(first, whole->grabFramebuffer(), "first frame"));
        const int restores = kept->stillRestores(), drawn = kept->stillRenders();
        QImage last = first;
        for (int i = 0; i < 8; ++i) {
            last = kept->grabFramebuffer();
            QVERIFY(close(last, whole->grabFramebuffer(), QString("frame %1").arg(i)));
        }
        QCOMPARE(kept->stillRenders(), drawn);
        QCOMPARE(kept->stillRestores(), restores);
        QVERIFY(compareImages(first, last).fractionOff > 0.0005); // the bands did move
        // Fewer pipes: the picture comes back without the ones gone, once, then they move on.
        for (auto* v : {kept.get(), whole.get()})
            v->setLayerVisible("thermal", false);
        QVERIFY(close(kept->grabFramebuffer(), whole->grabFramebuffer(), "fewer"));
        QVERIFY(kept->stillRestores() + kept->stillRenders() == restores + drawn + 1);
        const int fewer = kept->stillRestores();
        for (int i = 0; i < 3; ++i)
            QVERIFY(close(kept->grabFramebuffer(), whole->grabFramebuffer(),
                          QString("fewer, frame %1").arg(i)));
        QCOMPARE(kept->stillRestores(), fewer);
        // A turned camera: the still scene drawn anew, and the pipes over it.
        auto rig = kept->camera();
        rig.azimuthDeg += 15;
        for (auto* v : {kept.get(), whole.get()})
            v->setCamera(rig);
        for (int i = 0; i < 3; ++i)
            QVERIFY(close(kept->grabFramebuffer(), whole->grabFramebuffer(),
                          QString("turned, frame %1").arg(i)));
    }

    void hudIsReusedExactly() {
        // Two animated views stepping the same 16 ms a frame, every layer on: one draws its last
        // HUD again while its inputs hold, the other builds it every frame. Pixel for pixel the
        // same, frame after frame, and after each input that changes the HUD.
        // Both made first, then set up alike with no event processing between: their frames
        // come from the grabs alone, in step.
        auto reused = makeView(960, 540), built = makeView(960, 540);
        QCoreApplication::processEvents();
        for (auto* v : {reused.get(), built.get()}) {
            v->setAnimated(true);
            v->setFrameStep(16.0);
            v->setHudMaxAgeMs(1e9); // a slow (sanitizer) build still reuses
            for (const char* layer : {"thermal", "rails", "nvlink", "storage", "power"})
                v->setLayerVisible(layer, true);
        }
        reused->setReuseHud(true);
        built->setReuseHud(false);
        auto same = [](const QImage& a, const QImage& b) {
            return compareImages(a, b).fractionOff == 0.0; // the same pixels, every one
        };
        auto frames = [&](int n, const char* what) {
            const int before = reused->hudBuilds(), otherBefore = built->hudBuilds();
            for (int i = 0; i < n; ++i) {
                const QImage a = reused->grabFramebuffer(), b = built->grabFramebuffer();
                if (!same(a, b)) {
                    a.save(QDir::temp().filePath("hud-reused.png"));
                    b.save(QDir::temp().filePath("hud-built.png"));
                    qFatal("%s: frame %d differs from a HUD built anew", what, i);
                }
            }
            if (built->hudBuilds() - otherBefore != n)
                qFatal("%s: the view without reuse built its HUD %d times in %d frames", what,
                       built->hudBuilds() - otherBefore, n);
            return reused->hudBuilds() - before;
        };
        // The first frames build it (auto-sized panels settle over two, the labels that keep
        // clear of them once the panels stand, and two alike), then it is reused.
        const int builds = frames(6, "still inputs");
        QVERIFY2(builds <= 4, qPrintable(QString("%1 builds").arg(builds)));
        QCOMPARE(frames(4, "held"), 0);
        // Held, it is baked into the kept picture where no pipe runs, and only the tiles under
        // the pipes are composited each frame (the frames above matched pixel for pixel).
        QVERIFY(reused->hudBakes() > 0);
        QCOMPARE(built->hudBakes(), 0);
        QVERIFY2(reused->hudTilesComposited() > 0 &&
                     reused->hudTilesComposited() < reused->hudTiles() / 2,
                 qPrintable(QString("%1 of %2 tiles")
                                .arg(reused->hudTilesComposited())
                                .arg(reused->hudTiles())));
        // A caption, new data and a turned camera each build it again, then it holds.
        for (auto* v : {reused.get(), built.get()})
            v->setCaption("Row B: coolant flow restored");
        QVERIFY(frames(4, "caption") >= 1);
        // A recording's warning is a line of the title block (top left): it grows by it.
        auto titleHeight = [](const views::FloorView& v) {
            const auto& p = v.hudPanels();
            const auto top = std::ranges::min_element(
                p, {}, [](const views::ScreenRect& r) { return r.x0 + r.y0; });
            return top == p.end() ? 0.0f : top->y1 - top->y0;
        };
        const float before = titleHeight(*built);
        for (auto* v : {reused.get(), built.get()})
            v->setWarning("RECORDING INCOMPLETE: 12 snapshots dropped (the recorder fell behind)");
        QVERIFY(frames(4, "warning") >= 1);
        QVERIFY2(titleHeight(*built) > before + 8,
                 qPrintable(QString("%1 -> %2").arg(before).arg(titleHeight(*built))));
        m_core->runUntil(m_core->latest()->time + 30 * model::kNsPerSecond);
        for (auto* v : {reused.get(), built.get()})
            v->refreshSnapshot();
        QVERIFY(frames(4, "new snapshot") >= 1);
        for (auto* v : {reused.get(), built.get()}) {
            auto rig = v->camera();
            rig.azimuthDeg += 15;
            v->setCamera(rig);
        }
        QVERIFY(frames(4, "camera") >= 1);
        QCOMPARE(frames(3, "held again"), 0);
        // Nothing moving (the racks alone): frames drawn for any other reason reuse it too.
        for (auto* v : {reused.get(), built.get()})
            for (const char* layer : {"thermal", "rails", "nvlink", "storage", "power"})
                v->setLayerVisible(layer, false);
        QVERIFY(frames(4, "layers off") >= 1);
        QCOMPARE(frames(4, "nothing moving"), 0);
        // No pipes: the whole HUD is in the kept picture, nothing composited.
        QCOMPARE(reused->hudTilesComposited(), std::size_t{0});
        // A pipe shown again is drawn under a HUD composited over it (the frames match).
        for (auto* v : {reused.get(), built.get()})
            v->setLayerVisible("rails", true);
        QVERIFY(frames(4, "rails back") >= 1);
        QCOMPARE(frames(3, "rails held"), 0);
        QVERIFY(reused->hudTilesComposited() > 0);
        for (auto* v : {reused.get(), built.get()})
            v->setLayerVisible("rails", false);
        QVERIFY(frames(4, "rails off") >= 1);
        // Past its age it is built anew even when nothing changed.
        reused->setHudMaxAgeMs(0);
        QCOMPARE(frames(3, "aged"), 3);
    }

    void hudTextureMatchesDrawingStraight() {
        // The HUD rasterised once into its texture and composited on the tiles it covers leaves
        // the pixels that rasterising it straight into the frame leaves (to 8-bit rounding of
        // the premultiplied colour, a few levels at most), over every layer, in each theme, and
        // after a resize; and the composite touches only part of the frame.
        auto textured = makeView(960, 540), straight = makeView(960, 540);
        straight->setHudTexture(false);
        for (auto* v : {textured.get(), straight.get()})
            for (const char* layer : {"thermal", "rails", "nvlink", "storage", "power"})
                v->setLayerVisible(layer, true);
        auto check = [&](const char* what) {
            const QImage a = textured->grabFramebuffer(), b = straight->grabFramebuffer();
            const auto d = compareImages(a, b);
            int most = 0; // the largest difference of any channel of any pixel
            const QImage ra = a.convertToFormat(QImage::Format_RGB32),
                         rb = b.convertToFormat(QImage::Format_RGB32);
            for (int y = 0; y < ra.height(); ++y)
                for (int x = 0; x < ra.width(); ++x) {
                    const QRgb p = ra.pixel(x, y), q = rb.pixel(x, y);
                    most =
                        std::max({most, std::abs(qRed(p) - qRed(q)),
                                  std::abs(qGreen(p) - qGreen(q)), std::abs(qBlue(p) - qBlue(q))});
                }
            if (d.meanAbs > 0.25 || most > 4) {
                a.save(QDir::temp().filePath("hud-textured.png"));
                b.save(QDir::temp().filePath("hud-straight.png"));
                qFatal("%s: the textured HUD differs from the straight one (mean %.3f, up to %d "
                       "levels)",
                       what, d.meanAbs, most);
            }
            QCOMPARE(straight->hudTiles(), std::size_t{0});
            const std::size_t all = static_cast<std::size_t>((a.width() + 31) / 32) *
                                    static_cast<std::size_t>((a.height() + 31) / 32);
            // The dim theme's veil covers the whole frame; otherwise the panels and labels
            // leave most of it to the scene.
            const bool veiled = textured->theme() == views::DisplayTheme::Dim;
            QVERIFY2(textured->hudTiles() > 0 &&
                         (veiled ? textured->hudTiles() == all : textured->hudTiles() < all),
                     what);
            // The HUD is there at all: the frame differs from the scene without it.
            textured->setHudVisible(false);
            const QImage bare = textured->grabFramebuffer();
            textured->setHudVisible(true);
            QVERIFY2(compareImages(a, bare).fractionOff > 0.01, what);
        };
        check("standard");
        for (auto theme : {views::DisplayTheme::Dim, views::DisplayTheme::Bright}) {
            for (auto* v : {textured.get(), straight.get()})
                v->setTheme(theme);
            check(theme == views::DisplayTheme::Dim ? "dim" : "bright");
        }
        for (auto* v : {textured.get(), straight.get()}) {
            v->setTheme(views::DisplayTheme::Standard);
            v->resize(800, 600);
        }
        QCoreApplication::processEvents();
        check("resized");
        QCOMPARE(textured->grabFramebuffer().size(),
                 QSize(800, 600) * textured->devicePixelRatio());
    }

    void lifecycleLayerMatchesBaseline() {
        auto view = makeView(960, 540, true);
        view->setLayerVisible("lifecycle", true);
        const QImage actual = view->grabFramebuffer();
        checkBaseline(actual, "lifecycle_960x540");
        // Filtering to one state fades every other rack.
        view->layer<views::LifecycleLayer>()->setFilter(model::RackLifecycle::Troubleshooting);
        const double faded = compareImages(actual, view->grabFramebuffer()).fractionOff;
        QVERIFY2(faded > 0.03, std::to_string(faded).c_str());
    }

    void jobLayerColoursRacksByJob() {
        // Racks of one job share its colour, other jobs differ, racks with none are dark; the
        // colour follows the job's name; the caps change the picture, and a new job list
        // repaints them.
        const auto a = std::string("training job 1 (A01\u2013A04)"),
                   b = std::string("inference service 2 (A05\u2013A08)");
        QVERIFY(views::JobLayer::jobColor(a).r != views::JobLayer::jobColor(b).r ||
                views::JobLayer::jobColor(a).g != views::JobLayer::jobColor(b).g);
        auto snapshot = std::make_shared<model::Snapshot>(*m_core->latest());
        std::vector<std::string> jobs(m_topology->count(model::EntityKind::Rack));
        std::fill(jobs.begin(), jobs.begin() + 4, a);
        std::fill(jobs.begin() + 4, jobs.begin() + 8, b);
        snapshot->rackJobs = std::make_shared<const std::vector<std::string>>(jobs);
        std::shared_ptr<const model::Snapshot> shown = snapshot;
        auto view = makeViewOf(
            m_topology, [&] { return shown; }, 960, 540);
        const QImage without = view->grabFramebuffer();
        view->setLayerVisible("jobs", true);
        const QImage with = view->grabFramebuffer();
        QVERIFY(compareImages(without, with).fractionOff > 0.01);
        const auto* layer = view->layer<views::JobLayer>();
        auto same = [](views::Rgb x, views::Rgb y) {
            return x.r == y.r && x.g == y.g && x.b == y.b;
        };
        QVERIFY(same(layer->rackColor(0), layer->rackColor(3)));
        QVERIFY(same(layer->rackColor(0), views::JobLayer::jobColor(a)));
        QVERIFY(same(layer->rackColor(5), views::JobLayer::jobColor(b)));
        QVERIFY(same(layer->rackColor(12), views::JobLayer::jobColor("")));
        QVERIFY(!same(layer->rackColor(12), layer->rackColor(0)));
        // Job b ends on its racks: they go dark.
        std::fill(jobs.begin() + 4, jobs.begin() + 8, std::string());
        auto next = std::make_shared<model::Snapshot>(*snapshot);
        next->rackJobs = std::make_shared<const std::vector<std::string>>(jobs);
        shown = next;
        view->refreshSnapshot();
        QVERIFY(same(layer->rackColor(5), views::JobLayer::jobColor("")));
        QVERIFY(compareImages(with, view->grabFramebuffer()).fractionOff > 0.001);
    }

    void alertLayerMarksRacksAndThePanelJoinsTheTwinsCauses() {
        // Alertmanager's alerts on the floor: a beacon in the worst alert's colour over each
        // rack (grey when muted) and over a CDU; the panel lists them beside the twin's causes,
        // joins an alert on a rack the twin has a cause for, reads one in full with its links,
        // and acts only through a writer (--alertmanager-write).
        const auto gpusPerRack = static_cast<model::EntityId>(m_topology->spec().rack.computeTrays *
                                                              m_topology->spec().rack.gpusPerTray);
        auto snapshot = std::make_shared<model::Snapshot>(*m_core->latest());
        auto board = std::make_shared<model::AlertBoard>();
        auto alert = [&](std::string name, model::Severity sev, model::AlertState state,
                         std::vector<model::EntityRef> on) {
            model::ExternalAlert a;
            a.source = "alertmanager am:9093";
            a.fingerprint = "fp-" + name;
            a.name = std::move(name);
            a.severity = sev;
            a.state = state;
            a.entities = std::move(on);
            a.startsAt = snapshot->time - 90 * model::kNsPerSecond;
            a.labels = {{"alertname", a.name}};
            a.annotations = {{"runbook_url", "https://runbooks.example.net/" + a.name},
                             {"summary", a.name + " summary"}};
            return a;
        };
        board->alerts.push_back(alert("GpuXidErrors", model::Severity::Critical,
                                      model::AlertState::Firing,
                                      {{EntityKind::Gpu, 2 * gpusPerRack + 5}}));
        auto muted = alert("NodeDown", model::Severity::Warning, model::AlertState::Silenced,
                           {{EntityKind::ComputeTray, 10 * 18 + 3}});
        muted.silencedBy = {"s-1"};
        muted.silences = {{"s-1",
                           "alice",
                           "planned work",
                           0,
                           snapshot->time + 3600 * model::kNsPerSecond,
                           "active",
                           {}}};
        board->alerts.push_back(muted);
        board->alerts.push_back(alert("CduFilter", model::Severity::Warning,
                                      model::AlertState::Firing, {{EntityKind::Cdu, 0}}));
        board->alerts.push_back(
            alert("DiskAlmostFull", model::Severity::Warning, model::AlertState::Firing, {}));
        snapshot->externalAlerts = board;
        // The twin's own cause on the same rack as the XID alert.
        model::Alarm twin;
        twin.title = "GPU over temperature";
        twin.kind = EntityKind::Gpu;
        twin.entity = 2 * gpusPerRack + 6;
        twin.channel = model::ch::GpuTemperature;
        twin.severity = model::Severity::Critical;
        twin.since = snapshot->time;
        snapshot->alarms = {twin};
        std::shared_ptr<const model::Snapshot> shown = snapshot;
        auto view = makeViewOf(
            m_topology, [&] { return shown; }, 960, 540);
        const QImage without = view->grabFramebuffer();
        view->setLayerVisible("alerts", true);
        const QImage with = view->grabFramebuffer();
        QVERIFY(compareImages(without, with).fractionOff > 0.002);
        const auto* layer = view->layer<views::AlertLayer>();
        QVERIFY(layer);
        QCOMPARE(layer->rackAlert(2)->name, std::string("GpuXidErrors"));
        QCOMPARE(layer->rackAlert(10)->state, model::AlertState::Silenced);
        QVERIFY(!layer->rackAlert(0));
        const auto grey = views::AlertLayer::severityColor(*layer->rackAlert(10));
        const auto red = views::AlertLayer::severityColor(*layer->rackAlert(2));
        QVERIFY(grey.r == grey.g || std::abs(grey.r - grey.g) < 16); // grey, not a severity hue
        QVERIFY(red.r > 200 && red.g < 100);

        views::AlertsPanel panel(view.get());
        auto* tree = panel.tree();
        QCOMPARE(tree->topLevelItemCount(), 2);
        auto* am = tree->topLevelItem(0);
        QVERIFY2(am->text(0).startsWith("Alertmanager — 3 firing, 1 silenced or inhibited, 1 not "
                                        "on this floor"),
                 qPrintable(am->text(0)));
        QCOMPARE(am->childCount(), 4);
        auto* worst = am->child(0);
        QVERIFY(worst->text(0).startsWith("GpuXidErrors"));
        QCOMPARE(worst->childCount(), 1);
        QVERIFY2(worst->child(0)->text(0).startsWith("explained by floortwin: A03"),
                 qPrintable(worst->child(0)->text(0)));
        QCOMPARE(am->child(3)->text(0).left(8), QString("NodeDown")); // muted last
        QVERIFY(tree->topLevelItem(1)->text(0).startsWith("floortwin — 1 causes"));
        QCOMPARE(am->child(1)->text(1),
                 QString::fromStdString(m_topology->name(EntityKind::Cdu, 0)));
        QCOMPARE(am->child(2)->text(1), QString("not on this floor"));
        // The inspector's rows: a rack lists what fires on its GPUs (the worst first), a tray
        // its muted alert with who silenced it, a rack without alerts nothing.
        auto rows = views::alertRows(*snapshot, *m_topology, {EntityKind::Rack, 2});
        QCOMPARE(rows.size(), std::size_t(1));
        QCOMPARE(rows[0].first, std::string("Alert"));
        QVERIFY2(rows[0].second.starts_with("GpuXidErrors [critical] on A03 tray 02 GPU 1"),
                 rows[0].second.c_str());
        rows = views::alertRows(*snapshot, *m_topology, {EntityKind::ComputeTray, 10 * 18 + 3});
        QCOMPARE(rows.size(), std::size_t(1));
        QCOMPARE(rows[0].first, std::string("Alert (silenced)"));
        QVERIFY(rows[0].second.find("silenced by alice") != std::string::npos);
        QVERIFY(views::alertRows(*snapshot, *m_topology, {EntityKind::Rack, 0}).empty());
        // Read-only without a writer: the buttons say why.
        panel.showAlert("fp-NodeDown");
        QVERIFY(panel.details()->toHtml().contains("https://runbooks.example.net/NodeDown"));
        QVERIFY(panel.details()->toPlainText().contains("Silenced by alice"));
        QVERIFY(!panel.silenceButton()->isEnabled());
        QVERIFY(panel.silenceButton()->toolTip().contains("--alertmanager-write"));
        // With one, Expire goes to the alert's own Alertmanager with the silence's id.
        std::string expiredAt, expiredId;
        auto writer = std::make_shared<views::AlertWriter>();
        writer->expire = [&](const std::string& source, const std::string& id,
                             const views::AlertWriter::Done& done) {
            expiredAt = source;
            expiredId = id;
            done("");
        };
        views::setAlertWriter(writer);
        panel.showAlert("fp-NodeDown");
        auto* expire = panel.findChildren<QPushButton*>().at(1);
        QVERIFY(expire->isEnabled());
        expire->click();
        QCOMPARE(expiredAt, std::string("alertmanager am:9093"));
        QCOMPARE(expiredId, std::string("s-1"));
        // A rack's silence: only with a rack selected; its hosts in instance and Hostname, and
        // the rule's rack label, each a silence of its own.
        QVERIFY(!panel.rackButton()->isEnabled());
        view->setSelection(model::EntityRef{EntityKind::Gpu, 2 * gpusPerRack + 5});
        QVERIFY(panel.rackButton()->isEnabled());
        QVERIFY(panel.rackButton()->toolTip().contains("A03"));
        const auto silences = views::rackSilences(*m_topology, 2);
        QCOMPARE(silences.size(), std::size_t(3));
        QCOMPARE(silences[0][0].name, std::string("instance"));
        QVERIFY(silences[0][0].regex);
        QVERIFY(silences[0][0].value.starts_with("(a03-n01|a03-n02|"));
        QVERIFY(silences[0][0].value.ends_with(")(:[0-9]+)?"));
        QCOMPARE(silences[1][0].name, std::string("Hostname"));
        QCOMPARE(silences[2][0].name, std::string("rack"));
        QCOMPARE(silences[2][0].value, std::string("A03"));
        QVERIFY(!silences[2][0].regex);
        views::setAlertWriter(nullptr);
    }

    void alertWriterSilencesThroughTheAlertsOwnAlertmanager() {
        // --alertmanager-write: the app's writer sends a silence to the Alertmanager the alert
        // came from, as the OS user, off the UI thread, and says so on the UI thread.
        std::mutex mutex;
        std::vector<std::string> bodies;
        testing::PageServer server([&](const testing::PageServer::Request& r) {
            std::lock_guard lock(mutex);
            bodies.push_back(r.method + " " + r.target + " " + r.body);
            return testing::PageServer::Response{200, R"({"silenceID":"made-1"})",
                                                 "application/json"};
        });
        app::Options o;
        o.sources = {"alertmanager=http://127.0.0.1:" + std::to_string(server.port())};
        o.alertmanagerWrite = true;
        app::installAlertWriter(o);
        const auto writer = views::alertWriter();
        QVERIFY(writer);
        QVERIFY(!writer->user.empty());
        std::optional<std::string> result;
        writer->silence("alertmanager 127.0.0.1:" + std::to_string(server.port()),
                        {{"alertname", "NodeDown"}, {"instance", "a03-n02:9100"}},
                        3600 * model::kNsPerSecond, "reseat",
                        [&](const std::string& error) { result = error; });
        QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), 10000);
        QCOMPARE(*result, std::string());
        {
            std::lock_guard lock(mutex);
            QCOMPARE(bodies.size(), std::size_t(1));
            QVERIFY(bodies[0].starts_with("POST /api/v2/silences "));
            QVERIFY(bodies[0].find("\"createdBy\":\"" + writer->user + "\"") != std::string::npos);
        }
        // Another source's name: refused without a request.
        result.reset();
        writer->silence("alertmanager elsewhere:9093", {{"a", "b"}}, 1, "",
                        [&](const std::string& error) { result = error; });
        QTRY_VERIFY(result.has_value());
        QVERIFY(result->find("no writable source") != std::string::npos);
        // Without the flag: read-only.
        o.alertmanagerWrite = false;
        app::installAlertWriter(o);
        QVERIFY(!views::alertWriter());
    }

    void storageLayerMatchesBaseline() {
        auto view = makeView(960, 540, true);
        view->setLayerVisible("storage", true);
        const QImage actual = view->grabFramebuffer();
        checkBaseline(actual, "storage_960x540");
        view->setLayerVisible("storage", false);
        QVERIFY(compareImages(actual, view->grabFramebuffer()).fractionOff > 0.02);
    }

    void nvlinkLayerMatchesBaseline() {
        auto view = makeView(960, 540, true);
        view->setLayerVisible("nvlink", true);
        view->setSelection(model::EntityRef{EntityKind::Rack, 2}); // rack scale: A03's links drawn
        const QImage actual = view->grabFramebuffer();
        checkBaseline(actual, "nvlink_960x540");
        view->setLayerVisible("nvlink", false);
        QVERIFY(compareImages(actual, view->grabFramebuffer()).fractionOff > 0.005);
    }

    void railLayerMatchesBaseline() {
        auto view = makeView(960, 540, true);
        view->setLayerVisible("rails", true);
        const QImage actual = view->grabFramebuffer();
        checkBaseline(actual, "rails_960x540");
        view->setLayerVisible("rails", false);
        QVERIFY(compareImages(actual, view->grabFramebuffer()).fractionOff > 0.05);
    }

    void railLayerShowsLoadAboveTheFloor() {
        // Two leaves of one rail, one nearly idle and one nearly full: drawn above the racks, in
        // clearly different colours.
        const auto& t = *m_topology;
        auto base = patternSnapshot(t);
        auto s = std::make_shared<model::Snapshot>(*base);
        // Rail 3 runs mid-floor, clear of the spine rows above (seen from the top).
        const model::EntityId quiet = t.rails.firstLeaf[3], busy = t.rails.firstLeaf[3] + 1;
        s->values[model::ch::LeafUtilization][quiet] = 4;
        s->values[model::ch::LeafUtilization][busy] = 92;
        // Quiet, healthy links elsewhere: thin bundles that do not hide the switches.
        for (auto c : {model::ch::FabricTx, model::ch::FabricUtilization, model::ch::FabricState,
                       model::ch::FabricDrops, model::ch::LeafState})
            std::ranges::fill(s->writable(c), 0.0f);
        views::FloorView view(m_topology, [s] { return s; });
        view.setShowFrameStats(false);
        view.setAnimated(false);
        view.setAttribute(Qt::WA_DontShowOnScreen, true);
        view.resize(960, 540);
        view.setLayerVisible("rails", true);
        view.show();
        QCoreApplication::processEvents();
        view.topView();
        const QImage img = view.grabFramebuffer();
        auto pixelAt = [&](model::EntityId leaf) {
            auto p = t.leaves.position[leaf];
            const auto half = views::FabricGeometry::leafHalfOn(t);
            p.z += half.z;        // the top face, lit from above
            p.x += 0.5f * half.x; // beside the trunks that leave its centre
            const auto sp = view.project(p);
            return sp ? img.pixel(static_cast<int>(sp->x), static_cast<int>(sp->y)) : 0u;
        };
        const QRgb a = pixelAt(quiet), b = pixelAt(busy);
        const int d = std::abs(qRed(a) - qRed(b)) + std::abs(qGreen(a) - qGreen(b)) +
                      std::abs(qBlue(a) - qBlue(b));
        QVERIFY2(d > 120, qPrintable(QString("quiet %1, busy %2").arg(a, 0, 16).arg(b, 0, 16)));
        QVERIFY2(qRed(b) > qRed(a),
                 qPrintable(QString("quiet %1, busy %2")
                                .arg(a, 0, 16)
                                .arg(b, 0, 16))); // the busy one toward the red end
        // Above the floor: from the side, every leaf projects higher on screen than the rack
        // tops below it.
        view.resetCamera();
        for (model::EntityId leaf : {quiet, busy}) {
            auto rackTop = t.leaves.position[leaf];
            rackTop.z = static_cast<float>(t.spec().rack.heightM);
            QVERIFY(view.project(t.leaves.position[leaf])->y < view.project(rackTop)->y);
        }
    }

    void pickingFindsTheFabric() {
        auto view = makeView(1280, 720, true);
        view->setLayerVisible("rails", true);
        view->grabFramebuffer();
        const auto& t = *m_topology;
        for (model::EntityId leaf : {0u, 5u, 11u}) {
            const auto s = view->project(t.leaves.position[leaf]);
            QVERIFY(s);
            const auto hit = view->pickAt(s->x, s->y);
            QVERIFY(hit);
            QCOMPARE(hit->entity.kind, EntityKind::Leaf);
            QCOMPARE(hit->entity.id, leaf);
        }
        const auto s = view->project(t.spines.position[4]);
        const auto hit = view->pickAt(s->x, s->y);
        QVERIFY(hit && hit->entity.kind == EntityKind::Spine && hit->entity.id == 4u);
        // Off the rail layer, the same point no longer hits a switch.
        view->setLayerVisible("rails", false);
        const auto off = view->pickAt(s->x, s->y);
        QVERIFY(!off || off->entity.kind != EntityKind::Spine);
    }

    void fabricPanelSelectsOnTheFloor() {
        auto view = makeView(800, 450, true);
        views::FabricPanel panel(view.get());
        panel.resize(420, 560);
        panel.show();
        QCoreApplication::processEvents();
        const model::EntityRef leaf{EntityKind::Leaf, 6};
        const auto cell = panel.cellOf(leaf);
        QVERIFY(cell);
        QCOMPARE(panel.switchAt(cell->center()), std::optional<model::EntityRef>(leaf));
        QTest::mouseClick(&panel, Qt::LeftButton, {}, cell->center().toPoint());
        QVERIFY(view->selection());
        QCOMPARE(*view->selection(), leaf);
        const model::EntityRef spine{EntityKind::Spine, 2};
        QTest::mouseClick(&panel, Qt::LeftButton, {}, panel.cellOf(spine)->center().toPoint());
        QCOMPARE(*view->selection(), spine);
        // The inspector shows a leaf's ports and uplinks as links to follow.
        views::InspectorPanel inspector(view.get());
        view->setSelection(leaf);
        QVERIFY(!inspector.tree()
                     ->findItems("up to Spine", Qt::MatchRecursive | Qt::MatchStartsWith, 0)
                     .isEmpty());
        QVERIFY(!panel.grab().isNull());
    }

    void storagePanelFollowsTheFlows() {
        auto view = makeView(640, 360);
        views::StoragePanel panel(view.get());
        panel.resize(380, 640);
        const std::size_t before = panel.history().size();
        for (int i = 0; i < 3; ++i) {
            m_core->runUntil(m_core->latest()->time + model::kNsPerSecond);
            view->refreshSnapshot();
        }
        QCOMPARE(panel.history().size(), before + 3);
        QVERIFY(!panel.grab().isNull());
    }

    void lifecycleBoardAndFloorSelectEachOther() {
        auto view = makeView(800, 450, true);
        views::LifecycleBoard board(view.get());
        board.resize(900, 400);
        view->refreshSnapshot();
        board.lanes()->rebuild();
        // Lanes: the racks in bring-up (row B), not the production racks without history.
        QCOMPARE(board.lanes()->lanes().size(), 8u);
        QCOMPARE(board.lanes()->lanes().front(), 8u);
        // Board -> floor: clicking a lane selects its rack.
        emit board.lanes()->laneClicked(13, std::nullopt);
        QVERIFY(view->selection());
        QCOMPARE(view->selection()->id, 13u);
        QCOMPARE(view->selection()->kind, EntityKind::Rack);
        // Floor -> board: the selected rack's lane is there to highlight and scroll to.
        view->setSelection(model::EntityRef{EntityKind::Gpu, 10 * 72 + 5}); // a GPU of B03
        QVERIFY(board.lanes()->laneTop(10) >= 0);
        // Filtering the board filters the floor too.
        const int troubleshooting =
            board.filter()->findData(static_cast<int>(model::RackLifecycle::Troubleshooting));
        board.filter()->setCurrentIndex(troubleshooting);
        QCOMPARE(board.lanes()->lanes().size(), 1u);
        QCOMPARE(board.lanes()->lanes().front(), 13u);
        QVERIFY(view->layer<views::LifecycleLayer>()->filter() ==
                model::RackLifecycle::Troubleshooting);
        board.filter()->setCurrentIndex(0);
        QVERIFY(!view->layer<views::LifecycleLayer>()->filter());
        QVERIFY(!board.grab().isNull());
    }

    void timelineKeysDriveTheTransport() {
        // The live simulator as the transport: space pauses, L speeds up, J slows down; seek
        // keys are for replays and are left alone.
        views::TimelinePanel timeline(*m_core);
        timeline.resize(900, 120);
        m_core->setPaused(false);
        m_core->setSpeed(1.0);
        QVERIFY(timeline.handleKey(Qt::Key_Space, {}));
        QVERIFY(m_core->paused());
        QVERIFY(timeline.handleKey(Qt::Key_L, {})); // paused: L plays
        QVERIFY(!m_core->paused());
        QVERIFY(timeline.handleKey(Qt::Key_L, {})); // playing: L goes faster
        QVERIFY(m_core->speed() > 1.0);
        QVERIFY(timeline.handleKey(Qt::Key_J, {}));
        QCOMPARE(m_core->speed(), 1.0);
        QVERIFY(!timeline.handleKey(Qt::Key_Home, {}));
        // Speed and pause have one owner, the transport: a layers panel on the same transport
        // follows what the timeline's keys did, and its own box drives the timeline's.
        views::FloorView view(m_topology, [this] { return m_core->latest(); });
        views::LayersPanel panel(&view, m_core.get());
        auto* speedBox = panel.findChild<QComboBox*>("speed");
        QVERIFY(speedBox);
        QVERIFY(timeline.handleKey(Qt::Key_K, {})); // pause
        QCoreApplication::processEvents();          // the news crosses as a queued signal
        QCOMPARE(speedBox->currentText(), QString("Paused"));
        speedBox->setCurrentIndex(2); // 10x
        QVERIFY(!m_core->paused());
        QCOMPARE(m_core->speed(), 10.0);
        QCoreApplication::processEvents();
        QCOMPARE(timeline.findChild<QComboBox*>()->currentData().toDouble(), 10.0);
        m_core->setSpeed(1.0);
        // The axis maps time to pixels and back.
        auto* axis = timeline.axis();
        axis->resize(800, 70);
        const auto [a, b] = axis->visibleRange();
        const model::TimeNs mid = a + (b - a) / 2;
        QVERIFY(std::abs(axis->timeAt(axis->xAt(mid)) - mid) < (b - a) / 500);
        m_core->setPaused(false);
    }

    void inspectorCopiesALinkAndOpensOutOfTheTwin() {
        // A floor whose file holds links out, recorded and replayed in the window: the
        // inspector's Copy link gives the view as a link that reads back, and Open in lists the
        // floor's links that fit the selected entity (a tray's host, not a rack's).
        QTemporaryDir dir;
        auto spec = importers::generateFloor(4, 2);
        spec.links = {
            {"grafana", "https://grafana.example/d/dcgm?var-Hostname={host}&from={t-15m}"},
            {"dcim", "https://netbox.example/dcim/racks/?q={rack}"}};
        const QString floorPath = dir.filePath("links.json");
        {
            QFile f(floorPath);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(importers::floorSpecToJson(spec)));
        }
        app::Options o;
        o.floor = floorPath.toStdString();
        o.record = dir.filePath("links.ftrec").toStdString();
        auto session = recordedReplay(o, 10);
        QVERIFY2(session, session ? "" : session.error().c_str());
        app::MainWindow window(**session, nullptr, false);
        showOffscreen(window, 1200, 800);
        auto* view = window.floorView();
        const auto& t = view->topology();
        const model::EntityRef tray{model::EntityKind::ComputeTray, 5};
        view->setSelection(tray);
        view->setLayerVisible("thermal", true);
        QCoreApplication::processEvents();
        const auto links = window.inspector()->outLinks();
        QCOMPARE(links.size(), std::size_t{2});
        QCOMPARE(links[0].first, QString("Open in grafana"));
        QVERIFY2(links[0].second.startsWith(QString::fromStdString(
                     "https://grafana.example/d/dcgm?var-Hostname=" + t.hostName(5) + "&from=")),
                 qPrintable(links[0].second));
        QCOMPARE(links[1].second, QString::fromStdString("https://netbox.example/dcim/racks/?q=" +
                                                         t.name(model::EntityKind::Rack, 0)));
        view->setSelection(model::EntityRef{model::EntityKind::Rack, 1});
        QCoreApplication::processEvents();
        QCOMPARE(window.inspector()->outLinks().size(), std::size_t{1}); // a rack has no host

        view->setSelection(tray);
        const QString url = window.copyLink();
        QCOMPARE(QGuiApplication::clipboard()->text(), url);
        auto link = app::parseViewLink(url.toStdString(), views::layerIds());
        QVERIFY2(link, link ? "" : link.error().c_str());
        QCOMPARE(link->replay, std::filesystem::absolute(o.record).lexically_normal().string());
        QVERIFY(link->at && !link->at->sinceStart && link->at->value == view->snapshot()->time);
        QCOMPARE(link->select, "compute_tray:" + t.name(model::EntityKind::Rack, 0) + "/6");
        QVERIFY(link->layers &&
                std::ranges::find(*link->layers, std::string("thermal")) != link->layers->end());
        QVERIFY(link->camera.has_value());
        QVERIFY(std::abs(link->camera->distance - view->camera().distance) < 1e-3);
    }

    void replayWindowExportsFrames() {
        // Record 20 s of the leak scenario, open it as a replay session in the main window,
        // export five seconds as frames.
        QTemporaryDir dir;
        app::Options o;
        o.scenario = "leak";
        o.record = dir.filePath("leak.ftrec").toStdString();
        auto session = recordedReplay(o, 20);
        QVERIFY2(session, session ? "" : session.error().c_str());
        app::MainWindow window(**session, nullptr, false);
        showOffscreen(window, 1200, 800);
        auto& replay = *(*session)->replay;
        const auto written =
            window.exportFrames(dir.filePath("frames"), replay.beginTime(),
                                replay.beginTime() + 5 * model::kNsPerSecond, model::kNsPerSecond);
        QVERIFY2(written, written ? "" : written.error().c_str());
        QCOMPARE(*written, 6);
        const QImage first(dir.filePath("frames/frame_00001.png")),
            last(dir.filePath("frames/frame_00006.png"));
        QVERIFY(!first.isNull() && !last.isNull());
        QVERIFY(compareImages(first, last).fractionOff > 0.0001); // time moved on the HUD at least
        // Keys drive the replay: step, jump, home.
        QVERIFY(window.timeline()->handleKey(Qt::Key_Right, {}));
        QVERIFY(window.timeline()->handleKey(Qt::Key_End, {}));
        QCOMPARE(replay.position(), replay.endTime());
        QVERIFY(window.timeline()->handleKey(Qt::Key_Home, {}));
        QCOMPARE(replay.position(), replay.beginTime());
        // J plays backwards, L turns round; J again while going back goes faster.
        replay.seek(replay.endTime());
        QVERIFY(window.timeline()->handleKey(Qt::Key_J, {}));
        QVERIFY(replay.reverse() && !replay.paused());
        const double speed = replay.speed();
        QVERIFY(window.timeline()->handleKey(Qt::Key_J, {}));
        QVERIFY(replay.reverse() && replay.speed() > speed);
        QVERIFY(window.timeline()->handleKey(Qt::Key_L, {}));
        QVERIFY(!replay.reverse() && !replay.paused());
        QCOMPARE(replay.speed(), 1.0);
        QVERIFY(window.timeline()->handleKey(Qt::Key_K, {}));
        QVERIFY(replay.paused());
        // A click on the lifecycle board seeks the replay to the moment under the pointer.
        auto* lanes = window.findChild<views::LifecycleLanes*>();
        QVERIFY(lanes);
        const model::TimeNs moment = replay.beginTime() + 7 * model::kNsPerSecond;
        emit lanes->laneClicked(0, moment);
        QCOMPARE(replay.position(), moment);
        QCOMPARE(window.floorView()->selection()->id, 0u);
        emit lanes->laneClicked(1, std::nullopt); // on the names: selects, does not seek
        QCOMPARE(replay.position(), moment);
        // The cooling and storage charts read the recording's past: after a seek to the end
        // they hold its 20 s, one point a second; seeking back trims them to what came before.
        auto* cooling = window.findChild<views::CoolingPanel*>();
        auto* storage = window.findChild<views::StoragePanel*>();
        QVERIFY(cooling && storage);
        replay.seek(replay.endTime());
        replay.renderNow();
        window.floorView()->refreshSnapshot();
        QCOMPARE(cooling->history(0).size(), std::size_t{21});
        QCOMPARE(storage->history().size(), std::size_t{21});
        const auto supplyNow = cooling->history(0).back().supply;
        QVERIFY(std::isfinite(supplyNow) && supplyNow > 20);
        // So do the power chart and the inspector's sparklines, from the one history.
        auto* power = window.findChild<views::PowerPanel*>();
        auto* inspector = window.findChild<views::InspectorPanel*>();
        QVERIFY(power && inspector);
        QCOMPARE(power->history(0).size(), std::size_t{21});
        QVERIFY(std::isfinite(power->history(0).front().draw));
        window.floorView()->setSelection(model::EntityRef{EntityKind::Gpu, 7});
        inspector->refresh();
        const auto temps = inspector->history(model::ch::GpuTemperature);
        QCOMPARE(temps.size(), std::size_t{21});
        QVERIFY(std::ranges::all_of(temps, [](float v) { return std::isfinite(v); }));
        replay.seek(replay.beginTime() + 4 * model::kNsPerSecond);
        replay.renderNow();
        window.floorView()->refreshSnapshot();
        QCOMPARE(cooling->history(0).size(), std::size_t{5});
        QCOMPARE(power->history(0).size(), std::size_t{5});
        inspector->refresh();
        QCOMPARE(inspector->history(model::ch::GpuTemperature).size(), std::size_t{5});
    }

    // File ▸ Compare with… of a second recording puts the baseline's events on the timeline
    // (the menu's handler returned before showing them).
    void compareShowsTheBaselinesEvents() {
        QTemporaryDir dir;
        auto record = [&](const char* scenario, const QString& file, int seconds) {
            app::Options o;
            o.scenario = scenario;
            o.record = dir.filePath(file).toStdString();
            auto live = app::makeSimSession(o, false, true);
            if (!live) qFatal("%s", live.error().c_str());
            (*live)->sim->runUntil((*live)->sim->startTime() + seconds * model::kNsPerSecond);
            return o.record;
        };
        // The pump has failed and its alarms are events by 60 s.
        const std::string a = record("leak", "a.ftrec", 20),
                          b = record("pump-failure", "b.ftrec", 60);
        auto session = app::makeReplaySession(a);
        QVERIFY2(session, session ? "" : session.error().c_str());
        app::MainWindow window(**session, nullptr, false);
        window.setAttribute(Qt::WA_DontShowOnScreen, true);
        window.resize(1200, 800);
        window.show();
        QVERIFY(window.timeline()->axis()->baselineEvents().empty());
        const auto missing = window.compareWith(dir.filePath("none.ftrec").toStdString());
        QVERIFY(!missing);
        QVERIFY(window.timeline()->axis()->baselineEvents().empty());
        const auto ok = window.compareWith(b);
        QVERIFY2(ok, ok ? "" : ok.error().c_str());
        const auto& baseline = (*session)->compare->reader().events();
        QVERIFY(!baseline.empty());
        QCOMPARE(window.timeline()->axis()->baselineEvents().size(), baseline.size());
    }

    // Started in wall mode (--wall), the window's F11 action says so, and one press leaves it:
    // the docks, the menu bar and the status bar come back.
    void wallModeFromTheStartLeavesWithOneF11() {
        QTemporaryDir dir;
        app::Options o;
        o.record = dir.filePath("wall.ftrec").toStdString();
        auto session = recordedReplay(o, 5);
        QVERIFY2(session, session ? "" : session.error().c_str());
        app::MainWindow window(**session, nullptr, false);
        showOffscreen(window, 1200, 800);
        window.setWallMode(true);
        QAction* f11 = nullptr;
        for (auto* a : window.actions())
            if (a->shortcut() == QKeySequence(Qt::Key_F11)) f11 = a;
        QVERIFY(f11);
        QVERIFY(f11->isChecked());
        QVERIFY(!window.menuBar()->isVisibleTo(&window));
        f11->trigger();
        QVERIFY(!f11->isChecked());
        QVERIFY(window.menuBar()->isVisibleTo(&window));
        QVERIFY(!window.isFullScreen());
    }

    // A replay's incidents are worked out in the background over the whole recording; the
    // Incidents dock lists each chain as it stood at the moment shown, and a click on a line
    // frames what it names and seeks there.
    void incidentsDockOnAReplay() {
        QTemporaryDir dir;
        app::Options o;
        o.scenario = "pump-failure";
        o.record = dir.filePath("pf.ftrec").toStdString();
        auto session = recordedReplay(o, 180);
        QVERIFY(session);
        auto& replay = *(*session)->replay;
        app::MainWindow window(**session, nullptr, false);
        window.resize(1280, 800);
        window.show();
        auto* panel = window.findChild<views::IncidentsPanel*>();
        QVERIFY(panel);
        replay.seek(replay.endTime());
        replay.renderNow();
        window.floorView()->refreshSnapshot();
        QTRY_VERIFY_WITH_TIMEOUT(panel->tree()->topLevelItemCount() == 1, 30000);
        auto* top = panel->tree()->topLevelItem(0);
        QVERIFY(top->text(1).startsWith("CDU A1 pump 1: pump 1 tripped"));
        QVERIFY(top->childCount() > 5);
        // Before the failure there is no incident; at 70 s its first minutes.
        replay.seek(replay.beginTime() + 50 * model::kNsPerSecond);
        replay.renderNow();
        window.floorView()->refreshSnapshot();
        QCOMPARE(panel->tree()->topLevelItemCount(), 0);
        replay.seek(replay.beginTime() + 70 * model::kNsPerSecond);
        replay.renderNow();
        window.floorView()->refreshSnapshot();
        QCOMPARE(panel->tree()->topLevelItemCount(), 1);
        top = panel->tree()->topLevelItem(0);
        const int early = top->childCount();
        QVERIFY(early > 0);
        // The coolant step: a click selects a rack of CDU A1, frames it and seeks there.
        QTreeWidgetItem* flow = nullptr;
        for (int i = 0; i < top->childCount(); ++i)
            if (top->child(i)->text(1).contains("coolant flow down")) flow = top->child(i);
        QVERIFY(flow);
        const auto before = window.floorView()->camera().distance;
        emit panel->tree()->itemClicked(flow, 1);
        const auto sel = window.floorView()->selection();
        QVERIFY(sel && sel->kind == EntityKind::Rack);
        const auto& t = *(*session)->topology;
        QCOMPARE(t.racks.cdu[sel->id], *t.find(EntityKind::Cdu, "CDU A1"));
        QVERIFY(window.floorView()->camera().distance != before);
        QCOMPARE(replay.position(), replay.beginTime() + 62 * model::kNsPerSecond);
        // On the timeline, a double-click opens the incident's band into its chain: a lane per
        // step, the root first, each seeking to its step; Escape closes it.
        replay.seek(replay.endTime());
        replay.renderNow();
        window.floorView()->refreshSnapshot();
        auto* axis = window.findChild<views::TimelineAxis*>();
        QVERIFY(axis);
        const int strip = axis->minimumSizeHint().height();
        axis->grab();
        QTRY_VERIFY(!(axis->grab(), axis->bandRects()).empty());
        QTest::mouseDClick(axis, Qt::LeftButton, {}, axis->bandRects()[0].center().toPoint());
        QVERIFY(axis->expandedIncident());
        axis->grab();
        const auto lanes = axis->lanes();
        QVERIFY(lanes.size() > 4 && lanes.size() <= 8);
        QCOMPARE(lanes[0].second, replay.beginTime() + 60 * model::kNsPerSecond); // the root
        QVERIFY(std::ranges::is_sorted(lanes, {}, [](const auto& l) { return l.second; }));
        QVERIFY(axis->minimumSizeHint().height() >= strip + static_cast<int>(lanes.size()) * 15);
        QCoreApplication::processEvents(); // the dock makes room for the lanes
        QVERIFY(axis->height() >= strip + static_cast<int>(lanes.size()) * 15);
        if (qEnvironmentVariableIsSet("FT_SHOTS")) window.grab().save("/tmp/timeline-chain.png");
        QTest::mouseClick(axis, Qt::LeftButton, {}, lanes[3].first.center().toPoint());
        QVERIFY(std::abs(replay.position() - lanes[3].second) <= replay.tickLength());
        QTest::keyClick(axis, Qt::Key_Escape);
        QVERIFY(!axis->expandedIncident());
        QCOMPARE(axis->minimumSizeHint().height(), strip);
    }

    // A replay's bookmarks become a report: the moments in a table, a picture of each from its
    // camera, the alarms standing (by cause) and the events of the minute before.
    void bookmarksMakeAnIncidentReport() {
        QTemporaryDir dir;
        app::Options o;
        o.scenario = "pump-failure";
        o.record = dir.filePath("pf.ftrec").toStdString();
        {
            auto live = app::makeSimSession(o, false, true);
            QVERIFY2(live, live ? "" : live.error().c_str());
            (*live)->sim->runUntil((*live)->sim->startTime() + 150 * model::kNsPerSecond);
        }
        {
            auto reader = importers::RecordingReader::open(o.record);
            QVERIFY(reader);
            const auto t0 = (*reader)->startTime();
            QVERIFY((*reader)->addBookmark(t0 + 30 * model::kNsPerSecond, "all quiet"));
            QVERIFY((*reader)->addBookmark(
                t0 + 120 * model::kNsPerSecond, "flow gone on CDU A1",
                R"({"focus":[2,-1,1],"distance":14,"azimuth":-20,"elevation":25})"));
        }
        auto session = app::makeReplaySession(o.record);
        QVERIFY2(session, session ? "" : session.error().c_str());
        const QString out = dir.filePath("report");
        auto report = app::writeIncidentReport(**session, out.toStdString(), 640, 360);
        QVERIFY2(report, report ? "" : report.error().c_str());
        QCOMPARE(report->moments, 2);
        QFile md(QString::fromStdString(report->markdown));
        QVERIFY(md.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(md.readAll());
        QVERIFY(text.startsWith("# Incident report: pf.ftrec"));
        QVERIFY(text.contains("Scenario: pump-failure"));
        QVERIFY(text.contains("| +0:00:30 | all quiet |"));
        QVERIFY(text.contains("## 14:15:20 — flow gone on CDU A1"));
        QVERIFY(text.contains("![flow gone on CDU A1](moment-02.png)"));
        QVERIFY(text.contains("**CRITICAL** Low coolant flow — 8 racks (CDU A1)"));
        QVERIFY(text.contains("No alarms stood."));           // at 30 s
        QVERIFY(text.contains("pump 2 tripped (same feed)")); // an event of the minute before
        const QImage quiet(out + "/moment-01.png"), gone(out + "/moment-02.png");
        QCOMPARE(quiet.size(), QSize(640, 360));
        QVERIFY(compareImages(quiet, gone).fractionOff > 0.1); // another camera, another moment
        // Without bookmarks there is nothing to report, and it says so.
        app::Options bare;
        bare.record = dir.filePath("bare.ftrec").toStdString();
        {
            auto live = app::makeSimSession(bare, false, true);
            QVERIFY(live);
            (*live)->sim->runUntil((*live)->sim->startTime() + 5 * model::kNsPerSecond);
        }
        auto none = app::makeReplaySession(bare.record);
        QVERIFY(none);
        const auto empty = app::writeIncidentReport(**none, dir.filePath("r2").toStdString());
        QVERIFY(!empty && empty.error().find("no bookmarks") != std::string::npos);
    }

    void coolingPanelFollowsSelection() {
        auto view = makeView(640, 360);
        views::CoolingPanel panel(view.get());
        panel.resize(380, 720);
        view->setSelection(model::EntityRef{EntityKind::Rack, 10}); // B03, on CDU B1
        QCOMPARE(panel.cdu(), 1u);
        view->setSelection(model::EntityRef{EntityKind::Pump, 1}); // CDU A1 pump 2
        QCOMPARE(panel.cdu(), 0u);
        view->setSelection(model::EntityRef{EntityKind::Gpu, 72 * 9}); // a GPU of B02
        QCOMPARE(panel.cdu(), 1u);
        // History grows one point per simulated second.
        const std::size_t before = panel.history(1).size();
        for (int i = 0; i < 5; ++i) {
            m_core->runUntil(m_core->latest()->time + model::kNsPerSecond);
            view->refreshSnapshot();
        }
        QCOMPARE(panel.history(1).size(), before + 5);
        QVERIFY(!panel.grab().isNull());
    }

    void metricChangesTheColours() {
        auto view = makeView(640, 360);
        const QImage temps = view->grabFramebuffer();
        view->setMetric(model::ch::RackPower);
        const QImage power = view->grabFramebuffer();
        QVERIFY(compareImages(temps, power).fractionOff > 0.02);
    }

    void pickingFindsWhatIsUnderTheCursor() {
        auto view = makeView(960, 540);
        view->grabFramebuffer(); // lays out the camera
        const auto& t = *m_topology;
        const auto& rk = t.spec().rack;
        for (model::EntityId rack : {0u, 5u, 9u}) {
            // A point on the rack top picks the rack.
            auto top = t.racks.position[rack];
            top.z = static_cast<float>(rk.heightM);
            const auto s = view->project(top);
            QVERIFY(s);
            const auto hit = view->pickAt(s->x, s->y);
            QVERIFY(hit);
            QCOMPARE(hit->rack, rack);
        }
        // A point on the front of row A's rack 3, at tray 5's height, GPU 2's column: that GPU.
        const model::EntityId rack = 2, trayIndex = 4, gpuIndex = 2;
        const model::EntityId tray = rack * rk.computeTrays + trayIndex;
        const model::EntityId gpu = tray * rk.gpusPerTray + gpuIndex;
        model::Vec3 p = t.gpus.position[gpu];
        p.y = t.racks.position[rack].y - static_cast<float>(rk.depthM) / 2;
        const auto s = view->project(p);
        QVERIFY(s);
        const auto hit = view->pickAt(s->x, s->y);
        QVERIFY(hit);
        QCOMPARE(hit->entity.kind, EntityKind::Gpu);
        QCOMPARE(hit->entity.id, gpu);
        // Empty floor picks nothing.
        QVERIFY(!view->pickAt(2, 538));
    }

    void telemetryGapsAreDrawnAsNoData() {
        // Telemetry covering rack 0's GPU temperatures only: rack 0 in the palette, every other
        // rack as neutral no data; with "fill gaps" the others change but stay desaturated.
        auto base = patternSnapshot(*m_topology);
        auto snap = std::make_shared<model::Snapshot>(*base);
        snap->telemetry = true;
        snap->staleAfter = 30 * model::kNsPerSecond;
        for (std::size_t k = 0; k < model::kEntityKindCount; ++k)
            snap->measuredAt[k].assign(m_topology->count(static_cast<EntityKind>(k)), 0);
        const auto gpr = static_cast<model::EntityId>(72);
        for (model::EntityId g = 0; g < gpr; ++g)
            snap->measuredAt[static_cast<std::size_t>(EntityKind::Gpu)][g] = snap->time;
        snap->measuredAt[static_cast<std::size_t>(EntityKind::Rack)][0] = snap->time;
        snap->measuredChannels.set(model::ch::GpuTemperature);
        snap->measuredChannels.set(model::ch::RackGpuTempMax);
        std::shared_ptr<const model::Snapshot> shared = snap;
        views::FloorView view(m_topology, [shared] { return shared; });
        view.setShowFrameStats(false);
        view.setAnimated(false);
        showOffscreen(view, 960, 540);
        view.grabFramebuffer(); // lays out the camera
        const auto& t = *m_topology;
        const auto& rk = t.spec().rack;
        auto pixelAtGpu = [&](const QImage& image, model::EntityId rack) {
            const model::EntityId tray = rack * rk.computeTrays + 4;
            model::Vec3 p = t.gpus.position[tray * rk.gpusPerTray + 1];
            p.y = t.racks.position[rack].y - static_cast<float>(rk.depthM) / 2;
            const auto sp = view.project(p);
            if (!sp) qFatal("GPU not on screen");
            return image.pixel(static_cast<int>(sp->x), static_cast<int>(sp->y));
        };
        auto spread = [](QRgb c) {
            return std::max({qRed(c), qGreen(c), qBlue(c)}) -
                   std::min({qRed(c), qGreen(c), qBlue(c)});
        };
        const QImage gaps = view.grabFramebuffer();
        QVERIFY2(spread(pixelAtGpu(gaps, 0)) > 60, "a measured GPU is drawn in the palette");
        for (const model::EntityId rack : {3u, 9u}) {
            const QRgb c = pixelAtGpu(gaps, rack);
            QVERIFY2(spread(c) < 16 && qGreen(c) < 110,
                     qPrintable(QString("rack %1 never measured but drawn %2,%3,%4")
                                    .arg(rack)
                                    .arg(qRed(c))
                                    .arg(qGreen(c))
                                    .arg(qBlue(c))));
        }
        view.setFillModelled(true);
        const QImage filled = view.grabFramebuffer();
        QCOMPARE(pixelAtGpu(filled, 0), pixelAtGpu(gaps, 0));
        QVERIFY(pixelAtGpu(filled, 9) != pixelAtGpu(gaps, 9));
        QVERIFY2(spread(pixelAtGpu(filled, 9)) < spread(pixelAtGpu(gaps, 0)) / 2,
                 "modelled values are desaturated");
        // The inspector says which is which.
        views::InspectorPanel inspector(&view);
        view.setFillModelled(false);
        view.setSelection(model::EntityRef{EntityKind::Gpu, 9 * gpr + 5});
        inspector.refresh();
        auto valueOf = [&](const char* label) {
            const auto items =
                inspector.tree()->findItems(label, Qt::MatchRecursive | Qt::MatchExactly, 0);
            return items.isEmpty() ? QString() : items[0]->text(1);
        };
        QCOMPARE(valueOf("GPU die temperature"), QString("no data"));
        QVERIFY(valueOf("Data").startsWith("never measured"));
        view.setSelection(model::EntityRef{EntityKind::Gpu, 5});
        inspector.refresh();
        QVERIFY(valueOf("GPU die temperature").endsWith("°C"));
        QVERIFY(valueOf("Data").startsWith("measured"));
        // The floor's totals only count what was measured.
        const auto sum = views::summarize(t, *snap);
        QCOMPARE(sum.gpusMeasured, std::size_t{72});
        QVERIFY(t.gpus.rack[sum.hottestGpu] == 0);
    }

    void powerLayerAndPanelFollowTheFloor() {
        auto view = makeView(800, 450);
        views::PowerPanel panel(view.get());
        const QImage before = view->grabFramebuffer();
        view->setLayerVisible("power", true);
        const QImage after = view->grabFramebuffer();
        // Busways, drops and bars appear over the racks.
        QVERIFY(compareImages(before, after).fractionOff > 0.01);
        // The panel shows the rack of whatever power entity is selected.
        const auto psu = m_topology->find(EntityKind::Psu, "A03 shelf 2 PSU 5");
        QVERIFY(psu);
        view->setSelection(model::EntityRef{EntityKind::Psu, *psu});
        QCOMPARE(panel.rack(), *m_topology->find(EntityKind::Rack, "A03"));
        const auto feed = m_topology->find(EntityKind::PowerFeed, "B busway A");
        QVERIFY(feed);
        view->setSelection(model::EntityRef{EntityKind::PowerFeed, *feed});
        QCOMPARE(panel.rack(), m_topology->rows.firstRack[1]);
        // The inspector links a rack to its shelves and busways, a PSU to its feed.
        views::InspectorPanel inspector(view.get());
        view->setSelection(
            model::EntityRef{EntityKind::Rack, *m_topology->find(EntityKind::Rack, "A03")});
        inspector.refresh();
        QCOMPARE(inspector.tree()
                     ->findItems("A03 shelf 8", Qt::MatchRecursive | Qt::MatchExactly, 0)
                     .size(),
                 1);
        QCOMPARE(inspector.tree()
                     ->findItems("A busway B", Qt::MatchRecursive | Qt::MatchExactly, 0)
                     .size(),
                 1);
        view->setSelection(model::EntityRef{EntityKind::Psu, *psu});
        inspector.refresh();
        const auto feedRow =
            inspector.tree()->findItems("Feed", Qt::MatchRecursive | Qt::MatchExactly, 0);
        QCOMPARE(feedRow.size(), 1);
        QCOMPARE(feedRow[0]->text(1), QString("A busway A"));
        view->setLayerVisible("power", false);
    }

    void sourcesPanelListsUnknownHosts() {
        auto view = makeView(640, 360);
        view->setSourceStatus([] {
            views::SourceStatus s;
            s.name = "scrape 127.0.0.1:9400";
            s.detail = "192 mapped, 12 unmapped";
            s.unknownHosts.push_back({"gpu-node-21", 8, {"gpu-node-0021"}});
            s.unknownHosts.push_back({"login-01", 4, {}});
            s.families.push_back({"DCGM_FI_DEV_GPU_TEMP", 192, 192, 0, 0, "gpu.temperature",
                                  "UUID (184), host and PCI address (8)", ""});
            s.families.push_back({"DCGM_FI_DEV_POWER_USAGE", 12, 0, 0, 0, "gpu.power", "",
                                  "gpu-node-21 (8); login-01 (4)"});
            s.families.push_back({"DCGM_FI_DEV_FAN_SPEED", 12, 0, 12, 0, "", "",
                                  "fan speed: an NVL72 GPU is liquid-cooled"});
            return std::vector<views::SourceStatus>{s};
        });
        views::SourcesPanel panel(view.get());
        panel.refresh();
        // The mapping report: what each family became, what was not placed first.
        const auto mapping = panel.tree()->findItems("mapping: 3 families",
                                                     Qt::MatchRecursive | Qt::MatchExactly, 0);
        QCOMPARE(mapping.size(), 1);
        QCOMPARE(mapping[0]->text(1), QString("192 placed"));
        QCOMPARE(mapping[0]->text(2),
                 QString("12 not placed, 12 ignored on purpose, 0 without a rule"));
        QVERIFY(mapping[0]->isExpanded()); // something was not placed: open
        QCOMPARE(mapping[0]->child(0)->text(0), QString("DCGM_FI_DEV_POWER_USAGE"));
        QCOMPARE(mapping[0]->child(0)->text(1), QString("12 of 12 not placed"));
        QCOMPARE(mapping[0]->child(1)->text(1), QString("192 placed"));
        QCOMPARE(mapping[0]->child(1)->text(2),
                 QString("→ gpu.temperature; by UUID (184), host and PCI address (8)"));
        QCOMPARE(mapping[0]->child(2)->text(1), QString("ignored"));
        // Closed by the operator, it stays closed across refreshes.
        mapping[0]->setExpanded(false);
        panel.refresh();
        QVERIFY(!panel.tree()
                     ->findItems("mapping: 3 families", Qt::MatchRecursive | Qt::MatchExactly, 0)[0]
                     ->isExpanded());
        panel.showMapping();
        QVERIFY(panel.tree()
                    ->findItems("mapping: 3 families", Qt::MatchRecursive | Qt::MatchExactly, 0)[0]
                    ->isExpanded());
        // The HUD's source lines are a link: a click there asks for the report.
        view->grabFramebuffer();
        const auto area = view->sourcesArea();
        QVERIFY(area.x1 > area.x0 && area.y1 > area.y0);
        QSignalSpy asked(view.get(), &views::FloorView::sourcesRequested);
        const QPoint at(static_cast<int>((area.x0 + area.x1) / 2),
                        static_cast<int>((area.y0 + area.y1) / 2));
        QTest::mouseClick(view.get(), Qt::LeftButton, {}, at);
        QCOMPARE(asked.count(), 1);
        QVERIFY(!view->selection()); // the click picked nothing on the floor behind
        const auto hosts =
            panel.tree()->findItems("gpu-node-21", Qt::MatchRecursive | Qt::MatchExactly, 0);
        QCOMPARE(hosts.size(), 1);
        QVERIFY(hosts[0]->text(2).contains("did you mean gpu-node-0021"));
        QCOMPARE(hosts[0]->text(1), QString("8 samples"));
        const auto login =
            panel.tree()->findItems("login-01", Qt::MatchRecursive | Qt::MatchExactly, 0);
        QCOMPARE(login.size(), 1);
        QVERIFY(login[0]->text(2).contains("nothing alike"));
    }

    void selectionShowsInTheInspector() {
        auto view = makeView(800, 450);
        views::InspectorPanel inspector(view.get());
        view->grabFramebuffer();
        const model::EntityId gpu = 100;
        view->setSelection(model::EntityRef{EntityKind::Gpu, gpu});
        const std::string host = m_topology->hostName(m_topology->gpus.tray[gpu]);
        const auto items = inspector.tree()->findItems(QString::fromStdString(host),
                                                       Qt::MatchRecursive | Qt::MatchExactly, 1);
        QCOMPARE(items.size(), 1);
        const auto temps = inspector.tree()->findItems("GPU die temperature",
                                                       Qt::MatchRecursive | Qt::MatchExactly, 0);
        QCOMPARE(temps.size(), 1);
        QVERIFY(temps[0]->text(1).endsWith("°C"));
        // Clicking the rack row in "Related" selects the rack.
        const auto rackRows =
            inspector.tree()->findItems(QString("Rack %1").arg(QString::fromStdString(
                                            m_topology->racks.name[m_topology->gpus.rack[gpu]])),
                                        Qt::MatchRecursive | Qt::MatchExactly, 0);
        QCOMPARE(rackRows.size(), 1);
        emit inspector.tree()->itemActivated(rackRows[0], 0);
        QVERIFY(view->selection());
        QCOMPARE(view->selection()->kind, EntityKind::Rack);
        QCOMPARE(view->selection()->id, m_topology->gpus.rack[gpu]);
    }

    // The colour-vision-safe palettes read dark to light with no step back, for every scale
    // (the layers' own too), and the themes make the whole picture darker or lighter.
    void palettesAndThemes() {
        auto luminance = [](views::Rgb c) { return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b; };
        for (const auto palette : {views::Palette::Viridis, views::Palette::Cividis}) {
            views::ColorScale::setPalette(palette);
            double last = -1;
            for (int i = 0; i <= 50; ++i) {
                const double l = luminance(views::ColorScale::palette(i / 50.0f));
                QVERIFY2(l > last,
                         qPrintable(QString("palette %1 at %2").arg(int(palette)).arg(i)));
                last = l;
            }
            QVERIFY(luminance(views::ThermalLayer::coolantColor(70)) >
                    luminance(views::ThermalLayer::coolantColor(30)) + 100);
            QVERIFY(luminance(views::PowerLayer::loadColor(110)) >
                    luminance(views::PowerLayer::loadColor(10)) + 100);
        }
        views::ColorScale::setPalette(views::Palette::Turbo);
        QVERIFY(!views::ColorScale::safe(0.5f));

        auto view = makeView(640, 360, true);
        auto mean = [](const QImage& image) {
            double sum = 0;
            for (int y = 0; y < image.height(); y += 2)
                for (int x = 0; x < image.width(); x += 2)
                    sum += qGray(image.pixel(x, y));
            return sum / (image.width() / 2.0 * image.height() / 2.0);
        };
        const double standard = mean(view->grabFramebuffer());
        view->setTheme(views::DisplayTheme::Dim);
        const double dim = mean(view->grabFramebuffer());
        view->setTheme(views::DisplayTheme::Bright);
        const double bright = mean(view->grabFramebuffer());
        view->setTheme(views::DisplayTheme::Standard);
        qInfo("mean grey: dim %.0f, standard %.0f, bright %.0f", dim, standard, bright);
        QVERIFY(dim < 0.8 * standard);
        QVERIFY(bright > 1.3 * standard);
        // Back to standard: the same picture as before.
        QVERIFY(std::abs(mean(view->grabFramebuffer()) - standard) < 0.5);
    }

    void colourScale() {
        const views::ColorScale scale(model::ch::GpuTemperature);
        const float span = scale.max() - scale.min();
        const auto cold = scale.map(scale.min() + 0.15f * span),
                   hot = scale.map(scale.max() - 0.1f * span);
        QVERIFY(cold.b > cold.r); // blue end
        QVERIFY(hot.r > hot.b);   // red end
        // Out-of-range values clamp, missing values are grey.
        QCOMPARE(scale.map(-1000).r, scale.map(scale.min()).r);
        const auto none = scale.map(std::nanf(""));
        QCOMPARE(none.r, none.g);
    }

    void aRegisteredLayerIsEverywhere() {
        // Last: views built from here on carry the probe (hidden, it draws nothing).
        views::registerLayerType({ProbeLayer::kInfo, [](const model::Topology& t, vtkRenderer* r) {
                                      return std::make_unique<ProbeLayer>(t, r);
                                  }});
        QVERIFY(views::findLayerInfo("probe"));
        QCOMPARE(views::layerIds().back(), std::string("probe"));
        // --layers knows it, and --help lists it.
        const auto parsed = app::parseCommandLine({"--layers", "racks,probe"}, views::layerIds());
        QVERIFY2(parsed, parsed ? "" : parsed.error().c_str());
        QVERIFY(QString::fromStdString(app::helpText(views::layerIds())).contains("probe"));

        app::Options o;
        auto session = app::makeSimSession(o, false, true);
        QVERIFY2(session, session ? "" : session.error().c_str());
        app::MainWindow window(**session, nullptr, false);
        showOffscreen(window, 1200, 800);
        auto* view = window.floorView();
        QVERIFY(view->layer("probe"));
        QVERIFY(!view->layerVisible("probe"));
        // The layers panel has a box for it, and the View menu an action; both drive the one
        // owner of its visibility and follow it.
        auto* box = window.findChild<QCheckBox*>("layer_probe");
        QVERIFY(box);
        // Its panel is docked beside the floor, tabbed behind the inspector...
        auto* dock = window.findChild<QDockWidget*>("probeDock");
        QVERIFY(dock);
        QCOMPARE(dock->windowTitle(), QString("Probe"));
        QCOMPARE(dock->widget()->objectName(), QString("probePanel"));
        QCOMPARE(window.dockWidgetArea(dock), Qt::RightDockWidgetArea);
        QVERIFY(!window.tabifiedDockWidgets(dock).isEmpty());
        // The tab shown in the probe's group of docks.
        auto shownTab = [&window] {
            for (auto* bar : window.findChildren<QTabBar*>())
                for (int i = 0; i < bar->count(); ++i)
                    if (bar->tabText(i) == "Probe") return bar->tabText(bar->currentIndex());
            return QString();
        };
        QCOMPARE(shownTab(), QString("Inspector"));
        box->setChecked(true);
        QVERIFY(view->layerVisible("probe"));
        QVERIFY(ProbeLayer::shown);
        // ...and comes forward when the layer is switched on.
        QCOMPARE(shownTab(), QString("Probe"));
        QAction* action = nullptr;
        for (auto* a : window.findChildren<QAction*>())
            if (a->text() == "Probe layer (test)") action = a;
        QVERIFY(action);
        QVERIFY(action->isChecked());
        // Settings keep the choice.
        QCOMPARE(QSettings().value("layers/probe").toBool(), true);
        // The HUD asks it for its panels, snapshots reach it.
        view->refreshSnapshot();
        const int drawsBefore = ProbeLayer::hudDraws;
        view->grabFramebuffer();
        QVERIFY(ProbeLayer::hudDraws > drawsBefore);
        QVERIFY(ProbeLayer::updates > 0);
        action->setChecked(false);
        QVERIFY(!view->layerVisible("probe"));
        QVERIFY(!box->isChecked());
        QVERIFY(!ProbeLayer::shown);
        QSettings().remove("layers/probe");
    }

    void cameraFlightsAreSmooth() {
        views::CameraRig from, to;
        from.focus = {0, 0, 0.5f};
        from.distance = 8;
        from.azimuthDeg = 170;
        to.focus = {40, 12, 0.5f};
        to.distance = 60;
        to.azimuthDeg = -170; // 20 degrees the short way, not 340
        to.elevationDeg = 60;
        const views::CameraFlight flight{from, to, 4.0};
        auto close = [](const model::Vec3& a, const model::Vec3& b) {
            return std::abs(a.x - b.x) + std::abs(a.y - b.y) + std::abs(a.z - b.z) < 1e-3f;
        };
        QVERIFY(close(flight.at(0).position(), from.position()));
        QVERIFY(close(flight.at(4.0).position(), to.position()));
        QVERIFY(close(flight.at(9.0).position(), to.position()));
        double maxStep = 0, path = 0, maxTurn = 0;
        model::Vec3 last = from.position();
        double lastAz = from.azimuthDeg;
        for (int i = 1; i <= 240; ++i) {
            const auto rig = flight.at(i / 60.0);
            const auto p = rig.position();
            const double step = std::hypot(p.x - last.x, p.y - last.y, p.z - last.z);
            maxStep = std::max(maxStep, step);
            path += step;
            double turn = std::abs(rig.azimuthDeg - lastAz);
            maxTurn = std::max(maxTurn, std::min(turn, 360 - turn));
            last = p;
            lastAz = rig.azimuthDeg;
        }
        qInfo("flight: path %.1f m in 240 frames, largest step %.2f m, largest turn %.2f deg", path,
              maxStep, maxTurn);
        // Eased: no frame moves more than a few times the average, none turns by more than a
        // degree (20 degrees over 240 frames).
        QVERIFY(maxStep < 4.0 * path / 240);
        QVERIFY(maxTurn < 1.0);
        // Starts and ends slowly.
        const auto p1 = flight.at(1 / 60.0).position(), p0 = from.position();
        QVERIFY(std::hypot(p1.x - p0.x, p1.y - p0.y, p1.z - p0.z) < 0.1 * maxStep);
    }

    void framingFitsBesideThePanels() {
        auto view = makeView(1280, 720);
        const auto box = views::focusBox(
            *m_topology, std::vector{model::EntityRef{
                             EntityKind::Cdu, *m_topology->find(EntityKind::Cdu, "CDU A1")}});
        QVERIFY(box);
        // The CDU and its eight racks in the right half of the screen, lower two thirds.
        views::CameraRig rig;
        rig.fitWindow(box->min, box->max, 1280.0 / 720.0, {0.0, 0.96, -0.9, 0.35});
        view->setCamera(rig);
        float x0 = 1e9f, x1 = -1e9f, y0 = 1e9f, y1 = -1e9f;
        for (int i = 0; i < 8; ++i) {
            const auto p =
                view->project({i & 1 ? box->max.x : box->min.x, i & 2 ? box->max.y : box->min.y,
                               i & 4 ? box->max.z : box->min.z});
            QVERIFY(p);
            x0 = std::min(x0, p->x), x1 = std::max(x1, p->x);
            y0 = std::min(y0, p->y), y1 = std::max(y1, p->y);
        }
        qInfo("framed in x %.0f..%.0f, y %.0f..%.0f of 1280x720", x0, x1, y0, y1);
        // NDC 0..0.96 across is pixels 640..1254, 0.35..-0.9 up is 234..684.
        QVERIFY(x0 >= 639 && x1 <= 1255 && y0 >= 233 && y1 <= 685);
        // And it fills the window along one side at least (it is framed, not a speck).
        QVERIFY(x1 - x0 > 0.9f * 614 || y1 - y0 > 0.9f * 450);
    }

    // A large floor's overview (seen whole, every panel of the HUD up) keeps the hall and both
    // regions' stores clear of the column of panels down the right; a screenshot is framed so
    // in its one frame.
    void largeFloorOverviewClearsThePanels() {
        auto topology = app::loadTopology("generate:racks=400");
        QVERIFY2(topology, topology ? "" : topology.error().c_str());
        model::SimCore core(*topology, model::SimConfig{});
        auto shown = makeViewOf(
            *topology, [&core] { return core.latest(); }, 1280, 720);
        views::FloorView& view = *shown;
        for (const auto& type : views::layerTypes())
            view.setLayerVisible(std::string(type.info.id), true);
        (void)view.grabFramebuffer();
        const auto& panels = view.hudPanels();
        float right = 1280;
        for (const auto& p : panels)
            if (p.x0 > 0.6f * 1280) right = std::min(right, p.x0);
        QVERIFY2(right < 1000, "the HUD has a right-hand column of panels");
        // The floor and the stores past its +x edge (both regions), as the overview frames them.
        const auto rig = view.camera();
        const auto [lo, hi] = views::CameraRig::overviewBox(
            **topology, view.layer("storage")->overviewExtent().extraX, true);
        float x0 = 1e9f, x1 = -1e9f;
        for (int i = 0; i < 8; ++i) {
            const auto p =
                view.project({i & 1 ? hi.x : lo.x, i & 2 ? hi.y : lo.y, i & 4 ? hi.z : lo.z});
            QVERIFY(p);
            x0 = std::min(x0, p->x), x1 = std::max(x1, p->x);
        }
        qInfo("overview of 400 racks: x %.0f..%.0f, right-hand panels from %.0f, distance %.0f m",
              x0, x1, right, rig.distance);
        QVERIFY(x0 >= 0 && x1 <= right);
        // Still the overview: the floor spans most of the screen left of the panels.
        QVERIFY(x1 - x0 > 0.5f * right);
        // The demo floor (16 racks) is framed as before: close, whatever the panels.
        auto demo = makeView(1280, 720);
        const auto before = demo->camera();
        (void)demo->grabFramebuffer();
        QCOMPARE(demo->camera().distance, before.distance);
    }

    void tourFliesBetweenStops() {
        auto story = importers::parseStoryFile(R"({
  "format": "floortwin-tour/1", "flight": "2s", "dwell": "3s", "resume_after": "5s",
  "stops": [
    { "view": "overview", "layers": ["racks"], "caption": "the hall", "flight": "0s" },
    { "view": "top", "layers": ["racks", "power"], "metric": "rack.power" },
    { "frame": "row:B", "caption": "row B" }
  ]})",
                                               "t.json", *m_topology, views::layerIds());
        QVERIFY2(story, story ? "" : story.error().toString().c_str());
        auto view = makeView(960, 540);
        app::StoryPlayer player(*story, *view);
        player.advance(0);
        QCOMPARE(player.currentStep(), 0);
        QCOMPARE(view->caption(), std::string("the hall"));
        const QImage first = view->grabFramebuffer();
        const auto overview = view->camera();
        player.advance(3.5); // into stop 2, half way through its flight
        QCOMPARE(player.currentStep(), 1);
        QVERIFY(view->layerVisible("power"));
        QCOMPARE(view->colourMetric(), *model::findChannel("rack.power"));
        QVERIFY(view->caption().empty()); // a stop without a caption shows none
        const auto midway = view->camera();
        player.advance(2.0);
        const auto top = view->camera();
        QVERIFY(top.elevationDeg > 89);
        QVERIFY(midway.elevationDeg > overview.elevationDeg &&
                midway.elevationDeg < top.elevationDeg);
        const QImage second = view->grabFramebuffer();
        QVERIFY(compareImages(first, second).fractionOff > 0.2); // two different stops
        // A touch holds the tour: nothing moves until the tour's idle time has passed.
        QTest::mouseClick(view.get(), Qt::LeftButton, {}, QPoint(5, 5));
        QVERIFY(player.holding());
        player.advance(4.0);
        QCOMPARE(player.currentStep(), 1);
        QCOMPARE(view->camera().elevationDeg, top.elevationDeg);
        player.advance(1.5); // 5.5 s idle: resumes where it was
        QVERIFY(!player.holding());
        player.advance(3.0);
        QCOMPARE(player.currentStep(), 2);
        QCOMPARE(view->caption(), std::string("row B"));
        player.advance(4.0); // the loop is 13 s: back to the start
        QCOMPARE(player.currentStep(), 0);
        QVERIFY(!view->layerVisible("power"));
    }

    // File > Play demo with a demo made from a replay's bookmarks plays its recording, not the
    // simulator; a demo of the simulator gets one.
    void aDemoOfARecordingPlaysTheRecording() {
        QTemporaryDir dir;
        app::Options rec;
        rec.scenario = "pump-failure";
        rec.record = dir.filePath("incident.ftrec").toStdString();
        QVERIFY(recordedReplay(rec, 20));
        QFile f(dir.filePath("demo.json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({ "format": "floortwin-demo/1", "replay": "incident.ftrec", "length": "5s",
  "steps": [ { "at": "0s", "frame": "cdu:CDU A1", "caption": "the pumps" } ] })");
        f.close();
        app::Options o;
        o.demo = f.fileName().toStdString();
        std::optional<importers::Story> story;
        auto session = app::Launcher::demoSession(o, story, false);
        QVERIFY2(session, session ? "" : session.error().c_str());
        QVERIFY((*session)->replay && !(*session)->sim);
        QVERIFY(story && story->kind == importers::Story::Kind::Demo);
        QCOMPARE(o.replay, rec.record);
        app::Options sim;
        sim.demo = "vera-rubin-floor";
        std::optional<importers::Story> simStory;
        auto simulated = app::Launcher::demoSession(sim, simStory, false);
        QVERIFY2(simulated, simulated ? "" : simulated.error().c_str());
        QVERIFY((*simulated)->sim && !(*simulated)->replay && simStory);
    }

    // Over a panel's chart the readout says each series' value at the point under the mouse,
    // how long ago it was, and "no data" for a gap or before the window's first point.
    void chartHoverReadsThePointUnderTheMouse() {
        views::ChartHover hover;
        const QRectF plot(10, 10, 590, 100); // a window of 60 points: 10 px a point
        std::vector<float> draw(20);
        for (std::size_t i = 0; i < draw.size(); ++i)
            draw[i] = static_cast<float>(i);
        draw[15] = std::numeric_limits<float>::quiet_NaN();
        const std::vector<views::ChartHover::Series> series{
            {"draw", " kW", 1, [&](std::size_t i) { return draw[i]; }, Qt::red}};
        auto readAt = [&](double slot) {
            hover.setMouse(QPointF(plot.left() + plot.width() * slot / 59, 50));
            hover.begin();
            hover.chart(plot, draw.size(), 60, series);
            return hover.lines();
        };
        // 20 points fill the right end of the window: point i at slot 40 + i.
        QCOMPARE(readAt(59), (QStringList{"now", "draw: 19.0 kW"}));
        QCOMPARE(readAt(52), (QStringList{"7 s ago", "draw: 12.0 kW"}));
        QCOMPARE(readAt(55), (QStringList{"4 s ago", "draw: no data"}));
        QCOMPARE(readAt(10).size(), 1);
        QVERIFY(readAt(10)[0].contains("no data"));
        hover.setMouse(QPointF(5, 5)); // outside the plot: nothing
        hover.begin();
        hover.chart(plot, draw.size(), 60, series);
        QVERIFY(hover.lines().isEmpty());
        // Drawn: a cursor and a box over the plot.
        readAt(52);
        QImage image(620, 130, QImage::Format_RGB32);
        image.fill(Qt::black);
        QPainter p(&image);
        hover.paint(p, QRectF(0, 0, 620, 130));
        p.end();
        int lit = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x)
                lit += image.pixel(x, y) != qRgb(0, 0, 0) ? 1 : 0;
        QVERIFY(lit > 500);
    }

    // A presenter's Space pauses the floor, and the demo's story waits with it.
    void aDemoWaitsWhileTheFloorIsPaused() {
        auto story = app::loadStory("vera-rubin-floor", *m_topology, views::layerIds());
        QVERIFY2(story, story ? "" : story.error().c_str());
        model::SimCore core(m_topology, model::SimConfig{}, story->scenario());
        views::FloorView view(m_topology, [&core] { return core.latest(); });
        view.setAnimated(false);
        app::StoryPlayer player(*story, view, &core);
        player.advance(0);
        player.play(2.0);
        QCOMPARE(player.storyTime(), 2.0);
        core.setPaused(true);
        player.play(30.0);
        QCOMPARE(player.storyTime(), 2.0);
        core.setPaused(false);
        player.play(1.0);
        QCOMPARE(player.storyTime(), 3.0);
    }

    void criticalAlarmTakesTheCamera() {
        auto scenario = app::loadScenario("pump-failure", *m_topology);
        QVERIFY(scenario);
        model::SimCore core(m_topology, model::SimConfig{}, *scenario);
        core.runUntil(core.startTime() + 100 * model::kNsPerSecond);
        views::FloorView view(m_topology, [&core] { return core.latest(); });
        view.setShowFrameStats(false);
        view.setAnimated(false);
        view.setWallMode(true);
        showOffscreen(view, 1280, 720);
        auto story = app::loadStory("noc", *m_topology, views::layerIds());
        QVERIFY2(story, story ? "" : story.error().c_str());
        app::StoryPlayer player(*story, view);
        player.setFocusHold(20);
        view.refreshSnapshot();
        for (int i = 0; i < 12; ++i) { // 6 s, drawing as a wall would
            player.advance(0.5);
            (void)view.grabFramebuffer();
        }
        QVERIFY(player.focusing());
        QVERIFY(view.focus());
        QCOMPARE(view.focus()->critical, true);
        qInfo("focus: %s — %s", view.focus()->title.c_str(), view.focus()->detail.c_str());
        // The cause's entities are framed on screen, and no HUD panel covers them.
        const auto causes = views::groupAlarms(*m_topology, core.latest()->alarms);
        const auto shown = std::ranges::find(causes, player.focusKey(), &views::AlarmCause::key);
        QVERIFY(shown != causes.end());
        const auto box = views::focusBox(*m_topology, shown->entities);
        QVERIFY(box);
        float x0 = 1e9f, x1 = -1e9f, y0 = 1e9f, y1 = -1e9f;
        for (int i = 0; i < 8; ++i) {
            const auto p =
                view.project({i & 1 ? box->max.x : box->min.x, i & 2 ? box->max.y : box->min.y,
                              i & 4 ? box->max.z : box->min.z});
            QVERIFY(p);
            x0 = std::min(x0, p->x), x1 = std::max(x1, p->x);
            y0 = std::min(y0, p->y), y1 = std::max(y1, p->y);
        }
        const views::ScreenRect framed{x0, y0, x1, y1};
        qInfo("framed %.0f,%.0f..%.0f,%.0f beside %zu panels", x0, y0, x1, y1,
              view.hudPanels().size());
        QVERIFY(x0 >= 0 && y0 >= 0 && x1 <= 1280 && y1 <= 720);
        QVERIFY(view.hudPanels().size() >= 3);
        for (const auto& p : view.hudPanels())
            QVERIFY2(!p.overlaps(framed), qPrintable(QString("panel %1,%2..%3,%4 covers it")
                                                         .arg(p.x0)
                                                         .arg(p.y0)
                                                         .arg(p.x1)
                                                         .arg(p.y1)));
        // After the hold the next cause gets the camera; when each has had it, the tour
        // resumes though the alarms stand.
        const std::string firstKey = player.focusKey();
        for (int i = 0; i < 50 && player.focusKey() == firstKey; ++i)
            player.advance(0.5);
        QVERIFY(player.focusing());
        QVERIFY(player.focusKey() != firstKey);
        for (int i = 0; i < 400 && player.focusing(); ++i)
            player.advance(0.5);
        QVERIFY(!player.focusing());
        QVERIFY(!view.focus());
        QVERIFY(!core.latest()->alarms.empty());
    }

    void cleanupTestCase() { m_core.reset(); }
};

int main(int argc, char** argv) {
    views::FloorView::setDefaultSurfaceFormat();
    QApplication app(argc, argv);
    TestViews tests;
    return QTest::qExec(&tests, argc, argv);
}
#include "test_views.moc"
