#include "sim_model.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace ft::model {
namespace {

constexpr float kWaterCp = 4186.0f;       // J/(kg K)
constexpr float kWaterDensity = 0.99f;    // kg/L at 45 C
constexpr float kComputeFlowShare = 0.9f; // of the rack's flow, the rest cools the switches
constexpr float kGpuTau = 8.0f;           // s, die + cold plate
constexpr float kCoolantTau = 20.0f;      // s, manifold and pipe transport
constexpr float kGpuThermalResistance = 0.0165f; // K/W die to coolant
constexpr float kCpuThermalResistance = 0.06f;
constexpr float kMaxSmClockMhz = 2600.0f;

float lagAlpha(float dt, float tau) { return 1.0f - std::exp(-dt / tau); }
float kgPerSecond(float litersPerMinute) { return litersPerMinute * kWaterDensity / 60.0f; }

} // namespace

SimModel::SimModel(std::shared_ptr<const Topology> topology, SimConfig config)
    : m_topology(std::move(topology)), m_config(config),
      m_workload(*m_topology, config.seed, config.startTime) {
    const Topology& t = *m_topology;
    m_state.time = config.startTime;
    m_state.values.resize(ch::Count);
    for (ChannelId c = 0; c < ch::Count; ++c)
        m_state.values[c].assign(t.count(kChannels[c].kind), 0.0f);
    m_state.rackLifecycle.assign(t.count(EntityKind::Rack), RackLifecycle::Production);
    m_heldUntil.resize(ch::Count);

    const std::size_t nGpus = t.count(EntityKind::Gpu);
    m_gpuBias.resize(nGpus);
    for (std::size_t g = 0; g < nGpus; ++g) m_gpuBias[g] = hashNoise(config.seed, 0x6770, g);
    m_gpuThrottle.assign(nGpus, 1.0f);

    // Start from a thermally settled floor at the coolant setpoint.
    const float supply = static_cast<float>(t.spec().cooling.supplySetpointC);
    std::ranges::fill(m_state.values[ch::GpuTemperature], supply + 5.0f);
    std::ranges::fill(m_state.values[ch::CpuTemperature], supply + 4.0f);
    std::ranges::fill(m_state.values[ch::RackSupplyTemperature], supply);
    std::ranges::fill(m_state.values[ch::RackReturnTemperature], supply + 5.0f);
    std::ranges::fill(m_state.values[ch::CduSupplyTemperature], supply);
    std::ranges::fill(m_state.values[ch::GpuSmClock], kMaxSmClockMhz);

    const float limit = static_cast<float>(t.spec().rack.gpuMaxTempC);
    m_alarmRules = {
        {ch::RackGpuTempMax, limit - 3.0f, limit, 2.0f},
        {ch::RackSupplyTemperature, supply + 2.0f, supply + 5.0f, 0.5f},
        {ch::CduSupplyTemperature, supply + 2.0f, supply + 5.0f, 0.5f},
    };
    for (const auto& rule : m_alarmRules) {
        const std::size_t n = t.count(kChannels[rule.channel].kind);
        m_alarmLevel.emplace_back(n, 0);
        m_alarmSince.emplace_back(n, 0);
    }
    // Settle utilization, power and temperatures so the first frame is already plausible:
    // two simulated minutes in 2 s steps (the lags are exact exponentials, so large steps are
    // stable), then back to the start time.
    m_config.step = 2 * kNsPerSecond;
    m_state.time = config.startTime - 120 * kNsPerSecond;
    for (int i = 0; i < 60; ++i) step();
    m_config.step = config.step;
    m_state.time = config.startTime;
    m_state.tick = 0;
}

void SimModel::apply(const SampleBatch& batch) {
    for (const Sample& s : batch.samples) {
        if (s.channel >= ch::Count) continue;
        auto& values = m_state.values[s.channel];
        if (s.entity >= values.size()) continue;
        values[s.entity] = s.value;
        auto& holds = m_heldUntil[s.channel];
        if (holds.empty()) holds.assign(values.size(), 0);
        holds[s.entity] = std::max(s.time, m_state.time) + m_config.measurementHold;
    }
}

