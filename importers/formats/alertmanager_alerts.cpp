// /api/v2/alerts and /api/v2/alerts/groups read as a stream of JSON events (nlohmann's SAX
// interface) straight into ExternalAlerts: a 10,000-alert answer is some 5 MB, and building its
// document tree and freeing it again cost twice what the reading itself does. The rules are
// those of alertmanager_json.h; each entry's problems are gathered while it streams by and
// judged when it ends, in the order a reader would check them.
#include "alertmanager_json.h"
#include "json_document.h"
#include "long_format_import.h"

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <unordered_set>

namespace ft::importers {

namespace {

using Json = nlohmann::json;
using model::AlertState;

constexpr std::array<std::string_view, 9> kAlertKeys{"labels",      "annotations", "startsAt",
                                                     "endsAt",      "updatedAt",   "generatorURL",
                                                     "fingerprint", "receivers",   "status"};

// One entry as it streams by: what it held, and the first thing wrong with each part.
struct RawAlert {
    model::ExternalAlert alert;
    bool labels = false, status = false, alertsKey = false, alertsNotList = false;
    std::string labelsError, annotationsError, receiversError, statusListError, stateText;
    std::array<std::string, 3> times;      // startsAt, endsAt, updatedAt as written
    std::array<std::string, 3> timesError; // "... is not a time"
    std::array<bool, 3> timesSeen{};
    std::vector<std::string> unknown;
    bool notObject = false;

    // Why it cannot be used ("" = it can), checked in a reader's order.
    std::string judge() {
        if (notObject) return "not an object";
        if (!labelsError.empty()) return labelsError;
        if (!labels) return "no labels";
        if (!annotationsError.empty()) return annotationsError;
        if (alert.fingerprint.empty()) return "no fingerprint";
        static constexpr std::array<const char*, 3> kNames{"startsAt", "endsAt", "updatedAt"};
        std::array<model::TimeNs*, 3> out{&alert.startsAt, &alert.endsAt, &alert.updatedAt};
        for (std::size_t i = 0; i < 3; ++i) {
            if (!timesError[i].empty()) return timesError[i];
            if (!timesSeen[i]) {
                if (i == 0) return "no startsAt";
                continue;
            }
            // Go's zero time: Alertmanager's "not set".
            if (times[i].starts_with("0001-01-01T00:00:00")) continue;
            const auto t = parseRfc3339(times[i]);
            if (!t) return std::string(kNames[i]) + " '" + times[i] + "' is not an RFC 3339 time";
            *out[i] = *t;
        }
        if (!receiversError.empty()) return receiversError;
        if (!status) return "no status";
        if (!statusListError.empty()) return statusListError;
        if (stateText == "active")
            alert.state = AlertState::Firing;
        else if (stateText == "suppressed")
            // A silence says who and why; an inhibition only which alert; a mute time interval
            // (mutedBy) is planned quiet, read as a silence.
            alert.state = alert.silencedBy.empty() && !alert.inhibitedBy.empty()
                              ? AlertState::Inhibited
                              : AlertState::Silenced;
        else if (stateText == "unprocessed")
            alert.state = AlertState::Unprocessed;
        else
            return "status.state '" + stateText + "' is none of active, suppressed, unprocessed";
        if (!std::ranges::is_sorted(alert.labels)) std::ranges::sort(alert.labels);
        if (!std::ranges::is_sorted(alert.annotations)) std::ranges::sort(alert.annotations);
        alert.name = std::string(alert.label("alertname"));
        return {};
    }
};

// Where the stream is: each open array or object and what it holds.
enum class Role : std::uint8_t {
    Root,        // the answer's list
    Entry,       // an alert, or a group (known once its keys are)
    GroupAlerts, // a group's "alerts" list
    Alert,       // an alert inside a group
    Labels,      // an alert's labels or annotations
    Receivers,   // an alert's receivers (names, or objects with a name)
    Receiver,    // one {"name": ...}
    Status,      // an alert's status
    StatusList,  // silencedBy, inhibitedBy or mutedBy
    Skip,        // a value nobody reads (unknown fields, a group's own labels)
};

class AlertsReader final : public nlohmann::json_sax<Json> {
public:
    AlertsReader(std::string_view what, AlertmanagerAnswer& out) : m_what(what), m_out(out) {}

