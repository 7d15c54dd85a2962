// The command-line contract from DESIGN.md, exercised on the real binary.
#include "support/floortwin_run.h"
#include "support/loopback_server.h"
#include "support/requirement.h"
#include "support/test_paths.h"

#include <QDir>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <unistd.h>
#include <vector>

using ft::testing::floortwin;
using ft::testing::Run;

namespace {
// The number of video frames an MP4 holds: the sample count of its sample-size box ('stsz').
long long mp4FrameCount(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return -1;
    const QByteArray bytes = f.readAll();
    const auto at = bytes.indexOf("stsz");
    if (at < 0 || at + 16 > bytes.size()) return -1;
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.constData() + at + 12);
    return (static_cast<long long>(p[0]) << 24) | (p[1] << 16) | (p[2] << 8) | p[3];
}

// What a player sees: the frames the video decodes to and its duration, as ffprobe (FFmpeg's
// own reader, Debian's `ffmpeg`) counts them by decoding every frame.
struct Decoded {
    long long frames = -1;
    double seconds = -1;
};
Decoded decodeVideo(const QString& path) {
    QProcess p;
    p.start("ffprobe", {"-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                        "stream=nb_read_frames:format=duration", "-of", "json", path});
    if (!p.waitForFinished(60000) || p.exitCode() != 0) return {};
    const auto j = nlohmann::json::parse(p.readAllStandardOutput().toStdString(), nullptr, false);
    if (j.is_discarded()) return {};
    Decoded d;
    d.frames = std::stoll(j["streams"][0]["nb_read_frames"].get<std::string>());
    d.seconds = std::stod(j["format"]["duration"].get<std::string>());
    return d;
}

double fractionOfPixelsThatDiffer(const QImage& a, const QImage& b) {
    if (a.size() != b.size()) return 1.0;
    long long off = 0;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x) {
            const QRgb p = a.pixel(x, y), q = b.pixel(x, y);
            if (std::abs(qRed(p) - qRed(q)) + std::abs(qGreen(p) - qGreen(q)) +
                    std::abs(qBlue(p) - qBlue(q)) >
                48)
                ++off;
        }
    return static_cast<double>(off) / (static_cast<double>(a.width()) * a.height());
}

// A dcgm-exporter page for racks A01 and A02 of the demo floor, on the suites' loopback server
// (its own threads: the test's event loop is blocked in QProcess::waitForFinished).
std::string exporterPage() {
    std::string body = "# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).\n# TYPE "
                       "DCGM_FI_DEV_GPU_TEMP gauge\n";
    for (int rack = 1; rack <= 2; ++rack)
        for (int tray = 1; tray <= 18; ++tray)
            for (int g = 0; g < 4; ++g)
                body += "DCGM_FI_DEV_GPU_TEMP{gpu=\"" + std::to_string(g) + "\",Hostname=\"a0" +
                        std::to_string(rack) + "-n" + (tray < 10 ? "0" : "") +
                        std::to_string(tray) + "\"} " + std::to_string(50 + rack) + "\n";
    // A family the mapping does not know, and a host the floor lacks.
    body += "exporter_build_info{version=\"3.3.0\"} 1\n";
    body += "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",Hostname=\"z99-n01\"} 700\n";
    return body + "a broken line\n";
}

class ExporterStub {
public:
    // Between downFrom and downUntil seconds after construction it hangs up on every request
    // (a dead exporter behind a live load balancer).
    explicit ExporterStub(double downFrom = 1e9, double downUntil = 1e9)
        : m_server([start = std::chrono::steady_clock::now(), downFrom, downUntil,
                    page = exporterPage()](const ft::testing::PageServer::Request&) {
              const double t =
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
              ft::testing::PageServer::Response r{200, page, "text/plain; version=0.0.4"};
              r.hangUp = t >= downFrom && t < downUntil;
              return r;
          }) {
        if (m_server.port() == 0) qFatal("cannot bind a loopback port for the test exporter");
    }
    int port() const { return m_server.port(); }

private:
    ft::testing::PageServer m_server;
};

} // namespace

class TestCli : public QObject {
    Q_OBJECT
    // Three minutes of the pump failure, recorded once and only read by the tests that replay,
    // compare, fork or render it: a recording of that length costs ~15 s under the sanitizers.
    QTemporaryDir m_shared;
    std::optional<nlohmann::json> m_pumpFailureSummary;

    QString pumpFailureRecording() {
        QString path = m_shared.filePath("pump-failure-3m.ftrec");
        if (!m_pumpFailureSummary) {
            const Run r = floortwin(
                {"--headless", "--scenario", "pump-failure", "--for", "3m", "--record", path});
            if (r.code != 0) qFatal("recording the pump failure: %s", r.err.constData());
            m_pumpFailureSummary = nlohmann::json::parse(r.out.toStdString());
        }
        return path;
    }

private slots:
    void describeLargestFloor() {
        const Run r = floortwin({"--headless", "--floor", "generate:racks=1778", "--describe"});
        QCOMPARE(r.code, 0);
        const auto j = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(j["racks"].get<int>(), 1778);
        QCOMPARE(j["gpus"].get<int>(), 128016);
        QCOMPARE(j["cpus"].get<int>(), 64008);
        QCOMPARE(j["compute_trays"].get<int>(), 32004);
        QCOMPARE(j["switch_trays"].get<int>(), 16002);
        QCOMPARE(j["nics"].get<int>(), 256032);
        QCOMPARE(j["dpus"].get<int>(), 32004);
        for (const char* key :
             {"planes", "rails", "leaves", "spines", "fabric_links", "nvlink_links", "cdus",
              "cooling_loops", "regions", "storage_tiers", "channels"})
            QVERIFY2(j.contains(key) && j[key].get<int>() > 0, key);
        QVERIFY(j["channels_by_kind"]["gpu"].size() >= 3);
    }

