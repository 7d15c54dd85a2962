// Rack lifecycle: every legal transition, every illegal one refused, gate failures and their
// causes, the bring-up wave's timing, and the load validation puts on the other layers.
#include "importers/floor/floor_file.h"
#include "importers/floor/scenario_file.h"
#include "model/lifecycle.h"
#include "model/sim_model.h"
#include "support/test_floors.h"
#include "support/test_paths.h"

#include <QFile>
#include <QTest>
#include <map>
#include <queue>
#include <set>

using namespace ft;
using model::EntityKind;
using S = model::RackLifecycle;
namespace ch = model::ch;

namespace {
constexpr int kStates = 12;

const std::set<std::pair<S, S>>& legal() {
    static const std::set<std::pair<S, S>> table{
        {S::Delivered, S::HardwareDetection},         {S::HardwareDetection, S::FirmwareUpdate},
        {S::HardwareDetection, S::Troubleshooting},   {S::FirmwareUpdate, S::PowerCoolingBringUp},
        {S::FirmwareUpdate, S::Troubleshooting},      {S::PowerCoolingBringUp, S::NodeValidation},
        {S::PowerCoolingBringUp, S::Troubleshooting}, {S::NodeValidation, S::RackValidation},
        {S::NodeValidation, S::Troubleshooting},      {S::RackValidation, S::MultiRackValidation},
        {S::RackValidation, S::Troubleshooting},      {S::MultiRackValidation, S::Production},
        {S::MultiRackValidation, S::Troubleshooting}, {S::Production, S::Maintenance},
        {S::Production, S::Troubleshooting},          {S::Troubleshooting, S::Revalidation},
        {S::Troubleshooting, S::Decommissioned},      {S::Revalidation, S::RackValidation},
        {S::Revalidation, S::Troubleshooting},        {S::Maintenance, S::Revalidation},
        {S::Maintenance, S::Decommissioned}};
    return table;
}

using testing::bundledScenario;
using testing::floorOf;

void runFor(model::SimModel& m, double seconds) {
    const auto until = m.time() + model::fromSeconds(seconds);
    while (m.time() < until)
        m.step();
}
} // namespace

class TestLifecycle : public QObject {
    Q_OBJECT
private slots:
    void everyLegalTransition() {
        for (const auto& [from, to] : legal()) {
            model::LifecycleMachine m(1);
            m.reset(0, from, 0);
            QVERIFY2(m.request(0, to, 5, "test"), model::lifecycleName(to).data());
            QCOMPARE(m.state(0), to);
            QCOMPARE(m.log().size(), 1u);
            QCOMPARE(m.log()[0].from, from);
            QCOMPARE(m.log()[0].reason, std::string("test"));
        }
    }

    void everyIllegalTransitionIsRefused() {
        int refused = 0;
        for (int a = 0; a < kStates; ++a)
            for (int b = 0; b < kStates; ++b) {
                const auto from = static_cast<S>(a), to = static_cast<S>(b);
                if (legal().contains({from, to})) continue;
                model::LifecycleMachine m(1);
                m.reset(0, from, 0);
                const auto r = m.request(0, to, 5, "test");
                QVERIFY(!r);
                QVERIFY(r.error().find("illegal") != std::string::npos);
                QCOMPARE(m.state(0), from); // state untouched
                QVERIFY(m.log().empty());
                QCOMPARE(m.rejected(), 1u);
                ++refused;
            }
        QCOMPARE(refused, kStates * kStates - static_cast<int>(legal().size()));
        model::LifecycleMachine m(1);
        QVERIFY(!m.request(7, S::Maintenance, 0, "no such rack"));
    }

    void noWayToProductionAroundRevalidation() {
        // From troubleshooting (or maintenance), every path to production passes re-validation.
        for (S start : {S::Troubleshooting, S::Maintenance}) {
            std::set<S> seen{start};
            std::queue<S> todo;
            todo.push(start);
            while (!todo.empty()) {
                const S s = todo.front();
                todo.pop();
                for (int b = 0; b < kStates; ++b) {
                    const S to = static_cast<S>(b);
                    if (to == S::Revalidation || seen.contains(to) ||
                        !model::lifecycleTransitionAllowed(s, to))
                        continue;
                    seen.insert(to);
                    todo.push(to);
                }
            }
            QVERIFY(!seen.contains(S::Production));
        }
    }

    void gateFailuresFindTheirCauses() {
        auto spec = importers::loadFloor(FT_SOURCE_PATH("/resources/floors/demo.json"));
        QVERIFY(spec);
        const auto t = floorOf(*spec);
        model::SimConfig config;
        config.step = model::kNsPerSecond; // hours of bring-up: coarse steps keep the test quick
        config.counterInterval =
            60 * model::kNsPerSecond; // per-link fabric counters are not what these gates read
        model::SimModel m(t, config, bundledScenario("bring-up", *t));
        runFor(m, 14 * 3600.0);
        const auto& log = m.lifecycle().machine().log();
        std::map<S, std::string> failures; // gate -> reason
        for (const auto& tr : log)
            if (tr.failure) {
                QCOMPARE(tr.to, S::Troubleshooting);
                failures[tr.from] = tr.reason;
            }
        QVERIFY2(failures[S::NodeValidation].find("thermal check under load") != std::string::npos,
                 failures[S::NodeValidation].c_str());
        QVERIFY2(failures[S::RackValidation].find("NVLink") != std::string::npos,
                 failures[S::RackValidation].c_str());
        QVERIFY2(failures[S::MultiRackValidation].find("flapped") != std::string::npos,
                 failures[S::MultiRackValidation].c_str());
        // Every rack of the wave ends in production; the ones that failed passed re-validation
        // after their failure and before production.
        for (model::EntityId r = 8; r < 16; ++r) {
            QCOMPARE(m.lifecycle().state(r), S::Production);
            bool failed = false, revalidated = false;
            for (const auto& tr : log) {
                if (tr.rack != r) continue;
                if (tr.failure) failed = true, revalidated = false;
                if (tr.to == S::Revalidation) revalidated = true;
                if (tr.to == S::Production && failed) QVERIFY(revalidated);
            }
        }
        // Row A never left production.
        for (model::EntityId r = 0; r < 8; ++r)
            QCOMPARE(m.lifecycle().state(r), S::Production);
    }

