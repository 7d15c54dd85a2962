// Tours and demos: the bundled ones parse on the demo floor and on a generated 1,778-rack floor;
// a tour's stops follow one another by flight and dwell and loop; a demo's steps keep their
// times, its speed changes integrate into simulated time and its actions land there; every
// bad file gives one error with the file, line and step.
#include "importers/floor/floor_file.h"
#include "importers/floor/story_file.h"
#include "support/test_floors.h"
#include "support/test_paths.h"

#include <QFile>
#include <QTest>

using namespace ft;
using importers::Story;
using importers::StoryCamera;

namespace {
const std::vector<std::string> kLayers{"racks",  "thermal",   "storage", "rails",
                                       "nvlink", "lifecycle", "power"};

std::string readFile(const char* path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) qFatal("cannot open %s", path);
    return f.readAll().toStdString();
}
} // namespace

class TestStoryFile : public QObject {
    Q_OBJECT
    std::shared_ptr<const model::Topology> m_demo;

    importers::Error errorOf(const std::string& text) {
        auto r = importers::parseStoryFile(text, "story.json", *m_demo, kLayers);
        if (r) qFatal("expected an error for: %s", text.c_str());
        return r.error();
    }

private slots:
    void initTestCase() { m_demo = testing::demoFloor(); }

    void bundledStoriesParseOnEveryFloor() {
        const auto big = testing::floorOf(1778);
        for (const auto* t : {m_demo.get(), big.get()}) {
            auto tour = importers::parseStoryFile(
                readFile(FT_SOURCE_PATH("/resources/tours/noc.json")), "noc.json", *t, kLayers);
            QVERIFY2(tour, tour ? "" : tour.error().toString().c_str());
            QCOMPARE(tour->kind, Story::Kind::Tour);
            // "rows" became one stop per row of this floor.
            const auto rowStops = std::ranges::count_if(tour->steps, [](const auto& s) {
                return s.camera && s.camera->kind == StoryCamera::Kind::Frame &&
                       s.camera->entities.size() == 1 &&
                       s.camera->entities[0].kind == model::EntityKind::Row;
            });
            QCOMPARE(static_cast<std::size_t>(rowStops), t->count(model::EntityKind::Row));
            auto demo = importers::parseStoryFile(
                readFile(FT_SOURCE_PATH("/resources/demos/vera-rubin-floor.json")),
                "vera-rubin-floor.json", *t, kLayers);
            QVERIFY2(demo, demo ? "" : demo.error().toString().c_str());
            QCOMPARE(demo->kind, Story::Kind::Demo);
            QVERIFY(demo->length >= 150 && demo->length <= 240); // "about three minutes"
            QVERIFY(!demo->scenario().events.empty());
        }
    }