    void liveScrapeLightsUpTheMatchingRacks() {
        ExporterStub exporter;
        QTemporaryDir dir;
        const QString dump = dir.filePath("live.json");
        const Run r = floortwin({"--headless", "--source",
                                 QString("scrape=http://127.0.0.1:%1/metrics").arg(exporter.port()),
                                 "--for", "3s", "--interval", "500ms", "--dump-snapshot", dump});
        QVERIFY2(r.code == 0, r.err.constData());
        {
            // Live: measured ages exactly for the 144 GPUs the page covers (racks A01, A02).
            QFile f(dump);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const auto snap = nlohmann::json::parse(f.readAll().toStdString());
            int gpus = 0, racks = 0;
            for (const auto& age : snap["entities"]["gpu"]["measured_age_s"])
                gpus += age.is_null() ? 0 : 1;
            const auto& rackAges = snap["entities"]["rack"]["measured_age_s"];
            for (const auto& age : rackAges)
                racks += age.is_null() ? 0 : 1;
            QCOMPARE(gpus, 144);
            QCOMPARE(racks, 2);
            QVERIFY(!rackAges[0].is_null() && !rackAges[1].is_null() && rackAges[2].is_null());
            // Values only where measured: the hottest GPU of A01 and A02 (made of their
            // measured GPUs, all 72 of each), nothing for the others, and no rack power (the
            // page has GPU temperatures only) however plausible the model's would be.
            const auto& racksOut = snap["entities"]["rack"]["channels"];
            QCOMPARE(racksOut["rack.gpu_temperature_max"][0].get<double>(), 51.0);
            QCOMPARE(racksOut["rack.gpu_temperature_max"][1].get<double>(), 52.0);
            QCOMPARE(racksOut["rack.gpus_measured"][1].get<double>(), 72.0);
            QVERIFY(racksOut["rack.gpu_temperature_max"][2].is_null());
            for (const auto& kw : racksOut["rack.power"])
                QVERIFY(kw.is_null());
            QVERIFY(snap["entities"]["gpu"]["channels"]["gpu.power"][0].is_null());
        }
        const auto j = nlohmann::json::parse(r.out.toStdString());
        const auto& src = j["sources"][0];
        QVERIFY(src["mapped"].get<int>() >= 144); // one poll of 2 racks x 72 GPUs at least
        // The mapping report: per family, what its series became and why.
        std::map<std::string, nlohmann::json> families;
        for (const auto& f : src["families"])
            families[f["family"].get<std::string>()] = f;
        QCOMPARE(families.size(), std::size_t(3));
        QCOMPARE(families["DCGM_FI_DEV_GPU_TEMP"]["series"].get<int>(), 144);
        QCOMPARE(families["DCGM_FI_DEV_GPU_TEMP"]["channels"].get<std::string>(),
                 std::string("gpu.temperature"));
        QCOMPARE(families["DCGM_FI_DEV_GPU_TEMP"]["placed_by"].get<std::string>(),
                 std::string("host and index (144)"));
        QCOMPARE(families["exporter_build_info"]["no_rule"].get<int>(), 1);
        QCOMPARE(families["DCGM_FI_DEV_POWER_USAGE"]["placed"].get<int>(), 0);
        QCOMPARE(families["DCGM_FI_DEV_POWER_USAGE"]["not_placed"].get<std::string>(),
                 std::string("z99-n01 (1)"));
        QVERIFY(src["bad_lines"].get<int>() >= 1);   // the broken line, counted, not fatal
        QCOMPARE(j["racks_measured"].get<int>(), 2); // A01, A02; the other 14 modelled
        QCOMPARE(j["racks_stale"].get<int>(), 0);
        // A dead source: nothing mapped, the error said, and still a clean run.
        const Run dead = floortwin(
            {"--headless", "--source", "scrape=http://127.0.0.1:9/metrics", "--for", "2s"});
        QCOMPARE(dead.code, 0);
        const auto d = nlohmann::json::parse(dead.out.toStdString());
        QCOMPARE(d["sources"][0]["mapped"].get<int>(), 0);
        QVERIFY(d["sources"][0]["errors"].get<int>() >= 1);
        QCOMPARE(d["sources"][0]["state"].get<std::string>(), std::string("down"));
    }

    // A token given to a live source never reaches what the app prints or writes, even from a
    // server that echoes the credentials it refuses; the token is sent; a world-readable token
    // file is warned about; a password in a URL is refused without being repeated.
    void secretsStayOutOfEveryOutput() {
        const std::string token = "CANARY-TOKEN-5f3a91", password = "CANARY-PASS-77c2e0";
        std::mutex seenMutex;
        std::string seenAuth;
        ft::testing::PageServer server([&](const ft::testing::PageServer::Request& r) {
            const auto auth = r.headers.find("authorization");
            std::string value = auth == r.headers.end() ? "" : auth->second;
            {
                std::lock_guard lock(seenMutex);
                seenAuth = value;
            }
            return ft::testing::PageServer::Response{401, "refused: " + value, "text/plain", {}};
        });
        QTemporaryDir dir;
        const QString tokenFile = dir.filePath("token");
        {
            QFile f(tokenFile);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(token + "\n"));
        }
        QFile::setPermissions(tokenFile, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                             QFileDevice::ReadGroup | QFileDevice::ReadOther);
        const QString url = QString("scrape=http://127.0.0.1:%1/metrics").arg(server.port());
        const QString rec = dir.filePath("live.ftrec"), snap = dir.filePath("snap.json");
        const Run r =
            floortwin({"--headless", "--source", url, "--token-file", tokenFile, "--for", "2s",
                       "--interval", "500ms", "--record", rec, "--dump-snapshot", snap});
        QVERIFY2(r.code == 0, r.err.constData());
        {
            std::lock_guard lock(seenMutex);
            QCOMPARE(seenAuth, "Bearer " + token);
        }
        QVERIFY2(r.err.contains("can be read by every user") && r.err.contains("chmod 600"),
                 r.err.constData());
        const auto j = nlohmann::json::parse(r.out.toStdString());
        QVERIFY2(j["sources"][0]["last_error"].get<std::string>().find("HTTP 401: refused") !=
                     std::string::npos,
                 r.out.constData());
        const auto contents = [](const QString& path) {
            QFile f(path);
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
        };
        const QByteArray recording = contents(rec), snapshot = contents(snap);
        QVERIFY(!recording.isEmpty() && !snapshot.isEmpty());
        for (const auto& [what, bytes] :
             {std::pair{"stdout", r.out}, std::pair{"stderr", r.err},
              std::pair{"recording", recording}, std::pair{"snapshot", snapshot}})
            QVERIFY2(!bytes.contains(QByteArray::fromStdString(token)),
                     qPrintable(QString("%1 holds the token").arg(what)));

        // The same file, readable by its owner only: no warning.
        QFile::setPermissions(tokenFile, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        const Run quiet =
            floortwin({"--headless", "--source", url, "--token-file", tokenFile, "--for", "1s"});
        QCOMPARE(quiet.code, 0);
        QVERIFY2(!quiet.err.contains("warning"), quiet.err.constData());

        // A password in any source's URL: refused, and not repeated in the error.
        for (const QString& kind :
             {QString("scrape"), QString("prometheus"), QString("redfish"), QString("mqtt"),
              QString("scrape-bare"), QString("mqtt-bare")}) {
            const bool bare = kind.endsWith("-bare"); // no scheme: "ops:pw@host:port"
            const Run refused = floortwin(
                {"--headless", "--source",
                 QString(bare ? "%1=ops:%2@127.0.0.1:%3" : "%1=http://ops:%2@127.0.0.1:%3/")
                     .arg(QString(kind).remove("-bare"), QString::fromStdString(password))
                     .arg(server.port()),
                 "--for", "1s"});
            QVERIFY2(refused.code != 0 && refused.err.contains("credentials in the URL") &&
                         refused.err.contains("ops:***@") &&
                         !refused.err.contains(QByteArray::fromStdString(password)) &&
                         !refused.out.contains(QByteArray::fromStdString(password)),
                     qPrintable(kind + ": " + refused.err));
        }
    }

