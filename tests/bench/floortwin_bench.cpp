// floortwin-bench: every performance figure of DESIGN.md, one `name value unit` line each.
// Medians over repeated runs; render figures need an X display (make bench uses Xvfb).
// Usage: floortwin-bench [--filter TEXT]   (FT_SOAK_SECONDS shortens the 10-minute wall soak)
#include "alerts_bench.h"
#include "app/floor_loading.h"
#include "app/session.h"
#include "hostile_bench.h"
#include "importers/floor/floor_file.h"
#include "importers/recording/keyframe_codec.h"
#include "importers/recording/recording_reader.h"
#include "importers/recording/recording_writer.h"
#include "importers/recording/replay_transport.h"
#include "inventory_bench.h"
#include "model/sim_core.h"
#include "model/thermal_model.h"
#include "parse_bench.h"
#include "redfish_bench.h"
#include "soak_bench.h"
#include "support/test_paths.h"
#include "views/floor_view.h"
#include "wall_bench.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <QProcess>
#include <QSurfaceFormat>
#include <QTemporaryDir>
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <regex>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <vector>

using namespace ft;

namespace {

std::string g_filter;

bool wanted(const std::string& name) {
    return g_filter.empty() || name.find(g_filter) != std::string::npos;
}

void figure(const std::string& name, double value, const char* unit) {
    std::printf("%s %.3f %s\n", name.c_str(), value, unit);
    std::fflush(stdout);
}

double median(std::vector<double> v) {
    std::ranges::sort(v);
    return v.empty() ? 0.0 : v[v.size() / 2];
}

std::shared_ptr<const model::Topology> topologyOf(const std::string& spec) {
    auto t = app::loadTopology(spec);
    if (!t) {
        std::fprintf(stderr, "floortwin-bench: %s\n", t.error().c_str());
        std::exit(1);
    }
    return *t;
}

void benchSim(const std::string& label, const std::string& spec, int ticks) {
    const std::string name = "sim.tick_ms." + label;
    if (!wanted(name)) return;
    model::SimCore core(topologyOf(spec), {});
    std::vector<double> ms, refresh;
    const auto step = model::SimConfig{}.step;
    // Warm-up: the snapshot pool and the per-link blocks fill during the first ticks.
    for (int i = 0; i < 20; ++i)
        core.runUntil(core.latest()->time + step);
    for (int i = 0; i < ticks; ++i) {
        const auto stamp = core.latest()->detailStamp;
        const auto t0 = std::chrono::steady_clock::now();
        core.runUntil(core.latest()->time + step); // drain, step, publish: one full tick
        const double tick =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count();
        ms.push_back(tick);
        // Once a second a new block of per-link fabric counters is published (1.15 M NVLink +
        // 0.5 M fabric links at 1,778 racks, built a slice per tick): those ticks on their own.
        if (core.latest()->detailStamp != stamp) refresh.push_back(tick);
    }
    figure(name, median(ms), "ms");
    std::ranges::sort(ms);
    figure("sim.tick_ms_p99." + label, ms[std::min(ms.size() - 1, ms.size() * 99 / 100)], "ms");
    if (!refresh.empty()) figure("sim.tick_ms_counter_refresh." + label, median(refresh), "ms");
}

// Where a 1,778-rack tick goes: the median of each stage of SimModel::step over 60 ticks, and
// of publishing its snapshot (two snapshots in turn, as SimCore's readers keep the last one).
void benchSimSplit() {
    if (!wanted("sim.tick_split_ms.racks1778")) return;
    model::SimModel sim(topologyOf("generate:racks=1778"), {});
    sim.setProfiling(true);
    constexpr auto kStages = static_cast<std::size_t>(model::SimModel::Stage::Count);
    std::array<std::vector<double>, kStages> ms;
    std::vector<double> publish;
    std::array<model::Snapshot, 2> published;
    for (int i = 0; i < 80; ++i) {
        sim.step();
        const auto t0 = std::chrono::steady_clock::now();
        sim.publishTo(published[static_cast<std::size_t>(i) % 2]);
        const double publishMs =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count();
        if (i < 20) continue; // warm-up
        for (std::size_t k = 0; k < kStages; ++k)
            ms[k].push_back(sim.stageMs()[k]);
        publish.push_back(publishMs);
    }
    for (std::size_t k = 0; k < kStages; ++k)
        figure(std::string("sim.tick_split_ms.racks1778.") + model::SimModel::kStageNames[k],
               median(ms[k]), "ms");
    figure("sim.tick_split_ms.racks1778.publish", median(publish), "ms");
}

// A keyframe of the 1,778-rack floor: what saving it costs the sim thread (once a minute), its
// size raw and as stored, and what restoring it costs a fork.
void benchKeyframe() {
    if (!wanted("sim.keyframe")) return;
    const auto topology = topologyOf("generate:racks=1778");
    model::SimModel sim(topology, {});
    for (int i = 0; i < 20; ++i)
        sim.step();
    std::vector<double> save, restore;
    std::vector<std::byte> state;
    for (int i = 0; i < 3; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        state = sim.saveState();
        save.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count());
    }
    model::SimConfig fresh;
    fresh.settle = false;
    for (int i = 0; i < 3; ++i) {
        model::SimModel other(topology, fresh);
        const auto t0 = std::chrono::steady_clock::now();
        if (!other.restoreState(state)) std::exit(1);
        restore.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count());
    }
    const auto stored = importers::compressKeyframe(state);
    figure("sim.keyframe_save_ms.racks1778", median(save), "ms");
    figure("sim.keyframe_restore_ms.racks1778", median(restore), "ms");
    figure("sim.keyframe_mb.racks1778", static_cast<double>(state.size()) / 1e6, "MB");
    figure("recording.keyframe_mb.racks1778", static_cast<double>(stored.size()) / 1e6, "MB");
}