void SimModel::step() {
    const float dt = static_cast<float>(toSeconds(m_config.step));
    m_state.time += m_config.step;
    ++m_state.tick;
    m_workload.advance(m_state.time);
    stepComputeTrays(dt);
    stepRacksAndCdus(dt);
    evaluateAlarms();
}

void SimModel::stepComputeTrays(float dt) {
    const Topology& t = *m_topology;
    const auto& rk = t.spec().rack;
    auto& v = m_state.values;
    const float gpuAlpha = lagAlpha(dt, kGpuTau);
    const float utilAlpha = lagAlpha(dt, 0.4f);
    const float gpuIdle = static_cast<float>(rk.gpuIdleW);
    const float gpuSpan = static_cast<float>(rk.gpuTdpW - rk.gpuIdleW);
    const float cpuIdle = static_cast<float>(rk.cpuIdleW);
    const float cpuSpan = static_cast<float>(rk.cpuTdpW - rk.cpuIdleW);
    const float limit = static_cast<float>(rk.gpuMaxTempC);
    const int gpt = rk.gpusPerTray;
    const int cpt = rk.cpusPerTray;
    const std::size_t nTrays = t.count(EntityKind::ComputeTray);
    const std::uint64_t noiseTick = m_state.tick / 5; // noise changes twice a second

    for (std::size_t tray = 0; tray < nTrays; ++tray) {
        const EntityId rack = t.computeTrays.rack[tray];
        const float target = m_workload.trayUtilization(static_cast<EntityId>(tray), m_state.time);
        const float supply = v[ch::RackSupplyTemperature][rack];
        const float trayFlow = v[ch::RackFlow][rack] * kComputeFlowShare / float(rk.computeTrays);
        const float lastTrayPower = v[ch::TrayPower][tray];
        // Coolant warms as it crosses the tray's cold plates: later GPUs see warmer water.
        const float trayDeltaT = lastTrayPower / std::max(kgPerSecond(trayFlow) * kWaterCp, 1.0f);

        float trayPower = static_cast<float>(rk.trayOverheadW);
        float trayUtil = 0;
        for (int i = 0; i < gpt; ++i) {
            const std::size_t g = tray * gpt + i;
            const float bias = m_gpuBias[g];
            if (!held(ch::GpuUtilization, static_cast<EntityId>(g))) {
                const float noise = 0.025f * hashNoise(m_config.seed, g, noiseTick);
                const float want = std::clamp(target * (1.0f + 0.03f * bias) + noise, 0.0f, 1.0f);
                float& util = v[ch::GpuUtilization][g];
                util += (want * 100.0f - util) * utilAlpha;
            }
            const float util = v[ch::GpuUtilization][g] / 100.0f;
            // Throttle: clocks back off while the die is over its limit, recover below it.
            float& throttle = m_gpuThrottle[g];
            const float temp = v[ch::GpuTemperature][g];
            if (temp > limit) throttle = std::max(0.55f, throttle - 0.02f);
            else if (temp < limit - 3.0f) throttle = std::min(1.0f, throttle + 0.01f);
            if (!held(ch::GpuSmClock, static_cast<EntityId>(g)))
                v[ch::GpuSmClock][g] = kMaxSmClockMhz * throttle;
            if (!held(ch::GpuPower, static_cast<EntityId>(g)))
                v[ch::GpuPower][g] = (gpuIdle + gpuSpan * std::pow(util, 1.1f) * throttle) * (1.0f + 0.03f * bias);
            const float power = v[ch::GpuPower][g];
            trayPower += power;
            trayUtil += util;
            if (!held(ch::GpuTemperature, static_cast<EntityId>(g))) {
                const float position = (static_cast<float>(i) + 0.5f) / static_cast<float>(gpt);
                const float coolant = supply + trayDeltaT * position;
                const float want = coolant + kGpuThermalResistance * (1.0f + 0.06f * bias) * power;
                v[ch::GpuTemperature][g] += (want - v[ch::GpuTemperature][g]) * gpuAlpha;
            }
        }
        trayUtil /= static_cast<float>(gpt);
        for (int i = 0; i < cpt; ++i) {
            const std::size_t c = tray * cpt + i;
            if (!held(ch::CpuUtilization, static_cast<EntityId>(c)))
                v[ch::CpuUtilization][c] = std::clamp(12.0f + 35.0f * trayUtil, 0.0f, 100.0f);
            const float power = cpuIdle + cpuSpan * v[ch::CpuUtilization][c] / 100.0f;
            if (!held(ch::CpuPower, static_cast<EntityId>(c))) v[ch::CpuPower][c] = power;
            trayPower += v[ch::CpuPower][c];
            if (!held(ch::CpuTemperature, static_cast<EntityId>(c))) {
                const float want = supply + trayDeltaT + kCpuThermalResistance * power;
                v[ch::CpuTemperature][c] += (want - v[ch::CpuTemperature][c]) * gpuAlpha;
            }
        }
        if (!held(ch::TrayPower, static_cast<EntityId>(tray))) v[ch::TrayPower][tray] = trayPower;
    }
}