    void bringUpTiming() {
        const auto t = floorOf(importers::generateFloor(40));
        model::Scenario wave;
        wave.name = "wave";
        model::ScenarioEvent ev;
        ev.action = model::ScenarioAction::BringUp;
        ev.value = 60;   // one rack a minute
        ev.value2 = 0.3; // 12 of 40 carry a fault
        wave.events.push_back(ev);
        model::SimConfig config;
        config.step = 2 * model::kNsPerSecond;
        config.counterInterval = 60 * model::kNsPerSecond;
        model::SimModel m(t, config, wave);
        runFor(m, 24 * 3600.0);
        std::map<model::EntityId, model::TimeNs> start, done;
        std::set<model::EntityId> failed;
        for (const auto& tr : m.lifecycle().machine().log()) {
            if (tr.to == S::HardwareDetection) start[tr.rack] = tr.time;
            if (tr.to == S::Production) done[tr.rack] = tr.time;
            if (tr.failure) failed.insert(tr.rack);
        }
        QCOMPARE(start.size(), 40u);
        QCOMPARE(done.size(), 40u); // everyone reaches production within a day
        QCOMPARE(failed.size(), 12u);
        std::vector<double> healthy, faulty;
        for (const auto& [rack, t0] : start)
            (failed.contains(rack) ? faulty : healthy)
                .push_back(model::toSeconds(done[rack] - t0) / 60.0);
        std::ranges::sort(healthy);
        std::ranges::sort(faulty);
        const double medianHealthy = healthy[healthy.size() / 2],
                     medianFaulty = faulty[faulty.size() / 2];
        qInfo("bring-up: healthy median %.0f min (min %.0f, max %.0f); with a fault %.0f min",
              medianHealthy, healthy.front(), healthy.back(), medianFaulty);
        // Nominal stages add up to 365 minutes; each varies +-25 %.
        QVERIFY(medianHealthy > 365 * 0.85 && medianHealthy < 365 * 1.15);
        QVERIFY(healthy.front() > 365 * 0.75 && healthy.back() < 365 * 1.25);
        // A fault costs troubleshooting and re-running the gates: hours, not minutes.
        QVERIFY(medianFaulty > medianHealthy + 120);
    }

    void validationLoadsTheOtherLayers() {
        const auto t = floorOf(importers::generateFloor(2));
        model::Scenario wave;
        model::ScenarioEvent ev;
        ev.action = model::ScenarioAction::BringUp;
        ev.value = 600;  // the second rack waits ten minutes, delivered
        ev.value2 = 0.0; // no faults
        wave.events.push_back(ev);
        model::SimConfig config;
        config.step = model::kNsPerSecond;
        config.counterInterval = 60 * model::kNsPerSecond;
        model::SimModel m(t, config, wave);
        const double peakNvlink = 72 * 3.6;
        bool sawNode = false, sawRack = false, sawMulti = false, sawDelivered = false;
        for (int i = 0; i < 20 * 3600; ++i) {
            m.step();
            if (i > 0 && m.lifecycle().state(0) == S::Production) break; // through every gate
            if (i % 60 != 0) continue;                                   // once a simulated minute
            const auto& s = m.state();
            // The rack that has not started yet: delivered, powered off.
            for (model::EntityId r : {0u, 1u})
                if (m.lifecycle().state(r) == S::Delivered) {
                    sawDelivered = true;
                    QCOMPARE(s.value(ch::RackPower, r), 0.0f);
                }
            const auto st = m.lifecycle().state(0);
            if (s.value(ch::RackLifecycleProgress, 0) < 30) continue; // let each stage settle
            if (st == S::NodeValidation) {
                sawNode = true;
                QVERIFY(s.value(ch::RackGpuUtilization, 0) > 85.0f); // burn-in
            }
            if (st == S::RackValidation) {
                sawRack = true;
                QVERIFY(s.value(ch::RackNvlinkThroughput, 0) >
                        0.85 * 0.95 * peakNvlink); // NVLink saturated
            }
            if (st == S::MultiRackValidation) {
                sawMulti = true;
                QCOMPARE(s.value(ch::RackNvlinkThroughput, 0), 0.0f); // NVLink off ...
                QVERIFY(s.value(ch::RackRailThroughput, 0) > 5.0f);   // ... everything on the rails
            }
        }
        QVERIFY(sawDelivered);
        QVERIFY(sawNode);
        QVERIFY(sawRack);
        QVERIFY(sawMulti);
        QCOMPARE(m.lifecycle().state(0), S::Production);
    }
};

QTEST_GUILESS_MAIN(TestLifecycle)
#include "test_lifecycle.moc"
