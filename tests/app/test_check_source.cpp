// floortwin --check-source: one page of a source read onto the floor, and per metric family
// what became of it, on the real binary: a page served on loopback and the same page saved as a
// file, onto the demo floor (trays of 4 GPUs, hosts a01-n01 ...).
#include "support/floortwin_run.h"
#include "support/loopback_server.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>

using ft::testing::floortwin;
using ft::testing::Run;
using nlohmann::json;

namespace {

// dcgm-exporter's shape: an 8-GPU host on a tray of 4, a MIG instance, a fan, a host the floor
// does not know, a field with no rule, a blank reading.
std::string page() {
    std::string p = "# TYPE DCGM_FI_DEV_GPU_TEMP gauge\n";
    for (int g = 0; g < 8; ++g)
        p += "DCGM_FI_DEV_GPU_TEMP{gpu=\"" + std::to_string(g) + "\",UUID=\"GPU-0000000" +
             std::to_string(g) + "\",Hostname=\"a01-n02\"} 41\n";
    p += "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",Hostname=\"a01-n99\"} 40\n"
         "DCGM_FI_DEV_XID_ERRORS{gpu=\"0\",Hostname=\"a01-n01\"} 79\n"
         "DCGM_FI_DEV_XID_ERRORS{gpu=\"0\",Hostname=\"a01-n01\",GPU_I_PROFILE=\"1g.24gb\","
         "GPU_I_ID=\"7\"} 0\n"
         "DCGM_FI_DEV_FAN_SPEED{gpu=\"0\",Hostname=\"a01-n01\"} 0\n"
         "DCGM_FI_DEV_MEMORY_TEMP{gpu=\"1\",Hostname=\"a01-n01\"} 9223372036854775794\n"
         "DCGM_FI_DEV_BOARD_LIMIT_VIOLATION{gpu=\"0\",Hostname=\"a01-n01\"} 0\n"
         "a broken line\n";
    return p;
}

const json* family(const json& report, const char* name) {
    for (const auto& f : report["families"])
        if (f["family"] == name) return &f;
    return nullptr;
}

void checkReport(const json& r) {
    QCOMPARE(r["samples"].get<int>(), 14);
    QCOMPARE(r["bad_lines"].get<int>(), 1);
    QCOMPARE(r["placed"].get<int>(), 6); // GPUs 0-3 of a01-n02, a01-n01's XID and MIG slice
    QCOMPARE(r["ignored"].get<int>(), 1);
    const json* temp = family(r, "DCGM_FI_DEV_GPU_TEMP");
    QVERIFY(temp);
    QVERIFY((*temp)["channels"] == json::array({"gpu.temperature"}));
    QCOMPARE((*temp)["placed"].get<int>(), 4);
    QCOMPARE((*temp)["placed_by"]["host and index"].get<int>(), 4);
    QCOMPARE((*temp)["not_placed"]["a01-n02: more GPUs than its tray's 4"].get<int>(), 4);
    QCOMPARE((*temp)["not_placed"]["a01-n99"].get<int>(), 1);
    const json* xid = family(r, "DCGM_FI_DEV_XID_ERRORS");
    QVERIFY(xid);
    QCOMPARE((*xid)["placed"].get<int>(), 2);
    QCOMPARE((*xid)["placed_by"]["MIG instance of its GPU"].get<int>(), 1);
    QVERIFY((*family(r, "DCGM_FI_DEV_FAN_SPEED"))["ignored"].get<std::string>().find(
                "liquid-cooled") != std::string::npos);
    QCOMPARE((*family(r, "DCGM_FI_DEV_BOARD_LIMIT_VIOLATION"))["no_rule"].get<int>(), 1);
    QCOMPARE((*family(r, "DCGM_FI_DEV_MEMORY_TEMP"))["placed"].get<int>(), 0);
    // The host the floor lacks, with the names it probably meant.
    QCOMPARE(r["unknown_hosts"].size(), 1u);
    QCOMPARE(r["unknown_hosts"][0]["host"].get<std::string>(), std::string("a01-n99"));
    QVERIFY(!r["unknown_hosts"][0]["suggestions"].empty());
}

} // namespace

class TestCheckSource : public QObject {
    Q_OBJECT
private slots:
    void aScrapedPage() {
        ft::testing::PageServer server([](const ft::testing::PageServer::Request&) {
            return ft::testing::PageServer::Response{200, page(), "text/plain; version=0.0.4"};
        });
        QVERIFY(server.port() != 0);
        const Run r = floortwin(
            {"--check-source", QString::fromStdString("scrape=" + server.base() + "/metrics")});
        QVERIFY2(r.code == 0, r.err.constData());
        checkReport(json::parse(r.out.toStdString()));
        // A dead exporter is an error that says where.
        const Run dead = floortwin({"--check-source", "scrape=http://127.0.0.1:9/metrics"});
        QVERIFY(dead.code != 0);
        QVERIFY2(dead.err.contains("127.0.0.1:9"), dead.err.constData());
    }

    void aSavedPage() {
        QTemporaryDir dir;
        QFile f(dir.filePath("page.prom"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromStdString(page()));
        f.close();
        const Run r = floortwin({"--check-source", f.fileName()});
        QVERIFY2(r.code == 0, r.err.constData());
        checkReport(json::parse(r.out.toStdString()));
        const Run missing = floortwin({"--check-source", dir.filePath("nope.prom")});
        QVERIFY(missing.code != 0);
        QVERIFY2(missing.err.contains("nope.prom"), missing.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCheckSource)
#include "test_check_source.moc"