    std::string rootType; // the type of what came instead of a list ("" = a list)
    std::string syntaxError;

    bool null() override { return scalar("null", {}); }
    bool boolean(bool) override { return scalar("boolean", {}); }
    bool number_integer(number_integer_t) override { return scalar("number", {}); }
    bool number_unsigned(number_unsigned_t) override { return scalar("number", {}); }
    bool number_float(number_float_t, const string_t&) override { return scalar("number", {}); }
    bool binary(binary_t&) override { return scalar("binary", {}); }
    bool string(string_t& v) override { return scalar("string", &v); }

    bool start_object(std::size_t) override {
        if (m_stack.empty()) {
            rootType = "object";
            return false;
        }
        const Role parent = m_stack.back();
        Role role = Role::Skip;
        if (parent == Role::Root || parent == Role::GroupAlerts) {
            beginEntry(parent == Role::Root);
            role = parent == Role::Root ? Role::Entry : Role::Alert;
        } else if (parent == Role::Entry || parent == Role::Alert) {
            role = objectField();
        } else if (parent == Role::Receivers || parent == Role::StatusList) {
            role = Role::Receiver; // {"name": ...}, in receivers and in status lists alike
        } else if (parent == Role::Labels) {
            notStringLabel();
        }
        m_stack.push_back(role);
        return true;
    }
    bool key(string_t& k) override {
        m_key = std::move(k);
        const Role at = m_stack.back();
        if ((at == Role::Entry || at == Role::Alert) &&
            std::ranges::find(kAlertKeys, std::string_view(m_key)) == kAlertKeys.end() &&
            m_key != "alerts" && m_key != "receiver")
            entry().unknown.push_back(m_key);
        if (at == Role::Entry && m_key == "alerts") m_outer.alertsKey = true;
        return true;
    }
    bool end_object() override {
        const Role role = m_stack.back();
        m_stack.pop_back();
        if (role == Role::Alert) finishEntry(m_inner);
        if (role == Role::Entry) {
            // A group ("alerts", no fingerprint of its own) has given its alerts already.
            if (m_outer.alertsKey && m_outer.alert.fingerprint.empty()) {
                ++m_groups;
                if (m_outer.alertsNotList) {
                    ++m_out.skipped;
                    m_out.warnings.push_back(std::string(m_what) + ": group " +
                                             std::to_string(m_groups) +
                                             ": alerts is not a list (skipped)");
                }
            } else
                finishEntry(m_outer);
            ++m_entries;
        }
        return true;
    }
    bool start_array(std::size_t) override {
        if (m_stack.empty()) {
            m_stack.push_back(Role::Root);
            return true;
        }
        const Role parent = m_stack.back();
        Role role = Role::Skip;
        if (parent == Role::Root || parent == Role::GroupAlerts) {
            beginEntry(parent == Role::Root);
            entry().notObject = true;
            role = Role::Skip;
            m_stack.push_back(role);
            m_endsEntry.push_back(m_stack.size());
            return true;
        }
        if (parent == Role::Entry && m_key == "alerts") {
            role = Role::GroupAlerts;
        } else if (parent == Role::Entry || parent == Role::Alert) {
            role = arrayField();
        } else if (parent == Role::Status) {
            role = statusList();
        } else if (parent == Role::Labels) {
            notStringLabel();
        }
        m_stack.push_back(role);
        return true;
    }
    bool end_array() override {
        const std::size_t depth = m_stack.size();
        m_stack.pop_back();
        if (!m_endsEntry.empty() && m_endsEntry.back() == depth) {
            // An entry that was a list: skipped as not an object.
            m_endsEntry.pop_back();
            finishEntry(m_stack.back() == Role::Root ? m_outer : m_inner);
            if (m_stack.back() == Role::Root) ++m_entries;
        }
        return true;
    }
    bool parse_error(std::size_t position, const std::string&,
                     const nlohmann::detail::exception&) override {
        syntaxError = std::string(m_what) + ": not JSON (byte " + std::to_string(position) + ")";
        return false;
    }

