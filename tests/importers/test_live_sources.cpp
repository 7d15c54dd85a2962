// Live sources against real servers on 127.0.0.1: exporter scrapes (a test exporter serving a
// dcgm-exporter page: mapping, a target dying and coming back, garbage, a flood, a slow target
// beside a fast one), the PromQL API of a real `prometheus` (instant queries, query_range, a
// server killed and restarted, an incident window imported into a .ftrec) and the BMS bus on a
// real `mosquitto` (a broker killed and restarted). Servers are started by the tests and
// stopped by RAII guards, so a failing check never leaves one running. Waits are generous
// (QTRY_*): machines are slow and noisy, and nothing here asserts on timing.
#include "importers/floor/inventory_csv.h"
#include "importers/mapping/mapping_rules.h"
#include "importers/net/http_client.h"
#include "importers/recording/recording_reader.h"
#include "importers/sources/mqtt_source.h"
#include "importers/sources/promql_source.h"
#include "importers/sources/scrape_source.h"
#include "model/external_alert.h"
#include "support/loopback_server.h"
#include "support/requirement.h"
#include "support/server_process.h"
#include "support/test_floors.h"
#include "support/test_paths.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <arpa/inet.h>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <list>
#include <mosquitto.h>
#include <mutex>
#include <netinet/in.h>
#include <poll.h>
#include <ranges>
#include <regex>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

#if defined(__SANITIZE_THREAD__)
// ThreadSanitizer (make tsan): the live sources run Qt event loops and QtNetwork on threads of
// their own. QtNetwork's internal HTTP threads and glib's event dispatcher are not instrumented
// and synchronise through futexes ThreadSanitizer cannot see, so it reports races inside those
// libraries that say nothing about floortwin — the same reason tests/tsan.supp silences
// libQt6Core. Added to the suppressions file's list; floortwin's own threads stay checked.
extern "C" const char* __tsan_default_suppressions() {
    return "called_from_lib:libQt6Network.so.6\n"
           "race:libQt6Network.so.6\n"
           "called_from_lib:libglib-2.0.so.0\n"
           "race:libglib-2.0.so.0\n";
}
#endif

using namespace ft;
using importers::SourceState;
namespace ch = model::ch;

namespace {

// Exporter pages and PromQL answers come from the suites' loopback server, as the exposition
// format's default type.
using testing::freePort;
using testing::PageServer;
using testing::portAccepts;
using testing::ServerProcess;
const std::string kExposition = "text/plain; version=0.0.4; charset=utf-8";

// ---------------------------------------------------------------------------------------------
// A dcgm-exporter page for the hosts given: GPU i of a host reads 61 + i °C, 700 + i W, 50 + i %.
std::string dcgmPage(const std::vector<std::string>& hosts, double tempBase = 61) {
    std::string out;
    auto family = [&](const char* name, const char* help, double base) {
        out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " gauge\n";
        for (const auto& host : hosts)
            for (int g = 0; g < 4; ++g)
                out += std::string(name) + "{gpu=\"" + std::to_string(g) + "\",UUID=\"GPU-" + host +
                       "-" + std::to_string(g) + "\",device=\"nvidia" + std::to_string(g) +
                       R"(",modelName="NVIDIA Rubin",Hostname=")" + host + "\"} " +
                       std::to_string(base + g) + "\n";
    };
    family("DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C).", tempBase);
    family("DCGM_FI_DEV_POWER_USAGE", "Power draw (in W).", 700);
    family("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", 50);
    out += "# HELP exporter_build_info Not mapped.\n# TYPE exporter_build_info "
           "gauge\nexporter_build_info{version=\"3.3.0\"} 1\n";
    return out;
}

// Every batch the source submits, kept for inspection.
class Collector {
public:
    importers::SubmitFn fn() {
        return [this](model::SampleBatch batch) {
            std::lock_guard lock(m_mutex);
            m_samples.insert(m_samples.end(), batch.samples.begin(), batch.samples.end());
            return true;
        };
    }
    std::size_t count() const {
        std::lock_guard lock(m_mutex);
        return m_samples.size();
    }
    std::size_t count(model::ChannelId channel, model::EntityId entity) const {
        std::lock_guard lock(m_mutex);
        return static_cast<std::size_t>(std::ranges::count_if(
            m_samples, [&](const auto& s) { return s.channel == channel && s.entity == entity; }));
    }
    // The newest value for (channel, entity); NaN when none came.
    float last(model::ChannelId channel, model::EntityId entity) const {
        std::lock_guard lock(m_mutex);
        for (const auto& m_sample : std::ranges::reverse_view(m_samples))
            if (m_sample.channel == channel && m_sample.entity == entity) return m_sample.value;
        return std::nanf("");
    }

private:
    mutable std::mutex m_mutex;
    std::vector<model::Sample> m_samples;
};

model::EntityId trayOf(const model::Topology& t, const std::string& host) {
    for (model::EntityId tray = 0; tray < t.count(model::EntityKind::ComputeTray); ++tray)
        if (t.hostName(tray) == host) return tray;
    qFatal("no host %s on the test floor", host.c_str());
}

model::EntityId gpuOf(const model::Topology& t, const std::string& host, int index) {
    const model::EntityId tray = trayOf(t, host);
    for (model::EntityId g = 0; g < t.count(model::EntityKind::Gpu); ++g)
        if (t.gpus.tray[g] == tray && t.gpus.indexInTray[g] == index) return g;
    qFatal("no GPU %d on %s", index, host.c_str());
}

importers::MappingRules preset(const char* name) {
    auto rules = importers::loadMappingRules(std::string(FT_SOURCE_PATH("/resources/mappings/")) +
                                             name + ".json");
    if (!rules) qFatal("%s", rules.error().toString().c_str());
    return *rules;
}

importers::SourceHealth healthOf(const importers::LiveSource& s, std::size_t i = 0) {
    return s.health().at(i);
}

std::string describe(const importers::SourceHealth& h) {
    return h.name + ": " + std::string(importers::sourceStateName(h.state)) + ", polls " +
           std::to_string(h.polls) + ", samples " + std::to_string(h.samples) + ", mapped " +
           std::to_string(h.mapped) + ", bad lines " + std::to_string(h.badLines) + ", errors " +
           std::to_string(h.errors) + ", last error: " + h.lastError;
}

model::TimeNs wallNow() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// Publishes BMS messages to a broker with a short-lived client of its own.
bool publish(int port, const std::vector<std::pair<std::string, std::string>>& messages,
             bool retain = false) {
    static std::once_flag init;
    std::call_once(init, [] { mosquitto_lib_init(); });
    int acked = 0;
    mosquitto* m = mosquitto_new(nullptr, true, &acked);
    if (!m) return false;
    // QoS 1 and wait for every PUBACK: a message still in the client's buffer at disconnect is
    // lost (QoS 0 gives no such signal), and a retained one must be on the broker before a
    // subscriber connects.
    mosquitto_publish_callback_set(
        m, [](mosquitto*, void* counter, int) { ++*static_cast<int*>(counter); });
    bool ok = mosquitto_connect(m, "127.0.0.1", port, 10) == MOSQ_ERR_SUCCESS;
    for (const auto& [topic, payload] : messages)
        ok = ok && mosquitto_publish(m, nullptr, topic.c_str(), static_cast<int>(payload.size()),
                                     payload.data(), 1, retain) == MOSQ_ERR_SUCCESS;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (ok && acked < static_cast<int>(messages.size()) &&
           std::chrono::steady_clock::now() < deadline)
        ok = mosquitto_loop(m, 20, 1) == MOSQ_ERR_SUCCESS;
    ok = ok && acked == static_cast<int>(messages.size());
    mosquitto_disconnect(m);
    mosquitto_loop(m, 20, 1);
    mosquitto_destroy(m);
    return ok;
}

constexpr int kLong = 60000; // ms: what a slow, loaded machine may need for a server round trip

} // namespace

