#include "storage_model.h"

#include <algorithm>
#include <cmath>

namespace ft::model {
namespace {
constexpr float kMaxHitRatio = 0.997f; // LOTA-like caches top out here
constexpr float kWorkingSetTb = 2.5f;  // per tray: what a job streams repeatedly
constexpr float kCacheP50Ms = 0.25f, kCacheP99Ms = 1.1f;
constexpr float kBucketP50Ms = 6.0f;       // p99 is 8x the cache's, before load
constexpr float kBucketGbpsPerTray = 1.2f; // bucket read capacity scales with the floor
constexpr double kReheatFraction = 0.2;    // of bucket reads that touch warm/cold objects
constexpr double kObjectMb = 32.0;         // mean object size
} // namespace

StorageModel::StorageModel(const Topology& topology) : m_topology(topology) {
    const auto& st = topology.spec().storage;
    m_linkGbps = st.interRegionGbps > 0 ? st.interRegionGbps
                                        : model::StorageSpec::kInterRegionGbpsPerRack *
                                              static_cast<double>(topology.count(EntityKind::Rack));
    const std::size_t trays = topology.count(EntityKind::ComputeTray);
    m_warm.assign(trays, 1.0f); // running jobs have read their working sets before we start
    m_offline.assign(trays, 0);
    const auto days = static_cast<std::size_t>(std::ceil(st.archiveAfterDays));
    m_bins.assign(topology.count(EntityKind::Region), std::vector<double>(days + 1, 0.0));
    // Data already there: ages spread exponentially (most recent most), a share archived. Other
    // clients keep writing at the rate that holds this profile steady.
    const double total = st.initialPetabytes * 1000.0;
    double weight = 0;
    for (std::size_t d = 0; d < days; ++d)
        weight += std::exp(-static_cast<double>(d) / 25.0);
    for (auto& bins : m_bins) {
        for (std::size_t d = 0; d < days; ++d)
            bins[d] = 0.7 * total * std::exp(-static_cast<double>(d) / 25.0) / weight;
        bins[days] = 0.3 * total;
    }
    m_initialTb = total;
    m_dailyIngestTb = 0.7 * total / weight;
    m_tierInflow.assign(topology.count(EntityKind::StorageTier), 0.0);
}

double StorageModel::storedTb(EntityId region) const {
    double sum = 0;
    for (double tb : m_bins[region])
        sum += tb;
    return sum;
}

void StorageModel::apply(const ScenarioEvent& ev, TimeNs, std::vector<Event>&) {
    std::vector<EntityId> racks = ev.targets;
    if (racks.empty() && ev.target && ev.target->kind == EntityKind::Rack)
        racks.push_back(ev.target->id);
    const int trays = m_topology.spec().rack.computeTrays;
    switch (ev.action) {
    case ScenarioAction::RegionLink:
        m_linkFraction = static_cast<float>(std::clamp(ev.value, 0.0, 1.0));
        break;
    case ScenarioAction::CacheLoss:
    case ScenarioAction::CacheRestore:
        for (EntityId r : racks)
            for (int t = 0; t < trays; ++t) {
                const auto tray = r * trays + t;
                m_offline[tray] = ev.action == ScenarioAction::CacheLoss;
                m_warm[tray] = 0; // a lost cache comes back empty
            }
        break;
    default:
        break;
    }
}

void StorageModel::age(double days) {
    // Whole days only, so tier boundaries are exact: after N days an untouched byte is N days old.
    m_dayFraction += days;
    const auto& st = m_topology.spec().storage;
    const std::size_t nTiers = st.tiers.size();
    while (m_dayFraction >= 1.0) {
        m_dayFraction -= 1.0;
        std::ranges::fill(m_tierInflow, 0.0);
        for (std::size_t r = 0; r < m_bins.size(); ++r) {
            auto& bins = m_bins[r];
            const std::size_t archive = bins.size() - 1;
            // Crossing into warm, cold and archive today.
            const auto warmDay = static_cast<std::size_t>(st.warmAfterDays),
                       coldDay = static_cast<std::size_t>(st.coldAfterDays);
            if (warmDay >= 1 && warmDay <= archive)
                m_tierInflow[r * nTiers + 1] = bins[warmDay - 1];
            if (coldDay >= 1 && coldDay <= archive)
                m_tierInflow[r * nTiers + 2] = bins[coldDay - 1];
            m_tierInflow[r * nTiers + 3] = bins[archive - 1];
            bins[archive] += bins[archive - 1];
            for (std::size_t d = archive - 1; d > 0; --d)
                bins[d] = bins[d - 1];
            bins[0] = m_dailyIngestTb;
        }
        m_backgroundTb += m_dailyIngestTb;
    }
}

void StorageModel::step(Snapshot& s, float dt, const std::vector<float>& readDemand,
                        const std::vector<float>& checkpointWrite,
                        const std::vector<std::uint8_t>& jobStarted) {
    auto& v = s.values;
    const auto& st = m_topology.spec().storage;
    const std::size_t trays = m_topology.count(EntityKind::ComputeTray);
    const int perRack = m_topology.spec().rack.computeTrays;
    const auto capacityTb = static_cast<float>(st.cacheTbPerTray);

    // Bucket load from last tick's misses sets this tick's bucket latency (queueing).
    const float bucketCapacity = kBucketGbpsPerTray * static_cast<float>(trays);
    const float load = std::clamp(
        v[ch::RegionRead].empty() ? 0.0f : v[ch::RegionRead][0] / bucketCapacity, 0.0f, 2.0f);
    const float bucketP50 = kBucketP50Ms * (1.0f + load * load);
    const float bucketP99 = 8.0f * kCacheP99Ms * (1.0f + 4.0f * load * load * load);

    double missGb = 0, writeGb = 0, bucketReadGbps = 0, writeGbps = 0;
    std::fill(v[ch::RackCacheHitRatio].begin(), v[ch::RackCacheHitRatio].end(), 0.0f);
    std::fill(v[ch::RackStorageRead].begin(), v[ch::RackStorageRead].end(), 0.0f);
    std::fill(v[ch::RackCheckpointWrite].begin(), v[ch::RackCheckpointWrite].end(), 0.0f);
    for (std::size_t t = 0; t < trays; ++t) {
        if (jobStarted[t]) m_warm[t] = 0.1f; // a new job's dataset: the cache starts (nearly) cold
        const float demand = readDemand[t];
        const float hit = m_offline[t] ? 0.0f : kMaxHitRatio * m_warm[t];
        const float miss = demand * (1.0f - hit);
        // Misses fill the cache: the working set warms as it is read.
        if (!m_offline[t])
            m_warm[t] = std::min(1.0f, m_warm[t] + miss * dt / (kWorkingSetTb * 1000.0f) * 6.0f);
        float& used = v[ch::CacheUsed][t];
        used = m_offline[t]
                   ? 0.0f
                   : std::min(capacityTb, std::max(used, m_warm[t] * kWorkingSetTb * 4.0f));
        v[ch::CacheHitRatio][t] = hit * 100.0f;
        v[ch::CacheRead][t] = demand;
        // Median: a hit unless most reads miss; p99: a bucket read once more than 1 % miss.
        v[ch::CacheLatencyP50][t] = hit >= 0.5f ? kCacheP50Ms : bucketP50;
        v[ch::CacheLatencyP99][t] = 1.0f - hit > 0.01f ? bucketP99 : kCacheP99Ms;
        missGb += miss * dt;
        bucketReadGbps += miss;
        writeGb += checkpointWrite[t] * dt;
        writeGbps += checkpointWrite[t];
        const auto rack = static_cast<EntityId>(t / perRack);
        v[ch::RackCacheHitRatio][rack] += hit * 100.0f / static_cast<float>(perRack);
        v[ch::RackStorageRead][rack] += demand;
        v[ch::RackCheckpointWrite][rack] += checkpointWrite[t];
    }

    // Writes land in the local region's hot tier and queue for migration.
    const double writtenTb = writeGb / 1000.0;
    if (!m_bins.empty() && writtenTb > 0) {
        m_bins[0][0] += writtenTb;
        m_writtenTotal += writtenTb;
        m_backlogTb += writtenTb;
        m_pending.push_back({s.time, writtenTb});
    }
    // Migration drains the backlog, oldest first, at the link's capacity.
    const double linkGBps = m_linkGbps / 8.0 * m_linkFraction;
    double room = linkGBps * dt / 1000.0; // TB this tick
    double migrated = 0;
    while (room > 0 && !m_pending.empty()) {
        Pending& p = m_pending.front();
        const double take = std::min(room, p.tb);
        p.tb -= take;
        room -= take;
        migrated += take;
        if (p.tb <= 1e-12) m_pending.pop_front();
    }
    m_backlogTb = std::max(0.0, m_backlogTb - migrated);
    m_migratedTotal += migrated;
    if (m_bins.size() > 1) m_bins[1][0] += migrated;

    // A few bucket reads touch warm or cold objects: those re-heat to day 0.
    if (!m_bins.empty()) {
        auto& bins = m_bins[0];
        const auto warmDay = static_cast<std::size_t>(st.warmAfterDays);
        double reheat = missGb / 1000.0 * kReheatFraction, old = 0;
        for (std::size_t d = warmDay; d + 1 < bins.size(); ++d)
            old += bins[d];
        reheat = std::min(reheat, old);
        if (reheat > 0 && old > 0) {
            const double keep = 1.0 - reheat / old;
            for (std::size_t d = warmDay; d + 1 < bins.size(); ++d)
                bins[d] *= keep;
            bins[0] += reheat;
        }
    }
    age(dt * st.agingDaysPerMinute / 60.0);

    // Tiers and regions.
    const std::size_t nTiers = st.tiers.size();
    for (std::size_t r = 0; r < m_bins.size(); ++r) {
        const auto& bins = m_bins[r];
        double tier[4] = {};
        for (std::size_t d = 0; d + 1 < bins.size(); ++d)
            tier[d < st.warmAfterDays ? 0 : d < st.coldAfterDays ? 1 : 2] += bins[d];
        tier[3] = bins.back();
        for (std::size_t k = 0; k < 4 && k < nTiers; ++k) {
            const std::size_t id = r * nTiers + k;
            v[ch::TierBytes][id] = static_cast<float>(tier[k]);
            v[ch::TierObjects][id] = static_cast<float>(tier[k] * 1e6 / kObjectMb / 1e6);
            v[ch::TierInflow][id] = static_cast<float>(m_tierInflow[id]);
        }
        const bool local = r == 0;
        v[ch::RegionRead][r] = local ? static_cast<float>(bucketReadGbps) : 0.0f;
        v[ch::RegionWrite][r] =
            local ? static_cast<float>(writeGbps) : static_cast<float>(migrated * 1000.0 / dt);
        v[ch::RegionRequests][r] = (v[ch::RegionRead][r] + v[ch::RegionWrite][r]) * 1000.0f /
                                   static_cast<float>(kObjectMb);
        // Cross-region metadata commits time out when the link is starved.
        const float errorRate =
            1e-5f + (m_linkFraction < 0.5f ? 0.004f * (1.0f - m_linkFraction) : 0.0f);
        v[ch::RegionErrors][r] = v[ch::RegionRequests][r] * 1000.0f * errorRate;
        v[ch::RegionMigration][r] = local ? static_cast<float>(migrated * 1000.0 / dt) : 0.0f;
        v[ch::RegionBacklog][r] = local ? static_cast<float>(m_backlogTb) : 0.0f;
        v[ch::RegionOldestPending][r] =
            local && !m_pending.empty()
                ? static_cast<float>(toSeconds(s.time - m_pending.front().written))
                : 0.0f;
        v[ch::RegionLinkCapacity][r] = static_cast<float>(linkGBps);
        v[ch::RegionDrainTime][r] =
            local ? static_cast<float>(linkGBps > 0 ? m_backlogTb * 1000.0 / linkGBps
                                                    : (m_backlogTb > 0 ? 7200.0 : 0.0))
                  : 0.0f;
        v[ch::RegionWrittenTotal][r] = local ? static_cast<float>(m_writtenTotal) : 0.0f;
        v[ch::RegionMigratedTotal][r] = local ? static_cast<float>(m_migratedTotal) : 0.0f;
    }
}

} // namespace ft::model
