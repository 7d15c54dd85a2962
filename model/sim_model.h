#pragma once
// SimModel: the twin's mutable state and the models that advance it by a fixed step.
// Single-threaded: SimCore owns one and calls it from the sim thread; tests call it directly.
// The chain: job mix -> GPU utilization -> power -> heat into the rack's coolant (ThermalModel)
// -> GPU temperature -> throttling -> job pace -> traffic. Scenario events inject faults.
#include "fabric_model.h"
#include "holds.h"
#include "incident_tracker.h"
#include "lifecycle_model.h"
#include "power_model.h"
#include "sample.h"
#include "scenario.h"
#include "snapshot.h"
#include "storage_model.h"
#include "thermal_model.h"
#include "topology.h"
#include "workload_model.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <expected>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>

namespace ft::model {

struct SimConfig {
    std::uint64_t seed = 1;
    TimeNs startTime = 1'790'000'000LL * kNsPerSecond; // 2026-09-21, fixed for determinism
    TimeNs step = 100 * kNsPerMs;
    // How long a measured value overrides the model before the model takes over again.
    TimeNs measurementHold = 30 * kNsPerSecond;
    // How often per-link fabric and NVLink counters refresh (as switch telemetry and DCGM do).
    TimeNs counterInterval = kNsPerSecond;
    // A rack whose measurements are older than this is stale (its source went quiet).
    TimeNs staleAfter = 30 * kNsPerSecond;
    // Run five simulated minutes before the start so the first frame is plausible. Off only for
    // a model about to be restored from a keyframe (restoreState overwrites it all).
    bool settle = true;
    // The values come from telemetry (live, or an import of measured data): track per entity
    // when it was last measured, and raise alarms only from measured values.
    bool telemetry = false;
    // The racks' lifecycle follows the workload scheduler: a rack with a node drained, down or
    // failed goes to troubleshooting (one held for maintenance to maintenance) and stays there
    // until every node is back in service.
    bool followScheduler = false;
};

class SimModel {
public:
    SimModel(std::shared_ptr<const Topology> topology, SimConfig config, Scenario scenario = {});

    void apply(const SampleBatch& batch);
    void step();

    // Where a tick's time goes, per stage of step() (benchmarks): milliseconds of the last tick
    // with profiling on, all zero otherwise.
    enum class Stage : std::uint8_t {
        Workload,
        Trays,
        Fabric,
        Totals,
        Power,
        Storage,
        Lifecycle,
        Thermal,
        Alarms,
        Incidents,
        Count
    };
    static constexpr std::array<const char*, static_cast<std::size_t>(Stage::Count)> kStageNames{
        "workload", "trays",     "fabric",  "totals", "power",
        "storage",  "lifecycle", "thermal", "alarms", "incidents"};
    void setProfiling(bool on) { m_profiling = on; }
    const std::array<double, static_cast<std::size_t>(Stage::Count)>& stageMs() const {
        return m_stageMs;
    }

    const Snapshot& state() const { return m_state; }
    // Copies the state into `out`, reusing its buffers (no allocation once sized).
    void copyTo(Snapshot& out) const;
    // The same values into a snapshot about to be published (and never written again): the
    // channels each tick writes whole are shared with this tick's state, not copied; the next
    // tick writes them into new buffers. The rest is copied as by copyTo().
    void publishTo(Snapshot& out) const;
    TimeNs time() const { return m_state.time; }
    const Topology& topology() const { return *m_topology; }
    const SimConfig& config() const { return m_config; }
    const WorkloadModel& workload() const { return m_workload; }
    const Scenario& scenario() const { return m_scenario; }
    const LifecycleModel& lifecycle() const { return m_lifecycle; }
    const StorageModel& storage() const { return m_storage; }
    const FabricModel& fabric() const { return m_fabric; }
    const PowerModel& power() const { return m_power; }
    // More actions from here on (a what-if): `more`'s times count from `from` (a time since the
    // run's start); what is already scheduled stays.
    void addScenario(const Scenario& more, TimeNs from);
    // A job as operators would name it: "training job 3 (A01–A08)"; empty for idle capacity.
    std::string jobName(std::uint32_t job) const;

    // A what-if from measured data: the measured values of `measured` (a snapshot of telemetry)
    // become this model's own where they are its state (temperatures, utilization, levels...);
    // what was not measured, and what the model keeps beyond channels (pumps, valves, jobs,
    // throttling), stays modelled. Per channel: how many entities were taken from `measured`.
    std::vector<std::size_t> initialiseFrom(const Snapshot& measured);