// The cooling plant alone: one ThermalModel step over a 1,778-rack floor.
void benchThermal() {
    const std::string name = "sim.thermal_step_ms.racks1778";
    if (!wanted(name)) return;
    auto topology = topologyOf("generate:racks=1778");
    model::SimModel sim(topology, {});
    model::Snapshot state;
    sim.copyTo(state);
    model::ThermalModel thermal(*topology);
    const std::vector<std::vector<model::TimeNs>> noHolds(model::ch::Count);
    std::vector<model::Event> events;
    std::vector<double> ms;
    for (int i = 0; i < 200; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        thermal.step(state, model::Holds{&noHolds, state.time}, 0.1f, events);
        ms.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count());
        state.time += 100 * model::kNsPerMs;
    }
    figure(name, median(ms), "ms");
}

// Records `duration` of the simulator on `floor` at `step`; returns the file and the wall time
// spent writing (the sim runs first, so only the writer is timed).
struct RecordResult {
    std::uint64_t samples = 0;
    double writeSeconds = 0;
    double fileBytes = 0;
};
RecordResult recordRun(const QString& path, const std::string& floor, model::TimeNs duration,
                       model::TimeNs step, std::size_t maxInMemory = 0) {
    auto topology = topologyOf(floor);
    model::SimConfig config;
    config.step = step;
    model::SimCore core(topology, config);
    importers::RecordingInfo info;
    info.floorJson = importers::floorSpecToJson(topology->spec());
    info.tick = step;
    info.seed = config.seed;
    auto writer = importers::RecordingWriter::create(path.toStdString(), topology, info, 4096);
    if (!writer) std::exit(1);
    (*writer)->setBlocking(true);
    // Snapshots are produced ahead and then written, so the figure is the writer's alone.
    // From the start's own snapshot, as the app records (a fork takes the run's start from it).
    std::vector<std::shared_ptr<const model::Snapshot>> batch{core.latest()};
    RecordResult result;
    core.setPublishHook(
        [&](const std::shared_ptr<const model::Snapshot>& s) { batch.push_back(s); });
    // Keyframes as the app keeps them, handed over after their batch's snapshots.
    std::vector<std::pair<model::TimeNs, std::vector<std::byte>>> keyframes;
    core.setKeyframeHook(importers::kKeyframeEvery,
                         [&](model::TimeNs t, std::vector<std::byte> state) {
                             keyframes.emplace_back(t, std::move(state));
                         });
    const model::TimeNs end = core.startTime() + duration;
    while (core.latest()->time < end) {
        const model::TimeNs until =
            std::min(end, core.latest()->time +
                              static_cast<model::TimeNs>(maxInMemory ? maxInMemory : 600) * step);
        core.runUntil(until);
        const auto t0 = std::chrono::steady_clock::now();
        for (auto& s : batch)
            (*writer)->push(s);
        batch.clear();
        for (auto& [t, state] : keyframes)
            (*writer)->pushKeyframe(t, std::move(state));
        keyframes.clear();
        result.writeSeconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    const auto t0 = std::chrono::steady_clock::now();
    (*writer)->close();
    result.writeSeconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    result.samples = (*writer)->stats().samples;
    result.fileBytes = static_cast<double>(QFileInfo(path).size());
    return result;
}

// A what-if fork from the end of an hour's recording of the default floor: the recorded run
// again, to that moment (the simulator is deterministic).
void benchFork() {
    if (!wanted("fork.ms")) return;
    QTemporaryDir dir;
    const QString path = dir.filePath("hour.ftrec");
    recordRun(path, "", 3600 * model::kNsPerSecond, 100 * model::kNsPerMs);
    app::Options o;
    o.replay = path.toStdString();
    o.forkAt = "3599s"; // the recording's last second
    std::vector<double> ms;
    for (int i = 0; i < 3; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        auto session = app::makeForkSession(o);
        if (!session) {
            std::fprintf(stderr, "fork: %s\n", session.error().c_str());
            std::exit(1);
        }
        ms.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count());
    }
    figure("fork.ms", median(ms), "ms");
}

