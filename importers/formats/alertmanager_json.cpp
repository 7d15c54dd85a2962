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
    } catch (const Json::exception& e) {
        // Well-formed but unreadable: a number past what a double holds ("endsAt": 1e400).
        return std::unexpected(std::string(what) + ": unreadable JSON (" + e.what() + ")");
    }
}

// A time field: RFC 3339, or absent (0). Present but unreadable is an error.
std::expected<model::TimeNs, std::string> timeField(const Json& j, const char* key, bool required) {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) {
        if (required) return std::unexpected(std::string("no ") + key);
        return 0;
    }
    if (!it->is_string()) return std::unexpected(std::string(key) + " is not a time");
    const auto& text = it->get_ref<const std::string&>();
    // Go's zero time: Alertmanager's "not set".
    if (text.starts_with("0001-01-01T00:00:00")) return 0;
    const auto t = parseRfc3339(text);
    if (!t) return std::unexpected(std::string(key) + " '" + text + "' is not an RFC 3339 time");
    return *t;
}

std::string stringField(const Json& j, const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
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

} // namespace

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
    for (const auto& m : s.matchers)
        j["matchers"].push_back(
            {{"name", m.name}, {"value", m.value}, {"isRegex", m.regex}, {"isEqual", true}});
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