    void finish() {
        m_out.groups = m_entries > 0 && m_groups == m_entries;
        std::vector<std::string> named;
        for (const auto& k : m_unknown)
            if (std::ranges::find(named, k) == named.end()) named.push_back(k);
        for (const auto& k : named)
            m_out.warnings.push_back(std::string(m_what) + ": unknown alert field '" + k +
                                     "' (ignored)");
    }

private:
    RawAlert& entry() { return m_stack.back() == Role::Alert || inGroup() ? m_inner : m_outer; }
    bool inGroup() const { return std::ranges::find(m_stack, Role::GroupAlerts) != m_stack.end(); }

    void beginEntry(bool outer) { (outer ? m_outer : m_inner) = RawAlert{}; }

    void finishEntry(RawAlert& raw) {
        const std::string name(raw.alert.label("alertname"));
        std::string where = std::string(m_what) + ": alert " + std::to_string(++m_index);
        if (!name.empty()) where += " (" + name + ")";
        if (const std::string why = raw.judge(); !why.empty()) {
            ++m_out.skipped;
            m_out.warnings.push_back(where + ": " + why + " (skipped)");
            return;
        }
        for (auto& k : raw.unknown)
            m_unknown.push_back(std::move(k));
        if (m_seen.insert(raw.alert.fingerprint).second)
            m_out.alerts.push_back(std::move(raw.alert));
        else if (!inGroup())
            m_out.warnings.push_back(where + ": fingerprint " + raw.alert.fingerprint +
                                     " listed twice (read once)");
    }

    // A scalar: the root (not a list), an entry that is none, or a field's value.
    bool scalar(const char* type, string_t* text) {
        if (m_stack.empty()) {
            rootType = type;
            return false;
        }
        const Role at = m_stack.back();
        if (at == Role::Root || at == Role::GroupAlerts) {
            beginEntry(at == Role::Root);
            entry().notObject = true;
            finishEntry(at == Role::Root ? m_outer : m_inner);
            if (at == Role::Root) ++m_entries;
            return true;
        }
        RawAlert& a = entry();
        switch (at) {
        case Role::Entry:
        case Role::Alert:
            scalarField(a, type, text);
            break;
        case Role::Labels: {
            auto& set = m_labelsAreAnnotations ? a.alert.annotations : a.alert.labels;
            if (text)
                set.emplace_back(m_key, std::move(*text));
            else
                notStringLabel();
            break;
        }
        case Role::Receivers:
        case Role::StatusList:
            if (text)
                listOf(a, at).push_back(std::move(*text));
            else
                listError(a, at);
            break;
        case Role::Receiver:
            if (m_key == "name" && text)
                listOf(a, m_stack[m_stack.size() - 2]).push_back(std::move(*text));
            break;
        case Role::Status:
            if (m_key == "state" && text) a.stateText = std::move(*text);
            if (m_key != "state" && text) a.statusListError = "status." + m_key + " is not a list";
            break;
        default:
            break;
        }
        return true;
    }

    void scalarField(RawAlert& a, const char* type, string_t* text) {
        const bool isNull = std::string_view(type) == "null";
        static constexpr std::array<std::string_view, 3> kTimes{"startsAt", "endsAt", "updatedAt"};
        if (const auto t = std::ranges::find(kTimes, std::string_view(m_key)); t != kTimes.end()) {
            const auto i = static_cast<std::size_t>(t - kTimes.begin());
            if (isNull) return;
            a.timesSeen[i] = true;
            if (text)
                a.times[i] = std::move(*text);
            else
                a.timesError[i] = m_key + " is not a time";
        } else if (m_key == "fingerprint" && text) {
            a.alert.fingerprint = std::move(*text);
        } else if (m_key == "generatorURL" && text) {
            a.alert.generatorUrl = std::move(*text);
        } else if ((m_key == "labels" || m_key == "annotations") && !isNull) {
            (m_key == "labels" ? a.labelsError : a.annotationsError) = m_key + " is not an object";
        } else if (m_key == "receivers" && !isNull) {
            a.receiversError = "receivers is not a list";
        } else if (m_key == "status" && !isNull) {
            a.status = false;
        } else if (m_key == "alerts") {
            a.alertsNotList = true;
        }
    }