void benchRecording() {
    QTemporaryDir dir;
    if (wanted("recording.write.samples_per_s")) {
        // The big floor: 820k samples a tick.
        const auto r = recordRun(dir.filePath("write.ftrec"), "generate:racks=1778",
                                 20 * model::kNsPerSecond, 100 * model::kNsPerMs, 50);
        figure("recording.write.samples_per_s", static_cast<double>(r.samples) / r.writeSeconds,
               "samples/s");
    }
    if (wanted("recording.bytes_per_sample")) {
        const auto r = recordRun(dir.filePath("hour.ftrec"), "", 3600 * model::kNsPerSecond,
                                 100 * model::kNsPerMs);
        figure("recording.bytes_per_sample", r.fileBytes / static_cast<double>(r.samples), "B");
        figure("recording.hour_file_mb", r.fileBytes / 1e6, "MB");
    }
    if (wanted("recording.seek_ms") || wanted("recording.replay")) {
        // 24 hours of the default floor, one snapshot a second (86,400 chunks per channel row
        // set would be 864,000 at 10 Hz; seek cost is one chunk decode per channel either way).
        const QString path = dir.filePath("day.ftrec");
        recordRun(path, "", 86400 * model::kNsPerSecond, model::kNsPerSecond, 3600);
        auto reader = importers::RecordingReader::open(path.toStdString());
        if (!reader) std::exit(1);
        model::Snapshot s;
        std::vector<double> ms;
        model::Rng rng(7);
        for (int i = 0; i < 200; ++i) {
            const auto t = (*reader)->startTime() +
                           static_cast<model::TimeNs>(
                               rng.uniform() *
                               static_cast<double>((*reader)->endTime() - (*reader)->startTime()));
            const auto t0 = std::chrono::steady_clock::now();
            (void)(*reader)->snapshotAt(t, s);
            ms.push_back(
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count());
        }
        std::ranges::sort(ms);
        figure("recording.seek_ms.p50", ms[ms.size() / 2], "ms");
        figure("recording.seek_ms.p99", ms[ms.size() * 99 / 100], "ms");
        // Replay at 1000x for 3 s of wall time: each frame shows a new moment; count the frames
        // whose decode missed a 30 fps frame budget.
        importers::ReplayTransport replay(std::move(*reader));
        replay.setSpeed(1000);
        replay.start();
        replay.setPaused(false);
        std::this_thread::sleep_for(std::chrono::seconds(3));
        const auto stats = replay.stats();
        replay.stop();
        figure("recording.replay_1000x.frames", static_cast<double>(stats.published), "frames");
        figure("recording.replay_1000x.decode_ms_mean", stats.meanDecodeMs, "ms");
        figure("recording.replay_1000x.decode_ms_max", stats.maxDecodeMs, "ms");
    }
    if (wanted("replay.reverse_frame_ms") || wanted("replay.forward_frame_ms")) {
        // An hour of the default floor at 10 Hz, played at 100x for 3 s each way from the
        // middle: what a shown frame costs to decode forwards and backwards.
        const QString path = dir.filePath("both-ways.ftrec");
        recordRun(path, "", 3600 * model::kNsPerSecond, 100 * model::kNsPerMs);
        auto play = [&](bool backwards) {
            importers::ReplayTransport replay(
                *importers::RecordingReader::open(path.toStdString()));
            replay.seek(replay.beginTime() + (replay.endTime() - replay.beginTime()) / 2);
            replay.setSpeed(100);
            replay.setReverse(backwards);
            replay.start();
            replay.setPaused(false);
            std::this_thread::sleep_for(std::chrono::seconds(3));
            const auto stats = replay.stats();
            replay.stop();
            return stats;
        };
        const auto forward = play(false), backward = play(true);
        figure("replay.forward_frame_ms", forward.meanDecodeMs, "ms");
        figure("replay.reverse_frame_ms", backward.meanDecodeMs, "ms");
        figure("replay.reverse_vs_forward", backward.meanDecodeMs / forward.meanDecodeMs, "x");
        figure("replay.reverse_frames", static_cast<double>(backward.published), "frames");
    }
}