    void aRealDcgmPageOnAnInventoryFloor() {
        // A hall from its inventory and four dcgm-exporter scrapes (Kubernetes labels) of its R11
        // hosts; one host reports a pod name, so only its GPU UUIDs place it.
        QTemporaryDir dir;
        const QString inventory = QString(FT_TEST_DATA_PATH("/inventory/hall-dh2.csv"));
        const QString page = QString(FT_TEST_DATA_PATH("/inventory/hall-dh2-dcgm.prom"));
        const QString rec = dir.filePath("dh2.ftrec");
        const Run r =
            floortwin({"--headless", "--inventory", inventory, "--import", page, "--record", rec});
        QVERIFY2(r.code == 0, r.err.constData());
        const auto j = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(j["sources"][0]["samples"].get<int>(), 768); // 4 scrapes x 4 metrics x 48 GPUs
        QCOMPARE(j["sources"][0]["mapped"].get<int>(), 768);
        QCOMPARE(j["sources"][0]["unmapped"].get<int>(), 0);
        // Replayed, exactly what the page covered is measured: R11's 48 GPUs, their 12 trays and
        // 3 racks; everything else is null (never measured), and not modelled as if it were.
        const QString dump = dir.filePath("snap.json");
        const Run replay =
            floortwin({"--headless", "--replay", rec, "--at", "20s", "--dump-snapshot", dump});
        QVERIFY2(replay.code == 0, replay.err.constData());
        QFile f(dump);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const auto snap = nlohmann::json::parse(f.readAll().toStdString());
        auto measured = [&](const char* kind) {
            int n = 0;
            for (const auto& age : snap["entities"][kind]["measured_age_s"]) {
                if (age.is_null()) continue;
                if (age.get<double>() < 0 || age.get<double>() > 60) return -1;
                ++n;
            }
            return n;
        };
        QCOMPARE(measured("gpu"), 48);
        QCOMPARE(measured("compute_tray"), 12);
        QCOMPARE(measured("rack"), 3);
        QCOMPARE(measured("cpu"), 0);
        QCOMPARE(measured("cdu"), 0);
        QCOMPARE(measured("fabric_link"), 0);
        // The racks measured are R11's (ids 0-2: the first row in the file).
        const auto& rackAges = snap["entities"]["rack"]["measured_age_s"];
        QVERIFY(!rackAges[0].is_null() && !rackAges[1].is_null() && !rackAges[2].is_null());
        // No alarm from a modelled value.
        for (const auto& a : snap["alarms"])
            QVERIFY2(a["entity_kind"] == "rack" && a["entity"].get<int>() < 3, a.dump().c_str());

        // Host names the inventory lacks are listed with the names the operator meant; a
        // domain on a known host still maps.
        QFile k8s(dir.filePath("k8s.prom"));
        QVERIFY(k8s.open(QIODevice::WriteOnly));
        k8s.write("# TYPE DCGM_FI_DEV_GPU_TEMP gauge\n"
                  "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",Hostname=\"gpu-node-1\"} 61 1796020400000\n"
                  "DCGM_FI_DEV_GPU_TEMP{gpu=\"1\",Hostname=\"gpu-node-1\"} 62 1796020400000\n"
                  "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",Hostname=\"gpu-node-0002.ams1.example.net\"} 63 "
                  "1796020400000\n"
                  "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",Hostname=\"login-01\"} 40 1796020400000\n");
        k8s.close();
        const Run named = floortwin({"--headless", "--inventory", inventory, "--import",
                                     k8s.fileName(), "--record", dir.filePath("k8s.ftrec")});
        QVERIFY2(named.code == 0, named.err.constData());
        const auto n = nlohmann::json::parse(named.out.toStdString());
        QCOMPARE(n["sources"][0]["mapped"].get<int>(), 1);
        const auto& hosts = n["unmapped_hosts"];
        QCOMPARE(hosts.size(), std::size_t{2});
        QCOMPARE(hosts[0]["host"].get<std::string>(), std::string("gpu-node-1"));
        QCOMPARE(hosts[0]["samples"].get<int>(), 2);
        QVERIFY2(hosts[0]["suggestions"] == nlohmann::json::array({"gpu-node-0001"}),
                 hosts.dump().c_str());
        QCOMPARE(hosts[1]["host"].get<std::string>(), std::string("login-01"));
        QVERIFY(hosts[1]["suggestions"].empty());
        // When nothing lands the error says which hosts and what they are probably called.
        QFile none(dir.filePath("none.prom"));
        QVERIFY(none.open(QIODevice::WriteOnly));
        none.write("DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",Hostname=\"gpu-node-7\"} 61 1796020400000\n");
        none.close();
        const Run nothing = floortwin({"--headless", "--inventory", inventory, "--import",
                                       none.fileName(), "--record", dir.filePath("none.ftrec")});
        QVERIFY(nothing.code != 0);
        QVERIFY2(nothing.err.contains("gpu-node-7 (1 samples; nearest gpu-node-0007)"),
                 nothing.err.constData());
    }

    void redfishSource() {
        // The project's CDU controller (tests/data/redfish/cdu.json: URI path -> page) on
        // loopback, Basic only (no session service): the source falls back to Basic with
        // --user/--password-file and reports what the CDU says is wrong.
        QFile fixture(FT_TEST_DATA_PATH("/redfish/cdu.json"));
        QVERIFY2(fixture.open(QIODevice::ReadOnly), qPrintable(fixture.fileName()));
        const auto pages = nlohmann::json::parse(fixture.readAll().toStdString());
        const std::string basic = "Basic " + QByteArray("admin:pw-9").toBase64().toStdString();
        ft::testing::PageServer server([&](const ft::testing::PageServer::Request& r) {
            ft::testing::PageServer::Response out;
            std::string path = r.target.substr(0, r.target.find('?'));
            while (path.size() > 1 && path.back() == '/')
                path.pop_back();
            if (r.method != "GET") {
                out.status = 405;
                return out;
            }
            if (path != "/redfish/v1" &&
                (r.headers.count("authorization") == 0 || r.headers.at("authorization") != basic)) {
                out.status = 401;
                return out;
            }
            const auto page = pages.find(path);
            if (page == pages.end()) {
                out.status = 404;
                return out;
            }
            out.body = page->dump();
            return out;
        });
        QTemporaryDir dir;
        auto password = [&](const char* name, const char* text) {
            QFile f(dir.filePath(name));
            if (!f.open(QIODevice::WriteOnly)) qFatal("cannot write");
            f.write(text);
            return f.fileName();
        };
        const QString source = QString::fromStdString("redfish=" + server.base());
        const Run r =
            floortwin({"--headless", "--source", source, "--user", "admin", "--password-file",
                       password("pw", "pw-9\n"), "--interval", "200ms", "--for", "2s"});
        QVERIFY2(r.code == 0, r.err.constData());
        const auto j = nlohmann::json::parse(r.out.toStdString());
        const auto& src = j["sources"][0];
        QVERIFY2(src["samples"].get<int>() > 0, r.out.constData());
        bool pump = false;
        for (const auto& c : src["conditions"])
            pump =
                pump || c.get<std::string>().find("Pump 'Pump1' has failed.") != std::string::npos;
        QVERIFY2(pump, r.out.constData());
        // The fixture's CDU is not one of the demo floor's: named, not guessed at.
        QVERIFY2(src["unresolved"][0]["entity"] == "cdu 'North hall CDU 07'", r.out.constData());

        const Run wrong =
            floortwin({"--headless", "--source", source, "--user", "admin", "--password-file",
                       password("bad", "nope"), "--interval", "200ms", "--for", "2s"});
        QVERIFY2(wrong.code == 0, wrong.err.constData());
        const auto w = nlohmann::json::parse(wrong.out.toStdString())["sources"][0];
        QCOMPARE(w["samples"].get<int>(), 0);
        QVERIFY2(w["last_error"].get<std::string>().find("credentials refused") !=
                     std::string::npos,
                 wrong.out.constData());

        const Run noPassword =
            floortwin({"--headless", "--source", source, "--user", "admin", "--for", "1s"});
        QVERIFY(noPassword.code != 0);
        QVERIFY2(noPassword.err.contains("--password-file"), noPassword.err.constData());
    }

