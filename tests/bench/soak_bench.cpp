#include "soak_bench.h"

#include "app/command_line.h"
#include "app/floor_loading.h"
#include "app/main_window.h"
#include "app/session.h"
#include "app/story_player.h"
#include "views/floor_view.h"
#include "views/layer_registry.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace ft {

namespace {

double residentMb() {
    std::ifstream statm("/proc/self/statm");
    long pages = 0, resident = 0;
    statm >> pages >> resident;
    return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1048576.0;
}

} // namespace

void benchSoak(const std::function<void(const std::string&, double, const char*)>& figure) {
    const double seconds = qEnvironmentVariableIsSet("FT_SOAK_SECONDS")
                               ? qEnvironmentVariable("FT_SOAK_SECONDS").toDouble()
                               : 600.0;
    const auto recording = std::filesystem::temp_directory_path() /
                           ("floortwin-soak-" + std::to_string(getpid()) + ".ftrec");
    app::Options o;
    o.speed = 100;
    o.record = recording.string();
    auto session = app::makeSimSession(o, true, false);
    if (!session) {
        std::fprintf(stderr, "floortwin-bench: soak: %s\n", session.error().c_str());
        return;
    }
    auto& s = **session;
    auto tour = app::loadStory("noc", *s.topology, views::layerIds());
    if (!tour) {
        std::fprintf(stderr, "floortwin-bench: soak: %s\n", tour.error().c_str());
        return;
    }
    // Every layer stays on: the tour flies its stops without switching them.
    for (auto& step : tour->steps)
        step.layers.reset();
    s.sim->start(o.speed);
    {
        app::MainWindow window(s, nullptr, false);
        auto* view = window.floorView();
        for (const auto& layer : view->layers())
            view->setLayerVisible(layer->id(), true);
        window.show();
        window.setWallMode(true);
        view->setFinishEachFrame(true); // frame costs include the rasteriser
        window.playStory(*tour);
        std::vector<double> costs, gaps;
        // Per stop of the tour, to say where the worst frames are.
        std::vector<std::vector<double>> byStop(tour->steps.size());
        int stop = 0;
        QObject::connect(window.storyPlayer(), &app::StoryPlayer::stepChanged, view,
                         [&stop](int index) { stop = index; });
        QElapsedTimer clock;
        clock.start();
        double lastFrame = -1, rssAfterWarmup = 0;
        const double warmup = seconds / 5;
        QObject::connect(view, &views::FloorView::frameDrawn, view, [&](double ms) {
            const double now = static_cast<double>(clock.nsecsElapsed()) / 1e6;
            if (now > 5000) { // after start-up
                costs.push_back(ms);
                byStop[static_cast<std::size_t>(stop)].push_back(ms);
                if (lastFrame >= 0) gaps.push_back(now - lastFrame);
            }
            lastFrame = now;
        });
        QEventLoop loop;
        QTimer::singleShot(static_cast<int>(warmup * 1000), &loop,
                           [&] { rssAfterWarmup = residentMb(); });
        QTimer::singleShot(static_cast<int>(seconds * 1000), &loop, &QEventLoop::quit);
        loop.exec();
        const double rssEnd = residentMb();
        window.stopStory();
        std::ranges::sort(costs);
        std::ranges::sort(gaps);
        auto at = [](const std::vector<double>& v, double q) {
            return v.empty() ? 0.0
                             : v[std::min(v.size() - 1, static_cast<std::size_t>(q * v.size()))];
        };
        figure("soak.seconds", seconds, "s");
        figure("soak.frames", static_cast<double>(costs.size()), "frames");
        figure("soak.rss_mb_after_warmup", rssAfterWarmup, "MiB");
        figure("soak.rss_mb_end", rssEnd, "MiB");
        figure("soak.rss_growth_percent",
               rssAfterWarmup > 0 ? 100.0 * (rssEnd - rssAfterWarmup) / rssAfterWarmup : 0.0, "%");
        figure("soak.frame_ms_median", at(costs, 0.5), "ms");
        figure("soak.frame_ms_p99", at(costs, 0.99), "ms");
        figure("soak.frame_ms_max", costs.empty() ? 0.0 : costs.back(), "ms");
        figure("soak.frame_gap_ms_p99", at(gaps, 0.99), "ms");
        figure("soak.frame_gap_ms_max", gaps.empty() ? 0.0 : gaps.back(), "ms");
        for (std::size_t i = 0; i < byStop.size(); ++i) {
            auto& v = byStop[i];
            if (v.empty()) continue;
            std::ranges::sort(v);
            const auto& step = tour->steps[i];
            std::string what = step.caption.value_or("");
            if (what.size() > 40) what = what.substr(0, 40);
            std::fprintf(stderr, "soak: stop %zu (%s): %zu frames, median %.1f, max %.1f ms\n",
                         i + 1, what.c_str(), v.size(), at(v, 0.5), v.back());
        }
    }
    s.sim->stop();
    if (s.recorder) {
        // A live recorder drops a snapshot rather than stall the simulator: how many did it.
        const auto r = s.recorder->stats();
        figure("soak.recorded_snapshots", static_cast<double>(r.snapshots), "snapshots");
        figure("soak.recording_dropped_snapshots", static_cast<double>(r.dropped), "snapshots");
    }
    session->reset();
    std::error_code ec;
    figure("soak.recording_mb",
           static_cast<double>(std::filesystem::file_size(recording, ec)) / 1048576.0, "MiB");
    std::filesystem::remove(recording, ec);
}

} // namespace ft