// Median frame time of a view rendering on screen at 1280x720. `orbit` turns the camera by a
// quarter of a degree before each frame, so every frame draws the whole scene (the NOC tour's
// flights); otherwise the camera and data hold still and only the moving pipes change.
double frameMs(views::FloorView& view, int frames, bool orbit = false,
               std::vector<double>* hudMs = nullptr) {
    // Only frames that were drawn count: until the window is exposed, a repaint draws nothing
    // (and a figure of 0.002 ms would read as a fast renderer).
    int drawn = 0;
    const auto connection =
        QObject::connect(&view, &views::FloorView::frameDrawn, [&drawn](double) { ++drawn; });
    QElapsedTimer wait;
    wait.start();
    while (drawn == 0 && wait.elapsed() < 5000) {
        view.update();
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    }
    std::vector<double> ms;
    for (int i = 0, attempts = 0; i < frames + 5 && attempts < 4 * (frames + 5); ++attempts) {
        const int before = drawn;
        QElapsedTimer t;
        t.start();
        if (orbit) {
            auto rig = view.camera();
            rig.azimuthDeg += 0.25;
            view.setCamera(rig);
        }
        view.update();
        view.repaint();
        QCoreApplication::processEvents();
        if (drawn == before) continue;
        if (i++ >= 5) {
            ms.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
            if (hudMs) hudMs->push_back(view.lastHudMs());
        }
    }
    QObject::disconnect(connection);
    if (ms.empty()) {
        std::fprintf(stderr, "floortwin-bench: the view drew no frame (no display?)\n");
        std::exit(1);
    }
    return median(ms);
}

