#include "alertmanager_json.h"

#include "json_document.h"
#include "long_format_import.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <nlohmann/json.hpp>
#include <unordered_set>

namespace ft::importers {

namespace {

using Json = nlohmann::json;
using model::AlertState;
using model::Severity;

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// The body as JSON, or why not (with the byte where it broke).
std::expected<Json, std::string> document(std::string_view body, std::string_view what) {
    if (const auto at = jsonNestingBeyond(body, kJsonAnswerDepth))
        return std::unexpected(std::string(what) + ": nested deeper than " +
                               std::to_string(kJsonAnswerDepth) + " levels at byte " +
                               std::to_string(*at));
    try {
        return Json::parse(body);
    } catch (const Json::parse_error& e) {
        return std::unexpected(std::string(what) + ": not JSON (byte " + std::to_string(e.byte) +
                               ")");
    }
}

// A list of strings, or of objects with a "name" (receivers); why not, when it is neither.
std::expected<std::vector<std::string>, std::string> names(const Json& list, const char* key) {
    std::vector<std::string> out;
    if (list.is_null()) return out;
    if (!list.is_array()) return std::unexpected(std::string(key) + " is not a list");
    for (const Json& e : list) {
        if (e.is_string())
            out.push_back(e.get<std::string>());
        else if (e.is_object() && e.contains("name") && e["name"].is_string())
            out.push_back(e["name"].get<std::string>());
        else
            return std::unexpected(std::string(key) + " holds something that is not a name");
    }
    return out;
}

std::expected<model::Labels, std::string> labelSet(const Json& j, const char* key, bool required) {
    model::Labels out;
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) {
        if (required) return std::unexpected(std::string("no ") + key);
        return out;
    }
    if (!it->is_object()) return std::unexpected(std::string(key) + " is not an object");
    for (const auto& [k, v] : it->items()) {
        if (!v.is_string())
            return std::unexpected(std::string(key) + " '" + k + "' is not a string");
        out.emplace_back(k, v.get<std::string>());
    }
    std::ranges::sort(out);
    return out;
}

// A time field: RFC 3339, or absent (0). Present but unreadable is an error.
std::expected<model::TimeNs, std::string> timeField(const Json& j, const char* key, bool required) {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) {
        if (required) return std::unexpected(std::string("no ") + key);
        return 0;
    }
    if (!it->is_string()) return std::unexpected(std::string(key) + " is not a time");
    // Go's zero time: Alertmanager's "not set".
    if (it->get<std::string>().starts_with("0001-01-01T00:00:00")) return 0;
    const auto t = parseRfc3339(it->get<std::string>());
    if (!t)
        return std::unexpected(std::string(key) + " '" + it->get<std::string>() +
                               "' is not an RFC 3339 time");
    return *t;
}

