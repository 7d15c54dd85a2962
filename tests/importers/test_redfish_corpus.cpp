// Redfish against DMTF's own mockups in the shared corpus (../shared/data/redfish: the public
// cooling unit, power shelf and PDU mockups as DMTF publishes them, quirks included): each is
// crawled as it is and what it yields is pinned. Labelled `corpus`: a clone without the corpus
// skips with one line; FT_CORPUS_DIR points at a corpus elsewhere. The project's own services
// are walked by test_redfish.
#include "importers/formats/redfish_crawl.h"
#include "support/redfish_fixtures.h"
#include "support/requirement.h"

#include <QDir>
#include <QTest>
#include <cmath>
#include <map>
#include <string>

using namespace ft;
using importers::redfish::Problem;
using testing::crawl;
using testing::CrawlResult;
using testing::describe;

namespace {

QString mockupsDir() {
    return testing::corpusDir() + QStringLiteral("/data/redfish");
}

// One of DMTF's mockups, as pages; a mockup the corpus lacks stops the run.
testing::RedfishPages mockup(const char* name) {
    const QString dir = mockupsDir() + "/" + QString::fromUtf8(name);
    auto pages = testing::redfishMockup(dir.toStdString());
    if (pages.empty()) qFatal("no mockup at %s", qPrintable(dir));
    return pages;
}

} // namespace

class TestRedfishCorpus : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        FT_REQUIRE(QDir(mockupsDir()).exists(), "the shared corpus (../shared/data/redfish)",
                   "the project's shared data checked out beside the clone as ../shared, or "
                   "FT_CORPUS_DIR set to where it is");
    }

    void crawlsTheCoolingUnitMockup() {
        const auto pages = mockup("public-cooling-unit");
        const CrawlResult r = crawl(pages);
        QVERIFY2(r.count(Problem::BadJson) + r.count(Problem::UnknownType) +
                         r.count(Problem::MissingProperty) + r.count(Problem::DanglingLink) ==
                     0,
                 describe(r).c_str());
        const std::map<std::string, std::string> cdu = {
            {"equipment", "Rack #4 Cooling Distribution Unit"}, {"equipment_id", "1"}};
        QCOMPARE(r.value("CDU/SecondaryCoolantConnector/SupplyTemperatureCelsius", cdu), 30.0);
        QCOMPARE(r.value("CDU/SecondaryCoolantConnector/ReturnTemperatureCelsius", cdu), 48.0);
        QCOMPARE(r.value("CDU/PrimaryCoolantConnector/FlowLitersPerMinute", cdu), 42.0);
        QCOMPARE(r.value("CDU/SecondaryCoolantConnector/HeatRemovedkW", cdu), 25.31);
        QCOMPARE(r.value("CDU/SecondaryCoolantConnector/SupplyTemperatureControlCelsius", cdu),
                 30.0);
        // Pump 2 is UnavailableOffline in the mockup: failed; pump 1 runs.
        QCOMPARE(r.value("CDU/Pump/Status", {{"member", "2"}}), 2.0);
        QCOMPARE(r.value("CDU/Pump/Status", {{"member", "1"}}), 0.0);
        QCOMPARE(r.value("CDU/Pump/PumpSpeedPercent", {{"member", "2"}}), 0.0);
        QCOMPARE(r.value("CDU/LeakDetection/DetectorState", cdu), 0.0);
        QCOMPARE(r.value("CDU/Status", cdu), 1.0); // Health "Warning"
        QCOMPARE(r.find("CDU/LeakDetector/DetectorState").size(), std::size_t{2});
        // The pump's failure once, though the CDU repeats it in its own rollup.
        int failed = 0;
        for (const auto& c : r.conditions)
            failed += c.message == "Pump '2' has failed." ? 1 : 0;
        QCOMPARE(failed, 1);
        // Only what carries cooling readings is walked: no log entries, accounts or schemas.
        QVERIFY(r.fetched < pages.size() / 2);
        for (const auto& p : r.paths)
            QVERIFY2(!p.starts_with("/redfish/v1/Managers") &&
                         !p.starts_with("/redfish/v1/AccountService"),
                     p.c_str());
    }

    void crawlsThePowerMockups() {
        const CrawlResult shelf = crawl(mockup("public-power-shelf"));
        const std::map<std::string, std::string> bay1 = {
            {"equipment", "PowerShelf1"}, {"rack", "42"}, {"member", "Bay1"}};
        QCOMPARE(shelf.value("PowerShelf/PowerSupply/OutputPowerWatts", bay1), 937.4);
        QCOMPARE(shelf.value("PowerShelf/PowerSupply/InputVoltage", bay1), 230.2);
        QCOMPARE(shelf.value("PowerShelf/PowerSupply/InputCurrentAmps", bay1), 5.19);
        QCOMPARE(shelf.value("PowerShelf/PowerSupply/State", bay1), 0.0);
        QCOMPARE(shelf.value("PowerShelf/Metrics/PowerWatts", {{"equipment", "PowerShelf1"}}),
                 6438.0);
        // The mockup lists Bay3 twice and Bay2 not at all: five supplies, each read once; only
        // Bay1 is fitted (the others are Absent: an empty bay delivers nothing).
        QCOMPARE(shelf.find("PowerShelf/PowerSupply/State").size(), std::size_t{5});
        QCOMPARE(shelf.value("PowerShelf/PowerSupply/State", {{"member", "Bay4"}}), 2.0);
        QCOMPARE(shelf.value("PowerShelf/PowerSupplies/Delivering"), 1.0);
        double sum = 0;
        for (const auto* p : shelf.find("PowerShelf/PowerSupply/OutputPowerWatts"))
            sum += p->value;
        QCOMPARE(shelf.value("PowerShelf/PowerSupplies/OutputPowerWatts"), sum);
        // The shelf chassis links its PowerSubsystem to its Sensors collection: counted with
        // the URI, and the supplies still found where DSP0268 puts them.
        QVERIFY2(shelf.reported(Problem::UnknownType, "/redfish/v1/Chassis/PowerShelf/Sensors"),
                 describe(shelf).c_str());
        // PowerEquipment does not link its ElectricalBuses in the mockup: not read until it does.
        QVERIFY(shelf.find("Bus/Mains/Voltage").empty());
        auto linked = mockup("public-power-shelf");
        linked["/redfish/v1/PowerEquipment"]["ElectricalBuses"] = {
            {"@odata.id", "/redfish/v1/PowerEquipment/ElectricalBuses"}};
        const CrawlResult buses = crawl(linked);
        QCOMPARE(buses.value("Bus/Mains/Voltage", {{"equipment", "Datacenter Busway"}}), 240.8);
        QCOMPARE(buses.value("Bus/Mains/CurrentAmps"), 25.68);

        const CrawlResult pdu = crawl(mockup("public-pdu"));
        QVERIFY(!std::isnan(pdu.value("RackPDU/Metrics/PowerWatts", {{"equipment", "RackPDU1"}})));
        QCOMPARE(pdu.find("RackPDU/Branch/CurrentAmps").size(), std::size_t{3});
        // Three-phase mains: a reading per line, named by the phase label.
        QCOMPARE(pdu.value("AutomaticTransferSwitch/Mains/PolyPhaseVoltage",
                           {{"member", "AC1"}, {"phase", "Line1ToLine2"}}),
                 202.2);
    }
};

QTEST_GUILESS_MAIN(TestRedfishCorpus)
#include "test_redfish_corpus.moc"