void benchRender() {
    struct Case {
        std::string label;
        std::string spec;
        bool empty = false;
        std::vector<std::string> layers; // shown over the racks
        int width = 1280, height = 720;
        bool hud = true;
        bool top = false;     // straight down (the wall tour's power stop) instead of the overview
        bool orbit = false;   // the camera moves every frame
        bool reuse = true;    // the still scene's picture is reused between frames
        bool live = false;    // the sim runs paced at 1x: new data several times a second
        bool reuseHud = true; // the last HUD is drawn again while its inputs hold
    };
    const std::vector<std::string> every{"thermal", "rails",     "nvlink",
                                         "storage", "lifecycle", "power"};
    std::vector<Case> cases = {
        {"empty", "", true, {}},
        {"default", "", false, {}},
        {"racks1778", "generate:racks=1778", false, {}},
        {"racks1778_thermal", "generate:racks=1778", false, {"thermal"}},
        {"racks1778_rails", "generate:racks=1778", false, {"rails"}},
        {"racks1778_all", "generate:racks=1778", false, every},
        // The same with the camera moving every frame, and with every frame drawn whole.
        {"racks1778_all_orbit", "generate:racks=1778", false, every, 1280, 720, true, false, true},
        {"racks1778_all_redraw", "generate:racks=1778", false, every, 1280, 720, true, false, false,
         false},
        // With the sim running as on a live floor: the still scene and the HUD are drawn anew
        // with each snapshot, the frames between them reuse both.
        {.label = "racks1778_all_live",
         .spec = "generate:racks=1778",
         .layers = every,
         .live = true},
        // The HUD built every frame (before it was kept): what keeping it saves.
        {.label = "racks1778_all_hudbuilt",
         .spec = "generate:racks=1778",
         .layers = every,
         .reuseHud = false},
        {"racks1778_all", "generate:racks=1778", false, every, 1920, 1080},
        // The scene alone: what the HUD costs is the difference.
        {"racks1778_all_nohud", "generate:racks=1778", false, every, 1280, 720, false},
        // The wall: the default floor with every layer at 1920x1080, from the overview and
        // straight down (the NOC tour's dearest stop).
        {"default_all", "", false, every, 1920, 1080},
        // The 4K wall on a real GPU: only when the filter names the size (on llvmpipe these
        // would take minutes, and the display must be 3840x2160). Kept still, and the camera
        // moving every frame (the whole scene drawn each frame).
        {"racks1778_all", "generate:racks=1778", false, every, 3840, 2160},
        {"racks1778_all_orbit", "generate:racks=1778", false, every, 3840, 2160, true, false, true},
        {"racks1778_all_redraw", "generate:racks=1778", false, every, 3840, 2160, true, false,
         false, false},
        {"default_all_top", "", false, every, 1920, 1080, true, true},
        {"default_all_top_nohud", "", false, every, 1920, 1080, false, true}};
    // Where the every-layer frame goes: each layer alone over the racks.
    for (const auto& layer : every)
        cases.push_back({"racks1778_layer_" + layer, "generate:racks=1778", false, {layer}});
    auto sizeOf = [](const Case& c) {
        return std::to_string(c.width) + "x" + std::to_string(c.height);
    };
    auto namesOf = [&](const Case& c) {
        const std::string size = c.label + "." + sizeOf(c);
        return std::vector<std::string>{"render.frame_ms." + size, "render.fps." + size,
                                        "render.ratio_vs_empty." + size,
                                        "render.snapshot_update_ms." + c.label};
    };
    auto caseWanted = [&](const Case& c) {
        if (c.width > 1920 && g_filter.find(sizeOf(c)) == std::string::npos) return false;
        return std::ranges::any_of(namesOf(c), wanted);
    };
    // The empty scene is measured whenever any render figure is, for the ratios. It stays up
    // for the whole run: each ratio comes from blocks of the case's frames and the empty
    // scene's taken in turn, so that a machine whose speed drifts between cases (this one
    // shares two cores with its host) moves both alike.
    const bool anyRender = std::ranges::any_of(cases, caseWanted);
    double emptyMs = 0;
    auto emptyTopology = topologyOf("");
    model::SimCore emptyCore(emptyTopology, {});
    std::unique_ptr<views::FloorView> emptyView;
    if (anyRender) {
        emptyView = std::make_unique<views::FloorView>(emptyTopology,
                                                       [&emptyCore] { return emptyCore.latest(); });
        emptyView->setFinishEachFrame(true);
        emptyView->setShowFrameStats(false);
        emptyView->resize(1280, 720);
        emptyView->show();
        QCoreApplication::processEvents();
        emptyView->setSceneVisible(false);
        // Which GL implementation drew the figures (llvmpipe here, the GPU's driver when lent).
        emptyView->makeCurrent();
        if (auto* gl = QOpenGLContext::currentContext())
            std::fprintf(stderr, "floortwin-bench: GL renderer: %s (%s)\n",
                         reinterpret_cast<const char*>(gl->functions()->glGetString(GL_RENDERER)),
                         reinterpret_cast<const char*>(gl->functions()->glGetString(GL_VERSION)));
        emptyView->doneCurrent();
    }
    for (const Case& c : cases) {
        const std::string size = sizeOf(c);
        const std::string name = "render.frame_ms." + c.label + "." + size;
        if (!(c.empty ? anyRender : caseWanted(c))) continue;
        if (c.empty) {
            emptyMs = frameMs(*emptyView, 80);
            figure(name, emptyMs, "ms");
            figure("render.fps." + c.label + "." + size, 1000.0 / emptyMs, "fps");
            continue;
        }
        auto topology = topologyOf(c.spec);
        model::SimCore core(topology, {});
        views::FloorView view(topology, [&core] { return core.latest(); });
        view.setFinishEachFrame(true);
        view.setShowFrameStats(false);
        view.resize(c.width, c.height);
        view.show();
        QCoreApplication::processEvents();
        view.setHudVisible(c.hud);
        for (const auto& layer : c.layers)
            view.setLayerVisible(layer, true); // thermal flow bands animate every frame
        if (c.top) view.topView();
        view.setReuseStillScene(c.reuse);
        view.setReuseHud(c.reuseHud);
        const int stillBefore = view.stillRenders(), hudBefore = view.hudBuilds();
        if (c.live) core.start(1.0);
        std::vector<double> hudMs;
        const double ms = frameMs(view, 80, c.orbit, &hudMs);
        const int stillDrawn = view.stillRenders() - stillBefore,
                  hudsBuilt = view.hudBuilds() - hudBefore;
        // The ratio: four blocks of 20 frames of each, in turn (each block warms up again after
        // the other's frames). The case's window is hidden meanwhile: its moving pipes would
        // have it repaint in the empty scene's frames.
        std::vector<double> caseBlocks, emptyBlocks;
        if (c.width == 1280)
            for (int block = 0; block < 4; ++block) {
                caseBlocks.push_back(frameMs(view, 20, c.orbit));
                view.hide();
                QCoreApplication::processEvents();
                emptyBlocks.push_back(frameMs(*emptyView, 20));
                view.show();
                QCoreApplication::processEvents();
            }
        if (c.live) core.stop();
        figure(name, ms, "ms");
        // The HUD's part of a frame (the scene finished before it): mean, since a kept HUD is
        // cheap most frames and dear when it is built.
        if (c.hud && !c.empty)
            figure("render.hud_ms." + c.label + "." + size,
                   std::accumulate(hudMs.begin(), hudMs.end(), 0.0) /
                       static_cast<double>(std::max<std::size_t>(1, hudMs.size())),
                   "ms");
        // How much of the frame the HUD's texture is composited on (its 32-pixel tiles).
        if (c.hud && !c.empty) {
            constexpr double kTile = views::ImGuiOverlay::kTile;
            const double tiles = std::ceil(c.width / kTile) * std::ceil(c.height / kTile);
            figure("render.hud_cover_percent." + c.label + "." + size,
                   100.0 * static_cast<double>(view.hudTiles()) / tiles, "%");
            // Of those, what the last frame composited over the pipes (the rest was baked).
            figure("render.hud_composited_percent." + c.label + "." + size,
                   100.0 * static_cast<double>(view.hudTilesComposited()) / tiles, "%");
        }
        // How many of the frames had to draw the still scene (camera, data or size changed).
        figure("render.still_redraws." + c.label + "." + size, stillDrawn, "frames");
        // How many built the HUD (its inputs changed, or it was half a second old).
        figure("render.hud_builds." + c.label + "." + size, hudsBuilt, "frames");
        figure("render.fps." + c.label + "." + size, 1000.0 / ms, "fps");
        if (emptyMs > 0 && !caseBlocks.empty()) {
            figure("render.ratio_vs_empty." + c.label + "." + size,
                   median(caseBlocks) / median(emptyBlocks), "x");
            figure("render.empty_beside_ms." + c.label + "." + size, median(emptyBlocks), "ms");
        }
        if (!c.empty && c.width == 1280) {
            // Re-colouring the floor from a new snapshot (arrays updated in place).
            std::vector<double> update;
            for (int i = 0; i < 10; ++i) {
                core.runUntil(core.latest()->time + model::SimConfig{}.step);
                QElapsedTimer t;
                t.start();
                view.refreshSnapshot();
                update.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
            }
            figure("render.snapshot_update_ms." + c.label, median(update), "ms");
        }
    }
}

