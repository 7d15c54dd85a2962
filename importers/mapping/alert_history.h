#pragma once
// A window's alerts from Prometheus itself, for an imported incident: ALERTS{alertstate=
// "firing"} over the window says which alert fired at each step (one series per alert, a point
// per step while it fires), ALERTS_FOR_STATE (where the server has it) when each became active.
// AlertHistory gathers the answers slice by slice and gives the board as of any moment of the
// window, each alert placed on the floor by its labels as Alertmanager's are. Pure C++ (no Qt).
#include "alert_placement.h"
#include "entity_name_index.h"
#include "importers/formats/alertmanager_json.h"
#include "importers/formats/promql_response.h"
#include "model/external_alert.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ft::importers {

class AlertHistory {
public:
    AlertHistory(const model::Topology& topology, SeverityMap severity, std::string source);

    // One query_range answer of ALERTS{alertstate="firing"} (more of the window each time).
    void addFiring(const PromqlResult& answer);
    // One of ALERTS_FOR_STATE: each alert's activeAt (the value, in Unix seconds).
    void addActiveSince(const PromqlResult& answer);
    // The board at `time` (an alert fires there when its newest point at or before `time` is
    // less than `step` old), or null when it is the same as the one this returned last.
    std::shared_ptr<const model::AlertBoard> changedAt(model::TimeNs time, model::TimeNs step);
    std::size_t alerts() const { return m_series.size(); }

private:
    struct Series {
        model::ExternalAlert alert; // placed once, when first seen
        std::vector<model::TimeNs> points;
    };
    EntityNameIndex m_index;
    SeverityMap m_severity;
    std::string m_source;
    std::map<std::string, Series> m_series;             // by fingerprint
    std::map<std::string, model::TimeNs> m_activeSince; // by fingerprint
    std::vector<const Series*> m_last;                  // as of the last board
    bool m_any = false;
};

// The labels an alert is known by (ALERTS' own `alertstate` and `__name__` left out), sorted,
// and their fingerprint (FNV-1a of the sorted pairs, 16 hex digits).
model::Labels alertLabels(const std::vector<std::pair<std::string, std::string>>& series);
std::string labelsFingerprint(const model::Labels& labels);

} // namespace ft::importers
