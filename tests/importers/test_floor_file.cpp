// Floor files: valid input becomes a FloorSpec; every kind of bad input becomes one clear
// error with file, line, column and key, never a crash.
#include "importers/floor/floor_file.h"
#include "importers/formats/json_document.h"
#include "support/test_paths.h"

#include <QTest>

using namespace ft;
using importers::parseFloorFile;

class TestFloorFile : public QObject {
    Q_OBJECT

    static importers::Error errorOf(const std::string& text) {
        auto r = parseFloorFile(text, "f.json");
        if (r) qFatal("expected an error for: %s", text.c_str());
        return r.error();
    }

private slots:
    void bundledDemoFloor() {
        auto spec = importers::loadFloor(FT_SOURCE_PATH("/resources/floors/demo.json"));
        QVERIFY2(spec, spec ? "" : spec.error().toString().c_str());
        QCOMPARE(spec->rows.size(), 2u);
        QCOMPARE(spec->rows[0].racks, 8);
        QCOMPARE(spec->rows[1].name, std::string("B"));
        QCOMPARE(spec->rack.computeTrays, 18);
        QCOMPARE(spec->rack.nvlinkTBpsPerRack, 260.0);
        QCOMPARE(spec->storage.regions.size(), 2u);
    }

    void rowCountForm() {
        auto spec = importers::loadFloor(FT_TEST_DATA_PATH("/floors/small.json"));
        QVERIFY(spec);
        QCOMPARE(spec->rows.size(), 1u);
        QCOMPARE(spec->rows[0].racks, 2);
        QCOMPARE(spec->cooling.racksPerCdu, 2);
        QCOMPARE(spec->rack.gpusPerTray, 4); // defaults fill what the file leaves out
    }

    void malformedJsonNamesLineAndColumn() {
        const auto e = importers::loadFloor(FT_TEST_DATA_PATH("/floors/malformed.json")).error();
        QCOMPARE(e.line, 5);
        QCOMPARE(e.column, 32);
        QVERIFY(e.file.ends_with("malformed.json"));
        QVERIFY(e.toString().find("malformed.json:5:32:") != std::string::npos);
    }

    void truncatedAndGarbage() {
        QVERIFY(errorOf("").message.find("end of file") != std::string::npos);
        QVERIFY(errorOf("{\"rows\": 2").message.find("expected") != std::string::npos);
        QCOMPARE(errorOf("{\n  \"rows\": [1, 2,]\n}").line, 2);
        QVERIFY(errorOf("[1, 2]").message.find("object") != std::string::npos);
        QVERIFY(errorOf("{\"name\": \"a\nb\"}").message.find("newline") != std::string::npos);
        QVERIFY(errorOf("{} trailing").message.find("after") != std::string::npos);
        QVERIFY(errorOf("{\"a\": 1e999999}").message.find("number") != std::string::npos);
        // Deep nesting is refused, not a stack overflow.
        QVERIFY(errorOf(std::string(10000, '[')).message.find("nesting") != std::string::npos);
    }

    void missingKey() {
        const auto e = errorOf("{\n  \"format\": \"floortwin-floor/1\"\n}");
        QCOMPARE(e.key, std::string("rows"));
        QVERIFY(e.message.find("missing") != std::string::npos);
        const auto e2 = errorOf("{\"rows\": 3}");
        QCOMPARE(e2.key, std::string("racks_per_row"));
        const auto e3 = errorOf(R"({"rows": [{"name": "A"}]})");
        QCOMPARE(e3.key, std::string("rows[0].racks"));
    }

    void wrongType() {
        const auto e = errorOf("{\n \"rows\": 1,\n \"racks_per_row\": \"eight\"\n}");
        QCOMPARE(e.key, std::string("racks_per_row"));
        QCOMPARE(e.line, 3);
        QCOMPARE(e.column, 19);
        QVERIFY(e.message.find("integer") != std::string::npos);
        const auto e2 = errorOf(R"({"rows": 1, "racks_per_row": 2, "rack": {"gpu_tdp_w": true}})");
        QCOMPARE(e2.key, std::string("rack.gpu_tdp_w"));
        QVERIFY(e2.message.find("a boolean") != std::string::npos);
        const auto e3 = errorOf(R"({"rows": 1, "racks_per_row": 2, "fabric": [1]})");
        QCOMPARE(e3.key, std::string("fabric"));
        const auto e4 = errorOf(R"({"rows": 1.5, "racks_per_row": 2})");
        QCOMPARE(e4.key, std::string("rows"));
    }

    void cduManagementAddresses() {
        // NOLINTNEXTLINE(modernize-raw-string-literal): moc misreads raw strings with quotes
        const std::string text = "{\"rows\": 1, \"racks_per_row\": 2, \"cooling\": "
                                 "{\"cdu_bmc\": {\"CDU A1\": \"10.0.9.5\"}}}";
        auto spec = parseFloorFile(text, "f.json");
        QVERIFY2(spec.has_value(), spec ? "" : spec.error().toString().c_str());
        QCOMPARE(spec->cooling.cduBmc.size(), std::size_t{1});
        QCOMPARE(spec->cooling.cduBmc[0].second, std::string("10.0.9.5"));
        auto back = parseFloorFile(importers::floorSpecToJson(*spec), "again");
        QVERIFY2(back.has_value(), back ? "" : back.error().toString().c_str());
        QCOMPARE(back->cooling.cduBmc, spec->cooling.cduBmc);
        // NOLINTNEXTLINE(modernize-raw-string-literal)
        const auto e = errorOf("{\"rows\": 1, \"racks_per_row\": 2, \"cooling\": "
                               "{\"cdu_bmc\": {\"CDU A1\": 5}}}");
        QCOMPARE(e.key, std::string("cooling.cdu_bmc.CDU A1"));
    }