    // Keyframes: the whole state (every model's) as bytes, and back. A model restored from the
    // saveState() of another made with the same floor, config and scenario goes on exactly as
    // that one would have, bit for bit (a fork restores the newest keyframe before its moment
    // instead of re-running the recording). The bytes are this build's own: a keyframe of
    // another build, floor, seed, tick or scenario is refused with the reason, and the model is
    // then as it was before the call only if the refusal came before any state was read.
    std::vector<std::byte> saveState();
    std::expected<void, std::string> restoreState(std::span<const std::byte> bytes);

private:
    bool m_profiling = false;
    std::array<double, static_cast<std::size_t>(Stage::Count)> m_stageMs{};

    // The largest channels (per GPU, CPU, PSU and tray: 93 % of a 1,778-rack floor's 1.8 M
    // values), which every tick writes for every entity. Each tick writes them into new buffers
    // instead of over the ones the last snapshot shares, and reads last tick's values, where it
    // needs them, from previous(). The stage that writes one must write every entity that is not
    // held, and nothing may read it in a tick before its stage has (it holds no values then).
    static constexpr std::array<ChannelId, 20> kRenewedChannels{
        ch::GpuUtilization,  ch::GpuPower,        ch::GpuTemperature,  ch::GpuSmClock,
        ch::GpuNvlinkTx,     ch::GpuNvlinkRx,     ch::CpuUtilization,  ch::CpuPower,
        ch::CpuTemperature,  ch::TrayPower,       ch::CacheHitRatio,   ch::CacheRead,
        ch::CacheLatencyP50, ch::CacheLatencyP99, ch::PsuOutput,       ch::PsuInput,
        ch::PsuLoad,         ch::PsuState,        ch::PsuInputVoltage, ch::PsuInputCurrent};
    static constexpr bool renewed(ChannelId c) {
        return std::ranges::find(kRenewedChannels, c) != kRenewedChannels.end();
    }
    std::shared_ptr<ColumnPool> m_columns = std::make_shared<ColumnPool>();
    std::vector<Column> m_previous; // [channel]: last tick's values of the renewed, in step()
    void renewColumns();
    void copyState(Snapshot& out, bool shareRenewed) const;
    // Last tick's values of a renewed channel (during step()).
    const float* previous(ChannelId c) const { return m_previous[c].data(); }
    // A channel written outside step() (a measurement, a what-if's start): its own buffer.
    Column& writableState(ChannelId c);

    Holds holds() const { return {&m_heldUntil, m_state.time}; }
    bool held(ChannelId c, EntityId e) const { return holds()(c, e); }
    void runScenario();
    void stepComputeTrays(float dt); // sim_trays.cpp, with the GPUs' noise
    void stepFabric(float dt);
    EntityId rackOf(EntityKind kind, EntityId entity) const; // kNoRack for floor-level entities
    EntityId trayOf(EntityKind kind, EntityId entity) const; // kNoRack outside compute trays
    static constexpr EntityId kNoRack = ~EntityId{0};
    // A GPU's own counters (sim_gpu_counters.cpp): what a measured one implies (an XID seen,
    // the memory totals), and each GPU's health from them once a second.
    void applyGpuCounter(const Sample& s, float before);
    void deriveGpuMemory(EntityId gpu);
    bool everMeasured(ChannelId c, EntityId e) const {
        return e < m_heldUntil[c].size() && m_heldUntil[c][e] > 0;
    }
    void stepGpuHealth();
    // What the scheduler says of the nodes (sim_scheduler.cpp): each node's state change as an
    // event, its words for the inspector, and the racks' lifecycle when the floor follows it.
    void applyNodeNotes(const std::vector<NodeNote>& notes);
    void applySchedulerState(const Sample& s, float before, bool measuredBefore);
    void stepSchedulerLifecycle();
    std::vector<NodeNote> m_nodeNotes; // by compute tray, once a scheduler reports
    // An alerting source's list (sim_alerts.cpp): merged with the others' into the snapshot's
    // board; what fired, resolved, was silenced or unsilenced since its last list is an event.
    void applyAlerts(std::uint16_t source, const std::shared_ptr<const AlertBoard>& board);
    std::map<std::uint16_t, std::shared_ptr<const AlertBoard>> m_alertsBySource;
    std::vector<std::uint8_t> m_schedulerDirty; // racks whose nodes changed state
    bool m_jobsFromScheduler = false;
    std::vector<Event> m_appliedEvents; // raised by apply(), published with the next tick
    void noteMeasured(EntityKind kind, EntityId entity, TimeNs at);
    void markChannelMeasured(ChannelId channel);
    bool alarmFromMeasurement(ChannelId channel, EntityId entity) const;
    void stepRackTotals();
    void updateJobPace();
    void evaluateAlarms();
    void publishEvents();

