#pragma once
// StorageModel: where training and inference data flows and waits. Per compute tray, a node-local
// NVMe object cache that warms as jobs read (a new job starts cold) and serves hits at local
// latency; misses go to the local region's bucket, whose latency rises with load. Checkpoints land
// in the local region's hot tier at local latency and migrate to the remote region in the
// background over a link of finite capacity (FIFO backlog, oldest-pending age). Each region's store
// keeps bytes by whole days since last access, aged on a compressed clock: hot, warm, cold, then
// archive (write-once, rarely read); a read of a warm or cold object re-heats it. Faults arrive as
// scenario events. Owned by SimModel; sim thread only.
#include "scenario.h"
#include "snapshot.h"
#include "topology.h"

#include <deque>
#include <vector>

namespace ft::model {

class StorageModel {
public:
    explicit StorageModel(const Topology& topology);

    void apply(const ScenarioEvent& event, TimeNs now, std::vector<Event>& events);
    // readDemand / checkpointWrite: per compute tray, GB/s wanted this tick; jobStarted: per
    // tray, its job just changed (the cache must warm up again).
    void step(Snapshot& state, float dt, const std::vector<float>& readDemand,
              const std::vector<float>& checkpointWrite,
              const std::vector<std::uint8_t>& jobStarted);

    // Exact bookkeeping, for conservation checks: TB.
    double writtenTotal() const { return m_writtenTotal; }
    double migratedTotal() const { return m_migratedTotal; }
    double backlog() const { return m_backlogTb; }
    double storedTb(EntityId region) const;
    // What other clients of the store wrote (per region, TB): keeps the age profile steady.
    double backgroundTb() const { return m_backgroundTb; }
    double initialTb() const { return m_initialTb; }
    // Bytes (TB) of a region's store by whole days since last access; the last bin is archive.
    const std::vector<double>& ageBins(EntityId region) const { return m_bins[region]; }
    void writeForTest(EntityId region, double tb) { m_bins[region][0] += tb; }

    // Keyframes (state_archive.h).
    template <class Archive> void persist(Archive& ar) {
        ar(m_warm, m_offline, m_bins, m_tierInflow, m_dayFraction, m_pending, m_backlogTb,
           m_writtenTotal, m_migratedTotal, m_linkFraction, m_linkGbps, m_initialTb, m_backgroundTb,
           m_dailyIngestTb);
    }

private:
    void age(double days);

    const Topology& m_topology;
    std::vector<float> m_warm;               // per tray: fraction of the working set cached
    std::vector<std::uint8_t> m_offline;     // per tray: cache failed
    std::vector<std::vector<double>> m_bins; // per region: TB by age in days; last = archive
    std::vector<double> m_tierInflow; // per tier entity: TB moved in during the last aged day
    double m_dayFraction = 0;
    struct Pending {
        TimeNs written;
        double tb;
    };
    std::deque<Pending> m_pending;
    double m_backlogTb = 0, m_writtenTotal = 0, m_migratedTotal = 0;
    float m_linkFraction = 1.0f;
    double m_linkGbps = 0;     // the inter-region link, Gb/s (as given, or sized to the floor)
    double m_initialTb = 0;    // per region
    double m_backgroundTb = 0; // per region, since the start
    double m_dailyIngestTb = 0;
};

} // namespace ft::model