std::string stringField(const Json& j, const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

constexpr std::array kAlertKeys{"labels",       "annotations", "startsAt",  "endsAt", "updatedAt",
                                "generatorURL", "fingerprint", "receivers", "status"};

// One GettableAlert, or why it cannot be used.
std::expected<model::ExternalAlert, std::string> readAlert(const Json& j,
                                                           std::vector<std::string>& unknown) {
    if (!j.is_object()) return std::unexpected("not an object");
    model::ExternalAlert a;
    auto labels = labelSet(j, "labels", true);
    if (!labels) return std::unexpected(labels.error());
    a.labels = std::move(*labels);
    auto annotations = labelSet(j, "annotations", false);
    if (!annotations) return std::unexpected(annotations.error());
    a.annotations = std::move(*annotations);
    a.fingerprint = stringField(j, "fingerprint");
    if (a.fingerprint.empty()) return std::unexpected("no fingerprint");
    for (const auto& [field, out] :
         {std::pair{"startsAt", &a.startsAt}, std::pair{"endsAt", &a.endsAt},
          std::pair{"updatedAt", &a.updatedAt}}) {
        auto t = timeField(j, field, std::string_view(field) == "startsAt");
        if (!t) return std::unexpected(t.error());
        *out = *t;
    }
    a.generatorUrl = stringField(j, "generatorURL");
    if (const auto it = j.find("receivers"); it != j.end()) {
        auto r = names(*it, "receivers");
        if (!r) return std::unexpected(r.error());
        a.receivers = std::move(*r);
    }
    const auto status = j.find("status");
    if (status == j.end() || !status->is_object()) return std::unexpected("no status");
    const std::string state = stringField(*status, "state");
    for (const auto& [field, out] :
         {std::pair{"silencedBy", &a.silencedBy}, std::pair{"inhibitedBy", &a.inhibitedBy},
          std::pair{"mutedBy", &a.mutedBy}}) {
        const auto it = status->find(field);
        if (it == status->end()) continue; // mutedBy: 0.27 on only
        auto list = names(*it, field);
        if (!list) return std::unexpected("status." + list.error());
        *out = std::move(*list);
    }
    if (state == "active")
        a.state = AlertState::Firing;
    else if (state == "suppressed")
        // A silence says who and why; an inhibition only which alert; a mute time interval
        // (mutedBy) is planned quiet, read as a silence.
        a.state = a.silencedBy.empty() && !a.inhibitedBy.empty() ? AlertState::Inhibited
                                                                 : AlertState::Silenced;
    else if (state == "unprocessed")
        a.state = AlertState::Unprocessed;
    else
        return std::unexpected("status.state '" + state +
                               "' is none of active, suppressed, unprocessed");
    a.name = std::string(a.label("alertname"));
    for (const auto& [k, v] : j.items())
        if (std::ranges::find(kAlertKeys, k) == kAlertKeys.end()) unknown.push_back(k);
    return a;
}

// "alert 3 (GpuXidError)": which entry a warning is about.
std::string entryName(std::string_view what, std::size_t index, const Json& j) {
    std::string out = std::string(what) + ": alert " + std::to_string(index + 1);
    if (j.is_object())
        if (const auto l = j.find("labels"); l != j.end() && l->is_object())
            if (const auto n = l->find("alertname"); n != l->end() && n->is_string())
                out += " (" + n->get<std::string>() + ")";
    return out;
}

std::expected<model::SilenceNote, std::string> readSilence(const Json& j) {
    if (!j.is_object()) return std::unexpected("not an object");
    model::SilenceNote s;
    s.id = stringField(j, "id");
    if (s.id.empty()) return std::unexpected("no id");
    s.createdBy = stringField(j, "createdBy");
    s.comment = stringField(j, "comment");
    for (const auto& [field, out] :
         {std::pair{"startsAt", &s.startsAt}, std::pair{"endsAt", &s.endsAt}}) {
        auto t = timeField(j, field, true);
        if (!t) return std::unexpected(t.error());
        *out = *t;
    }
    if (const auto st = j.find("status"); st != j.end() && st->is_object())
        s.state = stringField(*st, "state");
    const auto m = j.find("matchers");
    if (m == j.end() || !m->is_array()) return std::unexpected("no matchers");
    for (const Json& matcher : *m) {
        if (!matcher.is_object() || !matcher.contains("name") || !matcher["name"].is_string() ||
            !matcher.contains("value") || !matcher["value"].is_string())
            return std::unexpected("a matcher without a name or a value");
        const bool regex = matcher.value("isRegex", false);
        const bool equal = matcher.value("isEqual", true); // 0.22 had no isEqual: always equal
        std::string op = equal ? (regex ? "=~ " : "= ") : (regex ? "!~ " : "!= ");
        s.matchers.emplace_back(matcher["name"].get<std::string>(),
                                op + matcher["value"].get<std::string>());
    }
    return s;
}

void warnUnknown(AlertmanagerAnswer& out, std::string_view what,
                 const std::vector<std::string>& unknown) {
    std::vector<std::string> seen;
    for (const auto& k : unknown)
        if (std::ranges::find(seen, k) == seen.end()) seen.push_back(k);
    for (const auto& k : seen)
        out.warnings.push_back(std::string(what) + ": unknown alert field '" + k + "' (ignored)");
}

} // namespace

std::expected<AlertmanagerAnswer, std::string> parseAlertmanagerAlerts(std::string_view body,
                                                                       std::string_view what) {
    auto doc = document(body, what);
    if (!doc) return std::unexpected(doc.error());
    if (!doc->is_array())
        return std::unexpected(std::string(what) +
                               ": expected a list of alerts or alert groups, "
                               "got " +
                               std::string(doc->type_name()));
    AlertmanagerAnswer out;
    // Groups: objects with an "alerts" list (and "labels", "receiver").
    out.groups = !doc->empty() && std::ranges::all_of(*doc, [](const Json& e) {
        return e.is_object() && e.contains("alerts") && !e.contains("fingerprint");
    });
    std::unordered_set<std::string> seen;
    std::vector<std::string> unknown;
    std::size_t index = 0;
    auto take = [&](const Json& j) {
        auto a = readAlert(j, unknown);
        if (!a) {
            ++out.skipped;
            out.warnings.push_back(entryName(what, index, j) + ": " + a.error() + " (skipped)");
        } else if (seen.insert(a->fingerprint).second) {
            out.alerts.push_back(std::move(*a));
        } else if (!out.groups) {
            out.warnings.push_back(entryName(what, index, j) + ": fingerprint " + a->fingerprint +
                                   " listed twice (read once)");
        }
        ++index;
    };
    if (out.groups) {
        for (std::size_t g = 0; g < doc->size(); ++g) {
            const Json& alerts = (*doc)[g]["alerts"];
            if (!alerts.is_array()) {
                ++out.skipped;
                out.warnings.push_back(std::string(what) + ": group " + std::to_string(g + 1) +
                                       ": alerts is not a list (skipped)");
                continue;
            }
            for (const Json& a : alerts)
                take(a);
        }
    } else {
        for (const Json& a : *doc)
            take(a);
    }
    warnUnknown(out, what, unknown);
    return out;
}

