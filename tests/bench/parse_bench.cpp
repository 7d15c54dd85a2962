#include "parse_bench.h"

#include "importers/floor/floor_file.h"
#include "importers/formats/prometheus_text.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <spawn.h>
#include <sys/wait.h>
#include <vector>

extern char** environ;

namespace ft {
namespace {

namespace prom = importers::prom;

constexpr int kRacks = 1778;
constexpr int kTraysPerRack = 18;
constexpr int kGpusPerTray = 4;
constexpr int kParseRuns = 5;
constexpr int kPromtoolRuns = 3;

enum class Kind { Int, Float, Ratio };
struct DcgmMetric {
    const char* name;
    const char* type;
    const char* help;
    Kind kind;
    std::uint64_t lo, hi; // value range of the integer part
};

// The dcgm-exporter default counters a GB200 floor reports, with its help texts.
constexpr DcgmMetric kMetrics[] = {
    {"DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz).", Kind::Int, 345, 2062},
    {"DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (in MHz).", Kind::Int, 3996, 3997},
    {"DCGM_FI_DEV_MEMORY_TEMP", "gauge", "Memory temperature (in C).", Kind::Int, 30, 80},
    {"DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).", Kind::Int, 28, 86},
    {"DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", Kind::Float, 180, 1200},
    {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter",
     "Total energy consumption since boot (in mJ).", Kind::Int, 100'000'000'000, 900'000'000'000},
    {"DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).", Kind::Int, 0, 101},
    {"DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %).", Kind::Int, 0, 101},
    {"DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB).", Kind::Int, 1000, 180000},
    {"DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).", Kind::Int, 1000, 180000},
    {"DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last XID error encountered.", Kind::Int, 0,
     1},
    {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", "gauge", "Ratio of time the graphics engine is active.",
     Kind::Ratio, 0, 1},
};

std::uint64_t splitmix(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// One label block per GPU, shared by every metric: four GPUs per host, in host order.
std::vector<std::string> gpuLabels(const std::vector<std::string>& hosts) {
    static constexpr int kBus[kGpusPerTray] = {0x18, 0x2A, 0x3A, 0x5D};
    std::vector<std::string> out;
    out.reserve(hosts.size() * kGpusPerTray);
    std::uint64_t seed = 7;
    char buf[512];
    for (const std::string& host : hosts)
        for (int gpu = 0; gpu < kGpusPerTray; ++gpu) {
            const std::uint64_t a = splitmix(seed), b = splitmix(seed);
            const int n = std::snprintf(
                buf, sizeof buf,
                "{gpu=\"%d\",UUID=\"GPU-%08x-%04x-%04x-%04x-%012llx\",pci_bus_id="
                "\"00000000:%02X:00.0\","
                "device=\"nvidia%d\",modelName=\"NVIDIA GB200\",Hostname=\"%s\"}",
                gpu, static_cast<unsigned>(a >> 32), static_cast<unsigned>(a >> 16) & 0xFFFF,
                static_cast<unsigned>(a) & 0xFFFF, static_cast<unsigned>(b >> 48),
                static_cast<unsigned long long>(b & 0xFFFFFFFFFFFFULL), kBus[gpu], gpu,
                host.c_str());
            out.emplace_back(buf, static_cast<std::size_t>(n));
        }
    return out;
}

} // namespace

// Host names as the generated floor names them ({row_lc}{rack:02}-n{tray:02}), so the scrape
// matches `generate:racks=1778`.
std::vector<std::string> generatedFloorHosts() {
    std::vector<std::string> hosts;
    char buf[64];
    for (const auto& row : importers::generateFloor(kRacks).rows) {
        std::string rowLc = row.name;
        for (char& c : rowLc)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        for (int rack = 1; rack <= row.racks; ++rack)
            for (int tray = 1; tray <= kTraysPerRack; ++tray) {
                std::snprintf(buf, sizeof buf, "%s%02d-n%02d", rowLc.c_str(), rack, tray);
                hosts.emplace_back(buf);
            }
    }
    return hosts;
}

std::string dcgmScrape(const std::vector<std::string>& hosts) {
    const auto labels = gpuLabels(hosts);
    std::string text;
    text.reserve(labels.size() * std::size(kMetrics) * 200);
    std::uint64_t seed = 42;
    char value[64];
    for (const DcgmMetric& m : kMetrics) {
        text.append("# HELP ").append(m.name).append(" ").append(m.help).append("\n");
        text.append("# TYPE ").append(m.name).append(" ").append(m.type).append("\n");
        for (const std::string& l : labels) {
            const std::uint64_t r = splitmix(seed);
            int n = 0;
            switch (m.kind) {
            case Kind::Int:
                n = std::snprintf(value, sizeof value, " %llu\n",
                                  static_cast<unsigned long long>(m.lo + r % (m.hi - m.lo)));
                break;
            case Kind::Float:
                n = std::snprintf(value, sizeof value, " %.6f\n",
                                  static_cast<double>(m.lo + r % (m.hi - m.lo)) +
                                      (r >> 40) / 16777216.0);
                break;
            case Kind::Ratio:
                n = std::snprintf(value, sizeof value, " %.6f\n", (r >> 11) * 0x1.0p-53);
                break;
            }
            text.append(m.name).append(l).append(value, static_cast<std::size_t>(n));
        }
    }
    return text;
}

namespace {

double median(std::vector<double> v) {
    std::ranges::sort(v);
    return v.empty() ? 0.0 : v[v.size() / 2];
}

class CountingSink : public prom::SampleSink {
public:
    std::uint64_t samples = 0, labels = 0, errors = 0, warnings = 0;
    double sum = 0;
    void sample(const prom::Sample& s) override {
        ++samples;
        labels += s.labels.size();
        sum += s.value;
    }
    void warning(const prom::ParseError& e) override {
        if (warnings++ == 0)
            std::fprintf(stderr, "benchParse: warning: line %d:%d: %s\n", e.line, e.column,
                         e.message.c_str());
    }
    void error(const prom::ParseError& e) override {
        if (errors++ == 0)
            std::fprintf(stderr, "benchParse: line %d:%d: %s\n", e.line, e.column,
                         e.message.c_str());
    }
};

// Wall seconds of `promtool check metrics < file`; negative when promtool cannot be started.
// Its exit status is not looked at: lint findings make it exit non-zero on a valid file.
double timePromtool(const std::string& file) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, file.c_str(), O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    char arg0[] = "promtool", arg1[] = "check", arg2[] = "metrics";
    char* argv[] = {arg0, arg1, arg2, nullptr};
    const auto t0 = std::chrono::steady_clock::now();
    pid_t pid = 0;
    const int rc = posix_spawnp(&pid, "promtool", &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) return -1;
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) return -1;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return WIFEXITED(status) && WEXITSTATUS(status) == 127 ? -1
                                                           : s; // 127: the child could not exec
}

} // namespace

