// ThermalModel through SimModel: energy balance, valve control, and the fault scenarios, each
// checked for the physical consequences an operator would see, in the order they happen.
#include "importers/floor/floor_file.h"
#include "importers/floor/scenario_file.h"
#include "model/sim_model.h"
#include "support/test_floors.h"

#include <QFile>
#include <QTest>
#include <cmath>
#include <cstddef>
#include <numeric>

using namespace ft;
using model::EntityKind;
namespace ch = model::ch;

namespace {

using testing::demoFloor;

using testing::bundledScenario;

float at(const model::SimModel& m, model::ChannelId c, model::EntityId e) {
    return m.state().value(c, e);
}

float rackMinClock(const model::SimModel& m, model::EntityId rack) {
    const auto clocks =
        m.state().channel(ch::GpuSmClock).subspan(static_cast<std::size_t>(rack) * 72, 72);
    return *std::ranges::min_element(clocks);
}

double seconds(const model::SimModel& m) {
    return model::toSeconds(m.time() - m.config().startTime);
}

} // namespace

class TestThermal : public QObject {
    Q_OBJECT
private slots:
    void energyBalanceAtTheCdu() {
        const auto t = demoFloor();
        model::SimModel m(t, {});
        for (int i = 0; i < 1200; ++i)
            m.step();
        // Loads pulse with training steps and the coolant stores heat for seconds, so compare
        // averages over two minutes rather than instants.
        const std::size_t nCdu = t->count(EntityKind::Cdu);
        std::vector<double> power(nCdu), removed(nCdu), toFacility(nCdu);
        for (int i = 0; i < 1200; ++i) {
            m.step();
            for (model::EntityId c = 0; c < nCdu; ++c) {
                for (std::uint32_t r = 0; r < t->cdus.rackCount[c]; ++r)
                    power[c] += at(m, ch::RackPower, t->cdus.firstRack[c] + r) / 1200.0;
                removed[c] += at(m, ch::CduHeatLoad, c) / 1200.0;
                toFacility[c] += at(m, ch::LoopHeatRemoved, 2 * c) / 1200.0; // primary loop
            }
        }
        for (model::EntityId c = 0; c < nCdu; ++c) {
            const double p = power[c], q = removed[c], f = toFacility[c];
            QVERIFY2(std::abs(q - p) < 0.03 * p,
                     qPrintable(QString("secondary %1 vs IT %2 kW").arg(q).arg(p)));
            QVERIFY2(std::abs(f - p) < 0.05 * p,
                     qPrintable(QString("primary %1 vs IT %2 kW").arg(f).arg(p)));
            // Flow follows the rule of thumb: about 1.5 L/min per kW at ΔT ~ 10 K.
            const double lpmPerKw = at(m, ch::CduFlow, c) / p;
            QVERIFY2(lpmPerKw > 1.2 && lpmPerKw < 2.2, qPrintable(QString::number(lpmPerKw)));
            QVERIFY(std::abs(at(m, ch::CduDeltaPressure, c) - 150.0f) < 3.0f);
        }
    }

    void valveSettlesWithoutOscillating() {
        const auto t = demoFloor();
        model::SimConfig config;
        config.measurementHold = 3600LL * model::kNsPerSecond;
        model::SimModel m(t, config);
        for (int i = 0; i < 600; ++i)
            m.step();
        // A step in heat load on rack A03: 90 -> 175 kW, held (as if measured).
        model::SampleBatch step;
        step.samples.push_back({m.time(), ch::RackPower, 2, 175.0f});
        m.apply(step);
        std::vector<float> valve, deltaT;
        for (int i = 0; i < 6000; ++i) { // ten minutes
            m.step();
            if (i % 10 == 0) {
                valve.push_back(at(m, ch::RackValvePosition, 2));
                deltaT.push_back(at(m, ch::RackDeltaTemperature, 2));
            }
        }
        // Settles: the last three minutes hold ΔT at its 10 K setpoint.
        for (std::size_t i = valve.size() - 180; i < valve.size(); ++i)
            QVERIFY2(std::abs(deltaT[i] - 10.0f) < 0.3f, qPrintable(QString::number(deltaT[i])));
        // Without oscillating: the valve opens and then stays, reversing direction at most twice.
        int reversals = 0;
        float lastDirection = 0;
        for (std::size_t i = 1; i < valve.size(); ++i) {
            const float d = valve[i] - valve[i - 1];
            if (std::abs(d) < 0.05f) continue;
            if (lastDirection != 0 && (d > 0) != (lastDirection > 0)) ++reversals;
            lastDirection = d;
        }
        QVERIFY2(reversals <= 2, qPrintable(QString::number(reversals)));
        // And ΔT overshoots its setpoint by no more than a few kelvin on the way.
        QVERIFY(*std::ranges::max_element(deltaT) < 16.0f);
        QVERIFY(valve.back() > valve.front());
    }