    void netboxInventoryToAFloorFile() {
        // NetBox served on loopback (its recorded pages) and the same pages as a dump: one floor.
        const std::string dump = FT_TEST_DATA_PATH("/netbox/dh3");
        std::atomic<bool> failHalfWay{false};
        ft::testing::PageServer server([&](const ft::testing::PageServer::Request& r) {
            ft::testing::PageServer::Response out;
            if (r.headers.count("authorization") == 0 ||
                r.headers.at("authorization") != "Token secret-token") {
                out.status = 403;
                out.body = R"({"detail": "Invalid token"})";
                return out;
            }
            const std::string path = r.target.substr(0, r.target.find('?'));
            std::string file;
            if (path == "/api/dcim/devices/") {
                const auto at = r.target.find("offset=");
                const int page =
                    at == std::string::npos ? 1 : std::stoi(r.target.substr(at + 7)) / 22 + 1;
                if (page == 2 && failHalfWay) {
                    out.status = 500;
                    out.body = "<h1>Server Error (500)</h1>";
                    return out;
                }
                file = "devices-" + std::to_string(page);
            } else if (path == "/api/plugins/floorplan/floorplans/") {
                file = "floorplans";
            } else {
                file = path.substr(path.find("/dcim/") + 6);
                file.pop_back();
            }
            QFile f(QString::fromStdString(dump + "/" + file + ".json"));
            if (!f.open(QIODevice::ReadOnly)) {
                out.status = 404;
                out.body = "{}";
                return out;
            }
            out.body = f.readAll().toStdString();
            for (std::size_t at = out.body.find("http://netbox.example"); at != std::string::npos;
                 at = out.body.find("http://netbox.example", at))
                out.body.replace(at, 21, server.base());
            return out;
        });
        QTemporaryDir dir;
        QFile token(dir.filePath("token"));
        QVERIFY(token.open(QIODevice::WriteOnly));
        token.write("secret-token\n");
        token.close();
        const QString live = dir.filePath("live.json"), offline = dir.filePath("dump.json");
        const Run a = floortwin({"--inventory", QString::fromStdString("netbox=" + server.base()),
                                 "--token-file", token.fileName(), "--write-floor", live});
        QVERIFY2(a.code == 0, a.err.constData());
        const auto summary = nlohmann::json::parse(a.out.toStdString());
        QCOMPARE(summary["hosts"].get<int>(), 44);
        QCOMPARE(summary["devices_not_compute"].get<int>(), 21);
        const Run b = floortwin({"--inventory", QString::fromStdString("netbox-dump=" + dump),
                                 "--write-floor", offline});
        QVERIFY2(b.code == 0, b.err.constData());
        QFile fa(live), fb(offline);
        QVERIFY(fa.open(QIODevice::ReadOnly) && fb.open(QIODevice::ReadOnly));
        QCOMPARE(fa.readAll(), fb.readAll());
        // Its --describe counts.
        const Run d = floortwin({"--headless", "--describe", "--inventory",
                                 QString::fromStdString("netbox-dump=" + dump)});
        QVERIFY2(d.code == 0, d.err.constData());
        const auto desc = nlohmann::json::parse(d.out.toStdString());
        QCOMPARE(desc["racks"].get<int>(), 8);
        QCOMPARE(desc["hosts"].get<int>(), 44);
        QCOMPARE(desc["racks_not_in_production"].get<int>(), 3);
        // Slots apart from what is there: 8 racks of 18 tray slots, 44 hosts listed.
        QCOMPARE(desc["counts"]["compute_trays"]["slots"].get<int>(), 8 * 18);
        QCOMPARE(desc["counts"]["compute_trays"]["known_hosts"].get<int>(), 44);
        QCOMPARE(desc["counts"]["gpus"]["slots"].get<int>(), 8 * 18 * 4);
        QCOMPARE(desc["counts"]["gpus"]["known"].get<int>(), 44 * 4);
        // A failure half-way writes nothing, and says where it stopped.
        failHalfWay = true;
        const QString partial = dir.filePath("partial.json");
        const Run c = floortwin({"--inventory", QString::fromStdString("netbox=" + server.base()),
                                 "--token-file", token.fileName(), "--write-floor", partial});
        QVERIFY(c.code != 0);
        QVERIFY2(c.err.contains("HTTP 500 after 1 pages: the read is incomplete"),
                 c.err.constData());
        QVERIFY(!QFile::exists(partial));
        // A wrong token: said in one line.
        QVERIFY(token.open(QIODevice::WriteOnly | QIODevice::Truncate));
        token.write("stale-token\n");
        token.close();
        const Run refused =
            floortwin({"--inventory", QString::fromStdString("netbox=" + server.base()),
                       "--token-file", token.fileName(), "--write-floor", partial});
        QVERIFY(refused.code != 0);
        QVERIFY2(refused.err.contains("token was refused (HTTP 403)"), refused.err.constData());
        QVERIFY(!QFile::exists(partial));
    }

    void deadSourceMakesItsRacksStaleAndRecoveryClearsIt() {
        const auto run = [](ExporterStub& e, const char* seconds) {
            const Run r =
                floortwin({"--headless", "--source",
                           QString("scrape=http://127.0.0.1:%1/metrics").arg(e.port()), "--for",
                           seconds, "--interval", "500ms", "--stale-after", "2s"});
            return nlohmann::json::parse(r.out.toStdString());
        };
        {
            ExporterStub dies(1.5); // answers for 1.5 s, then hangs up
            const auto j = run(dies, "6s");
            QCOMPARE(j["racks_measured"].get<int>(), 2);
            QCOMPARE(j["racks_stale"].get<int>(), 2);
            QVERIFY(j["sources"][0]["errors"].get<int>() >= 2);
        }
        {
            ExporterStub blips(1.5, 3.5); // down for two seconds, then back
            const auto j = run(blips, "7s");
            QCOMPARE(j["racks_measured"].get<int>(), 2);
            QCOMPARE(j["racks_stale"].get<int>(), 0);
            QCOMPARE(j["sources"][0]["state"].get<std::string>(),
                     std::string("degraded")); // up, but the page has a bad line
        }
    }

