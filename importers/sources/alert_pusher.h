#pragma once
// AlertPusher (--alertmanager-push URL): the twin's own cause chains sent to the pager. Every
// interval it reads the newest snapshot's incidents and posts each open one to Alertmanager's
// POST /api/v2/alerts as an alert Alertmanager routes like any other: labels alertname
// "FloortwinCause", severity, rack and row (or cdu), cause (the root's domain) and incident (its
// id, so each incident is one alert); annotations summary (the root) and description (the chain in
// words); endsAt a few intervals ahead, refreshed while the incident holds. An incident that ended
// is posted once more with endsAt at its end, which resolves it. Its health shows in the Sources
// panel like a source's (it reads nothing, so it maps nothing). One thread; start()/stop() by
// the owner, health() from any thread.
#include "alertmanager_source.h"
#include "live_source.h"
#include "model/incident_tracker.h"
#include "model/snapshot.h"
#include "model/topology.h"
#include "poll_thread.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>

namespace ft::importers {

// The alerts for `incidents` as of `now`: every open one (endsAt = now + `hold`), and those in
// `open` (ids sent as open before) that have ended since (endsAt = their end). `open` is
// updated to the ids open now.
std::vector<PostedAlert> incidentAlerts(const model::Snapshot& snapshot,
                                        const model::Topology& topology, model::TimeNs now,
                                        model::TimeNs hold, std::map<std::uint32_t, bool>& open);

class AlertPusher final : public LiveSource {
public:
    using Latest = std::function<std::shared_ptr<const model::Snapshot>()>;
    AlertPusher(AlertmanagerConfig target, std::chrono::milliseconds interval,
                std::shared_ptr<const model::Topology> topology, Latest latest);
    ~AlertPusher() override;
    AlertPusher(const AlertPusher&) = delete;
    AlertPusher& operator=(const AlertPusher&) = delete;

    void start() override;
    void stop() override;
    std::vector<SourceHealth> health() const override;

private:
    void pushOnce();

    AlertmanagerConfig m_target;
    std::chrono::milliseconds m_interval;
    std::shared_ptr<const model::Topology> m_topology;
    Latest m_latest;
    std::map<std::uint32_t, bool> m_open; // push thread only
    PollThread m_poller;
    mutable std::mutex m_mutex;
    SourceHealth m_health; // guarded by m_mutex
};

} // namespace ft::importers