// Live sample -> pixel: a measured value submitted to the running sim core (as a source does)
// until the first frame on screen that shows it (sim tick, snapshot publish, the view's frame
// timer, render, swap). The twin runs paced at 1x like a live floor.
void benchLiveLatency() {
    if (!wanted("live.sample_to_pixel_ms")) return;
    auto topology = topologyOf("");
    model::SimCore core(topology, {});
    views::FloorView view(topology, [&core] { return core.latest(); });
    view.setShowFrameStats(false);
    view.resize(1280, 720);
    view.show();
    QCoreApplication::processEvents();
    core.start(1.0);
    std::vector<double> ms;
    QElapsedTimer clock;
    clock.start();
    for (int i = 0; i < 25; ++i) {
        const float marker = 60.0f + static_cast<float>(i) * 0.37f;
        bool shown = false;
        double t1 = 0;
        auto conn = QObject::connect(&view, &QOpenGLWidget::frameSwapped, [&] {
            const auto s = view.snapshot();
            if (!shown && s && s->value(model::ch::GpuTemperature, 5) == marker) {
                shown = true;
                t1 = static_cast<double>(clock.nsecsElapsed()) / 1e6;
            }
        });
        model::SampleBatch batch;
        batch.samples.push_back({core.latest()->time, model::ch::GpuTemperature, 5, marker});
        const double t0 = static_cast<double>(clock.nsecsElapsed()) / 1e6;
        core.submit(std::move(batch));
        while (!shown && static_cast<double>(clock.nsecsElapsed()) / 1e6 - t0 < 2000)
            QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
        QObject::disconnect(conn);
        if (shown) ms.push_back(t1 - t0);
        // Off the tick boundary, so the samples land at different phases of the tick.
        const double until =
            static_cast<double>(clock.nsecsElapsed()) / 1e6 + 37.0 + 11.0 * (i % 5);
        while (static_cast<double>(clock.nsecsElapsed()) / 1e6 < until)
            QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    }
    core.stop();
    if (ms.empty()) return;
    figure("live.sample_to_pixel_ms", median(ms), "ms");
    std::ranges::sort(ms);
    figure("live.sample_to_pixel_ms.max", ms.back(), "ms");
}