void benchParse(
    const std::function<void(const std::string& name, double value, const char* unit)>& figure,
    const std::string& workDir) {
    const std::string text = dcgmScrape(generatedFloorHosts());
    const std::string file = workDir + "/dcgm_racks1778.prom";
    {
        std::ofstream out(file, std::ios::binary);
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
        if (!out) {
            std::fprintf(stderr, "benchParse: cannot write %s\n", file.c_str());
            return;
        }
    }

    std::vector<double> seconds;
    CountingSink sink;
    for (int i = 0; i < kParseRuns; ++i) {
        sink = CountingSink{};
        const auto t0 = std::chrono::steady_clock::now();
        prom::parse(text, sink);
        seconds.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    const double ours = median(seconds);
    const double mb = static_cast<double>(text.size()) / 1e6;
    figure("parse.prometheus.mb_per_s", mb / ours, "MB/s");
    figure("parse.prometheus.samples_per_s", static_cast<double>(sink.samples) / ours, "samples/s");
    figure("parse.prometheus.file_mb", mb, "MB");
    // The same text as one live scrape (Scope::Exposition), as scrape sources read it: with the
    // rules a single exposition adds (each series once, checked for every sample).
    seconds.clear();
    for (int i = 0; i < kParseRuns; ++i) {
        sink = CountingSink{};
        const auto t0 = std::chrono::steady_clock::now();
        prom::parse(text, sink, prom::Format::Auto, prom::Scope::Exposition);
        seconds.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    figure("parse.prometheus.exposition_mb_per_s", mb / median(seconds), "MB/s");

    seconds.clear();
    for (int i = 0; i < kPromtoolRuns; ++i) {
        const double s = timePromtool(file);
        if (s < 0) {
            std::fprintf(stderr, "benchParse: promtool not found, parse.promtool.* skipped\n");
            break;
        }
        seconds.push_back(s);
    }
    if (!seconds.empty()) {
        figure("parse.promtool.seconds", median(seconds), "s");
        figure("parse.prometheus.vs_promtool", median(seconds) / ours, "x");
    }
    std::remove(file.c_str());
}

} // namespace ft