    std::shared_ptr<const Topology> m_topology;
    SimConfig m_config;
    Scenario m_scenario;
    std::size_t m_nextScenarioEvent = 0;
    WorkloadModel m_workload;
    ThermalModel m_thermal;
    LifecycleModel m_lifecycle;
    StorageModel m_storage;
    FabricModel m_fabric;
    PowerModel m_power;
    std::vector<FabricModel::TrayInput> m_fabricTrays;
    std::vector<FabricModel::RackInput> m_fabricRacks;
    std::unordered_map<std::uint64_t, std::pair<float, TimeNs>>
        m_detailHeld; // (channel, entity) -> measured value, held until
    std::vector<float> m_trayRead, m_trayCheckpoint; // GB/s wanted this tick
    std::vector<std::uint8_t> m_trayJobStarted;
    std::vector<TimeNs> m_rackJobStart;        // to notice a rack's job changing
    std::vector<std::uint64_t> m_rackJobPhase; // for the incident tracker: job, start, checkpoint
    Snapshot m_state;
    std::vector<std::vector<TimeNs>> m_heldUntil; // [channel][entity], allocated on first use
    std::vector<float> m_gpuBias;                 // per-GPU silicon variation, fixed
    std::vector<float> m_gpuThrottle;             // 1 = full clocks
    std::vector<float> m_rackMinThrottle;         // slowest GPU of each rack, last tick
    // Per-GPU utilization noise (already scaled) for the current half-second period, and the
    // next period's, filled a slice per tick (gpuNoise).
    struct NoisePeriod {
        std::optional<std::uint64_t> period; // none yet
        std::size_t filled = 0;
        std::vector<float> values;
        template <class Archive> void persist(Archive& ar) { ar(period, filled, values); }
    };
    NoisePeriod m_noise, m_noiseNext;
    void fillNoise(NoisePeriod& n, std::uint64_t period, std::size_t upTo) const;
    const float* gpuNoise();
    // The tray stage's scratch for one rack, grown to the largest rack once (sim_trays.cpp):
    // what each GPU is given by its tray, each GPU's effective clock, and each tray's part.
    struct TrayStageScratch {
        std::vector<float> target, pace, on, coolant, effective; // per GPU of the rack
        struct Tray {
            WorkloadModel::TrafficShare share;
            float pace = 1.0f, rise = 0.0f;
            bool powered = false;
        };
        std::vector<Tray> trays;
    };
    TrayStageScratch m_trayScratch;
    std::vector<std::uint8_t> m_rackGpuTempMeasured; // telemetry: any GPU temperature held
    // Scratch per rack: its GPUs' utilization sum, temperature sum and hottest, for the totals.
    std::vector<std::array<float, 3>> m_rackGpuSums;
    std::vector<std::uint8_t> m_rackPowered; // this tick: not tripped and not held off by its stage
    std::vector<float> m_jobPace;            // per job: the pace of its slowest member
    static constexpr std::size_t kMaxEventLog = 5000;
    std::vector<Event> m_newEvents;                // this tick's
    SharedLogWriter<Event> m_events{kMaxEventLog}; // the newest, for snapshots
    // Real telemetry: each GPU's job label, and the jobs racks run by them (for incidents).
    std::vector<std::string> m_gpuJobLabel;
    std::vector<std::string> m_labelJobNames;
    std::vector<std::uint32_t> m_labelRackJob;
    std::vector<std::uint64_t> m_labelRackPhase;
    bool m_labelJobsChanged = false;
    void updateLabelJobs();
    // The snapshot's rackJobs: the simulator's jobs (a key per rack: job + 1, 0 none) or, with
    // telemetry, the GPUs' job labels; a new list only when a name changed.
    std::vector<std::uint32_t> m_rackJobKey;
    void updateRackJobs();
    void publishRackJobs(std::vector<std::string> names);
    IncidentTracker m_incidents;
    struct AlarmRule {
        std::string_view title;
        ChannelId channel;
        float warnAbove;
        float criticalAbove;
        float hysteresis;
        bool below = false; // alarm when the value falls below the thresholds instead
    };
    std::vector<AlarmRule> m_alarmRules;
    std::vector<std::vector<std::uint8_t>> m_alarmLevel; // per rule, per entity: 0/1/2
    std::vector<std::vector<TimeNs>> m_alarmSince;
    bool m_settling = false;
    template <class Archive> void members(Archive& ar); // what saveState() keeps
    std::size_t m_keyframeBytes = 0;                    // the last one's size, with room to grow
};

} // namespace ft::model