void benchStartup() {
    if (!wanted("startup.first_frame_ms") && !wanted("startup.first_frame_ms.racks1778") &&
        !wanted("memory.rss_mb.racks1778"))
        return;
    const QString exe = FT_BINARY_PATH("/bin/floortwin");
    auto run = [&](const QStringList& args, double& ms, double& rssMb) {
        QProcess p;
        QElapsedTimer t;
        t.start();
        p.start(exe, args);
        p.waitForFinished(120000);
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        ms = -1;
        rssMb = -1;
        // The app reports its own peak RSS (RUSAGE_CHILDREN would include promtool from the
        // parse benchmark).
        for (const QString& line : out.split('\n')) {
            if (line.startsWith("first_frame_ms ")) ms = line.section(' ', 1, 1).toDouble();
            if (line.startsWith("peak_rss_mb ")) rssMb = line.section(' ', 1, 1).toDouble();
        }
        return p.exitCode() == 0 && ms > 0;
    };
    if (wanted("startup.first_frame_ms")) {
        std::vector<double> ms;
        for (int i = 0; i < 3; ++i) {
            double m = 0, rss = 0;
            if (run({"--first-frame-ms"}, m, rss)) ms.push_back(m);
        }
        if (!ms.empty()) figure("startup.first_frame_ms", median(ms), "ms");
    }
    if (wanted("memory.rss_mb.racks1778") || wanted("startup.first_frame_ms.racks1778")) {
        double m = 0, rss = 0;
        // Every layer on: the heaviest live configuration.
        if (run({"--first-frame-ms", "--floor", "generate:racks=1778", "--layers",
                 "racks,nvlink,rails,thermal,lifecycle,storage,power"},
                m, rss)) {
            figure("startup.first_frame_ms.racks1778", m, "ms");
            figure("memory.rss_mb.racks1778", rss, "MiB");
        }
    }
}

} // namespace

