#pragma once
// AlertmanagerSource: the floor's own alerting as a live source. Each poll reads every alert
// Alertmanager holds (/api/v2/alerts: firing, silenced, inhibited and unprocessed) and its
// silences (/api/v2/silences), places each alert on the floor by its labels (alert_placement.h),
// gives it its severity and the silences that mute it, and sends the whole list: the simulator
// turns what changed into events and the snapshot's alert board. A poll that fails sends
// nothing (the board keeps the last list; the health says why). One thread per source; the
// owner calls start()/stop(), health() from any thread.
// Also the writes an operator asks for (--alertmanager-write): a silence made and expired.
#include "importers/formats/alertmanager_json.h"
#include "importers/net/http_client.h"
#include "live_source.h"
#include "model/topology.h"
#include "poll_thread.h"

#include <chrono>
#include <expected>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ft::importers {

class EntityNameIndex;

struct AlertmanagerConfig {
    std::string url; // the base: http://alertmanager:9093 (a path prefix kept: .../alertmanager)
    std::chrono::milliseconds interval{5000};
    HttpOptions http;
    SeverityMap severity;
    std::uint16_t sourceId = 0;
};

// "alertmanager HOST:PORT": the name a source's alerts and health carry.
std::string alertmanagerName(const AlertmanagerConfig& config);
// "--source alertmanager=URL": the base URL, checked.
std::expected<AlertmanagerConfig, std::string> parseAlertmanagerSpec(const std::string& spec);

// One read: the alerts with their silences attached, severities set and places found; or why
// not (the error names the request). A silences request that fails leaves the alerts without
// their silences' words and says so in `warnings`.
struct AlertmanagerRead {
    AlertmanagerAnswer answer;
    std::string error;
    double latencyMs = 0;
};
AlertmanagerRead readAlertmanagerOnce(const AlertmanagerConfig& config, HttpClient& client,
                                      EntityNameIndex& index);

// POST /api/v2/silences: the new silence's id, or why not (status and Alertmanager's words).
std::expected<std::string, std::string> createSilence(const AlertmanagerConfig& config,
                                                      const NewSilence& silence);
// DELETE /api/v2/silence/ID.
std::expected<void, std::string> expireSilence(const AlertmanagerConfig& config,
                                               const std::string& id);
// POST /api/v2/alerts.
std::expected<void, std::string> postAlerts(const AlertmanagerConfig& config,
                                            const std::vector<PostedAlert>& alerts);

class AlertmanagerSource final : public LiveSource {
public:
    AlertmanagerSource(AlertmanagerConfig config, std::shared_ptr<const model::Topology> topology,
                       SubmitFn submit);
    ~AlertmanagerSource() override;
    AlertmanagerSource(const AlertmanagerSource&) = delete;
    AlertmanagerSource& operator=(const AlertmanagerSource&) = delete;

    void start() override;
    void stop() override;
    std::vector<SourceHealth> health() const override;
    // Polls at once (after a silence was made or expired) instead of at the next interval.
    void pollSoon();
    const AlertmanagerConfig& config() const { return m_config; }

private:
    void pollOnce(HttpClient& client, EntityNameIndex& index);

    AlertmanagerConfig m_config;
    std::shared_ptr<const model::Topology> m_topology;
    SubmitFn m_submit;
    PollThread m_poller;

    mutable std::mutex m_mutex;
    SourceHealth m_health; // guarded by m_mutex
};

} // namespace ft::importers
