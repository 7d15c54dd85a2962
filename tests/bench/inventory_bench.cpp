#include "inventory_bench.h"

#include "app/live_sources.h"
#include "importers/floor/floor_file.h"
#include "importers/floor/inventory_csv.h"
#include "importers/formats/prometheus_text.h"
#include "importers/mapping/series_mapper.h"
#include "parse_bench.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <vector>

namespace ft {
namespace {

namespace prom = importers::prom;

double median(std::vector<double> v) {
    std::ranges::sort(v);
    return v.empty() ? 0.0 : v[v.size() / 2];
}

double secondsOf(const std::function<void()>& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The generated floor's 1,778 racks as a real hall would name them: halls of 20 rows, racks by
// grid position, hosts after the provisioning system.
struct Export {
    std::string csv;
    std::vector<std::string> hosts; // in floor order: rack by rack, tray 1 first
};
Export inventoryExport() {
    Export e;
    e.csv = "Host Name,Rack Name,Row,Tray,Hall,GPU UUIDs,BMC IP,Serial Number,Status\n";
    const auto rows = importers::generateFloor(1778).rows;
    std::uint64_t serial = 100000;
    char line[512];
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const int hall = 1 + static_cast<int>(r / 20), row = 1 + static_cast<int>(r % 20);
        for (int rack = 1; rack <= rows[r].racks; ++rack)
            for (int tray = 1; tray <= 18; ++tray) {
                ++serial;
                char host[64];
                std::snprintf(host, sizeof host, "gpu-dh%d-r%02d-c%02d-n%02d", hall, row, rack,
                              tray);
                std::string uuids;
                for (int g = 0; g < 4; ++g) {
                    char u[64];
                    std::snprintf(u, sizeof u, "%sGPU-%08llx-1f2e-4d3c-8b9a-%012llx", g ? ";" : "",
                                  static_cast<unsigned long long>(serial),
                                  static_cast<unsigned long long>(serial * 4 + g));
                    uuids += u;
                }
                const int n = std::snprintf(
                    line, sizeof line,
                    "%s,DH%d-R%02d-C%02d,R%02d,%d,DH%d,%s,10.%d.%d.%d,SN%llu,active\n", host, hall,
                    row, rack, row, tray, hall, uuids.c_str(), hall, row, rack * 18 + tray,
                    static_cast<unsigned long long>(serial));
                e.csv.append(line, static_cast<std::size_t>(n));
                e.hosts.emplace_back(host);
            }
    }
    return e;
}

class MapSink final : public prom::SampleSink {
public:
    MapSink(importers::SeriesMapper& m, std::vector<model::Sample>& out, model::TimeNs t)
        : m_mapper(m), m_out(out), m_time(t) {}
    void sample(const prom::Sample& s) override { m_mapper.map(s, m_time, m_out); }
    void error(const prom::ParseError&) override {}

private:
    importers::SeriesMapper& m_mapper;
    std::vector<model::Sample>& m_out;
    model::TimeNs m_time;
};

class NullSink final : public prom::SampleSink {
public:
    std::uint64_t n = 0;
    void sample(const prom::Sample&) override { ++n; }
    void error(const prom::ParseError&) override {}
};

// Steady-state throughput: the first scrape resolves every series, the next ones hit the cache
// (as every scrape after the first does live). Each scrape is newer than the one before. With
// `parseSeconds`, the parser alone on the same text is timed in turn with each mapped scrape,
// so the two share the machine's state (caches, clocks, neighbours).
double mappingMbPerS(const std::string& text, const model::Topology& topology,
                     const importers::MappingRules& rules, std::size_t& mapped,
                     std::vector<double>* parseSeconds = nullptr) {
    importers::SeriesMapper mapper(rules, topology);
    std::vector<model::Sample> out;
    out.reserve(2'000'000);
    model::TimeNs t = 1'796'000'000LL * model::kNsPerSecond;
    MapSink first(mapper, out, t);
    prom::parse(text, first);
    std::vector<double> seconds;
    for (int i = 0; i < 5; ++i) {
        if (parseSeconds) {
            NullSink sink;
            parseSeconds->push_back(secondsOf([&] { prom::parse(text, sink); }));
        }
        out.clear();
        t += 15 * model::kNsPerSecond;
        MapSink sink(mapper, out, t);
        seconds.push_back(secondsOf([&] { prom::parse(text, sink); }));
    }
    mapped = out.size();
    return static_cast<double>(text.size()) / 1e6 / median(seconds);
}

} // namespace

void benchInventory(
    const std::function<void(const std::string& name, double value, const char* unit)>& figure,
    const std::string& workDir) {
    const Export e = inventoryExport();
    const std::string file = workDir + "/inventory_hosts32004.csv";
    {
        std::ofstream out(file, std::ios::binary);
        out << e.csv;
    }
    figure("inventory.csv_mb", static_cast<double>(e.csv.size()) / 1e6, "MB");
    std::vector<double> ms;
    std::shared_ptr<const model::Topology> hall;
    for (int i = 0; i < 3; ++i) {
        std::string error;
        ms.push_back(1000.0 * secondsOf([&] {
                         auto inv = importers::loadInventoryCsv(file);
                         if (!inv) {
                             error = inv.error().toString();
                             return;
                         }
                         auto t = model::Topology::build(inv->spec);
                         if (!t) {
                             error = t.error();
                             return;
                         }
                         hall = std::make_shared<const model::Topology>(std::move(*t));
                     }));
        if (!error.empty()) {
            std::fprintf(stderr, "benchInventory: %s\n", error.c_str());
            std::remove(file.c_str());
            return;
        }
    }
    std::remove(file.c_str());
    figure("inventory.load_ms.hosts32004", median(ms), "ms");

    auto rules = app::loadRules("dcgm-exporter");
    if (!rules) {
        std::fprintf(stderr, "benchInventory: %s\n", rules.error().c_str());
        return;
    }
    const std::string scrape = dcgmScrape(e.hosts);
    std::vector<double> parseSeconds;
    std::size_t mapped = 0;
    const double tableMb = mappingMbPerS(scrape, *hall, *rules, mapped, &parseSeconds);
    const double parseMb = static_cast<double>(scrape.size()) / 1e6 / median(parseSeconds);
    if (mapped == 0) std::fprintf(stderr, "benchInventory: the host-table scrape mapped nothing\n");
    figure("parse.prometheus.mb_per_s.same_run", parseMb, "MB/s");
    figure("mapping.host_table.mb_per_s", tableMb, "MB/s");
    figure("mapping.host_table.samples_mapped", static_cast<double>(mapped), "samples");
    figure("mapping.host_table.vs_parse", tableMb / parseMb, "x");
    auto generated = model::Topology::build(importers::generateFloor(1778));
    if (generated) {
        std::size_t n = 0;
        const double patternMb =
            mappingMbPerS(dcgmScrape(generatedFloorHosts()), *generated, *rules, n);
        figure("mapping.host_pattern.mb_per_s", patternMb, "MB/s");
    }
}

} // namespace ft