    void tourStopsFollowByFlightAndDwell() {
        auto tour = importers::parseStoryFile(R"({
  "format": "floortwin-tour/1", "flight": "2s", "dwell": "10s",
  "stops": [
    { "view": "overview", "layers": ["racks"], "caption": "hall" },
    { "frame": ["cdu:CDU A1", "rack:B03"], "dwell": "5s", "azimuth": 10 },
    { "camera": { "focus": [1, 2, 0.5], "distance": 12 }, "flight": "1s", "metric": "rack.power",
      "select": "rack:A03" },
    { "view": "rows", "dwell": "3s" }
  ]})",
                                              "t.json", *m_demo, kLayers);
        QVERIFY2(tour, tour ? "" : tour.error().toString().c_str());
        QCOMPARE(tour->steps.size(), std::size_t{5}); // rows A and B
        QCOMPARE(tour->steps[0].at, 0.0);
        QCOMPARE(tour->steps[1].at, 12.0);
        QCOMPARE(tour->steps[2].at, 19.0); // 12 + 2 + 5
        QCOMPARE(tour->steps[3].at, 30.0); // 19 + 1 + 10
        QCOMPARE(tour->steps[4].at, 35.0);
        QCOMPARE(tour->length, 40.0);
        QCOMPARE(tour->steps[1].camera->entities.size(), std::size_t{2});
        QCOMPARE(*tour->steps[1].camera->azimuthDeg, 10.0);
        QVERIFY(!tour->steps[1].camera->elevationDeg);
        QCOMPARE(tour->steps[2].camera->kind, StoryCamera::Kind::Explicit);
        QCOMPARE(tour->steps[2].camera->distance, 12.0);
        QCOMPARE(tour->steps[2].selection->kind, model::EntityKind::Rack);
        QCOMPARE(*tour->steps[2].metric, *model::findChannel("rack.power"));
        QCOMPARE(*tour->steps[3].caption, std::string("Row A"));
        QCOMPARE(tour->stepAt(13.0)->index, 2);
        QVERIFY(!tour->stepAt(-1));
    }

    void demoSpeedsIntegrateAndActionsLandThere() {
        auto demo = importers::parseStoryFile(R"({
  "format": "floortwin-demo/1", "speed": 2, "length": "1m",
  "steps": [
    { "at": "0s", "caption": "start" },
    { "at": "10s", "speed": 60,
      "actions": [ { "action": "pump_fail", "target": "pump:CDU A1 pump 1" } ] },
    { "at": "20s", "speed": 1,
      "actions": [ { "action": "pump_restore", "target": "pump:CDU A1 pump 1" } ] }
  ]})",
                                              "d.json", *m_demo, kLayers);
        QVERIFY2(demo, demo ? "" : demo.error().toString().c_str());
        QCOMPARE(demo->simSecondsAt(0), 0.0);
        QCOMPARE(demo->simSecondsAt(10), 20.0);  // 10 s at 2x
        QCOMPARE(demo->simSecondsAt(15), 320.0); // then 5 s at 60x
        QCOMPARE(demo->simSecondsAt(30), 630.0); // 10 s at 60x, 10 s at 1x
        const auto scenario = demo->scenario();
        QCOMPARE(scenario.events.size(), std::size_t{2});
        QCOMPARE(scenario.events[0].at, model::fromSeconds(20));
        QCOMPARE(scenario.events[1].at, model::fromSeconds(620));
        QCOMPARE(demo->length, 60.0);
    }

    void badFilesNameFileLineAndStep() {
        struct Case {
            const char* text;
            int line;
            const char* says;
        };
        // NOLINTBEGIN(modernize-raw-string-literal): the newlines place the errors on lines.
        const Case cases[] = {
            {"{\"format\": \"floortwin-tour/1\",\n \"stops\": [\n {\"view\": \"ceiling\"}]}", 3,
             "stop 1: unknown view (available: overview, top, fabric, hottest, rows)"},
            {"{\"format\": \"floortwin-tour/1\",\n \"stops\": [{\"view\": \"top\"},\n {\"frame\": "
             "\"rack:Z99\"}]}",
             3, "stop 2: no rack 'Z99' on this floor"},
            {"{\"format\": \"floortwin-tour/1\", \"stops\": [\n{\"layers\": [\"racks\", "
             "\"weather\"]}]}",
             2, "unknown layer 'weather'"},
            {"{\"format\": \"floortwin-tour/1\", \"stops\": [\n{\"metric\": \"gpu.mood\"}]}", 2,
             "unknown metric"},
            {"{\"format\": \"floortwin-demo/1\", \"steps\": [\n{\"at\": \"0s\"},\n{\"at\": "
             "\"5s\", \"actions\": [{\"action\": \"explode\"}]}]}",
             3, "key 'steps[1].actions[0].action': step 2: expected one of: pump_fail"},
            {"{\"format\": \"floortwin-demo/1\", \"steps\": [\n{\"at\": \"30s\"},\n{\"at\": "
             "\"20s\"}]}",
             3, "step 2 at 20s comes before step 1 at 30s"},
            {"{\"format\": \"floortwin-demo/1\", \"steps\": [\n{\"caption\": \"no time\"}]}", 2,
             "key 'steps[0].at': step 1: missing required key"},
            {"{\"format\": \"floortwin-demo/1\", \"steps\": [\n{\"at\": \"0s\", \"view\": "
             "\"rows\"}]}",
             2, "a demo frames one thing per step"},
            {"{\"format\": \"floortwin-tour/1\", \"stops\": [\n{\"view\": \"top\", \"frame\": "
             "\"row:A\"}]}",
             2, "one of view, frame or camera per step"},
            {"{\"format\": \"floortwin-tour/1\", \"stops\": [\n{\"view\": \"top\", \"speed\": "
             "2}]}",
             2, "unknown key"},
            {"{\"format\": \"floortwin-tour/2\", \"stops\": []}", 1,
             R"(expected "floortwin-tour/1" or "floortwin-demo/1")"},
            {"{\"format\": \"floortwin-demo/1\", \"length\": \"5s\", \"steps\": [\n{\"at\": "
             "\"10s\"}]}",
             1, "the story is 5s long but a step begins at 10s"},
        };
        // NOLINTEND(modernize-raw-string-literal)
        for (const auto& c : cases) {
            const auto e = errorOf(c.text);
            const std::string text = e.toString();
            QVERIFY2(text.starts_with("story.json:"), text.c_str());
            QVERIFY2(e.line == c.line,
                     (text + " (expected line " + std::to_string(c.line) + ")").c_str());
            QVERIFY2(text.find(c.says) != std::string::npos, text.c_str());
        }
    }

    // A replay's bookmarks become a demo that plays the recording through them; a demo names
    // its recording relative to itself, and may not inject actions into it.
    void bookmarksBecomeADemoOfTheRecording() {
        const model::TimeNs start = 1'790'000'000LL * model::kNsPerSecond;
        const std::vector<importers::StoryMark> marks{
            {start + model::fromSeconds(600), "valves open wide",
             R"({"focus":[3,1,0.5],"distance":14,"azimuth":-30,"elevation":25})"},
            {start + model::fromSeconds(60), "pump 1 trips", ""},
            {start + model::fromSeconds(90), "flow collapses",
             R"({"focus":[1,2,0.5],"distance":9,"azimuth":10,"elevation":40})"},
        };
        const std::string text =
            importers::demoFromBookmarks(marks, "/data/incident.ftrec", start, 15);
        QCOMPARE(importers::storyRecording(text, "/tmp/x/demo.json"),
                 std::optional<std::string>("/data/incident.ftrec"));
        auto demo = importers::parseStoryFile(text, "demo.json", *m_demo, kLayers);
        QVERIFY2(demo, demo ? "" : (demo.error().toString() + "\n" + text).c_str());
        QCOMPARE(demo->replay, std::string("/data/incident.ftrec"));
        QCOMPARE(demo->replayFrom, 60.0); // the first bookmark, by time
        QCOMPARE(demo->steps.size(), std::size_t{3});
        QCOMPARE(*demo->steps[0].caption, std::string("pump 1 trips"));
        QVERIFY(!demo->steps[0].camera); // bookmarked without a camera
        QCOMPARE(demo->steps[1].camera->kind, StoryCamera::Kind::Explicit);
        QCOMPARE(demo->steps[1].camera->distance, 9.0);
        // 30 s of recording at 1x... 2x gets there in 15 s; 510 s at 34x.
        QCOMPARE(*demo->steps[0].speed, 2.0);
        QCOMPARE(demo->steps[1].at, 15.0);
        QCOMPARE(*demo->steps[1].speed, 34.0);
        QCOMPARE(demo->steps[2].at, 30.0);
        // The story reaches each bookmark's moment of the recording.
        QCOMPARE(demo->replayFrom + demo->simSecondsAt(demo->steps[1].at), 90.0);
        QCOMPARE(demo->replayFrom + demo->simSecondsAt(demo->steps[2].at), 600.0);
        QCOMPARE(demo->length, 45.0);

        const std::string relative = R"({"format": "floortwin-demo/1", "replay": "runs/a.ftrec",
  "steps": [{"at": "0s"}]})";
        QCOMPARE(importers::storyRecording(relative, "/home/op/demos/d.json"),
                 std::optional<std::string>("/home/op/demos/runs/a.ftrec"));
        QVERIFY(
            !importers::storyRecording(R"({"format": "floortwin-demo/1", "steps": []})", "d.json"));
        const auto withActions = errorOf(R"({"format": "floortwin-demo/1", "replay": "a.ftrec",
  "steps": [{"at": "0s", "actions": [{"action": "leak", "target": "rack:A01"}]}]})");
        QVERIFY2(withActions.toString().find("no scenario actions") != std::string::npos,
                 withActions.toString().c_str());
    }

    void entitiesResolveByKindAndName() {
        auto row = importers::resolveEntity(*m_demo, "row:B");
        QVERIFY(row);
        QCOMPARE(row->kind, model::EntityKind::Row);
        QCOMPARE(m_demo->name(row->kind, row->id), std::string("Row B"));
        QVERIFY(importers::resolveEntity(*m_demo, "cdu:CDU A1"));
        QVERIFY(importers::resolveEntity(*m_demo, "gpu:100"));
        QVERIFY(!importers::resolveEntity(*m_demo, "A03"));         // no kind
        QVERIFY(!importers::resolveEntity(*m_demo, "toaster:A03")); // no such kind
    }
};

QTEST_GUILESS_MAIN(TestStoryFile)
#include "test_story_file.moc"
