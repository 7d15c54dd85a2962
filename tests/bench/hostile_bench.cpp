#include "hostile_bench.h"

#include "app/floor_loading.h"
#include "app/live_sources.h"
#include "importers/mapping/mapping_rules.h"
#include "importers/sources/scrape_source.h"
#include "model/sim_core.h"
#include "support/hostile_server.h"
#include "support/test_paths.h"
#include "views/floor_view.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>

namespace ft {

using testing::HostileServer;
using testing::residentMiB;

void benchHostile(
    const std::function<void(const std::string& name, double value, const char* unit)>& figure,
    const std::function<double(views::FloorView& view, int frames)>& frameMs) {
    auto topology = app::loadTopology("");
    auto rules =
        importers::loadMappingRules(FT_SOURCE_PATH("/resources/mappings/dcgm-exporter.json"));
    if (!topology || !rules) {
        std::fprintf(stderr, "floortwin-bench: hostile: no floor or mapping rules\n");
        return;
    }
    std::shared_ptr<const model::Topology> floor = *topology;
    model::SimCore core(floor, {});
    views::FloorView view(floor, [&core] { return core.latest(); });
    view.setFinishEachFrame(true);
    view.setShowFrameStats(false);
    view.resize(1280, 720);
    view.show();
    QCoreApplication::processEvents();
    for (const char* layer : {"thermal", "rails", "nvlink", "storage", "lifecycle", "power"})
        view.setLayerVisible(layer, true);
    std::vector<std::unique_ptr<importers::LiveSource>> sources;
    view.setSourceStatus([&sources] { return app::sourceStatus(sources); });
    core.start(1.0);

    // Every server, the good one too, runs behind the app's threads, as on machines of its own.
    HostileServer good(HostileServer::dcgmExporter());
    good.setNice(19);
    std::mutex mutex;
    std::vector<std::int64_t> arrivals; // steady ns of the good target's pages
    auto sourceOver = [&](const std::vector<std::string>& urls) {
        importers::ScrapeConfig config; // what `--source scrape=` gets: 1 s, 3 s, 64 MiB
        config.urls = urls;
        return std::make_unique<importers::ScrapeSource>(
            config, *rules, floor, [&](model::SampleBatch b) {
                if (!b.samples.empty()) {
                    std::lock_guard lock(mutex);
                    arrivals.push_back(std::chrono::steady_clock::now().time_since_epoch().count());
                }
                return core.submit(std::move(b));
            });
    };
    auto settle = [](int ms) {
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < ms)
            QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    };

    sources.push_back(sourceOver({good.url()}));
    sources.back()->start();
    settle(1000);
    const double calm = frameMs(view, 150);
    sources.back()->stop();
    sources.clear();

    HostileServer hang(HostileServer::hangAfterHeaders()),
        huge(HostileServer::hugeBody(1ull << 30)),
        drip(HostileServer::drip(std::chrono::milliseconds(1000))),
        chunked(HostileServer::badChunked()), bomb(HostileServer::gzipBomb(1ull << 30)),
        html(HostileServer::html500()), loop(HostileServer::redirectLoop()),
        plain(HostileServer::notTls());
    for (auto* server : {&hang, &huge, &drip, &chunked, &bomb, &html, &loop, &plain})
        server->setNice(19);
    testing::resetPeakResident();
    const auto [rssBefore, hwmBefore] = residentMiB();
    {
        std::lock_guard lock(mutex);
        arrivals.clear();
    }
    sources.push_back(sourceOver({good.url(), hang.url(), huge.url(), drip.url(), chunked.url(),
                                  bomb.url(), html.url(), loop.url(), plain.url("https")}));
    sources.back()->start();
    settle(2000); // every hostile target is misbehaving by now
    const double hostile = frameMs(view, 150);
    settle(1000);
    const auto [rssAfter, hwmAfter] = residentMiB();
    const auto health = sources.back()->health();
    sources.back()->stop();
    sources.clear();
    core.stop();

    std::int64_t worst = 0;
    {
        std::lock_guard lock(mutex);
        for (std::size_t i = 1; i < arrivals.size(); ++i)
            worst = std::max(worst, arrivals[i] - arrivals[i - 1]);
    }
    std::size_t failing = 0;
    for (std::size_t i = 1; i < health.size(); ++i)
        failing += health[i].errors > 0 ? 1 : 0;
    figure("hostile.frame_ms.calm", calm, "ms");
    figure("hostile.frame_ms.hostile", hostile, "ms");
    figure("hostile.frame_ratio", calm > 0 ? hostile / calm : 0, "x");
    figure("hostile.peak_rss_growth_mb", hwmAfter - rssBefore, "MiB");
    figure("hostile.good_target_longest_gap_ms", static_cast<double>(worst) / 1e6, "ms");
    figure("hostile.good_target_errors", static_cast<double>(health.at(0).errors), "errors");
    figure("hostile.targets_failing", static_cast<double>(failing), "of 8");
    (void)rssAfter;
    (void)hwmBefore;
}

} // namespace ft