std::expected<AlertmanagerAnswer, std::string> parseAlertmanagerSilences(std::string_view body,
                                                                         std::string_view what) {
    auto doc = document(body, what);
    if (!doc) return std::unexpected(doc.error());
    if (!doc->is_array())
        return std::unexpected(std::string(what) + ": expected a list of silences, got " +
                               std::string(doc->type_name()));
    AlertmanagerAnswer out;
    for (std::size_t i = 0; i < doc->size(); ++i) {
        auto s = readSilence((*doc)[i]);
        if (!s) {
            ++out.skipped;
            out.warnings.push_back(std::string(what) + ": silence " + std::to_string(i + 1) + ": " +
                                   s.error() + " (skipped)");
            continue;
        }
        out.silences.push_back(std::move(*s));
    }
    return out;
}

model::Severity severityOf(const model::ExternalAlert& alert, const SeverityMap& map) {
    const std::string value = lower(alert.label(map.label));
    if (value.empty()) return Severity::Warning;
    for (const auto& [v, s] : map.values)
        if (v == value) return s;
    static constexpr std::array<std::string_view, 7> kCritical{
        "critical", "page", "error", "high", "emergency", "fatal", "disaster"};
    static constexpr std::array<std::string_view, 6> kInfo{"info", "informational", "notice",
                                                           "low",  "none",          "debug"};
    if (std::ranges::find(kCritical, value) != kCritical.end()) return Severity::Critical;
    if (std::ranges::find(kInfo, value) != kInfo.end()) return Severity::Info;
    return Severity::Warning;
}

std::expected<SeverityMap, std::string> parseSeverityMap(std::string_view text) {
    SeverityMap map;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t comma = std::min(text.find(',', at), text.size());
        const std::string_view item = text.substr(at, comma - at);
        at = comma + 1;
        if (item.empty()) continue;
        const std::size_t eq = item.find('=');
        if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size())
            return std::unexpected("'" + std::string(item) +
                                   "': expected VALUE=critical|warning|info or label=NAME");
        const std::string key(item.substr(0, eq));
        const std::string level = lower(item.substr(eq + 1));
        if (key == "label") {
            map.label = std::string(item.substr(eq + 1));
            continue;
        }
        Severity s;
        if (level == "critical")
            s = Severity::Critical;
        else if (level == "warning")
            s = Severity::Warning;
        else if (level == "info")
            s = Severity::Info;
        else
            return std::unexpected("'" + std::string(item) + "': '" + level +
                                   "' is not critical, warning or info");
        map.values.emplace_back(lower(key), s);
    }
    return map;
}

void attachSilences(std::vector<model::ExternalAlert>& alerts,
                    const std::vector<model::SilenceNote>& silences) {
    for (auto& a : alerts) {
        a.silences.clear();
        for (const auto& id : a.silencedBy)
            if (const auto it = std::ranges::find(silences, id, &model::SilenceNote::id);
                it != silences.end())
                a.silences.push_back(*it);
    }
}

std::string rfc3339(model::TimeNs t) {
    // formatUtc gives "YYYY-MM-DD HH:MM:SS.mmm UTC".
    std::string s = model::formatUtc(t, true);
    if (s.size() >= 23) {
        s[10] = 'T';
        s.resize(23);
    }
    return s + "Z";
}

std::string silenceRequestBody(const NewSilence& s) {
    Json j;
    j["matchers"] = Json::array();
    for (const auto& [name, value] : s.matchers)
        j["matchers"].push_back(
            {{"name", name}, {"value", value}, {"isRegex", false}, {"isEqual", true}});
    j["startsAt"] = rfc3339(s.startsAt);
    j["endsAt"] = rfc3339(s.endsAt);
    j["createdBy"] = s.createdBy;
    j["comment"] = s.comment;
    return j.dump();
}

std::expected<std::string, std::string> parseSilenceCreated(std::string_view body) {
    auto doc = document(body, "silence answer");
    if (!doc) return std::unexpected(doc.error());
    if (!doc->is_object() || !doc->contains("silenceID") || !(*doc)["silenceID"].is_string())
        return std::unexpected("silence answer: no silenceID");
    return (*doc)["silenceID"].get<std::string>();
}

std::string alertsRequestBody(const std::vector<PostedAlert>& alerts) {
    Json list = Json::array();
    for (const auto& a : alerts) {
        Json j;
        j["labels"] = Json::object();
        for (const auto& [k, v] : a.labels)
            j["labels"][k] = v;
        j["annotations"] = Json::object();
        for (const auto& [k, v] : a.annotations)
            j["annotations"][k] = v;
        if (a.startsAt) j["startsAt"] = rfc3339(a.startsAt);
        if (a.endsAt) j["endsAt"] = rfc3339(a.endsAt);
        if (!a.generatorUrl.empty()) j["generatorURL"] = a.generatorUrl;
        list.push_back(std::move(j));
    }
    return list.dump();
}

} // namespace ft::importers