    void importFileIntoARecording() {
        QTemporaryDir dir;
        const QString out = dir.filePath("import.ftrec");
        // Four seconds of a long-format export (every time form is test_file_import's: a
        // recording steps the whole floor once a second, so each second of span costs a tick).
        const QString samples = dir.filePath("samples.csv");
        {
            QFile csv(samples);
            QVERIFY(csv.open(QIODevice::WriteOnly));
            csv.write("time,entity,channel,value\n"
                      "2026-11-30T06:33:41.250Z,gpu:A03 tray 02 GPU 1,gpu.temperature,71.5\n"
                      "1796020422,rack:A03,rack.power,142.0\n"
                      "1796020422500,\"cdu:CDU A1\",cdu.SupplyTemperatureCelsius,45.1\n"
                      "2026-11-30T06:33:43Z,rack:A99,rack.power,140\n"
                      "2026-11-30T08:33:45+02:00,pump:CDU A1 pump 2,pump.PumpSpeedPercent,61\n");
        }
        const Run r = floortwin({"--headless", "--import", samples, "--record", out});
        QVERIFY2(r.code == 0, r.err.constData());
        const auto j = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(j["sources"][0]["mapped"].get<int>(), 4);
        QCOMPARE(j["sources"][0]["bad_lines"].get<int>(), 1);
        QCOMPARE(j["ticks"].get<int>(), 5); // 06:33:41 to 06:33:45
        // The recording replays, with the imported value where it belongs.
        const QString dump = dir.filePath("s.json");
        const Run replay = floortwin({"--headless", "--replay", out, "--dump-snapshot", dump});
        QVERIFY2(replay.code == 0, replay.err.constData());
        // A fork of measured data at its last moment: the simulator takes every value measured
        // there as its own (and says which), models the rest, and runs on.
        const QString forked = dir.filePath("f.json");
        const Run f = floortwin(
            {"--headless", "--replay", out, "--fork-at", "3s", "--dump-snapshot", forked});
        QVERIFY2(f.code == 0, f.err.constData());
        const auto fs = nlohmann::json::parse(f.out.toStdString());
        const auto& from = fs["fork"]["from_measurements"];
        const auto channels = from["channels"].get<std::set<std::string>>();
        QVERIFY(channels.contains("gpu.temperature") && channels.contains("rack.power") &&
                channels.contains("cdu.SupplyTemperatureCelsius"));
        QVERIFY(from["values"].get<int>() >= 3);
        QVERIFY(from["modelled"].get<std::string>().starts_with("every value not measured"));
        QFile ff(forked);
        QVERIFY(ff.open(QIODevice::ReadOnly));
        const auto fj = nlohmann::json::parse(ff.readAll().toStdString());
        QCOMPARE(fj["entities"]["rack"]["channels"]["rack.power"][2].get<double>(), 142.0);
        QCOMPARE(fj["entities"]["cdu"]["channels"]["cdu.SupplyTemperatureCelsius"][0].get<float>(),
                 45.1f);
        // ...and runs on from there, a simulation (no value left as no data).
        const Run on = floortwin({"--headless", "--replay", out, "--fork-at", "3s", "--for", "30s",
                                  "--dump-snapshot", forked});
        QVERIFY2(on.code == 0, on.err.constData());
        QFile onFile(forked);
        QVERIFY(onFile.open(QIODevice::ReadOnly));
        const auto oj = nlohmann::json::parse(onFile.readAll().toStdString());
        for (const auto& v : oj["entities"]["rack"]["channels"]["rack.gpu_temperature_max"])
            QVERIFY(v.is_number());
        // A Prometheus text dump with timestamps, two scrapes.
        QFile prom(dir.filePath("dump.prom"));
        QVERIFY(prom.open(QIODevice::WriteOnly));
        prom.write("# TYPE DCGM_FI_DEV_GPU_TEMP gauge\n"
                   "DCGM_FI_DEV_GPU_TEMP{gpu=\"1\",Hostname=\"a03-n02\"} 71 1796020400000\n"
                   "DCGM_FI_DEV_GPU_TEMP{gpu=\"2\",Hostname=\"a03-n02\"} 72 1796020400000\n"
                   "# TYPE DCGM_FI_DEV_GPU_TEMP gauge\n"
                   "DCGM_FI_DEV_GPU_TEMP{gpu=\"1\",Hostname=\"a03-n02\"} 74 1796020415000\n"
                   "DCGM_FI_DEV_GPU_TEMP{gpu=\"1\",Hostname=\"nosuchhost\"} 74 1796020415000\n");
        prom.close();
        const Run p = floortwin(
            {"--headless", "--import", prom.fileName(), "--record", dir.filePath("prom.ftrec")});
        QVERIFY2(p.code == 0, p.err.constData());
        const auto pj = nlohmann::json::parse(p.out.toStdString());
        QCOMPARE(pj["sources"][0]["mapped"].get<int>(), 3);
        QCOMPARE(pj["sources"][0]["unmapped"].get<int>(), 1);
        // Bad arguments say what is needed.
        const Run noOut = floortwin({"--headless", "--import", prom.fileName()});
        QVERIFY(noOut.code != 0 && noOut.err.contains("--record"));
        const Run window =
            floortwin({"--headless", "--import-window", "2026-11-30T10:00:00Z,2026-11-30T10:10:00Z",
                       "--record", out});
        QVERIFY(window.code != 0 && window.err.contains("prometheus"));
    }

    void describeDefaultFloor() {
        const Run r = floortwin({"--describe"});
        QCOMPARE(r.code, 0);
        const auto j = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(j["racks"].get<int>(), 16);
        QCOMPARE(j["gpus"].get<int>(), 1152);
        QCOMPARE(j["rows"].get<int>(), 2);
    }

    // --first-frame-ms reports floortwin's own peak memory, not the peak of the process that
    // started it: the benchmark starts it late in its run, after stages that used gigabytes.
    void peakMemoryIsTheAppsOwn() {
        FT_REQUIRE_DISPLAY();
        constexpr std::size_t kParentMiB = 1536;
        std::vector<char> ballast(kParentMiB << 20);
        std::memset(ballast.data(), 1, ballast.size()); // resident, not just reserved
        const Run r = floortwin({"--first-frame-ms"});
        QVERIFY2(r.code == 0, r.err.constData());
        double peak = -1;
        for (const QByteArray& line : r.out.split('\n'))
            if (line.startsWith("peak_rss_mb ")) peak = line.mid(12).toDouble();
        // The default floor's first frame takes about 190 MiB (more under AddressSanitizer).
        QVERIFY2(peak > 0 && peak < 1024.0, qPrintable(QString("peak_rss_mb %1 (this test "
                                                               "holds %2 MiB)")
                                                           .arg(peak)
                                                           .arg(kParentMiB)));
        QCOMPARE(ballast[ballast.size() / 2], char{1});
    }

    void invalidFloorFileIsOneLineWithPosition() {
        const Run r = floortwin(
            {"--headless", "--describe", "--floor", FT_TEST_DATA_PATH("/floors/malformed.json")});
        QVERIFY(r.code != 0);
        QVERIFY(r.out.isEmpty());
        const QString err = QString::fromUtf8(r.err).trimmed();
        QCOMPARE(err.count('\n'), 0);
        QVERIFY2(err.contains("malformed.json:5:32:"), qPrintable(err));
    }

    void badArguments() {
        QVERIFY(floortwin({"--bogus"}).code != 0);
        QVERIFY(floortwin({"--headless", "--floor", "generate:racks=99999", "--describe"}).code !=
                0);
        QVERIFY(floortwin({"--headless", "--for", "ten minutes"}).code != 0);
        QVERIFY(floortwin({"--headless", "--metric", "gpu.nonsense", "--describe"}).code != 0);
        QVERIFY(floortwin({"--size", "12"}).code != 0);
        QVERIFY(floortwin({"--window"}).code != 0);
        const Run badSelect =
            floortwin({"--select", "rack:Z99", "--screenshot", "/tmp/unused.png"});
        QVERIFY(badSelect.code != 0);
        QVERIFY(badSelect.err.contains("Z99"));
        const Run help = floortwin({"--help"});
        QCOMPARE(help.code, 0);
        for (const char* flag :
             {"--floor", "--headless", "--describe", "--screenshot", "--size", "--at", "--for",
              "--dump-snapshot", "--metric", "--seed", "--wall"})
            QVERIFY2(help.out.contains(flag), flag);
        // --help and --layers know every registered layer.
        for (const char* layer : {"racks", "thermal", "storage", "rails", "nvlink", "lifecycle"})
            QVERIFY2(help.out.contains(layer), layer);
        const Run badLayer =
            floortwin({"--layers", "racks,bogus", "--screenshot", "/tmp/unused.png"});
        QCOMPARE(badLayer.code, 2);
        QVERIFY2(badLayer.err.contains("unknown layer 'bogus'") && badLayer.err.contains("nvlink"),
                 qPrintable(badLayer.err));
        QVERIFY(floortwin({"--seed"}).err.contains("--seed needs N"));
        // Every kind of source in the registry is offered by --help, named when a kind is
        // unknown, and the messages about what a kind can do name the kinds that can.
        const Run badKind = floortwin({"--headless", "--source", "bogus=x", "--for", "1s"});
        QCOMPARE(badKind.code, 2);
        for (const char* form : {"scrape=URL[,URL...]", "prometheus=URL", "mqtt=HOST[:PORT]",
                                 "redfish=URL[,URL...]", "slurm=commands|URL|FILE,FILE"}) {
            QVERIFY2(help.out.contains(QByteArray("--source ") + form), form);
            QVERIFY2(badKind.err.contains(form), qPrintable(badKind.err));
        }
        QVERIFY2(help.out.contains(
                     "(default 1s scrape, 5s prometheus, 10s redfish, 10s slurm, 5s alertmanager)"),
                 help.out.constData());
        const Run badCheck = floortwin({"--check-source", "mqtt=127.0.0.1"});
        QVERIFY(badCheck.code != 0);
        QVERIFY2(badCheck.err.contains("expected scrape=URL[,URL...], "
                                       "slurm=commands|URL|FILE,FILE or alertmanager=URL or "
                                       "the path"),
                 badCheck.err.constData());
        const Run noServer = floortwin(
            {"--headless", "--import-window", "2026-12-01T00:00:00Z,2026-12-01T01:00:00Z",
             "--record", "/tmp/unused.ftrec", "--source", "scrape=http://127.0.0.1:9/metrics"});
        QVERIFY(noServer.code != 0);
        QVERIFY2(noServer.err.contains("add --source prometheus=URL"), noServer.err.constData());
        const Run noScheduler = floortwin({"--headless", "--follow-scheduler", "--source",
                                           "scrape=http://127.0.0.1:9/metrics", "--for", "1s"});
        QVERIFY(noScheduler.code != 0);
        QVERIFY2(noScheduler.err.contains("--source slurm=commands|URL|FILE,FILE"),
                 noScheduler.err.constData());
    }

