#include "sim_model.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iterator>
#include <limits>
#include <utility>

namespace ft::model {

SimModel::SimModel(std::shared_ptr<const Topology> topology, SimConfig config, Scenario scenario)
    : m_topology(std::move(topology)), m_config(config), m_scenario(std::move(scenario)),
      m_workload(*m_topology, config.seed, config.startTime), m_thermal(*m_topology),
      m_lifecycle(*m_topology, config.seed), m_storage(*m_topology),
      m_fabric(*m_topology, config.counterInterval), m_power(*m_topology), m_incidents(m_topology) {
    const Topology& t = *m_topology;
    m_state.time = config.startTime;
    m_state.values.resize(ch::Count);
    for (ChannelId c = 0; c < ch::Count; ++c)
        if (!isDetailChannel(c)) m_state.values[c].assign(t.count(kChannels[c].kind), 0.0f);
    m_state.detail = m_fabric.detail();
    m_state.rackLifecycle.resize(t.count(EntityKind::Rack));
    for (EntityId r = 0; r < m_state.rackLifecycle.size(); ++r)
        m_state.rackLifecycle[r] = static_cast<RackLifecycle>(t.racks.initialLifecycle[r]);
    m_state.telemetry = config.telemetry;
    if (config.telemetry) {
        for (std::size_t k = 0; k < kEntityKindCount; ++k)
            m_state.measuredAt[k].assign(t.count(static_cast<EntityKind>(k)), 0);
        // A tray measured by its exporters but not a node of the scheduler has no state there.
        std::ranges::fill(m_state.values[ch::ComputeTraySchedulerState], NAN);
    }
    m_state.staleAfter = config.staleAfter;
    for (EntityId r = 0; r < m_state.rackLifecycle.size(); ++r) {
        const bool production = m_state.rackLifecycle[r] == RackLifecycle::Production;
        m_state.values[ch::RackLifecycleProgress][r] = production ? 100.0f : 0.0f;
        m_state.values[ch::RackLifecycleState][r] = static_cast<float>(m_state.rackLifecycle[r]);
    }
    m_state.events = m_events.shared();
    m_state.scenario = m_scenario.name;
    m_heldUntil.resize(ch::Count);
    std::ranges::stable_sort(m_scenario.events, {}, &ScenarioEvent::at);

    const std::size_t nGpus = t.count(EntityKind::Gpu);
    m_gpuBias.resize(nGpus);
    for (std::size_t g = 0; g < nGpus; ++g)
        m_gpuBias[g] = hashNoise(config.seed, 0x6770, g);
    m_gpuThrottle.assign(nGpus, 1.0f);
    m_rackMinThrottle.assign(t.count(EntityKind::Rack), 1.0f);
    m_rackGpuTempMeasured.assign(t.count(EntityKind::Rack), 0);
    m_rackPowered.assign(t.count(EntityKind::Rack), 1);
    m_jobPace.assign(m_workload.jobs().size(), 1.0f);
    m_fabricTrays.resize(t.count(EntityKind::ComputeTray));
    m_fabricRacks.resize(t.count(EntityKind::Rack));
    m_trayRead.assign(t.count(EntityKind::ComputeTray), 0.0f);
    m_trayCheckpoint.assign(t.count(EntityKind::ComputeTray), 0.0f);
    m_trayJobStarted.assign(t.count(EntityKind::ComputeTray), 0);
    m_rackJobStart.assign(t.count(EntityKind::Rack), 0);
    m_rackJobPhase.assign(t.count(EntityKind::Rack), 0);
    m_rackJobKey.assign(t.count(EntityKind::Rack), ~std::uint32_t{0});

    const auto supply = static_cast<float>(t.spec().cooling.supplySetpointC);
    m_thermal.initialize(m_state);
    std::ranges::fill(m_state.values[ch::GpuTemperature], supply + 5.0f);
    std::ranges::fill(m_state.values[ch::CpuTemperature], supply + 4.0f);
    std::ranges::fill(m_state.values[ch::GpuSmClock], kGpuMaxSmClockMhz);

    const auto limit = static_cast<float>(t.spec().rack.gpuMaxTempC);
    const auto designFlow =
        static_cast<float>(t.spec().rack.ratedPowerKw * t.spec().cooling.flowLpmPerKw);
    m_alarmRules = {
        {"GPU over temperature", ch::RackGpuTempMax, limit - 3.0f, limit, 2.0f},
        {"Supply above setpoint", ch::RackSupplyTemperature, supply + 2.0f, supply + 5.0f, 0.5f},
        {"CDU supply above setpoint", ch::CduSupplyTemperature, supply + 2.0f, supply + 5.0f, 0.5f},
        {"ΔT out of range", ch::RackDeltaTemperature, 15.0f, 20.0f, 1.0f},
        {"Low coolant flow", ch::RackFlow, 0.3f * designFlow, 0.12f * designFlow,
         0.03f * designFlow, true},
        {"Leak detected", ch::RackLeakDetected, 0.5f, 0.5f, 0.0f},
        {"Rack powered off", ch::RackPowerOn, 0.5f, 0.5f, 0.0f, true},
        {"Pump fault", ch::PumpHealth, 0.5f, 1.5f, 0.0f},
        {"Low coolant level", ch::CduCoolantLevel, 60.0f, 40.0f, 2.0f, true},
        {"Busway overloaded", ch::FeedLoad, 98.5f, 100.0f, 3.0f},
        {"Busway tripped", ch::FeedState, 1.5f, 1.5f, 0.0f},
        {"Power redundancy lost", ch::RackPowerRedundant, 0.5f, -1.0f, 0.0f, true},
        {"GPU power capping", ch::RackPowerCapping, 0.5f, 2.0f, 0.0f},
        {"PSU failed", ch::PsuState, 1.5f, 3.0f, 0.0f},
        // Writes not yet copied to the other region, by how long the link needs for them at its
        // present capacity: a healthy checkpoint burst drains in a minute or two whatever the
        // floor's size; ten minutes mean the link cannot keep up.
        {"Remote copy falling behind", ch::RegionDrainTime, 600.0f, 1800.0f, 30.0f},
        // What the equipment itself reports (Redfish): the model leaves these at 0.
        {"CDU leak detector", ch::CduLeakDetected, 0.5f, 1.5f, 0.0f},
        {"CDU reports a fault", ch::CduHealth, 0.5f, 1.5f, 0.0f},
        // What a GPU's own counters say (dcgm-exporter): degraded is a warning, failing or
        // lost critical (model/gpu_health.h).
        {"GPU unhealthy", ch::GpuHealth, 0.5f, 1.5f, 0.0f},
        {"GPU memory over temperature", ch::GpuMemoryTemperature, 85.0f, 95.0f, 2.0f},
    };
    for (const auto& rule : m_alarmRules) {
        const std::size_t n = t.count(kChannels[rule.channel].kind);
        m_alarmLevel.emplace_back(n, 0);
        m_alarmSince.emplace_back(n, 0);
    }
    // Settle utilization, power, coolant and controllers so the first frame is already
    // plausible: five simulated minutes in 1 s steps (lags are exact exponentials and the
    // coolant update is stable at this step), then back to the start time.
    if (!config.settle) return;
    m_settling = true;
    m_config.step = kNsPerSecond;
    m_state.time = config.startTime - 300 * kNsPerSecond;
    const std::size_t scenarioCursor = m_nextScenarioEvent;
    m_nextScenarioEvent = m_scenario.events.size(); // no injections while settling
    for (int i = 0; i < 300; ++i)
        step();
    m_nextScenarioEvent = scenarioCursor;
    m_settling = false;
    m_config.step = config.step;
    m_state.time = config.startTime;
    m_state.tick = 0;
    m_newEvents.clear();
    for (auto& since : m_alarmSince)
        std::ranges::fill(since, config.startTime);
    // The first snapshot already names the jobs (telemetry's come with its labels).
    if (!config.telemetry) updateRackJobs();
}

EntityId SimModel::rackOf(EntityKind kind, EntityId e) const {
    return m_topology->rackOf(kind, e).value_or(kNoRack);
}

EntityId SimModel::trayOf(EntityKind kind, EntityId e) const {
    const Topology& t = *m_topology;
    if (e >= t.count(kind)) return kNoRack;
    switch (kind) {
    case EntityKind::ComputeTray:
        return e;
    case EntityKind::Gpu:
        return t.gpus.tray[e];
    case EntityKind::Cpu:
        return t.cpus.tray[e];
    case EntityKind::Dpu:
        return t.dpus.tray[e];
    case EntityKind::Nic:
        return t.gpus.tray[t.nics.gpu[e]];
    default:
        return kNoRack;
    }
}

void SimModel::noteMeasured(EntityKind kind, EntityId e, TimeNs at) {
    auto raise = [at](std::vector<TimeNs>& v, EntityId i) {
        if (i < v.size()) v[i] = std::max(v[i], at);
    };
    auto& m = m_state.measuredAt;
    raise(m[static_cast<std::size_t>(kind)], e);
    if (const EntityId tray = trayOf(kind, e); tray != kNoRack && kind != EntityKind::ComputeTray)
        raise(m[static_cast<std::size_t>(EntityKind::ComputeTray)], tray);
    if (const EntityId rack = rackOf(kind, e); rack != kNoRack && kind != EntityKind::Rack)
        raise(m[static_cast<std::size_t>(EntityKind::Rack)], rack);
}

void SimModel::markChannelMeasured(ChannelId c) {
    auto& m = m_state.measuredChannels;
    if (m.test(c)) return;
    m.set(c);
    // The totals the sim makes of this channel are measured too.
    switch (c) {
    case ch::GpuTemperature:
        m.set(ch::RackGpuTempMax);
        m.set(ch::RackGpuTempMean);
        break;
    case ch::GpuUtilization:
        m.set(ch::RackGpuUtilization);
        break;
    // A GPU's or CPU's power is not its tray's or rack's (the rest of the tray, the switch
    // trays, the fans stay unmeasured): the HUD sums the measured GPUs' power on its own.
    case ch::TrayPower:
    case ch::SwitchTrayPower:
        m.set(ch::RackPower);
        break;
    case ch::RackReturnTemperature:
        m.set(ch::RackDeltaTemperature);
        m.set(ch::RackHeatRemoved);
        break;
    case ch::NvlinkTx:
    case ch::NvlinkRx:
    case ch::GpuNvlinkTx:
    case ch::GpuNvlinkRx:
        m.set(ch::RackNvlinkThroughput);
        break;
    case ch::FabricTx:
    case ch::FabricRx:
        m.set(ch::RackRailThroughput);
        break;
    default:
        break;
    }
    // A GPU that reports anything has a health (lost when its series stop), and counts in its
    // rack's measured GPUs.
    if (kChannels[c].kind == EntityKind::Gpu) {
        m.set(ch::GpuHealth);
        m.set(ch::RackGpusMeasured);
    }
}

void SimModel::apply(const SampleBatch& batch) {
    // The scheduler's jobs are the floor's jobs: once it speaks, labels name none.
    m_jobsFromScheduler = m_jobsFromScheduler || batch.schedulerJobs;
    if (!batch.nodeNotes.empty()) applyNodeNotes(batch.nodeNotes);
    if (batch.alerts) applyAlerts(batch.source, batch.alerts);
    if (!batch.gpuSlices.empty()) {
        auto slices =
            m_state.gpuSlices
                ? std::make_shared<std::vector<std::string>>(*m_state.gpuSlices)
                : std::make_shared<std::vector<std::string>>(m_topology->count(EntityKind::Gpu));
        for (const auto& [gpu, text] : batch.gpuSlices)
            if (gpu < slices->size()) (*slices)[gpu] = text;
        m_state.gpuSlices = std::move(slices);
    }
    if (!batch.gpuJobs.empty() && (batch.schedulerJobs || !m_jobsFromScheduler)) {
        if (m_gpuJobLabel.empty()) m_gpuJobLabel.resize(m_topology->count(EntityKind::Gpu));
        for (const auto& [gpu, job] : batch.gpuJobs)
            if (gpu < m_gpuJobLabel.size()) m_gpuJobLabel[gpu] = job;
        m_labelJobsChanged = true;
    }
    for (const Sample& s : batch.samples) {
        if (s.channel >= ch::Count) continue;
        const bool measuredBefore = m_state.telemetry && everMeasured(s.channel, s.entity);
        if (m_state.telemetry) {
            noteMeasured(kChannels[s.channel].kind, s.entity,
                         std::min(s.time, m_state.time + m_config.step));
            markChannelMeasured(s.channel);
        }
        if (isDetailChannel(s.channel)) {
            // Per-link values go into the next refresh of the shared per-link block, held there.
            if (s.entity >= m_topology->count(kChannels[s.channel].kind)) continue;
            m_detailHeld[(static_cast<std::uint64_t>(s.channel) << 32) | s.entity] = {
                s.value, std::max(s.time, m_state.time) + m_config.measurementHold};
            m_fabric.requestRefresh();
            continue;
        }
        Column& values = writableState(s.channel);
        if (s.entity >= values.size()) continue;
        const float before = values[s.entity];
        values[s.entity] = s.value;
        auto& holds = m_heldUntil[s.channel];
        if (holds.empty()) holds.assign(values.size(), 0);
        holds[s.entity] = std::max(s.time, m_state.time) + m_config.measurementHold;
        if (isGpuCounter(s.channel)) applyGpuCounter(s, before);
        if (s.channel == ch::ComputeTraySchedulerState)
            applySchedulerState(s, before, measuredBefore);
    }
}

void SimModel::step() {
    const auto dt = static_cast<float>(toSeconds(m_config.step));
    m_state.time += m_config.step;
    ++m_state.tick;
    m_newEvents.clear(); // last tick's, published with it
    std::ranges::move(m_appliedEvents, std::back_inserter(m_newEvents));
    m_appliedEvents.clear();
    using Clock = std::chrono::steady_clock;
    Clock::time_point mark = m_profiling ? Clock::now() : Clock::time_point{};
    auto lap = [&](Stage stage) {
        if (!m_profiling) return;
        const auto now = Clock::now();
        m_stageMs[static_cast<std::size_t>(stage)] =
            std::chrono::duration<double, std::milli>(now - mark).count();
        mark = now;
    };
    renewColumns();
    runScenario();
    m_workload.advance(m_state.time);
    updateJobPace();
    lap(Stage::Workload);
    stepComputeTrays(dt);
    // Only the tray stage reads last tick's values: the buffers can go back to the pool (once
    // the snapshot that shares them is gone too).
    for (const ChannelId c : kRenewedChannels)
        m_previous[c] = Column();
    lap(Stage::Trays);
    stepFabric(dt);
    lap(Stage::Fabric);
    stepRackTotals();
    lap(Stage::Totals);
    m_power.step(m_state, holds(), dt, m_newEvents, m_settling);
    lap(Stage::Power);
    m_storage.step(m_state, dt, m_trayRead, m_trayCheckpoint, m_trayJobStarted);
    lap(Stage::Storage);
    stepSchedulerLifecycle();
    m_lifecycle.step(m_state, dt, m_newEvents);
    lap(Stage::Lifecycle);
    m_thermal.step(m_state, holds(), dt, m_newEvents);
    // A rack whose PSUs have no input is off, whatever the cooling plant's protections say.
    for (EntityId r = 0; r < m_state.values[ch::RackPowerOn].size(); ++r)
        if (!m_power.rackEnergized(r) && !held(ch::RackPowerOn, r))
            m_state.values[ch::RackPowerOn][r] = 0.0f;
    lap(Stage::Thermal);
    stepGpuHealth();
    evaluateAlarms();
    publishEvents();
    lap(Stage::Alarms);
    if (!m_settling) {
        if (m_state.telemetry) {
            // Real telemetry: the jobs are what the GPUs' labels say (none: no jobs named).
            if (m_labelJobsChanged) updateLabelJobs();
            m_incidents.setJobs(m_labelRackJob, m_labelRackPhase, [this](std::uint32_t j) {
                return j > 0 && j <= m_labelJobNames.size() ? m_labelJobNames[j - 1]
                                                            : std::string();
            });
            m_incidents.observe(m_state, m_newEvents);
            m_state.incidents = m_incidents.shared();
            lap(Stage::Incidents);
            return;
        }
        updateRackJobs();
        // Each rack's job phase: which job, since when, checkpointing or in a burst or not.
        const auto tpr = static_cast<EntityId>(m_topology->spec().rack.computeTrays);
        for (EntityId r = 0; r < m_rackJobPhase.size(); ++r)
            m_rackJobPhase[r] =
                (static_cast<std::uint64_t>(m_rackJobStart[r]) << 2 ^
                 static_cast<std::uint64_t>(m_workload.jobOfRack(r)) << 40) |
                (m_workload.checkpointing(r * tpr, m_state.time) ? 1u : 0u) |
                (m_workload.jobs()[m_workload.jobOfRack(r)].burstLevel > 0 ? 2u : 0u);
        m_incidents.setJobs(m_workload.rackJobs(), m_rackJobPhase,
                            [this](std::uint32_t j) { return jobName(j); });
        m_incidents.observe(m_state, m_newEvents);
        m_state.incidents = m_incidents.shared();
    }
    lap(Stage::Incidents);
}

void SimModel::addScenario(const Scenario& more, TimeNs from) {
    auto& events = m_scenario.events;
    const auto next = static_cast<std::ptrdiff_t>(m_nextScenarioEvent);
    for (ScenarioEvent ev : more.events) {
        ev.at += from;
        events.push_back(std::move(ev));
    }
    std::stable_sort(events.begin() + next, events.end(),
                     [](const ScenarioEvent& a, const ScenarioEvent& b) { return a.at < b.at; });
    if (!more.name.empty())
        m_state.scenario =
            m_state.scenario.empty() ? more.name : m_state.scenario + " + " + more.name;
}

void SimModel::stepFabric(float dt) {
    // Who each rack's traffic talks to decides how much of it stays under one leaf.
    const Topology& t = *m_topology;
    const auto tpr = static_cast<std::uint32_t>(t.spec().rack.computeTrays);
    const auto nTrays = static_cast<std::uint32_t>(t.count(EntityKind::ComputeTray));
    for (std::size_t r = 0; r < m_fabricRacks.size(); ++r) {
        const auto rack = static_cast<EntityId>(r);
        const RackLifecycle stage = m_lifecycle.state(rack);
        FabricModel::RackInput& in = m_fabricRacks[r];
        in.nvlinkOffByStage = stage == RackLifecycle::MultiRackValidation;
        in.railFlapping = stage == RackLifecycle::MultiRackValidation &&
                          m_lifecycle.railFlapping(rack, m_state.time);
        const Job& job = m_workload.jobs()[m_workload.jobOfRack(rack)];
        if (stage == RackLifecycle::MultiRackValidation ||
            (lifecycleInService(stage) && job.kind == JobKind::Inference)) {
            in.peerFirstTray = 0;
            in.peerTrays = nTrays;
        } else if (lifecycleInService(stage) && job.kind == JobKind::Training) {
            in.peerFirstTray = job.firstRack * tpr;
            in.peerTrays = job.rackCount * tpr;
        } else {
            in.peerFirstTray = rack * tpr;
            in.peerTrays = tpr;
        }
    }
    m_fabric.step(m_state, holds(), dt, m_fabricTrays, m_fabricRacks, !m_settling);
    if (m_fabric.detailStamp() != m_state.detailStamp) {
        // A fresh per-link block, not yet published: measured values still held override it.
        std::erase_if(m_detailHeld,
                      [&](const auto& kv) { return kv.second.second <= m_state.time; });
        for (const auto& [key, held] : m_detailHeld)
            m_fabric.overrideDetail(static_cast<ChannelId>(key >> 32),
                                    static_cast<EntityId>(key & 0xffffffffu), held.first);
        m_state.detail = m_fabric.detail();
        m_state.detailStamp = m_fabric.detailStamp();
    }
}

Column& SimModel::writableState(ChannelId c) {
    Column& column = m_state.values[c];
    column.unshare(m_columns.get());
    return column;
}

void SimModel::renewColumns() {
    m_previous.resize(ch::Count);
    for (const ChannelId c : kRenewedChannels) {
        Column& current = m_state.values[c];
        Column fresh = m_columns->take(current.size());
        // Held values are not written by their stage: they stay as measured.
        if (!m_heldUntil[c].empty()) {
            std::ranges::copy(std::as_const(current), fresh.begin());
        } else {
#ifdef _GLIBCXX_ASSERTIONS
            // Builds with assertions make a read before the stage's write show (as NaN).
            std::ranges::fill(fresh, std::numeric_limits<float>::quiet_NaN());
#endif
        }
        m_previous[c] = std::exchange(current, std::move(fresh));
    }
}

void SimModel::copyTo(Snapshot& out) const {
    copyState(out, false);
}

void SimModel::publishTo(Snapshot& out) const {
    copyState(out, true);
}

void SimModel::copyState(Snapshot& out, bool shareRenewed) const {
    out.time = m_state.time;
    out.tick = m_state.tick;
    out.values.resize(m_state.values.size());
    for (std::size_t i = 0; i < m_state.values.size(); ++i) {
        const auto c = static_cast<ChannelId>(i);
        if (shareRenewed && (renewed(c) || isGpuCounter(c)))
            out.values[c] = m_state.values[c].share();
        else
            out.values[c] = m_state.values[c];
    }
    out.detail = m_state.detail; // shared, never copied
    out.detailStamp = m_state.detailStamp;
    out.rackLifecycle.assign(m_state.rackLifecycle.begin(), m_state.rackLifecycle.end());
    out.telemetry = m_state.telemetry;
    out.measuredChannels = m_state.measuredChannels;
    for (std::size_t k = 0; k < kEntityKindCount; ++k)
        out.measuredAt[k].assign(m_state.measuredAt[k].begin(), m_state.measuredAt[k].end());
    out.staleAfter = m_state.staleAfter;
    out.alarms.assign(m_state.alarms.begin(), m_state.alarms.end());
    out.events = m_state.events;
    out.incidents = m_state.incidents;
    out.scenario = m_state.scenario;
    out.lifecycleHistory = m_state.lifecycleHistory;
    out.rackJobs = m_state.rackJobs;
    out.nodeNotes = m_state.nodeNotes;
    out.gpuSlices = m_state.gpuSlices;
    out.externalAlerts = m_state.externalAlerts;
}

} // namespace ft::model