void SimModel::stepRacksAndCdus(float dt) {
    const Topology& t = *m_topology;
    const auto& rk = t.spec().rack;
    const auto& cool = t.spec().cooling;
    auto& v = m_state.values;
    const float coolantAlpha = lagAlpha(dt, kCoolantTau);
    const std::size_t nRacks = t.count(EntityKind::Rack);
    const int tpr = rk.computeTrays;
    const int gpr = rk.computeTrays * rk.gpusPerTray;
    const float designFlow = static_cast<float>(rk.ratedPowerKw * cool.flowLpmPerKw);

    for (std::size_t r = 0; r < nRacks; ++r) {
        float power = 0;
        for (int i = 0; i < tpr; ++i) power += v[ch::TrayPower][r * tpr + i];
        float util = 0, tMax = 0, tSum = 0;
        for (int i = 0; i < gpr; ++i) {
            const std::size_t g = r * gpr + i;
            util += v[ch::GpuUtilization][g];
            tMax = std::max(tMax, v[ch::GpuTemperature][g]);
            tSum += v[ch::GpuTemperature][g];
        }
        util /= static_cast<float>(gpr);
        for (int s = 0; s < rk.switchTrays; ++s) {
            const std::size_t sw = r * rk.switchTrays + s;
            if (!held(ch::SwitchTrayPower, static_cast<EntityId>(sw)))
                v[ch::SwitchTrayPower][sw] = static_cast<float>(rk.switchTrayW) * (0.55f + 0.45f * util / 100.0f);
            power += v[ch::SwitchTrayPower][sw];
        }
        const auto id = static_cast<EntityId>(r);
        if (!held(ch::RackPower, id)) v[ch::RackPower][r] = power / 1000.0f;
        if (!held(ch::RackGpuUtilization, id)) v[ch::RackGpuUtilization][r] = util;
        if (!held(ch::RackGpuTempMax, id)) v[ch::RackGpuTempMax][r] = tMax;
        if (!held(ch::RackGpuTempMean, id)) v[ch::RackGpuTempMean][r] = tSum / static_cast<float>(gpr);
        if (!held(ch::RackFlow, id)) v[ch::RackFlow][r] = designFlow;

        // Supply at the manifold: the CDU's supply, a little warmer the further down the
        // header the rack sits, reached through the pipe's transport lag.
        const EntityId cdu = t.racks.cdu[r];
        const float hop = static_cast<float>(r - t.cdus.firstRack[cdu]);
        if (!held(ch::RackSupplyTemperature, id)) {
            const float want = v[ch::CduSupplyTemperature][cdu] + 0.04f * hop;
            v[ch::RackSupplyTemperature][r] += (want - v[ch::RackSupplyTemperature][r]) * coolantAlpha;
        }
        if (!held(ch::RackReturnTemperature, id)) {
            const float deltaT = v[ch::RackPower][r] * 1000.0f /
                                 std::max(kgPerSecond(v[ch::RackFlow][r]) * kWaterCp, 1.0f);
            const float want = v[ch::RackSupplyTemperature][r] + deltaT;
            v[ch::RackReturnTemperature][r] += (want - v[ch::RackReturnTemperature][r]) * coolantAlpha;
        }
    }

    const std::size_t nCdus = t.count(EntityKind::Cdu);
    const float tSec = static_cast<float>(toSeconds(m_state.time % (86400 * kNsPerSecond)));
    for (std::size_t c = 0; c < nCdus; ++c) {
        float heat = 0, flow = 0, returnMix = 0;
        const EntityId first = t.cdus.firstRack[c];
        for (std::uint32_t i = 0; i < t.cdus.rackCount[c]; ++i) {
            const EntityId r = first + i;
            heat += v[ch::RackPower][r];
            flow += v[ch::RackFlow][r];
            returnMix += v[ch::RackReturnTemperature][r] * v[ch::RackFlow][r];
        }
        const auto id = static_cast<EntityId>(c);
        if (!held(ch::CduHeatLoad, id)) v[ch::CduHeatLoad][c] = heat;
        if (!held(ch::CduFlow, id)) v[ch::CduFlow][c] = flow;
        if (!held(ch::CduReturnTemperature, id))
            v[ch::CduReturnTemperature][c] = flow > 0 ? returnMix / flow : v[ch::CduSupplyTemperature][c];
        if (!held(ch::CduSupplyTemperature, id)) {
            // The CDU holds its setpoint within capacity (with a small control ripple); past
            // capacity the supply rises with the unrejected heat.
            const float capacity = static_cast<float>(cool.cduCapacityKw);
            const float overload = std::max(0.0f, heat - capacity) / capacity;
            const float ripple = 0.15f * std::sin(2.0f * std::numbers::pi_v<float> * tSec / 300.0f +
                                                  3.0f * hashNoise(m_config.seed, 0x6364, c));
            const float want = static_cast<float>(cool.supplySetpointC) + ripple + 15.0f * overload;
            v[ch::CduSupplyTemperature][c] += (want - v[ch::CduSupplyTemperature][c]) * coolantAlpha;
        }
    }
}

