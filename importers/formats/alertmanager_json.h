#pragma once
// Alertmanager's API v2 answers, as every release since 0.16 serves them: /api/v2/alerts (a list
// of GettableAlert), /api/v2/alerts/groups (AlertGroups, each with its receiver and its alerts;
// one alert appears in every group that routes it, read once here) and /api/v2/silences. Both
// schemas in use are read: `status.mutedBy` (time intervals) exists from 0.27 on and is optional
// here (0.22 and Debian's 0.25 have none). Times are RFC 3339 with any fraction.
// One bad alert is skipped with a warning that says which and why; the others are kept. A body
// that is not JSON, or not the list it should be, is an error naming `what` and the place.
// Also the bodies the twin sends: a silence (POST /api/v2/silences) and its own alerts (POST
// /api/v2/alerts). Pure functions over bytes (no Qt), fuzzed with the other answers.
#include "model/external_alert.h"

#include <expected>
#include <string>
#include <string_view>
#include <vector>

namespace ft::importers {

struct AlertmanagerAnswer {
    std::vector<model::ExternalAlert> alerts; // source, severity and placement not yet set
    std::vector<model::SilenceNote> silences; // from /api/v2/silences
    std::vector<std::string> warnings;        // entries skipped or fields ignored, with why
    std::size_t skipped = 0;                  // entries that could not be used
    bool groups = false;                      // the answer was /api/v2/alerts/groups
};

// /api/v2/alerts or /api/v2/alerts/groups (told apart by their shape).
std::expected<AlertmanagerAnswer, std::string> parseAlertmanagerAlerts(std::string_view body,
                                                                       std::string_view what);
// /api/v2/silences.
std::expected<AlertmanagerAnswer, std::string> parseAlertmanagerSilences(std::string_view body,
                                                                         std::string_view what);

// Which severity an alert's label value means (case ignored). The defaults: critical, page,
// error, high, emergency, fatal, disaster -> critical; warning, warn, major, minor, medium,
// average -> warning; info, informational, notice, low, none, debug -> info; anything else,
// and no label at all, -> warning.
struct SeverityMap {
    std::string label = "severity";
    std::vector<std::pair<std::string, model::Severity>> values; // checked before the defaults
};
model::Severity severityOf(const model::ExternalAlert& alert, const SeverityMap& map);
// "p1=critical,p2=warning,sev=LABEL": extra values (and the label's name); the error says what
// was expected.
std::expected<SeverityMap, std::string> parseSeverityMap(std::string_view text);

// The silences of `answer.silences` that mute each alert, copied onto it (by silencedBy ids).
void attachSilences(std::vector<model::ExternalAlert>& alerts,
                    const std::vector<model::SilenceNote>& silences);

// A silence as POST /api/v2/silences takes it.
struct NewSilence {
    std::vector<model::SilenceMatcher> matchers;
    model::TimeNs startsAt = 0, endsAt = 0;
    std::string createdBy, comment;
};
std::string silenceRequestBody(const NewSilence& silence);
// The id of a created silence ({"silenceID": "..."}), or why not.
std::expected<std::string, std::string> parseSilenceCreated(std::string_view body);

// Alerts as POST /api/v2/alerts takes them.
struct PostedAlert {
    model::Labels labels, annotations;
    model::TimeNs startsAt = 0, endsAt = 0;
    std::string generatorUrl;
};
std::string alertsRequestBody(const std::vector<PostedAlert>& alerts);

// RFC 3339 in UTC with milliseconds, as Alertmanager writes it ("2026-12-07T14:25:33.120Z").
std::string rfc3339(model::TimeNs t);

} // namespace ft::importers