    void pumpFailureCauseChainInOrder() {
        const auto t = demoFloor();
        // The same floor and seed with and without the fault: every difference is the fault's.
        model::SimModel m(t, {}, bundledScenario("pump-failure", *t)), control(t, {});
        const model::EntityId rack = 6; // A07, on CDU A1, running a training job in this seed
        QCOMPARE(t->racks.cdu[rack], 0u);
        double tFlow = -1, tReturn = -1, tGpu = -1, tThrottle = -1, tTraffic = -1;
        std::vector<float> traffic, controlTraffic;
        auto mean = [](const std::vector<float>& v) {
            return std::accumulate(v.begin(), v.end(), 0.0) / v.size();
        };
        while (seconds(m) < 200.0 && tTraffic < 0) {
            m.step();
            control.step();
            const double s = seconds(m);
            if (tFlow < 0 && at(m, ch::RackFlow, rack) < 0.5f * at(control, ch::RackFlow, rack))
                tFlow = s;
            if (tReturn < 0 && at(m, ch::RackReturnTemperature, rack) >
                                   at(control, ch::RackReturnTemperature, rack) + 1.0f)
                tReturn = s;
            if (tGpu < 0 &&
                at(m, ch::RackGpuTempMax, rack) > at(control, ch::RackGpuTempMax, rack) + 2.0f)
                tGpu = s;
            if (tThrottle < 0 && rackMinClock(m, rack) < 2599.0f) tThrottle = s;
            // Traffic pulses with the training steps: compare 5 s means.
            traffic.push_back(at(m, ch::RackNvlinkThroughput, rack));
            controlTraffic.push_back(at(control, ch::RackNvlinkThroughput, rack));
            if (traffic.size() > 50) {
                traffic.erase(traffic.begin());
                controlTraffic.erase(controlTraffic.begin());
            }
            if (tTraffic < 0 && traffic.size() == 50 && mean(traffic) < 0.9 * mean(controlTraffic))
                tTraffic = s;
        }
        qInfo("flow %.1f s, return %.1f s, GPU %.1f s, throttle %.1f s, traffic %.1f s", tFlow,
              tReturn, tGpu, tThrottle, tTraffic);
        QVERIFY(tFlow >= 60.0);
        QVERIFY(tReturn > tFlow);
        QVERIFY(tGpu > tReturn);
        QVERIFY(tThrottle > tGpu);
        QVERIFY(tTraffic > tThrottle);
        // The other CDU is hydraulically independent: its pressure and supply hold. (Its racks'
        // flows may still move: a training job spanning both CDUs slows down everywhere.)
        QVERIFY(std::abs(at(m, ch::CduDeltaPressure, 1) - at(control, ch::CduDeltaPressure, 1)) <
                2.0f);
        QVERIFY(std::abs(at(m, ch::CduSupplyTemperature, 1) -
                         at(control, ch::CduSupplyTemperature, 1)) < 0.2f);
        // The pump alarms are raised as events.
        const auto& events = *m.state().events;
        QVERIFY(std::ranges::any_of(events, [](const model::Event& e) {
            return e.text.find("Pump fault") != std::string::npos;
        }));
    }