int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--filter") == 0 && i + 1 < argc)
            g_filter = argv[++i];
        else if (std::strcmp(argv[i], "--help") == 0) {
            std::printf("Usage: floortwin-bench [--filter TEXT]\nPrints one `name value unit` line "
                        "per figure.\n");
            return 0;
        } else {
            std::fprintf(stderr, "floortwin-bench: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    // Render and start-up figures need a display (a QApplication); the rest need at most a
    // QCoreApplication (the Redfish poll), made first so that only one ever exists. A filter
    // that names a frame size ("3840x2160") is a render filter too.
    const bool gui =
        g_filter.empty() ||
        std::string("render.startup.memory.live.soak.hostile.alerts.")
                .find(g_filter.substr(0, g_filter.find('.') + 1)) != std::string::npos ||
        std::regex_search(g_filter, std::regex(R"(\d+x\d+)"));
    std::unique_ptr<QCoreApplication> app;
    if (gui) {
        views::FloorView::setDefaultSurfaceFormat();
        app = std::make_unique<QApplication>(argc, argv);
    } else {
        app = std::make_unique<QCoreApplication>(argc, argv);
    }
    benchSim("default", "", 200);
    benchSim("racks1778", "generate:racks=1778", 60);
    benchSimSplit();
    benchThermal();
    benchRecording();
    benchFork();
    benchKeyframe();
    if (wanted("parse.prometheus.mb_per_s") || wanted("parse.prometheus.vs_promtool") ||
        wanted("parse.promtool"))
        ft::benchParse(figure, std::filesystem::temp_directory_path().string());
    if (wanted("inventory.load_ms") || wanted("mapping."))
        ft::benchInventory(figure, std::filesystem::temp_directory_path().string());
    if (wanted("redfish.")) ft::benchRedfish(figure);
    if (wanted("alerts.poll_ms") || wanted("alerts.fetch_ms") || wanted("alerts.poll_vs") ||
        wanted("alerts.parse_ms") || wanted("alerts.place_ms"))
        ft::benchAlertPoll(figure);
    if (wanted("link.open")) ft::benchLinkOpen(figure);
    if (wanted("wall.")) ft::benchWall(figure);
    if (!gui) return 0;
    if (wanted("alerts.frame"))
        ft::benchAlertFrames(figure, [](views::FloorView& v, int n) { return frameMs(v, n); });
    benchRender();
    benchLiveLatency();
    if (wanted("hostile."))
        ft::benchHostile(figure, [](views::FloorView& v, int n) { return frameMs(v, n); });
    benchStartup();
    if (wanted("soak.rss_growth_percent") || wanted("soak.frame_ms_p99")) ft::benchSoak(figure);
    return 0;
}