class TestLiveSources : public QObject {
    Q_OBJECT
    std::shared_ptr<const model::Topology> m_floor;
    importers::MappingRules m_dcgm;

    importers::ScrapeConfig scrapeConfig(std::vector<std::string> urls) {
        importers::ScrapeConfig c;
        c.urls = std::move(urls);
        c.interval = std::chrono::milliseconds(200);
        c.timeout = std::chrono::milliseconds(5000);
        c.maxBackoff = std::chrono::milliseconds(1000);
        return c;
    }

private slots:
    void initTestCase() {
        m_floor = testing::demoFloor();
        m_dcgm = preset("dcgm-exporter");
    }

    void scrapeSpecs() {
        auto urls = importers::parseScrapeSpec(
            "scrape=a01-n01,10.0.0.2:9500, http://b02-n03:9400/metrics,https://x.example/m");
        QVERIFY2(urls, urls ? "" : urls.error().c_str());
        QCOMPARE(urls->size(), 4u);
        QCOMPARE((*urls)[0], std::string("http://a01-n01:9400/metrics"));
        QCOMPARE((*urls)[1], std::string("http://10.0.0.2:9500/metrics"));
        QCOMPARE((*urls)[2], std::string("http://b02-n03:9400/metrics"));
        QCOMPARE((*urls)[3], std::string("https://x.example/m"));
        QVERIFY(!importers::parseScrapeSpec("scrape=ftp://x"));
        QVERIFY(!importers::parseScrapeSpec("scrape=a,,b"));
        QVERIFY(!importers::parseScrapeSpec("scrape=host:99999"));
        QVERIFY(!importers::parseScrapeSpec("scrape=host:"));

        auto brokers = importers::parseMqttSpec("mqtt=bms.local,10.1.1.1:8883");
        QVERIFY2(brokers, brokers ? "" : brokers.error().c_str());
        QCOMPARE(brokers->size(), 2u);
        QCOMPARE((*brokers)[0].port, 1883);
        QCOMPARE((*brokers)[1].host, std::string("10.1.1.1"));
        QCOMPARE((*brokers)[1].port, 8883);
        QVERIFY(!importers::parseMqttSpec("mqtt=host:0"));
    }

