// Scenario files: every bundled scenario parses and resolves on the demo and on a generated
// floor; bad files give one clear error with position and key.
#include "importers/floor/floor_file.h"
#include "importers/floor/scenario_file.h"
#include "support/test_paths.h"

#include <QDir>
#include <QFile>
#include <QTest>

using namespace ft;

class TestScenarioFile : public QObject {
    Q_OBJECT
    std::shared_ptr<const model::Topology> m_demo;

    importers::Error errorOf(const std::string& text) {
        auto r = importers::parseScenarioFile(text, "s.json", *m_demo);
        if (r) qFatal("expected an error for: %s", text.c_str());
        return r.error();
    }

private slots:
    void initTestCase() {
        auto spec = importers::loadFloor(FT_SOURCE_PATH("/resources/floors/demo.json"));
        QVERIFY(spec);
        m_demo = std::make_shared<const model::Topology>(*model::Topology::build(*spec));
    }

    void bundledScenariosParseOnEveryFloor() {
        const QDir dir(FT_SOURCE_PATH("/resources/scenarios"));
        const auto files = dir.entryList({"*.json"});
        QVERIFY(files.size() >= 5);
        const auto big = *model::Topology::build(importers::generateFloor(1778));
        for (const QString& f : files) {
            QFile file(dir.filePath(f));
            QVERIFY(file.open(QIODevice::ReadOnly));
            const std::string text = file.readAll().toStdString();
            for (const model::Topology* t : {m_demo.get(), &big}) {
                auto s = importers::parseScenarioFile(text, f.toStdString(), *t);
                QVERIFY2(s, s ? "" : s.error().toString().c_str());
                QVERIFY(!s->events.empty());
                QCOMPARE(s->name + ".json", f.toStdString());
                QVERIFY(!s->description.empty());
                QVERIFY(std::ranges::is_sorted(s->events, {}, &model::ScenarioEvent::at));
            }
        }
    }

    void targetsResolve() {
        auto s = importers::parseScenarioFile(R"({"events": [
            {"at": "1m30s", "action": "pump_fail", "target": "pump:CDU B1 pump 2"},
            {"at": "10s", "action": "leak", "target": "rack:B04"},
            {"at": "20s", "action": "primary_supply", "target": "all", "value": 40, "value2": 60}]})",
                                              "s.json", *m_demo);
        QVERIFY2(s, s ? "" : s.error().toString().c_str());
        QCOMPARE(s->events.size(), 3u);
        QCOMPARE(s->events[0].action, model::ScenarioAction::Leak); // sorted by time
        QCOMPARE(s->events[0].target->id, 11u);
        QCOMPARE(s->events[2].at, 90 * model::kNsPerSecond);
        QCOMPARE(s->events[2].target->id, 3u); // CDU B1's second pump
        QVERIFY(!s->events[1].target);
    }

    void errors() {
        auto e = errorOf(R"({"events": [{"at": "soon", "action": "leak"}]})");
        QCOMPARE(e.key, std::string("events[0].at"));
        e = errorOf("{\n\"events\": [\n {\"at\": \"1s\", \"action\": \"explode\"}]}");
        QCOMPARE(e.key, std::string("events[0].action"));
        QCOMPARE(e.line, 3);
        QVERIFY(e.message.find("pump_fail") != std::string::npos);
        e = errorOf(R"({"events": [{"at": "1s", "action": "leak", "target": "cdu:CDU A1"}]})");
        QVERIFY(e.message.find("targets a rack") != std::string::npos);
        e = errorOf(R"({"events": [{"at": "1s", "action": "leak", "target": "rack:Q77"}]})");
        QVERIFY(e.message.find("Q77") != std::string::npos);
        e = errorOf(R"({"events": [{"at": "1s", "action": "leak", "colour": 3}]})");
        QCOMPARE(e.key, std::string("events[0].colour"));
        QCOMPARE(errorOf("{\"name\": \"x\"}").key, std::string("events"));
        QCOMPARE(errorOf("{\"format\": \"v2\", \"events\": []}").key, std::string("format"));
    }
};

QTEST_GUILESS_MAIN(TestScenarioFile)
#include "test_scenario_file.moc"