    void negativeAndOutOfRangeCounts() {
        const auto e = importers::loadFloor(FT_TEST_DATA_PATH("/floors/negative.json")).error();
        QCOMPARE(e.key, std::string("racks_per_row"));
        QCOMPARE(e.line, 3);
        QVERIFY(e.message.find("-3") != std::string::npos);
        QCOMPARE(
            errorOf("{\"rows\": 1, \"racks_per_row\": 2, \"rack\": {\"compute_trays\": 0}}").key,
            std::string("rack.compute_trays"));
        QCOMPARE(
            errorOf(
                "{\"rows\": 1, \"racks_per_row\": 2, \"cooling\": {\"supply_setpoint_c\": -400}}")
                .key,
            std::string("cooling.supply_setpoint_c"));
        QCOMPARE(errorOf("{\"rows\": [{\"racks\": -1}]}").key, std::string("rows[0].racks"));
        QCOMPARE(
            errorOf("{\"rows\": 1, \"racks_per_row\": 2, \"rack\": {\"gpu_idle_w\": 2000}}").key,
            std::string("rack.gpu_idle_w"));
    }

    void unknownKeysAreNotIgnored() {
        const auto e = errorOf(R"({"rows": 1, "rack_per_row": 2})");
        // Missing racks_per_row is reported first; a typo elsewhere is named.
        QCOMPARE(e.key, std::string("racks_per_row"));
        const auto e2 = errorOf(R"({"rows": 1, "racks_per_row": 2, "rack": {"gpus_per_try": 4}})");
        QCOMPARE(e2.key, std::string("rack.gpus_per_try"));
        QVERIFY(e2.message.find("unknown") != std::string::npos);
        QCOMPARE(errorOf("{\"format\": \"other/2\", \"rows\": 1, \"racks_per_row\": 1}").key,
                 std::string("format"));
    }

    void missingFile() {
        const auto r = importers::loadFloor("/nonexistent/floor.json");
        QVERIFY(!r);
        QVERIFY(r.error().toString().find("/nonexistent/floor.json") != std::string::npos);
    }

    void generateSpecs() {
        auto s = importers::parseGenerateSpec("generate:racks=1778");
        QVERIFY(s);
        int racks = 0;
        for (const auto& r : s->rows)
            racks += r.racks;
        QCOMPARE(racks, 1778);
        s = importers::parseGenerateSpec("generate:racks=10,racks_per_row=5");
        QVERIFY(s);
        QCOMPARE(s->rows.size(), 2u);
        QVERIFY(!importers::parseGenerateSpec("generate:racks=0"));
        QVERIFY(!importers::parseGenerateSpec("generate:racks=1779"));
        QVERIFY(!importers::parseGenerateSpec("generate:racks=abc"));
        QVERIFY(!importers::parseGenerateSpec("generate:rooms=3"));
        QVERIFY(!importers::parseGenerateSpec("generate:racks"));
    }

    void rowNames() {
        QCOMPARE(importers::rowName(0), std::string("A"));
        QCOMPARE(importers::rowName(25), std::string("Z"));
        QCOMPARE(importers::rowName(26), std::string("AA"));
        QCOMPARE(importers::rowName(74), std::string("BW"));
    }

    void jsonEscapesAndPositions() {
        auto doc =
            importers::parseJson("{\n  \"a\": \"x\\u00e9\\n\",\n  \"b\": [true, null, -1.5e2]\n}");
        QVERIFY(doc);
        QCOMPARE(doc->find("a")->string, std::string("x\xc3\xa9\n"));
        const auto* b = doc->find("b");
        QCOMPARE(b->line, 3);
        QCOMPARE(b->column, 8);
        QCOMPARE(b->array[2].number, -150.0);
        QVERIFY(!importers::parseJson("{\"a\": \"\\q\"}"));
    }

    // What servers answer is asked how deep it nests before a DOM parser builds it: brackets
    // inside strings (escaped quotes too) do not count, the offset is the bracket too deep.
    void jsonNestingIsMeasured() {
        using importers::jsonNestingBeyond;
        // NOLINTNEXTLINE(modernize-raw-string-literal): moc misreads raw strings with quotes
        const char* doc = "{\"a\": [[1], {\"b\": []}]}";
        QVERIFY(!jsonNestingBeyond(doc, 4));
        QCOMPARE(jsonNestingBeyond(doc, 3), std::optional<std::size_t>(18));
        QCOMPARE(jsonNestingBeyond(doc, 2), std::optional<std::size_t>(7));
        QVERIFY(!jsonNestingBeyond("[\"[[[[\", \"\\\"[[[\"]", 1));
        QCOMPARE(jsonNestingBeyond("[\"\\\\\", [[]]]", 2), std::optional<std::size_t>(8));
        const std::string bomb = std::string(1u << 20, '[') + std::string(1u << 20, ']');
        QCOMPARE(jsonNestingBeyond(bomb, importers::kJsonAnswerDepth),
                 std::optional<std::size_t>(importers::kJsonAnswerDepth));
    }
};

QTEST_GUILESS_MAIN(TestFloorFile)
#include "test_floor_file.moc"
