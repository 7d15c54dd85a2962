// SimModel's keyframes: its whole state as bytes (state_archive.h), and back.
#include "sim_model.h"
#include "state_archive.h"

#include <array>
#include <cmath>
#include <cstring>
#include <type_traits>

namespace ft::model {
namespace {

constexpr std::array<char, 4> kMagic{'F', 'T', 'K', 'F'};
// Bump when a kept member is added, removed or changes type (the sizes below catch most such
// changes too, but not all).
constexpr std::uint32_t kStateVersion = 4; // 4: the scheduler's node states

// What the bytes' layout depends on: a keyframe of a build whose classes differ is refused.
constexpr std::uint64_t layoutFingerprint() {
    std::uint64_t h = 1469598103934665603ull;
    for (const std::size_t n :
         {sizeof(SimModel), sizeof(WorkloadModel), sizeof(ThermalModel), sizeof(LifecycleModel),
          sizeof(StorageModel), sizeof(FabricModel), sizeof(PowerModel), sizeof(IncidentTracker),
          sizeof(Snapshot), sizeof(Job), sizeof(Event), sizeof(Incident), sizeof(IncidentStep),
          sizeof(LifecycleTransition), sizeof(FabricModel::TrayInput),
          sizeof(FabricModel::RackInput), sizeof(Alarm), sizeof(SimConfig)}) {
        h ^= n;
        h *= 1099511628211ull;
    }
    return h;
}

// What must match between the model that saved and the one restoring.
struct KeyframeHeader {
    std::array<char, 4> magic = kMagic;
    std::uint32_t version = kStateVersion;
    std::uint64_t layout = layoutFingerprint();
    std::uint64_t seed = 0;
    TimeNs startTime = 0, step = 0, counterInterval = 0, measurementHold = 0, staleAfter = 0;
    std::uint8_t telemetry = 0;
    // Written as its bytes: no padding may be left for the compiler to fill with whatever the
    // stack held (clang's did, and a restored model's keyframe differed from the one it read).
    std::array<std::uint8_t, 7> reserved{};
    std::array<std::uint64_t, kEntityKindCount> counts{};
    std::uint64_t scenarioEvents = 0;
};
static_assert(std::has_unique_object_representations_v<KeyframeHeader>,
              "KeyframeHeader must have no padding: its bytes are the keyframe's");

KeyframeHeader headerOf(const Topology& t, const SimConfig& c, const Scenario& scenario) {
    KeyframeHeader h;
    h.seed = c.seed;
    h.startTime = c.startTime;
    h.step = c.step;
    h.counterInterval = c.counterInterval;
    h.measurementHold = c.measurementHold;
    h.staleAfter = c.staleAfter;
    h.telemetry = c.telemetry ? 1 : 0;
    for (std::size_t k = 0; k < kEntityKindCount; ++k)
        h.counts[k] = t.count(static_cast<EntityKind>(k));
    h.scenarioEvents = scenario.events.size();
    return h;
}

std::string mismatch(const KeyframeHeader& got, const KeyframeHeader& want) {
    if (got.magic != want.magic) return "not a floortwin keyframe";
    if (got.version != want.version || got.layout != want.layout)
        return "written by another build of floortwin";
    if (got.counts != want.counts) return "of another floor";
    if (got.seed != want.seed || got.startTime != want.startTime || got.step != want.step ||
        got.counterInterval != want.counterInterval ||
        got.measurementHold != want.measurementHold || got.staleAfter != want.staleAfter ||
        got.telemetry != want.telemetry)
        return "of a run with another seed, start or tick";
    if (got.scenarioEvents != want.scenarioEvents) return "of a run with another scenario";
    return {};
}

} // namespace

template <class Archive> void SimModel::members(Archive& ar) {
    // The topology, config, scenario, alarm rules and per-GPU bias are made again the same way
    // by the constructor; everything that moves is here.
    ar(m_nextScenarioEvent, m_workload, m_thermal, m_lifecycle, m_storage, m_fabric, m_power,
       m_fabricTrays, m_fabricRacks, m_detailHeld, m_trayRead, m_trayCheckpoint, m_trayJobStarted,
       m_rackJobStart, m_rackJobPhase, m_heldUntil, m_gpuThrottle, m_rackMinThrottle, m_noise,
       m_noiseNext, m_rackGpuTempMeasured, m_rackPowered, m_jobPace, m_newEvents, m_events,
       m_gpuJobLabel, m_labelJobNames, m_labelRackJob, m_labelRackPhase, m_labelJobsChanged,
       m_incidents, m_alarmLevel, m_alarmSince, m_settling, m_rackJobKey);
    // The snapshot being built; what it shares with the models is joined up again on restore.
    Snapshot& s = m_state;
    ar(s.time, s.tick, s.values, s.detailStamp, s.rackLifecycle, s.telemetry, s.measuredAt,
       s.measuredChannels, s.staleAfter, s.scenario);
}

std::vector<std::size_t> SimModel::initialiseFrom(const Snapshot& measured) {
    std::vector<std::size_t> taken(ch::Count, 0);
    if (!measured.telemetry || measured.values.size() != ch::Count) return taken;
    for (ChannelId c = 0; c < ch::Count; ++c) {
        if (isDetailChannel(c) || !measured.measuredChannels.test(c)) continue;
        Column& mine = writableState(c);
        const auto theirs = measured.channel(c);
        for (EntityId e = 0; e < mine.size() && e < theirs.size(); ++e)
            if (measured.measured(c, e) && std::isfinite(theirs[e])) {
                mine[e] = theirs[e];
                ++taken[c];
            }
    }
    return taken;
}

std::vector<std::byte> SimModel::saveState() {
    StateWriter ar;
    ar.reserve(m_keyframeBytes); // one allocation, not a doubling series of 100 MB copies
    const KeyframeHeader header = headerOf(*m_topology, m_config, m_scenario);
    ar.raw(&header, sizeof header);
    members(ar);
    // Alarms by their rule (their titles are the rules' static text).
    ar(static_cast<std::uint64_t>(m_state.alarms.size()));
    for (const Alarm& a : m_state.alarms) {
        std::uint32_t rule = 0;
        while (rule < m_alarmRules.size() && m_alarmRules[rule].title.data() != a.title.data())
            ++rule;
        ar(rule, a.kind, a.entity, a.channel, a.severity, a.value, a.threshold, a.since);
    }
    const bool jobs = m_state.rackJobs != nullptr;
    ar(jobs);
    if (jobs) ar(*m_state.rackJobs);
    m_keyframeBytes = ar.size() + ar.size() / 16;
    return ar.take();
}

std::expected<void, std::string> SimModel::restoreState(std::span<const std::byte> bytes) {
    StateReader ar(bytes);
    KeyframeHeader got;
    if (!ar.raw(&got, sizeof got)) return std::unexpected("keyframe: too short for its header");
    const KeyframeHeader want = headerOf(*m_topology, m_config, m_scenario);
    if (const std::string why = mismatch(got, want); !why.empty())
        return std::unexpected("keyframe: " + why);
    members(ar);
    std::uint64_t alarms = 0;
    ar(alarms);
    m_state.alarms.clear();
    for (std::uint64_t i = 0; i < alarms && ar.ok(); ++i) {
        std::uint32_t rule = 0;
        Alarm a;
        ar(rule, a.kind, a.entity, a.channel, a.severity, a.value, a.threshold, a.since);
        if (rule >= m_alarmRules.size()) {
            ar.fail();
            break;
        }
        a.title = m_alarmRules[rule].title;
        m_state.alarms.push_back(a);
    }
    bool jobs = false;
    ar(jobs);
    m_state.rackJobs.reset();
    if (jobs) {
        std::vector<std::string> names;
        ar(names);
        m_state.rackJobs = std::make_shared<const std::vector<std::string>>(std::move(names));
    }
    // Sizes must be this floor's: a keyframe that passed the header but disagrees is corrupt.
    const Topology& t = *m_topology;
    bool sized = m_state.values.size() == ch::Count && m_gpuThrottle.size() == m_gpuBias.size() &&
                 m_state.rackLifecycle.size() == t.count(EntityKind::Rack);
    for (ChannelId c = 0; sized && c < ch::Count; ++c)
        sized = m_state.values[c].size() == (isDetailChannel(c) ? 0 : t.count(kChannels[c].kind));
    if (!ar.ok() || !ar.atEnd() || !sized)
        return std::unexpected("keyframe: truncated or corrupt (the model is not usable)");
    m_state.detail = m_fabric.detail();
    m_state.events = m_events.shared();
    m_state.lifecycleHistory = m_lifecycle.machine().sharedHistory();
    m_state.incidents = m_incidents.shared();
    return {};
}

} // namespace ft::model