    Role objectField() {
        RawAlert& a = entry();
        if (m_key == "labels" || m_key == "annotations") {
            m_labelsAreAnnotations = m_key == "annotations";
            if (m_key == "labels") a.labels = true;
            // A group's own labels (the grouping) are not an alert's.
            return Role::Labels;
        }
        if (m_key == "status") {
            a.status = true;
            return Role::Status;
        }
        if (m_key == "receivers") a.receiversError = "receivers is not a list";
        if (m_key == "alerts") a.alertsNotList = true;
        if (m_key == "startsAt" || m_key == "endsAt" || m_key == "updatedAt")
            scalarField(a, "object", nullptr);
        return Role::Skip;
    }

    Role arrayField() {
        RawAlert& a = entry();
        if (m_key == "receivers") return Role::Receivers;
        if (m_key == "labels" || m_key == "annotations")
            (m_key == "labels" ? a.labelsError : a.annotationsError) = m_key + " is not an object";
        if (m_key == "startsAt" || m_key == "endsAt" || m_key == "updatedAt")
            scalarField(a, "array", nullptr);
        return Role::Skip;
    }

    Role statusList() {
        if (m_key == "silencedBy" || m_key == "inhibitedBy" || m_key == "mutedBy") {
            m_list = m_key;
            return Role::StatusList;
        }
        return Role::Skip;
    }

    std::vector<std::string>& listOf(RawAlert& a, Role role) {
        if (role == Role::Receivers) return a.alert.receivers;
        return m_list == "silencedBy"    ? a.alert.silencedBy
               : m_list == "inhibitedBy" ? a.alert.inhibitedBy
                                         : a.alert.mutedBy;
    }
    void listError(RawAlert& a, Role role) {
        if (role == Role::Receivers)
            a.receiversError = "receivers holds something that is not a name";
        else
            a.statusListError = "status." + m_list + " holds something that is not a name";
    }
    void notStringLabel() {
        RawAlert& a = entry();
        std::string& error = m_labelsAreAnnotations ? a.annotationsError : a.labelsError;
        if (error.empty())
            error = std::string(m_labelsAreAnnotations ? "annotations" : "labels") + " '" + m_key +
                    "' is not a string";
    }

    std::string_view m_what;
    AlertmanagerAnswer& m_out;
    std::vector<Role> m_stack;
    std::vector<std::size_t> m_endsEntry; // depths where a list-shaped entry ends
    std::string m_key, m_list;
    bool m_labelsAreAnnotations = false;
    RawAlert m_outer, m_inner; // the entry at the root, and an alert inside a group
    std::unordered_set<std::string> m_seen;
    std::vector<std::string> m_unknown;
    std::size_t m_index = 0, m_entries = 0, m_groups = 0;
};

} // namespace

std::expected<AlertmanagerAnswer, std::string> parseAlertmanagerAlerts(std::string_view body,
                                                                       std::string_view what) {
    if (const auto at = jsonNestingBeyond(body, kJsonAnswerDepth))
        return std::unexpected(std::string(what) + ": nested deeper than " +
                               std::to_string(kJsonAnswerDepth) + " levels at byte " +
                               std::to_string(*at));
    AlertmanagerAnswer out;
    AlertsReader reader(what, out);
    const bool ok = Json::sax_parse(body, &reader);
    if (!reader.rootType.empty())
        return std::unexpected(std::string(what) +
                               ": expected a list of alerts or alert groups, got " +
                               reader.rootType);
    if (!ok || !reader.syntaxError.empty())
        return std::unexpected(reader.syntaxError.empty() ? std::string(what) + ": not JSON"
                                                          : reader.syntaxError);
    reader.finish();
    return out;
}

} // namespace ft::importers