void SimModel::evaluateAlarms() {
    m_state.alarms.clear();
    for (std::size_t r = 0; r < m_alarmRules.size(); ++r) {
        const AlarmRule& rule = m_alarmRules[r];
        const auto& values = m_state.values[rule.channel];
        auto& level = m_alarmLevel[r];
        auto& since = m_alarmSince[r];
        for (std::size_t e = 0; e < values.size(); ++e) {
            const float x = values[e];
            std::uint8_t want = level[e];
            // Raise immediately, clear only below the threshold minus the hysteresis.
            if (x > rule.criticalAbove) want = 2;
            else if (x > rule.warnAbove) want = std::max<std::uint8_t>(want, 1);
            if (want == 2 && x < rule.criticalAbove - rule.hysteresis) want = 1;
            if (want >= 1 && x < rule.warnAbove - rule.hysteresis) want = 0;
            if (want != 0 && level[e] == 0) since[e] = m_state.time;
            level[e] = want;
            if (want == 0) continue;
            m_state.alarms.push_back({kChannels[rule.channel].kind, static_cast<EntityId>(e), rule.channel,
                                      want == 2 ? Severity::Critical : Severity::Warning, x,
                                      want == 2 ? rule.criticalAbove : rule.warnAbove, since[e]});
        }
    }
}

void SimModel::copyTo(Snapshot& out) const {
    out.time = m_state.time;
    out.tick = m_state.tick;
    out.values.resize(m_state.values.size());
    for (std::size_t c = 0; c < m_state.values.size(); ++c)
        out.values[c].assign(m_state.values[c].begin(), m_state.values[c].end());
    out.rackLifecycle.assign(m_state.rackLifecycle.begin(), m_state.rackLifecycle.end());
    out.alarms.assign(m_state.alarms.begin(), m_state.alarms.end());
}

} // namespace ft::model