    // A demo renders to an MP4 with one frame per 1/fps of the story, the same bytes every
    // time; the same frames as PNGs; a broken demo names its file, line and step.
    void demoRendersToVideo() {
        FT_REQUIRE_DISPLAY();
        QTemporaryDir dir;
        const QString demo = dir.filePath("short.json");
        QFile f(demo);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({ "format": "floortwin-demo/1", "length": "2s", "speed": 30,
  "steps": [
    { "at": "0s", "view": "overview", "caption": "the floor" },
    { "at": "0.5s", "actions": [ { "action": "pump_fail", "target": "pump:CDU A1 pump 1" } ] },
    { "at": "1s", "frame": "cdu:CDU A1", "layers": ["racks", "thermal"], "flight": "0.5s" }
  ]})");
        f.close();
        const QString a = dir.filePath("a.mp4"), b = dir.filePath("b.mp4");
        const QStringList common{"--demo", demo, "--size", "320x180", "--fps", "10"};
        auto r = floortwin(QStringList(common) << "--render-video" << a);
        QVERIFY2(r.code == 0, r.err.constData());
        const auto summary = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(summary["frames"].get<int>(), 20);
        QCOMPARE(mp4FrameCount(a), 20LL);
        // ...and a player decodes all of them: 2 s at 10 fps is 20 frames, 2.0 s long (the
        // last frame had no duration, and the MP4's edit list cut it).
        FT_REQUIRE_PROGRAM("ffprobe", "ffmpeg");
        const Decoded decoded = decodeVideo(a);
        QCOMPARE(decoded.frames, 20LL);
        QVERIFY2(std::abs(decoded.seconds - 2.0) < 0.01, std::to_string(decoded.seconds).c_str());
        r = floortwin(QStringList(common) << "--render-video" << b);
        QVERIFY2(r.code == 0, r.err.constData());
        QFile fa(a), fb(b);
        QVERIFY(fa.open(QIODevice::ReadOnly) && fb.open(QIODevice::ReadOnly));
        const QByteArray bytesA = fa.readAll();
        QVERIFY(bytesA.size() > 1000);
        QVERIFY2(bytesA == fb.readAll(), "two renders of one demo differ");
        // PNG frames: the camera moved to the CDU in the second half.
        const QString frames = dir.filePath("frames");
        r = floortwin(QStringList(common) << "--render-frames" << frames);
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(QDir(frames).entryList({"frame-*.png"}).size(), 20);
        const QImage first(frames + "/frame-00001.png"), last(frames + "/frame-00020.png");
        QCOMPARE(first.size(), QSize(320, 180));
        QVERIFY(fractionOfPixelsThatDiffer(first, last) > 0.1);

        // Bad input: nothing rendered, the file, line and step named.
        QFile bad(dir.filePath("bad.json"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("{ \"format\": \"floortwin-demo/1\",\n  \"steps\": [\n    { \"at\": \"0s\" },\n"
                  "    { \"at\": \"1s\", \"layers\": [\"racks\", \"weather\"] } ] }");
        bad.close();
        const QString out = dir.filePath("never.mp4");
        r = floortwin({"--demo", bad.fileName(), "--render-video", out});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("bad.json:4:") && r.err.contains("step 2") &&
                     r.err.contains("unknown layer 'weather'"),
                 r.err.constData());
        QVERIFY(!QFile::exists(out));
        r = floortwin({"--tour", demo, "--screenshot", dir.filePath("x.png")});
        QVERIFY(r.code != 0 && r.err.contains("is a demo"));
        r = floortwin({"--demo", demo, "--render-video", dir.filePath("x.avi")});
        QVERIFY(r.code != 0 && r.err.contains("MP4"));
        r = floortwin({"--demo", demo, "--scenario", "leak"});
        QVERIFY(r.code != 0 && r.err.contains("drop --scenario"));
    }

    // A demo on a recording (as File > Save bookmarks as a demo writes one) renders the
    // recording's moments: the recorded pump failure shows, the same frames every time.
    void demoOfARecordingRendersIt() {
        FT_REQUIRE_DISPLAY();
        QTemporaryDir dir;
        QVERIFY(QFile::link(pumpFailureRecording(), dir.filePath("incident.ftrec")));
        QFile f(dir.filePath("demo.json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        // The recording by a path relative to the demo file.
        f.write(R"({ "format": "floortwin-demo/1", "replay": "incident.ftrec", "replay_from": "30s",
  "length": "2s", "speed": 60,
  "steps": [ { "at": "0s", "frame": "cdu:CDU A1", "layers": ["racks", "thermal"], "flight": "0s",
               "caption": "before the pumps trip" } ] })");
        f.close();
        const QStringList common{"--demo", f.fileName(), "--size", "320x180", "--fps", "5"};
        auto r = floortwin(QStringList(common) << "--render-frames" << dir.filePath("frames"));
        QVERIFY2(r.code == 0, r.err.constData());
        // Frame 1 is 30 s in (healthy), frame 10 is 30 s + 1.8 s x 60 = 138 s in (pumps down).
        const QImage before(dir.filePath("frames/frame-00001.png")),
            after(dir.filePath("frames/frame-00010.png"));
        QCOMPARE(before.size(), QSize(320, 180));
        const double differ = fractionOfPixelsThatDiffer(before, after);
        qInfo("30 s and 138 s into the recording: %.0f %% of pixels differ", differ * 100);
        QVERIFY(differ > 0.02);
        r = floortwin(QStringList(common) << "--render-video" << dir.filePath("a.mp4"));
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(mp4FrameCount(dir.filePath("a.mp4")), 10LL);
        // A demo on a recording injects nothing.
        QFile bad(dir.filePath("bad.json"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write(R"({ "format": "floortwin-demo/1", "replay": "incident.ftrec",
  "steps": [ { "at": "0s", "actions": [ { "action": "leak", "target": "rack:A01" } ] } ] })");
        bad.close();
        r = floortwin({"--demo", bad.fileName(), "--render-video", dir.filePath("b.mp4")});
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("no scenario actions"), r.err.constData());
    }

    // Screenshots of a running tour at two times show two different stops.
    void tourScreenshotsShowItsStops() {
        FT_REQUIRE_DISPLAY();
        QTemporaryDir dir;
        const QString a = dir.filePath("a.png"), b = dir.filePath("b.png");
        auto r =
            floortwin({"--tour", "noc", "--at", "10s", "--size", "480x270", "--screenshot", a});
        QVERIFY2(r.code == 0, r.err.constData());
        r = floortwin({"--tour", "noc", "--at", "40s", "--size", "480x270", "--screenshot", b});
        QVERIFY2(r.code == 0, r.err.constData());
        const double differ = fractionOfPixelsThatDiffer(QImage(a), QImage(b));
        qInfo("the tour at 10 s and at 40 s: %.0f %% of pixels differ", differ * 100);
        QVERIFY(differ > 0.1);
    }

    void scenarios() {
        QTemporaryDir dir;
        const QString dump = dir.filePath("leak.json");
        const Run r = floortwin(
            {"--headless", "--scenario", "leak", "--for", "90s", "--dump-snapshot", dump});
        QCOMPARE(r.code, 0);
        const auto summary = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(summary["scenario"].get<std::string>(), std::string("leak"));
        QFile f(dump);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const auto snap = nlohmann::json::parse(f.readAll().toStdString());
        bool isolated = false, leakAlarm = false;
        for (const auto& e : snap["events"])
            isolated |= e["text"].get<std::string>() == "A03: isolated by Valvey (leak)";
        for (const auto& a : snap["alarms"])
            leakAlarm |= a["title"].get<std::string>() == "Leak detected" && a["name"] == "A03";
        QVERIFY(isolated);
        QVERIFY(leakAlarm);
        QCOMPARE(snap["entities"]["rack"]["channels"]["rack.PowerOn"][2].get<float>(), 0.0f);

        const Run unknown = floortwin({"--headless", "--scenario", "meteor-strike", "--for", "1s"});
        QVERIFY(unknown.code != 0);
        QVERIFY(unknown.err.contains("pump-failure")); // lists what is bundled
        // A scenario naming a rack the floor does not have is an error, not a silent no-op.
        const Run missing = floortwin(
            {"--headless", "--floor", "generate:racks=2", "--scenario", "leak", "--for", "1s"});
        QVERIFY(missing.code != 0);
        QVERIFY(missing.err.contains("A03"));
    }

    void recordThenReplay() {
        QTemporaryDir dir;
        const QString rec = pumpFailureRecording();
        const auto summary = *m_pumpFailureSummary;
        QVERIFY(summary["recorded_samples"].get<long long>() > 1000000);
        QCOMPARE(summary["recording_dropped_snapshots"].get<int>(), 0);
        // The summary's cause chain, from the run and from its replay: the scenario's first
        // action is the root, the chain in time order from the coolant to the GPUs. The jobs it
        // hurt are named in the replay as in the run (the recording keeps each rack's job).
        std::set<std::string> jobsHurt;
        for (const auto& s :
             {summary,
              nlohmann::json::parse(
                  floortwin({"--headless", "--replay", rec, "--for", "3m"}).out.toStdString())}) {
            QCOMPARE(s["incidents"].size(), std::size_t{1});
            const auto& inc = s["incidents"][0];
            const auto jobs = inc["jobs_affected"].get<std::set<std::string>>();
            QVERIFY(jobs.contains("training job 2 (A07\u2013B03)"));
            if (jobsHurt.empty()) jobsHurt = jobs;
            QVERIFY(jobs == jobsHurt);
            QCOMPARE(inc["root"]["kind"].get<std::string>(), std::string("scenario"));
            QCOMPARE(inc["root"]["entity"].get<std::string>(), std::string("CDU A1 pump 1"));
            QCOMPARE(inc["root"]["time"].get<std::string>(),
                     std::string("2026-09-21T14:14:20.000Z"));
            std::string last = inc["root"]["time"];
            bool flow = false, gpus = false;
            for (const auto& step : inc["chain"]) {
                QVERIFY(step["time"].get<std::string>() >= last);
                last = step["time"];
                flow |= step["channel"] == "rack.FlowLitersPerMinute";
                gpus |= flow && step["channel"] == "rack.gpu_temperature_max";
                QVERIFY(!step["entities"].empty());
            }
            QVERIFY(flow && gpus);
            QVERIFY(inc["summary"].get<std::string>().starts_with("root cause: CDU A1 pump 1"));
        }
        // The replay at 90 s equals the live run at 90 s.
        const QString live = dir.filePath("live.json"), replayed = dir.filePath("replayed.json");
        QCOMPARE(floortwin({"--headless", "--scenario", "pump-failure", "--for", "90s",
                            "--dump-snapshot", live})
                     .code,
                 0);
        const Run rp =
            floortwin({"--headless", "--replay", rec, "--at", "90s", "--dump-snapshot", replayed});
        QCOMPARE(rp.code, 0);
        QFile a(live), b(replayed);
        QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
        const auto ja = nlohmann::json::parse(a.readAll().toStdString()),
                   jb = nlohmann::json::parse(b.readAll().toStdString());
        QVERIFY(ja["time"] == jb["time"]);
        QVERIFY(ja["entities"] == jb["entities"]);
        QCOMPARE(ja["alarms"].size(), jb["alarms"].size());
        QCOMPARE(ja["events"].size(), jb["events"].size());
        // The replay reports what it replays, and refuses what makes no sense.
        const Run d = floortwin({"--headless", "--replay", rec, "--describe"});
        QCOMPARE(nlohmann::json::parse(d.out.toStdString())["racks"].get<int>(), 16);
        QVERIFY(floortwin({"--replay", rec, "--record", dir.filePath("x.ftrec")}).code != 0);
        QVERIFY(floortwin({"--replay", rec, "--floor", "generate:racks=4"}).code != 0);
        const Run missing =
            floortwin({"--headless", "--replay", dir.filePath("nope.ftrec"), "--describe"});
        QVERIFY(missing.code != 0);
        QVERIFY(missing.err.contains("nope.ftrec"));
    }

    void compareWithABaseline() {
        // Two recordings of the same seed, with and without the pump failure: no difference
        // before its first action, the incident's footprint after.
        QTemporaryDir dir;
        const QString base = dir.filePath("base.ftrec"), pump = pumpFailureRecording();
        QCOMPARE(floortwin({"--headless", "--for", "3m", "--record", base}).code, 0);
        auto dumpAt = [&](const char* at) {
            const QString out = dir.filePath(QString("diff-%1.json").arg(at));
            const Run r = floortwin({"--headless", "--replay", pump, "--compare", base, "--at", at,
                                     "--dump-snapshot", out});
            if (r.code != 0) qFatal("%s", qPrintable(r.err));
            QFile f(out);
            if (!f.open(QIODevice::ReadOnly)) qFatal("no %s", qPrintable(out));
            return nlohmann::json::parse(f.readAll().toStdString());
        };
        const auto before = dumpAt("55s");
        QVERIFY(before["baseline_time"] == before["time"]);
        std::size_t values = 0;
        for (const auto& kind : before["entities"]) {
            if (!kind.contains("diff")) continue;
            for (const auto& channel : kind["diff"].items())
                for (const auto& d : channel.value()) {
                    QVERIFY2(d.is_number() && d.get<double>() == 0.0,
                             (channel.key() + ": " + d.dump()).c_str());
                    ++values;
                }
        }
        QVERIFY(values > 90000); // every channel of every entity of the demo floor
        const auto after = dumpAt("150s");
        const auto& flow = after["entities"]["rack"]["diff"]["rack.FlowLitersPerMinute"];
        const auto& on = after["entities"]["rack"]["diff"]["rack.PowerOn"];
        for (std::size_t r = 0; r < 16; ++r) {
            // Row A's racks are CDU A1's: no flow, tripped; row B's are on.
            QVERIFY2(r >= 8 || flow[r].get<double>() < -100.0, std::to_string(r).c_str());
            QCOMPARE(on[r].get<double>(), r < 8 ? -1.0 : 0.0);
        }
        // On screen: grey where A and B agree, blue where A runs cooler, red where hotter.
        if (!qEnvironmentVariableIsEmpty("DISPLAY")) {
            auto blueAndRed = [&](const char* at) {
                const QString png = dir.filePath(QString("cmp-%1.png").arg(at));
                const Run r = floortwin({"--replay", pump, "--compare", base, "--at", at, "--size",
                                         "640x360", "--screenshot", png});
                if (r.code != 0) qFatal("%s", r.err.constData());
                const QImage img(png);
                std::pair<int, int> n{0, 0};
                for (int y = 0; y < img.height(); ++y)
                    for (int x = 0; x < img.width(); ++x) {
                        const QColor c = img.pixelColor(x, y);
                        n.first += c.blue() > 170 && c.red() < 90 ? 1 : 0;
                        n.second += c.red() > 170 && c.green() < 110 && c.blue() < 110 ? 1 : 0;
                    }
                return n;
            };
            const auto same = blueAndRed("55s"), apart = blueAndRed("150s");
            qInfo("blue/red pixels: %d/%d before the failure, %d/%d after", same.first, same.second,
                  apart.first, apart.second);
            QVERIFY(apart.first > same.first + 1000);
            QVERIFY(apart.second > same.second + 2000);
        }
        // A different floor is refused, and so is an offset without a baseline.
        const QString small = dir.filePath("small.ftrec");
        QCOMPARE(floortwin({"--headless", "--floor", "generate:racks=4", "--for", "10s", "--record",
                            small})
                     .code,
                 0);
        const Run other = floortwin({"--headless", "--replay", pump, "--compare", small, "--at",
                                     "55s", "--dump-snapshot", dir.filePath("x.json")});
        QVERIFY(other.code != 0);
        QVERIFY(other.err.contains("same floor"));
        QVERIFY(floortwin({"--headless", "--replay", pump, "--compare-offset", "1m", "--for", "1s"})
                    .code != 0);
    }

    void forkAReplay() {
        // A fork at T is the recorded run's state at T; with the pump restored at once its
        // racks cool sooner than they did.
        QTemporaryDir dir;
        const QString rec = pumpFailureRecording();
        auto load = [](const QString& path) {
            QFile f(path);
            if (!f.open(QIODevice::ReadOnly)) qFatal("no %s", qPrintable(path));
            return nlohmann::json::parse(f.readAll().toStdString());
        };
        const QString replayed = dir.filePath("r.json"), forked = dir.filePath("f.json");
        QCOMPARE(
            floortwin({"--headless", "--replay", rec, "--at", "90s", "--dump-snapshot", replayed})
                .code,
            0);
        const Run f = floortwin(
            {"--headless", "--replay", rec, "--fork-at", "90s", "--dump-snapshot", forked});
        QVERIFY2(f.code == 0, f.err.constData());
        const auto summary = nlohmann::json::parse(f.out.toStdString());
        QCOMPARE(summary["fork"]["at"].get<std::string>(), std::string("2026-09-21T14:14:50.000Z"));
        // From the recording's keyframe a minute in, not its start.
        QCOMPARE(summary["fork"]["resumed_at"].get<std::string>(),
                 std::string("2026-09-21T14:14:20.000Z"));
        QCOMPARE(summary["fork"]["keyframe_note"].get<std::string>(), std::string());
        const auto a = load(replayed), b = load(forked);
        QVERIFY(a["time"] == b["time"]);
        std::size_t checked = 0;
        for (const auto& [name, values] : a["entities"]["rack"]["channels"].items()) {
            const auto& other = b["entities"]["rack"]["channels"][name];
            for (std::size_t r = 0; r < values.size(); ++r) {
                const double x = values[r].get<double>(), y = other[r].get<double>();
                QVERIFY2(std::abs(x - y) <= 0.01 * std::max(std::abs(x), 1e-3),
                         (name + " rack " + std::to_string(r)).c_str());
                ++checked;
            }
        }
        QVERIFY(checked > std::size_t{16} * 30);
        // What if both pumps had come back at once: compared with the recording a minute on,
        // CDU A1's racks run cooler.
        const QString whatIf = dir.filePath("w.json");
        const Run w = floortwin({"--headless", "--replay", rec, "--fork-at", "90s", "--scenario",
                                 "pump-restore", "--for", "60s", "--compare", rec,
                                 "--dump-snapshot", whatIf});
        QVERIFY2(w.code == 0, w.err.constData());
        const auto ws = nlohmann::json::parse(w.out.toStdString());
        QCOMPARE(ws["scenario"].get<std::string>(), std::string("pump-failure + pump-restore"));
        const auto cmp = load(whatIf);
        const auto& diff = cmp["entities"]["rack"]["diff"]["rack.gpu_temperature_max"];
        for (std::size_t r = 0; r < 8; ++r)
            QVERIFY2(diff[r].get<double>() < -5.0, std::to_string(r).c_str());
        // Forks need a recording of the simulator and a moment inside it.
        const Run late =
            floortwin({"--headless", "--replay", rec, "--fork-at", "1h", "--for", "1s"});
        QVERIFY(late.code != 0);
        QVERIFY(late.err.contains("past the end"));
        QVERIFY(floortwin({"--headless", "--fork-at", "10s", "--for", "1s"}).code != 0);
    }

    void runForAndDumpSnapshot() {
        QTemporaryDir dir;
        const QString dump = dir.filePath("snap.json");
        const Run r = floortwin(
            {"--headless", "--floor", "generate:racks=4", "--for", "90s", "--dump-snapshot", dump});
        QCOMPARE(r.code, 0);
        const auto summary = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(summary["ticks"].get<int>(), 900);
        QCOMPARE(summary["sources"][0]["name"].get<std::string>(), std::string("simulator"));
        for (const char* key : {"samples", "mapped", "unmapped", "bad_lines", "errors"})
            QVERIFY2(summary["sources"][0].contains(key), key);
        QVERIFY(summary.contains("recorded_samples"));
        QVERIFY(summary["last_time"].get<std::string>() > summary["first_time"].get<std::string>());

        QFile f(dump);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const auto snap = nlohmann::json::parse(f.readAll().toStdString());
        QVERIFY(snap.contains("time"));
        QCOMPARE(snap["entities"]["gpu"]["count"].get<int>(), 288);
        QCOMPARE(snap["entities"]["gpu"]["channels"]["gpu.temperature"].size(), 288u);
        QCOMPARE(snap["entities"]["rack"]["channels"]["rack.power"].size(), 4u);
        QCOMPARE(snap["rack_lifecycle"].size(), 4u);
        QVERIFY(snap["alarms"].is_array());

        // Same seed, same run: the dump is byte-identical.
        const QString dump2 = dir.filePath("snap2.json");
        QCOMPARE(floortwin({"--headless", "--floor", "generate:racks=4", "--for", "90s",
                            "--dump-snapshot", dump2})
                     .code,
                 0);
        QFile f2(dump2);
        QVERIFY(f2.open(QIODevice::ReadOnly));
        f.seek(0);
        QVERIFY(f.readAll() == f2.readAll());
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