    void promqlAnswers() {
        auto vec = importers::parsePromqlResponse(
            R"({"status":"success","data":{"resultType":"vector","result":[
            {"metric":{"__name__":"DCGM_FI_DEV_GPU_TEMP","Hostname":"a01-n01","gpu":"0"},"value":[1790000000.25,"61"]},
            {"metric":{"gpu":"1"},"value":[1790000000.25,"NaN"]},
            {"metric":{"gpu":"2"},"value":[1790000000.25,"+Inf"]}]},"warnings":["partial"]})");
        QVERIFY2(vec, vec ? "" : vec.error().message.c_str());
        QCOMPARE(vec->series.size(), 3u);
        QCOMPARE(vec->series[0].points[0].first, 1790000000250LL * model::kNsPerMs);
        QCOMPARE(vec->series[0].points[0].second, 61.0);
        QVERIFY(std::isnan(vec->series[1].points[0].second));
        QVERIFY(std::isinf(vec->series[2].points[0].second));
        QCOMPARE(vec->warnings.size(), 1u);

        auto matrix = importers::parsePromqlResponse(
            R"({"status":"success","data":{"resultType":"matrix","result":[
            {"metric":{"__name__":"up","job":"prometheus","instance":"localhost:9090"},"values":[[1435781430.781,"1"],[1435781445.781,"1"]]}]}})");
        QVERIFY(matrix);
        QCOMPARE(matrix->series[0].points.size(), 2u);
        QCOMPARE(matrix->series[0].labels.size(), 3u);

        auto error = importers::parsePromqlResponse(
            R"({"status":"error","errorType":"bad_data","error":"parse error at char 4"})");
        QVERIFY(!error);
        QVERIFY(error.error().message.find("bad_data") != std::string::npos);
        QVERIFY(error.error().message.find("parse error at char 4") != std::string::npos);
        QVERIFY(!importers::parsePromqlResponse("<html>502 Bad Gateway</html>"));

        // Any JSON, any type anywhere: an answer or an error, never an exception.
        for (
            const char* odd :
            {R"({"status":1})", R"({"status":"error","errorType":["x"],"error":{}})",
             R"({"status":"success","data":{"resultType":5,"result":[]}})",
             R"({"status":"success","data":{"resultType":"vector","result":[{"value":[1e300,"1"]}]}})",
             R"({"status":"success","data":{"resultType":"matrix","result":[{"values":[[NaN,"1"]]}]}})",
             R"({"status":"success","data":{"resultType":"scalar","result":[-1e12,"1"]}})",
             R"({"status":"success","data":[]})", "[]", "", "{"}) {
            auto r = importers::parsePromqlResponse(odd);
            QVERIFY2(!r, odd);
            QVERIFY(!r.error().message.empty());
        }
        auto typed =
            importers::parsePromqlResponse(R"({"status":"error","errorType":7,"error":null})");
        QVERIFY(!typed);
        QCOMPARE(typed.error().message, std::string("error: (no message)"));
        // A flood of warnings: the first 20 kept, cut to 300 bytes, all counted.
        std::string many = R"({"status":"success","warnings":[)";
        for (int i = 0; i < 25; ++i)
            many += (i ? ",\"" : "\"") + std::string(400, 'w') + "\"";
        many += R"(],"data":{"resultType":"vector","result":[]}})";
        auto flooded = importers::parsePromqlResponse(many);
        QVERIFY(flooded);
        QCOMPARE(flooded->warnings.size(), importers::PromqlResult::kMaxWarnings);
        QCOMPARE(flooded->warningCount, 25u);
        QCOMPARE(flooded->warnings[0].size(), importers::PromqlResult::kMaxWarningBytes);
    }

    void querySetIsAggregated() {
        const std::string re = importers::rackKeyRegex(m_floor->spec().hostPattern);
        QVERIFY(!re.empty());
        const std::regex rx(re);
        std::smatch m;
        const std::string host = "a03-n07", withDomain = "b08-n18.cluster.local",
                          instance = "a01-n01:9400";
        QVERIFY(std::regex_match(host, m, rx));
        QCOMPARE(m[1].str(), std::string("a03"));
        QVERIFY(std::regex_match(withDomain, m, rx));
        QCOMPARE(m[1].str(), std::string("b08"));
        QVERIFY(std::regex_match(instance, m, rx));
        QCOMPARE(m[1].str(), std::string("a01"));

        const auto overview = importers::buildQuerySet(m_dcgm, *m_floor);
        QVERIFY(!overview.empty());
        bool rackMax = false;
        for (const auto& q : overview) {
            QVERIFY2(q.channel || q.name.find("device") == std::string::npos,
                     "device series only when asked");
            if (q.channel == ch::RackGpuTempMax) {
                rackMax = true;
                QVERIFY(q.expr.starts_with("max by (ft_rack)"));
                QVERIFY(q.expr.find("DCGM_FI_DEV_GPU_TEMP") != std::string::npos);
            }
        }
        QVERIFY(rackMax);
        importers::QuerySetOptions detail;
        detail.detailRacks = {"A03"};
        const auto withDetail = importers::buildQuerySet(m_dcgm, *m_floor, detail);
        QCOMPARE(withDetail.size(), overview.size() + 1);
        QVERIFY(withDetail.back().expr.find("a03-n18") != std::string::npos);
        QVERIFY(withDetail.back().expr.find("a04-n01") == std::string::npos);
    }

    // (a) scrape: samples arrive mapped; a dead target goes Down and recovers; chunked bodies.
    void scrapeMapsAndRecovers() {
        PageServer server(kExposition);
        QVERIFY(server.start([](const PageServer::Request&) {
            PageServer::Response r;
            r.body = dcgmPage({"a01-n01"});
            r.chunked = true;
            return r;
        }));
        Collector sink;
        importers::ScrapeSource source(scrapeConfig({server.url()}), m_dcgm, m_floor, sink.fn());
        source.start();
        const auto gpu0 = gpuOf(*m_floor, "a01-n01", 0), gpu3 = gpuOf(*m_floor, "a01-n01", 3);
        QTRY_VERIFY_WITH_TIMEOUT(sink.count(ch::GpuTemperature, gpu3) > 0, kLong);
        QCOMPARE(sink.last(ch::GpuTemperature, gpu0), 61.0f);
        QCOMPARE(sink.last(ch::GpuTemperature, gpu3), 64.0f);
        QCOMPARE(sink.last(ch::GpuPower, gpu3), 703.0f);
        QTRY_VERIFY_WITH_TIMEOUT(healthOf(source).state == SourceState::Up, kLong);
        auto h = healthOf(source);
        QVERIFY2(h.mapped >= 12 && h.unmapped >= 1 && h.badLines == 0 && h.formatWarnings == 0 &&
                     h.lastSuccess > 0,
                 describe(h).c_str());

        const int port = server.port();
        server.stop();
        QTRY_VERIFY2_WITH_TIMEOUT(healthOf(source).state == SourceState::Down,
                                  describe(healthOf(source)).c_str(), kLong);
        QVERIFY(!healthOf(source).lastError.empty());
        const std::size_t whileDown = sink.count();
        QTest::qWait(1500);
        QCOMPARE(sink.count(), whileDown); // nothing arrives from a dead target

        QVERIFY(server.start(
            [](const PageServer::Request&) {
                return PageServer::Response{200, dcgmPage({"a01-n01"}, 70)};
            },
            port));
        QTRY_VERIFY2_WITH_TIMEOUT(healthOf(source).state == SourceState::Up,
                                  describe(healthOf(source)).c_str(), kLong);
        QTRY_COMPARE_WITH_TIMEOUT(sink.last(ch::GpuTemperature, gpu0), 70.0f, kLong);
        source.stop();
    }

    // (a) garbage lines are counted; the valid lines around them still map.
    void scrapeGarbageCountsBadLines() {
        PageServer server(kExposition);
        QVERIFY(server.start([](const PageServer::Request&) {
            std::string page = dcgmPage({"a01-n02"});
            page.insert(page.find("# HELP DCGM_FI_DEV_POWER_USAGE"),
                        "this is not a metric line !!!\nDCGM_FI_DEV_GPU_TEMP{gpu=\"0\" 12\n"
                        "\x01\x02\x03 binary junk\n");
            return PageServer::Response{200, page};
        }));
        Collector sink;
        importers::ScrapeSource source(scrapeConfig({server.url()}), m_dcgm, m_floor, sink.fn());
        source.start();
        const auto gpu2 = gpuOf(*m_floor, "a01-n02", 2);
        QTRY_VERIFY_WITH_TIMEOUT(
            healthOf(source).badLines >= 3 && sink.count(ch::GpuUtilization, gpu2) > 0, kLong);
        QCOMPARE(sink.last(ch::GpuTemperature, gpu2), 63.0f);
        QCOMPARE(sink.last(ch::GpuUtilization, gpu2), 52.0f);
        const auto h = healthOf(source);
        QVERIFY2(h.state == SourceState::Degraded &&
                     h.lastError.find("bad lines") != std::string::npos,
                 describe(h).c_str());
        source.stop();
    }

    // A page that breaks the format's rules but is usable: warnings counted apart from bad
    // lines, the source stays up, the data maps, and the health says which rule, where.
    void scrapeSpecBreachesAreWarnings() {
        PageServer server(kExposition);
        QVERIFY(server.start([](const PageServer::Request&) {
            return PageServer::Response{200, dcgmPage({"a01-n02"}) +
                                                 "# TYPE DCGM_FI_DEV_GPU_TEMP gauge\n"
                                                 "# TYPE lat histogram\n"
                                                 "lat_bucket{le=\"1\"} 3\nlat_count 3\n"};
        }));
        Collector sink;
        importers::ScrapeSource source(scrapeConfig({server.url()}), m_dcgm, m_floor, sink.fn());
        source.start();
        const auto gpu2 = gpuOf(*m_floor, "a01-n02", 2);
        QTRY_VERIFY_WITH_TIMEOUT(healthOf(source).formatWarnings >= 2 &&
                                     sink.count(ch::GpuTemperature, gpu2) > 0,
                                 kLong);
        const auto h = healthOf(source);
        QVERIFY2(h.state == SourceState::Up && h.badLines == 0, describe(h).c_str());
        QVERIFY2(h.lastFormatWarning.find("2 lines break the exposition format") !=
                         std::string::npos &&
                     h.lastFormatWarning.find("second TYPE line for 'DCGM_FI_DEV_GPU_TEMP'") !=
                         std::string::npos,
                 h.lastFormatWarning.c_str());
        QCOMPARE(sink.last(ch::GpuTemperature, gpu2), 63.0f);
        source.stop();
    }

    // (a) a page far over the cap is cut there and counted; what came before the cut maps.
    void scrapeFloodIsCut() {
        auto flood = std::make_shared<std::string>(dcgmPage({"a01-n03"}));
        flood->reserve(flood->size() + (8u << 20));
        for (int i = 0; flood->size() < (8u << 20); ++i)
            *flood += "flood_metric{i=\"" + std::to_string(i) + "\"} 1\n";
        PageServer server(kExposition);
        QVERIFY(server.start([flood](const PageServer::Request&) {
            return PageServer::Response{200, *flood};
        }));
        Collector sink;
        auto config = scrapeConfig({server.url()});
        config.maxBodyBytes = 1u << 20;
        importers::ScrapeSource source(config, m_dcgm, m_floor, sink.fn());
        source.start();
        const auto gpu1 = gpuOf(*m_floor, "a01-n03", 1);
        QTRY_VERIFY_WITH_TIMEOUT(
            healthOf(source).errors >= 1 && sink.count(ch::GpuTemperature, gpu1) > 0, kLong);
        const auto h = healthOf(source);
        QVERIFY2(h.state == SourceState::Degraded && h.lastError.find("cut") != std::string::npos,
                 describe(h).c_str());
        // Parsed up to the cap, not the whole 8 MB: ~1 MB of 20-byte lines.
        QVERIFY2(h.samples < 200000 * h.polls, describe(h).c_str());
        source.stop();
    }

    // (a) a target that takes forever does not slow the other one down.
    void slowTargetDoesNotDelayOthers() {
        PageServer fast(kExposition), slow(kExposition);
        QVERIFY(fast.start([](const PageServer::Request&) {
            return PageServer::Response{200, dcgmPage({"a01-n04"})};
        }));
        QVERIFY(slow.start([](const PageServer::Request&) {
            PageServer::Response r{200, dcgmPage({"a01-n05"})};
            r.delayMs = 120000;
            return r;
        }));
        Collector sink;
        auto config = scrapeConfig({slow.url(), fast.url()});
        config.timeout = std::chrono::milliseconds(180000);
        importers::ScrapeSource source(config, m_dcgm, m_floor, sink.fn());
        source.start();
        const auto fastGpu = gpuOf(*m_floor, "a01-n04", 0), slowGpu = gpuOf(*m_floor, "a01-n05", 0);
        QTRY_VERIFY2_WITH_TIMEOUT(healthOf(source, 1).polls >= 5 &&
                                      healthOf(source, 1).lastSuccess > 0,
                                  describe(healthOf(source, 1)).c_str(), kLong);
        QVERIFY(sink.count(ch::GpuTemperature, fastGpu) > 0);
        QCOMPARE(sink.count(ch::GpuTemperature, slowGpu), 0u);
        const auto slowHealth = healthOf(source, 0);
        QCOMPARE(slowHealth.polls, 1u); // one request in flight per target, never a pile
        QCOMPARE(slowHealth.state, SourceState::Connecting);
        source.stop(); // aborts the slow request
        slow.stop();
    }

    // (b) the API client's envelope and auth handling, against a stand-in API: a query the
    // server rejects degrades the source and names the error; a missing token is a dead source.
    void promqlBearerTokenAndErrorEnvelope() {
        PageServer api(kExposition);
        QVERIFY(api.start([](const PageServer::Request& r) {
            PageServer::Response reply;
            reply.contentType = "application/json";
            if (r.head.find("Authorization: Bearer s3cret") == std::string::npos)
                return PageServer::Response{401, "Unauthorized\n"};
            const std::string query = r.method == "POST" ? r.body : r.target;
            if (query.find("not_a_function") != std::string::npos) {
                reply.status = 400;
                reply.body = "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"1:1: "
                             "parse error: unknown function with name 'not_a_function'\"}";
                return reply;
            }
            char when[32];
            std::snprintf(when, sizeof when, "%.3f",
                          static_cast<double>(wallNow() / model::kNsPerMs) / 1000.0);
            reply.body =
                std::string(R"({"status":"success","data":{"resultType":"vector","result":[)") +
                R"({"metric":{"__name__":"DCGM_FI_DEV_GPU_TEMP","Hostname":"a02-n01","gpu":"0"},"value":[)" +
                when + R"(,"66"]}]}})";
            return reply;
        }));
        importers::PromqlConfig pc;
        pc.url = "http://127.0.0.1:" + std::to_string(api.port()) + "/";
        pc.interval = std::chrono::milliseconds(200);
        pc.maxBackoff = std::chrono::milliseconds(1000);
        pc.http.bearerToken = "s3cret";
        pc.queries = {{"gpu temperatures", "DCGM_FI_DEV_GPU_TEMP", std::nullopt, {}, 1.0, 0.0},
                      {"a broken query", "not_a_function(up)", std::nullopt, {}, 1.0, 0.0}};
        Collector sink;
        importers::PromqlSource source(pc, m_dcgm, m_floor, sink.fn());
        source.start();
        const auto gpu = gpuOf(*m_floor, "a02-n01", 0);
        QTRY_VERIFY2_WITH_TIMEOUT(sink.count(ch::GpuTemperature, gpu) > 0 &&
                                      healthOf(source).state == SourceState::Degraded,
                                  describe(healthOf(source)).c_str(), kLong);
        QCOMPARE(sink.last(ch::GpuTemperature, gpu), 66.0f);
        auto h = healthOf(source);
        QVERIFY2(h.lastError.find("a broken query") != std::string::npos &&
                     h.lastError.find("bad_data") != std::string::npos,
                 describe(h).c_str());
        QCOMPARE(h.targetsUp, 1);
        QCOMPARE(h.targetsTotal, 2);

        pc.http.bearerToken.clear();
        Collector nothing;
        importers::PromqlSource noToken(pc, m_dcgm, m_floor, nothing.fn());
        noToken.start();
        QTRY_VERIFY2_WITH_TIMEOUT(healthOf(noToken).state == SourceState::Down &&
                                      healthOf(noToken).errors >= 2,
                                  describe(healthOf(noToken)).c_str(), kLong);
        QVERIFY2(healthOf(noToken).lastError.find("401") != std::string::npos,
                 describe(healthOf(noToken)).c_str());
        QCOMPARE(nothing.count(), 0u);
        noToken.stop();
        source.stop();

        // An import in which every request fails is an error and leaves no file; so does a
        // cancelled one.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string out = dir.filePath("window.ftrec").toStdString();
        const model::TimeNs t0 =
            wallNow() / model::kNsPerSecond * model::kNsPerSecond - 60 * model::kNsPerSecond;
        auto refused = importers::importIncidentWindow(pc, t0, t0 + 10 * model::kNsPerSecond,
                                                       model::kNsPerSecond, m_dcgm, m_floor, out);
        QVERIFY(!refused);
        QVERIFY2(refused.error().message.find("401") != std::string::npos,
                 refused.error().toString().c_str());
        QVERIFY(!QFile::exists(QString::fromStdString(out)));
        pc.http.bearerToken = "s3cret";
        std::atomic<bool> cancel{true};
        auto cancelled =
            importers::importIncidentWindow(pc, t0, t0 + 10 * model::kNsPerSecond,
                                            model::kNsPerSecond, m_dcgm, m_floor, out, {}, &cancel);
        QVERIFY(!cancelled);
        QVERIFY2(cancelled.error().message.find("cancelled") != std::string::npos,
                 cancelled.error().toString().c_str());
        QVERIFY(!QFile::exists(QString::fromStdString(out)));
    }

    // A partial response (Thanos, Mimir: a store did not answer): the data maps, and the
    // source is degraded with the server's words, not up as if the floor were complete.
    void promqlPartialResponseIsDegraded() {
        PageServer api(kExposition);
        QVERIFY(api.start([](const PageServer::Request&) {
            char when[32];
            std::snprintf(when, sizeof when, "%.3f",
                          static_cast<double>(wallNow() / model::kNsPerMs) / 1000.0);
            PageServer::Response reply;
            reply.contentType = "application/json";
            reply.body =
                std::string(R"({"status":"success","warnings":["partial response: store )"
                            R"(10.0.0.3:10901 unavailable","second"],"data":{"resultType":)"
                            R"("vector","result":[)") +
                R"({"metric":{"__name__":"DCGM_FI_DEV_GPU_TEMP","Hostname":"a02-n01","gpu":"0"},"value":[)" +
                when + R"(,"64"]}]}})";
            return reply;
        }));
        importers::PromqlConfig pc;
        pc.url = "http://127.0.0.1:" + std::to_string(api.port()) + "/";
        pc.interval = std::chrono::milliseconds(200);
        pc.queries = {{"gpu temperatures", "DCGM_FI_DEV_GPU_TEMP", std::nullopt, {}, 1.0, 0.0}};
        Collector sink;
        importers::PromqlSource source(pc, m_dcgm, m_floor, sink.fn());
        source.start();
        const auto gpu = gpuOf(*m_floor, "a02-n01", 0);
        QTRY_VERIFY2_WITH_TIMEOUT(sink.count(ch::GpuTemperature, gpu) > 0 &&
                                      healthOf(source).state == SourceState::Degraded,
                                  describe(healthOf(source)).c_str(), kLong);
        QCOMPARE(sink.last(ch::GpuTemperature, gpu), 64.0f);
        const auto h = healthOf(source);
        QVERIFY2(h.lastError.find("the server warns: partial response: store 10.0.0.3:10901 "
                                  "unavailable (and 1 more)") != std::string::npos,
                 describe(h).c_str());
        QCOMPARE(h.targetsUp, 1);
        source.stop();
    }

    // (b) https: a server certificate trusted through a CA file, refused without one, accepted
    // with skip-verify.
    void promqlOverTls() {
        const QString prometheus = QStandardPaths::findExecutable("prometheus");
        const QString openssl = QStandardPaths::findExecutable("openssl");
        FT_REQUIRE_PROGRAM("prometheus", "prometheus");
        FT_REQUIRE_PROGRAM("openssl", "openssl");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        ServerProcess gen(openssl,
                          {"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
                           "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout",
                           dir.filePath("key.pem"), "-out", dir.filePath("cert.pem")},
                          dir.filePath("openssl.log"));
        QVERIFY(gen.start());
        QVERIFY2(gen.finish(kLong), qPrintable(gen.log()));
        QFile web(dir.filePath("web.yml")), config(dir.filePath("prometheus.yml"));
        QVERIFY(web.open(QIODevice::WriteOnly) && config.open(QIODevice::WriteOnly));
        web.write(QString("tls_server_config:\n  cert_file: %1\n  key_file: %2\n")
                      .arg(dir.filePath("cert.pem"), dir.filePath("key.pem"))
                      .toUtf8());
        config.write("global:\n  scrape_interval: 15s\n");
        web.close();
        config.close();
        const int port = freePort();
        ServerProcess server(
            prometheus,
            {"--config.file=" + config.fileName(), "--web.config.file=" + web.fileName(),
             "--storage.tsdb.path=" + dir.filePath("tsdb"),
             QString("--web.listen-address=127.0.0.1:%1").arg(port), "--log.level=warn"},
            dir.filePath("prometheus.log"));
        QVERIFY(server.start());
        importers::PromqlConfig pc;
        pc.url = "https://127.0.0.1:" + std::to_string(port);
        pc.interval = std::chrono::milliseconds(300);
        pc.maxBackoff = std::chrono::milliseconds(1000);
        pc.queries = {{"a constant", "vector(1)", std::nullopt, {}, 1.0, 0.0}};
        auto ready = [&] {
            importers::HttpOptions o;
            o.timeout = std::chrono::milliseconds(2000);
            o.caFile = dir.filePath("cert.pem").toStdString();
            return importers::requestBlocking(pc.url + "/-/ready", o).status == 200;
        };
        QTRY_VERIFY2_WITH_TIMEOUT(ready() || !server.running(), qPrintable(server.log()), kLong);
        QVERIFY2(server.running(), qPrintable(server.log()));

        Collector sink;
        auto trusted = pc, untrusted = pc, skipVerify = pc;
        trusted.http.caFile = dir.filePath("cert.pem").toStdString();
        skipVerify.http.insecureSkipVerify = true;
        importers::PromqlSource a(trusted, m_dcgm, m_floor, sink.fn()),
            b(untrusted, m_dcgm, m_floor, sink.fn()), c(skipVerify, m_dcgm, m_floor, sink.fn());
        a.start();
        b.start();
        c.start();
        QTRY_VERIFY2_WITH_TIMEOUT(healthOf(a).state == SourceState::Up,
                                  describe(healthOf(a)).c_str(), kLong);
        QTRY_VERIFY2_WITH_TIMEOUT(healthOf(c).state == SourceState::Up,
                                  describe(healthOf(c)).c_str(), kLong);
        QTRY_VERIFY2_WITH_TIMEOUT(healthOf(b).state == SourceState::Down,
                                  describe(healthOf(b)).c_str(), kLong);
        QVERIFY(healthOf(a).samples >= 1);
        QCOMPARE(healthOf(b).samples, 0u);
        QVERIFY2(!healthOf(b).lastError.empty(), describe(healthOf(b)).c_str());
        qInfo("untrusted: %s", describe(healthOf(b)).c_str());

        importers::PromqlConfig wrongCa = pc;
        wrongCa.http.caFile = dir.filePath("web.yml").toStdString(); // not a certificate
        importers::PromqlSource d(wrongCa, m_dcgm, m_floor, sink.fn());
        d.start();
        QTRY_VERIFY2_WITH_TIMEOUT(healthOf(d).lastError.find("no certificates") !=
                                      std::string::npos,
                                  describe(healthOf(d)).c_str(), kLong);
    }

    // (b) a real Prometheus scraping the test exporter, read through the PromQL API.
    void prometheusQueryRangeImportAndRestart() {
        const QString prometheus = QStandardPaths::findExecutable("prometheus");
        FT_REQUIRE_PROGRAM("prometheus", "prometheus");
        PageServer exporter(kExposition);
        QVERIFY(exporter.start([](const PageServer::Request&) {
            return PageServer::Response{200, dcgmPage({"a01-n01", "a01-n02"})};
        }));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const int port = freePort();
        QFile config(dir.filePath("prometheus.yml")), rules(dir.filePath("rules.yml"));
        QVERIFY(config.open(QIODevice::WriteOnly));
        // An alerting rule as a floor's own: GPU 3 of a01-n02 (64 °C) fires it.
        config.write(QString("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                             "  evaluation_interval: 1s\nrule_files: ['%2']\n"
                             "scrape_configs:\n  - job_name: dcgm\n    scrape_interval: 1s\n    "
                             "scrape_timeout: 1s\n    honor_labels: true\n"
                             "    static_configs:\n      - targets: ['127.0.0.1:%1']\n")
                         .arg(exporter.port())
                         .arg(rules.fileName())
                         .toUtf8());
        config.close();
        QVERIFY(rules.open(QIODevice::WriteOnly));
        rules.write("groups:\n  - name: gpu\n    rules:\n      - alert: GpuHot\n"
                    "        expr: DCGM_FI_DEV_GPU_TEMP > 63\n        labels:\n"
                    "          severity: critical\n        annotations:\n"
                    "          summary: GPU above 63 C\n");
        rules.close();
        ServerProcess server(
            prometheus,
            {"--config.file=" + config.fileName(), "--storage.tsdb.path=" + dir.filePath("tsdb"),
             QString("--web.listen-address=127.0.0.1:%1").arg(port), "--log.level=warn"},
            dir.filePath("prometheus.log"));
        const std::string base = "http://127.0.0.1:" + std::to_string(port);
        auto ready = [&] {
            importers::HttpOptions o;
            o.timeout = std::chrono::milliseconds(2000);
            return importers::requestBlocking(base + "/-/ready", o).status == 200;
        };
        QVERIFY(server.start());
        QTRY_VERIFY2_WITH_TIMEOUT(ready() || !server.running(), qPrintable(server.log()), kLong);
        QVERIFY2(server.running(), qPrintable(server.log()));

        importers::QuerySetOptions options;
        options.perDevice = true;
        importers::PromqlConfig pc;
        pc.url = base;
        pc.interval = std::chrono::milliseconds(500);
        pc.timeout = std::chrono::milliseconds(10000);
        pc.maxBackoff = std::chrono::milliseconds(2000);
        pc.queries = importers::buildQuerySet(m_dcgm, *m_floor, options);
        Collector sink;
        importers::PromqlSource source(pc, m_dcgm, m_floor, sink.fn());
        source.start();
        const auto gpu = gpuOf(*m_floor, "a01-n02", 3);
        const auto rack = m_floor->computeTrays.rack[trayOf(*m_floor, "a01-n01")];
        // Each query of the set answers on its own: wait for every channel compared below (the
        // mean could arrive a round after the max).
        QTRY_VERIFY2_WITH_TIMEOUT(sink.count(ch::GpuTemperature, gpu) > 0 &&
                                      sink.count(ch::RackGpuTempMax, rack) > 0 &&
                                      sink.count(ch::RackGpuTempMean, rack) > 0 &&
                                      sink.count(ch::RackGpuUtilization, rack) > 0,
                                  describe(healthOf(source)).c_str(), kLong);
        QCOMPARE(sink.last(ch::GpuTemperature, gpu), 64.0f);
        QCOMPARE(sink.last(ch::RackGpuTempMax, rack), 64.0f);
        QCOMPARE(sink.last(ch::RackGpuTempMean, rack), 62.5f);
        QCOMPARE(sink.last(ch::RackGpuUtilization, rack), 51.5f);
        QTRY_VERIFY2_WITH_TIMEOUT(healthOf(source).state == SourceState::Up,
                                  describe(healthOf(source)).c_str(), kLong);
        QCOMPARE(healthOf(source).targetsUp, static_cast<int>(pc.queries.size()));

        // query_range: a few seconds of history, as a matrix.
        QTest::qWait(5000);
        const model::TimeNs now = wallNow() / model::kNsPerSecond * model::kNsPerSecond;
        importers::HttpOptions o;
        o.timeout = std::chrono::milliseconds(10000);
        const auto range = importers::requestBlocking(
            base + "/api/v1/query_range?query=" +
                importers::urlEncode("DCGM_FI_DEV_GPU_TEMP{gpu=\"1\"}") +
                "&start=" + std::to_string(now / model::kNsPerSecond - 4) +
                "&end=" + std::to_string(now / model::kNsPerSecond) + "&step=1",
            o);
        QVERIFY2(range.ok(), range.describeFailure().c_str());
        auto matrix = importers::parsePromqlResponse(range.body);
        QVERIFY2(matrix, matrix ? "" : matrix.error().message.c_str());
        QCOMPARE(matrix->resultType, std::string("matrix"));
        QCOMPARE(matrix->series.size(), 2u); // two hosts
        QVERIFY(matrix->series[0].points.size() >= 3);
        QCOMPARE(matrix->series[0].points.back().second, 62.0);

        // An incident window into a recording: small slices, so the import takes several.
        const model::TimeNs from = now - 6 * model::kNsPerSecond,
                            to = now - 1 * model::kNsPerSecond;
        const std::string out = dir.filePath("incident.ftrec").toStdString();
        importers::IncidentImportOptions io;
        io.pointsPerRequest = 2;
        std::vector<double> progress;
        auto imported = importers::importIncidentWindow(
            pc, from, to, model::kNsPerSecond, m_dcgm, m_floor, out,
            [&](double p) { progress.push_back(p); }, nullptr, io);
        QVERIFY2(imported, imported ? "" : imported.error().toString().c_str());
        QVERIFY2(imported->samples > 0 && imported->mapped > 0 && imported->errors == 0,
                 imported->lastError.c_str());
        // 6 points in slices of 2, and in each slice ALERTS and ALERTS_FOR_STATE.
        QCOMPARE(imported->requests, 3 * pc.queries.size() + std::size_t{6});
        QVERIFY(imported->series >= 2);
        QCOMPARE(imported->ticks, 6u); // the first frame and five 1 s ticks
        QVERIFY(!progress.empty() && progress.back() == 1.0 && std::ranges::is_sorted(progress));
        auto reader = importers::RecordingReader::open(out);
        QVERIFY2(reader, reader ? "" : reader.error().toString().c_str());
        QCOMPARE((*reader)->startTime(), from);
        QCOMPARE((*reader)->endTime(), to);
        model::Snapshot snap;
        QVERIFY((*reader)->snapshotAt(to, snap));
        QCOMPARE(snap.value(ch::GpuTemperature, gpu), 64.0f);
        QCOMPARE(snap.value(ch::RackGpuTempMax, rack), 64.0f);
        // The window's alerts came with it: the rule's alert, firing, on GPU 3 of each host
        // (64 °C on both).
        QCOMPARE(imported->alerts, 2u);
        QVERIFY(snap.externalAlerts);
        QCOMPARE(snap.externalAlerts->alerts.size(), std::size_t(2));
        std::vector<model::EntityRef> on;
        for (const auto& hot : snap.externalAlerts->alerts) {
            QCOMPARE(hot.name, std::string("GpuHot"));
            QCOMPARE(hot.severity, model::Severity::Critical);
            QCOMPARE(hot.state, model::AlertState::Firing);
            QVERIFY(hot.startsAt <= to);
            on.push_back(hot.entities.front());
        }
        QVERIFY(std::ranges::find(on, model::EntityRef{model::EntityKind::Gpu, gpu}) != on.end());
        QVERIFY(std::ranges::find(on, model::EntityRef{model::EntityKind::Gpu,
                                                       gpuOf(*m_floor, "a01-n01", 3)}) != on.end());

        // Killed mid-run: Down; restarted on the same data: Up again and samples flow.
        server.kill();
        QTRY_VERIFY2_WITH_TIMEOUT(healthOf(source).state == SourceState::Down,
                                  describe(healthOf(source)).c_str(), kLong);
        QVERIFY(!healthOf(source).lastError.empty());
        QVERIFY(server.start());
        QTRY_VERIFY2_WITH_TIMEOUT(ready() || !server.running(), qPrintable(server.log()), kLong);
        QVERIFY2(server.running(), qPrintable(server.log()));
        const std::size_t before = sink.count();
        QTRY_VERIFY2_WITH_TIMEOUT(healthOf(source).state == SourceState::Up &&
                                      sink.count() > before,
                                  describe(healthOf(source)).c_str(), kLong);
        source.stop();
    }

    // (b2) a real VictoriaMetrics, fed through its import API: per-rack aggregates on the server
    // for a generated floor (host_pattern keys) and for an inventory floor with provisioning
    // host names (host alternations, batched under the query-length limit).
    void victoriaMetricsAggregatesPerRack() {
        const QString vm = QStandardPaths::findExecutable("victoria-metrics");
        FT_REQUIRE_PROGRAM("victoria-metrics", "victoria-metrics");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const int port = freePort();
        ServerProcess server(vm,
                             {QString("-httpListenAddr=127.0.0.1:%1").arg(port),
                              "-storageDataPath=" + dir.filePath("vm"), "-search.latencyOffset=0s",
                              "-retentionPeriod=10y", "-loggerLevel=ERROR"},
                             dir.filePath("vm.log"));
        const std::string base = "http://127.0.0.1:" + std::to_string(port);
        importers::HttpOptions o;
        o.timeout = std::chrono::milliseconds(5000);
        QVERIFY(server.start());
        QTRY_VERIFY2_WITH_TIMEOUT(importers::requestBlocking(base + "/health", o).status == 200 ||
                                      !server.running(),
                                  qPrintable(server.log()), kLong);
        QVERIFY2(server.running(), qPrintable(server.log()));

        // The inventory floor and the first scrape of its dcgm-exporter capture (Kubernetes
        // labels; one host reports a pod name and is placed only by UUID, so it is not in the
        // server's per-rack aggregates).
        QFile csv(FT_TEST_DATA_PATH("/inventory/hall-dh2.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const auto inv = importers::parseInventoryCsv(csv.readAll().toStdString(), "hall-dh2.csv");
        QVERIFY2(inv, inv ? "" : inv.error().toString().c_str());
        auto built = model::Topology::build(inv->spec);
        QVERIFY2(built, built ? "" : built.error().c_str());
        const auto hall = std::make_shared<const model::Topology>(std::move(*built));
        QFile capture(FT_TEST_DATA_PATH("/inventory/hall-dh2-dcgm.prom"));
        QVERIFY(capture.open(QIODevice::ReadOnly));
        std::string page = capture.readAll().toStdString();
        page = page.substr(0, page.find("# HELP DCGM_FI_DEV_GPU_TEMP", 10)); // the first scrape
        const auto imported =
            importers::requestBlocking(base + "/api/v1/import/prometheus", o, nullptr,
                                       page + dcgmPage({"a01-n01", "a01-n02"}), "text/plain");
        QVERIFY2(imported.status == 204 || imported.status == 200,
                 imported.describeFailure().c_str());

        auto run = [&](const std::shared_ptr<const model::Topology>& floor,
                       const importers::QuerySetOptions& options, auto check) {
            importers::PromqlConfig pc;
            pc.url = base;
            pc.interval = std::chrono::milliseconds(500);
            pc.timeout = std::chrono::milliseconds(10000);
            pc.queries = importers::buildQuerySet(m_dcgm, *floor, options);
            for (const auto& q : pc.queries)
                if (q.channel) QVERIFY2(q.expr.size() <= options.maxQueryBytes, q.name.c_str());
            Collector sink;
            importers::PromqlSource source(pc, m_dcgm, floor, sink.fn());
            source.start();
            check(sink, source, pc.queries);
            source.stop();
        };
        // Generated floor: the host pattern cuts the rack key.
        run(m_floor, {}, [&](Collector& sink, importers::PromqlSource& source, const auto&) {
            const auto rack = m_floor->computeTrays.rack[trayOf(*m_floor, "a01-n01")];
            // Each aggregate is its own query: wait until all have answered.
            QTRY_VERIFY2_WITH_TIMEOUT(sink.count(ch::RackGpuUtilization, rack) > 0 &&
                                          sink.count(ch::RackGpuTempMean, rack) > 0 &&
                                          sink.count(ch::RackGpuTempMax, rack) > 0,
                                      describe(healthOf(source)).c_str(), kLong);
            QCOMPARE(sink.last(ch::RackGpuTempMax, rack), 64.0f);
            QCOMPARE(sink.last(ch::RackGpuTempMean, rack), 62.5f);
            QCOMPARE(sink.last(ch::RackGpuUtilization, rack), 51.5f);
        });
        // Inventory floor: host alternations per rack, in queries of at most 2,000 bytes.
        importers::QuerySetOptions small;
        small.maxQueryBytes = 2000;
        run(hall, small,
            [&](Collector& sink, importers::PromqlSource& source, const auto& queries) {
                std::size_t aggregates = 0;
                for (const auto& q : queries)
                    aggregates += q.channel ? 1 : 0;
                QVERIFY2(aggregates > 4, "the racks did not split into several queries");
                const auto c01 = *hall->find(model::EntityKind::Rack, "DH2-R11-C01");
                const auto c03 = *hall->find(model::EntityKind::Rack, "DH2-R11-C03");
                QTRY_VERIFY2_WITH_TIMEOUT(sink.count(ch::RackGpuTempMean, c03) > 0 &&
                                              sink.count(ch::RackGpuTempMean, c01) > 0 &&
                                              sink.count(ch::RackGpuTempMax, c01) > 0,
                                          describe(healthOf(source)).c_str(), kLong);
                // C01: gpu-node-0001..0003 (0004 names a pod): 52 + {0, 3, 6} + GPU 0..3.
                QCOMPARE(sink.last(ch::RackGpuTempMax, c01), 61.0f);
                QCOMPARE(sink.last(ch::RackGpuTempMean, c01), 56.5f);
                QCOMPARE(sink.last(ch::RackGpuTempMean, c03), 57.25f);
                // Racks without any series stay silent (no data), they are not zero.
                const auto r12 = *hall->find(model::EntityKind::Rack, "DH2-R12-C01");
                QCOMPARE(sink.count(ch::RackGpuTempMax, r12), std::size_t{0});
                QTRY_VERIFY2_WITH_TIMEOUT(healthOf(source).state == SourceState::Up,
                                          describe(healthOf(source)).c_str(), kLong);
            });
    }

    // (c) a real mosquitto broker carrying BMS rack points.
    void mqttBmsPointsAndReconnect() {
        const QString mosquittoPath = QFileInfo::exists("/usr/sbin/mosquitto")
                                          ? QString("/usr/sbin/mosquitto")
                                          : QStandardPaths::findExecutable("mosquitto");
        FT_REQUIRE(!mosquittoPath.isEmpty(), "the MQTT broker `mosquitto`",
                   "scripts/install-deps.sh installs the Debian package `mosquitto`");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const int port = freePort();
        QFile config(dir.filePath("mosquitto.conf"));
        QVERIFY(config.open(QIODevice::WriteOnly));
        // max_queued_messages: mosquitto keeps 1,000 QoS 1 messages a subscriber has not read
        // yet and drops the rest, so how much of the flood below arrives would depend on how fast
        // this machine (or a sanitizer build) reads; with room for all of it, all of it must come.
        config.write(QString("listener %1 127.0.0.1\nallow_anonymous true\npersistence false\n"
                             "max_queued_messages 40000\n")
                         .arg(port)
                         .toUtf8());
        config.close();
        ServerProcess broker(mosquittoPath, {"-c", config.fileName()},
                             dir.filePath("mosquitto.log"));
        QVERIFY(broker.start());
        QTRY_VERIFY2_WITH_TIMEOUT(portAccepts(port) || !broker.running(), qPrintable(broker.log()),
                                  kLong);
        QVERIFY2(broker.running(), qPrintable(broker.log()));

        // Retained on the broker before the twin starts: a CDU value whose tag says nothing and
        // the metadata that names its CDU and loop. The broker hands a new subscriber the value
        // first; the value must still land once the metadata follows.
        const std::string cduName = m_floor->name(model::EntityKind::Cdu, 1);
        const std::string cduId = cduName.substr(cduName.find(' ') + 1);
        const std::string point = "CDU/LiquidTemperature/plant/bldg2/AHU-7/pt-4412";
        QVERIFY(publish(port,
                        {{"BMS/v1/PUB/Value/" + point,
                          "{\"value\": 45.7, \"timestamp\": " +
                              std::to_string(wallNow() / model::kNsPerMs) + ", \"quality\": 1}"},
                         {"BMS/v1/PUB/Metadata/" + point,
                          "{\"objectName\": \"" + cduName + "\", \"objectId\": \"" + cduId +
                              "\", \"processArea\": [\"Secondary\", \"Supply\"], \"engUnit\": "
                              "\"C\"}"}},
                        /*retain=*/true));

        importers::MqttConfig mc;
        mc.brokers = {{"127.0.0.1", port}};
        mc.reconnectDelayS = 1;
        mc.reconnectDelayMaxS = 2;
        Collector sink;
        importers::MqttSource source(mc, preset("bms"), m_floor, sink.fn());
        source.start();
        QTRY_VERIFY2_WITH_TIMEOUT(healthOf(source).state == SourceState::Up,
                                  describe(healthOf(source)).c_str(), kLong);
        QTRY_VERIFY2_WITH_TIMEOUT(sink.count(ch::CduSupplyTemperature, 1) > 0,
                                  describe(healthOf(source)).c_str(), kLong);
        QCOMPARE(sink.last(ch::CduSupplyTemperature, 1), 45.7f);

        const model::EntityId rack = 2; // the third rack of the floor
        const std::string rackName = m_floor->racks.name[rack];
        std::int64_t stamp = wallNow() / model::kNsPerMs;
        auto points = [&](double supply) {
            ++stamp; // every publish newer than the last
            const std::string tag = "site1/row" + rackName.substr(0, 1) + "/" + rackName;
            auto payload = [&](double v) {
                return "{\"value\": " + std::to_string(v) +
                       ", \"timestamp\": " + std::to_string(stamp) + ", \"quality\": 1}";
            };
            return std::vector<std::pair<std::string, std::string>>{
                {"BMS/v1/PUB/Value/Rack/RackLiquidSupplyTemperature/" + tag + "/supplyTemp",
                 payload(supply)},
                {"BMS/v1/PUB/Value/Rack/RackLiquidFlow/" + tag + "/flow", payload(250)},
                {"BMS/v1/PUB/Value/Rack/RackLiquidSupplyTemperature/" + tag + "/bad",
                 R"({"value": 1, "timestamp": 0, "quality": 0})"},
                {"BMS/v1/PUB/Value/Rack/RackLiquidFlow/" + tag + "/broken", "not json"},
            };
        };
        QTRY_VERIFY2_WITH_TIMEOUT(
            (publish(port, points(44.5)), sink.count(ch::RackSupplyTemperature, rack) > 0),
            describe(healthOf(source)).c_str(), kLong);
        QCOMPARE(sink.last(ch::RackSupplyTemperature, rack), 44.5f);
        QTRY_COMPARE_WITH_TIMEOUT(sink.last(ch::RackFlow, rack), 250.0f, kLong);
        auto h = healthOf(source);
        QVERIFY2(h.badLines >= 1 && h.unmapped >= 1 && h.mapped >= 2, describe(h).c_str());

        broker.kill();
        QTRY_VERIFY2_WITH_TIMEOUT(healthOf(source).state == SourceState::Down,
                                  describe(healthOf(source)).c_str(), kLong);
        QVERIFY(!healthOf(source).lastError.empty());
        QVERIFY(broker.start());
        QTRY_VERIFY2_WITH_TIMEOUT(portAccepts(port) || !broker.running(), qPrintable(broker.log()),
                                  kLong);
        QVERIFY2(broker.running(), qPrintable(broker.log()));
        QTRY_VERIFY2_WITH_TIMEOUT(healthOf(source).state != SourceState::Down,
                                  describe(healthOf(source)).c_str(), kLong);
        QTRY_VERIFY2_WITH_TIMEOUT(
            (publish(port, points(46.0)), sink.last(ch::RackSupplyTemperature, rack) == 46.0f),
            describe(healthOf(source)).c_str(), kLong);

        // A 10 MB payload: counted bad with its size, not parsed; the bus goes on.
        const auto badBefore = healthOf(source).badLines;
        QVERIFY(publish(
            port, {{"BMS/v1/PUB/Value/Rack/RackLiquidFlow/huge", std::string(10u << 20, '{')}}));
        QTRY_VERIFY2_WITH_TIMEOUT(healthOf(source).badLines > badBefore &&
                                      healthOf(source).lastError.find(
                                          "message of 10485760 bytes on "
                                          "BMS/v1/PUB/Value/Rack/RackLiquidFlow/huge over the "
                                          "262144-byte cap; not read") != std::string::npos,
                                  describe(healthOf(source)).c_str(), kLong);
        // A flood of 20,000 retained messages at once: the broker queues them for the subscriber
        // (room for all, above), the source reads every one without stalling, stays up, and the
        // value published after the flood still lands.
        const auto pollsBefore = healthOf(source).polls;
        std::vector<std::pair<std::string, std::string>> flood;
        flood.reserve(20000);
        for (int i = 0; i < 20000; ++i)
            flood.emplace_back("BMS/v1/PUB/Value/Rack/RackLiquidFlow/flood/" + std::to_string(i),
                               R"({"value": 1, "timestamp": 1, "quality": 1})");
        QVERIFY(publish(port, flood, /*retain=*/true));
        QTRY_VERIFY2_WITH_TIMEOUT(healthOf(source).polls >= pollsBefore + 20000,
                                  describe(healthOf(source)).c_str(), kLong);
        QTRY_VERIFY2_WITH_TIMEOUT(
            (publish(port, points(47.0)), sink.last(ch::RackSupplyTemperature, rack) == 47.0f),
            describe(healthOf(source)).c_str(), kLong);
        // (Degraded for a while after the oversized message, never down.)
        QVERIFY2(healthOf(source).state != SourceState::Down, describe(healthOf(source)).c_str());
        source.stop();
    }
};

QTEST_GUILESS_MAIN(TestLiveSources)
#include "test_live_sources.moc"