    void leakIsolatesThenPowersOff() {
        const auto t = demoFloor();
        model::SimModel m(t, {}, bundledScenario("leak", *t));
        const model::EntityId rack = 2; // A03
        while (seconds(m) < 50.0)
            m.step();
        QCOMPARE(at(m, ch::RackLeakDetected, rack), 1.0f);
        QVERIFY(at(m, ch::RackFlow, rack) > 50.0f); // still cooling during the reaction delay
        while (seconds(m) < 62.0)
            m.step();
        QCOMPARE(at(m, ch::RackFlow, rack), 0.0f);
        QCOMPARE(at(m, ch::RackValvePosition, rack), 0.0f);
        QCOMPARE(at(m, ch::RackPowerOn, rack), 0.0f);
        while (seconds(m) < 90.0)
            m.step();
        QVERIFY(at(m, ch::RackPower, rack) < 0.1f);
        bool critical = false;
        for (const auto& a : m.state().alarms)
            if (a.kind == EntityKind::Rack && a.entity == rack && a.channel == ch::RackLeakDetected)
                critical = a.severity == model::Severity::Critical;
        QVERIFY(critical);
        // Repaired at 6 minutes: back in service, alarm cleared.
        while (seconds(m) < 420.0)
            m.step();
        QCOMPARE(at(m, ch::RackPowerOn, rack), 1.0f);
        QVERIFY(at(m, ch::RackFlow, rack) > 50.0f);
        QVERIFY(std::ranges::none_of(m.state().alarms, [&](const model::Alarm& a) {
            return a.channel == ch::RackLeakDetected;
        }));
    }

    void blockageStarvesOneRack() {
        const auto t = demoFloor();
        model::SimModel m(t, {}, bundledScenario("manifold-blockage", *t));
        const model::EntityId rack = 4; // A05
        while (seconds(m) < 55.0)
            m.step();
        const float before = at(m, ch::RackFlow, rack);
        while (seconds(m) < 300.0)
            m.step();
        QCOMPARE(at(m, ch::RackValvePosition, rack), 100.0f);       // Valvey opens fully ...
        QVERIFY(at(m, ch::RackFlow, rack) < 0.5f * before + 30.0f); // ... but flow stays low
        QVERIFY(at(m, ch::RackDeltaTemperature, rack) > 12.0f);
        // Neighbours are unaffected beyond their own control.
        QVERIFY(std::abs(at(m, ch::RackDeltaTemperature, 3) - 10.0f) < 1.5f);
    }

    void setpointDriftWarmsOneCdu() {
        const auto t = demoFloor();
        model::SimModel m(t, {}, bundledScenario("cdu-setpoint-drift", *t));
        while (seconds(m) < 540.0)
            m.step();
        QVERIFY(std::abs(at(m, ch::CduSetpoint, 1) - 51.0f) < 0.01f);
        QVERIFY(at(m, ch::CduSupplyTemperature, 1) > 50.0f);
        QVERIFY(at(m, ch::RackSupplyTemperature, 12) > 50.0f);
        QVERIFY(at(m, ch::CduSupplyTemperature, 0) < 45.5f); // CDU A1 unaffected
    }

    void heatRejectionLossWarmsTheFloor() {
        const auto t = demoFloor();
        model::SimModel hot(t, {}, bundledScenario("heat-rejection-loss", *t)), normal(t, {});
        while (seconds(hot) < 480.0) {
            hot.step();
            normal.step();
        }
        for (model::EntityId c = 0; c < 2; ++c) {
            QCOMPARE(at(hot, ch::CduPrimarySupplyTemperature, c), 43.0f);
            QVERIFY2(at(hot, ch::CduSupplyTemperature, c) > 46.0f,
                     qPrintable(QString::number(at(hot, ch::CduSupplyTemperature, c))));
        }
        double hotGpu = 0, normalGpu = 0;
        for (float x : hot.state().channel(ch::GpuTemperature))
            hotGpu += x;
        for (float x : normal.state().channel(ch::GpuTemperature))
            normalGpu += x;
        QVERIFY(hotGpu > normalGpu + 1.5 * t->count(EntityKind::Gpu));
    }
};

QTEST_GUILESS_MAIN(TestThermal)
#include "test_thermal.moc"
