#include "scenario_file.h"

#include "importers/formats/json_document.h"
#include "model/timestamp.h"

#include <algorithm>

namespace ft::importers {

using Type = JsonValue::Type;

std::expected<model::ScenarioEvent, Error>
parseScenarioEvent(const JsonValue& item, const std::string& path, const std::string& file,
                   const model::Topology& topology, bool needAt) {
    auto fail = [&](const JsonValue& at, const std::string& key, const std::string& message) {
        return std::unexpected(Error{message, file, at.line, at.column, key});
    };
    if (item.type != Type::Object) return fail(item, path, "expected an object");
    model::ScenarioEvent ev;
    const JsonValue* at = item.find("at");
    const JsonValue* action = item.find("action");
    if (!at && needAt)
        return fail(item, path + ".at", R"(missing required key (a time such as "90s" or "2m"))");
    if (at && !needAt) return fail(*at, path + ".at", "the step's time applies: drop 'at'");
    if (!action) return fail(item, path + ".action", "missing required key");
    if (at && (at->type != Type::String || !model::parseDuration(at->string, ev.at)))
        return fail(*at, path + ".at", R"(expected a time such as "90s" or "2m")");
    if (action->type != Type::String || !model::scenarioActionFromName(action->string)) {
        std::string known;
        for (auto name : model::kScenarioActionNames)
            known += (known.empty() ? "" : ", ") + std::string(name);
        return fail(*action, path + ".action", "expected one of: " + known);
    }
    ev.action = *model::scenarioActionFromName(action->string);
    const model::EntityKind kind = model::scenarioActionTarget(ev.action);
    for (const auto& [key, value] : item.object) {
        const std::string k = path + "." + key;
        if (key == "at" || key == "action") continue;
        if (key == "target") {
            // "KIND:NAME" (rack:A03, cdu:CDU A1, pump:CDU A1 pump 2) or "all".
            if (value.type != Type::String)
                return fail(value, k, R"(expected "kind:name" or "all")");
            if (value.string == "all") continue;
            const auto colon = value.string.find(':');
            const std::string kindName =
                value.string.substr(0, colon == std::string::npos ? 0 : colon);
            // Rack actions also take a whole row: "row:B".
            // PSU actions also take a whole shelf: "power_shelf:A03 shelf 2".
            if (colon != std::string::npos && kindName == "power_shelf" &&
                kind == model::EntityKind::Psu) {
                const auto shelf =
                    topology.find(model::EntityKind::PowerShelf, value.string.substr(colon + 1));
                if (!shelf)
                    return fail(value, k,
                                "no power shelf '" + value.string.substr(colon + 1) +
                                    "' on this floor");
                for (model::EntityId p = 0; p < topology.count(model::EntityKind::Psu); ++p)
                    if (topology.psus.shelf[p] == *shelf) ev.targets.push_back(p);
                continue;
            }
            if (colon != std::string::npos && kindName == "row" &&
                kind == model::EntityKind::Rack) {
                const auto row =
                    topology.find(model::EntityKind::Row, "Row " + value.string.substr(colon + 1));
                if (!row)
                    return fail(value, k,
                                "no row '" + value.string.substr(colon + 1) + "' on this floor");
                for (std::uint32_t i = 0; i < topology.rows.rackCount[*row]; ++i)
                    ev.targets.push_back(topology.rows.firstRack[*row] + i);
                continue;
            }
            if (colon == std::string::npos || kindName != model::entityKindName(kind))
                return fail(value, k,
                            "action '" + action->string + "' targets a " +
                                std::string(model::entityKindName(kind)) + ", e.g. \"" +
                                std::string(model::entityKindName(kind)) + ":NAME\"");
            const auto id = topology.find(kind, value.string.substr(colon + 1));
            if (!id)
                return fail(value, k,
                            "no " + std::string(model::entityKindName(kind)) + " '" +
                                value.string.substr(colon + 1) + "' on this floor");
            ev.target = model::EntityRef{kind, *id};
        } else if (key == "value" || key == "value2") {
            if (value.type != Type::Number) return fail(value, k, "expected a number");
            (key == "value" ? ev.value : ev.value2) = value.number;
        } else if (key == "note") {
            if (value.type != Type::String) return fail(value, k, "expected a string");
            ev.note = value.string;
        } else {
            return fail(value, k, "unknown key");
        }
    }
    return ev;
}

std::expected<model::Scenario, Error>
parseScenarioFile(std::string_view text, const std::string& file, const model::Topology& topology) {
    auto doc = parseJson(text, file);
    if (!doc) return std::unexpected(doc.error());
    auto fail = [&](const JsonValue& at, const std::string& key, const std::string& message) {
        return std::unexpected(Error{message, file, at.line, at.column, key});
    };
    if (doc->type != Type::Object) return fail(*doc, "", "expected a JSON object at the top level");
    model::Scenario scenario;
    for (const auto& [key, value] : doc->object) {
        if (key == "format") {
            if (value.type != Type::String || value.string != "floortwin-scenario/1")
                return fail(value, key, "expected \"floortwin-scenario/1\"");
        } else if (key == "name" || key == "description") {
            if (value.type != Type::String) return fail(value, key, "expected a string");
            (key == "name" ? scenario.name : scenario.description) = value.string;
        } else if (key != "events") {
            return fail(value, key, "unknown key");
        }
    }
    const JsonValue* events = doc->find("events");
    if (!events) return fail(*doc, "events", "missing required key");
    if (events->type != Type::Array) return fail(*events, "events", "expected an array of events");
    for (std::size_t i = 0; i < events->array.size(); ++i) {
        auto ev = parseScenarioEvent(events->array[i], "events[" + std::to_string(i) + "]", file,
                                     topology, true);
        if (!ev) return std::unexpected(ev.error());
        scenario.events.push_back(std::move(*ev));
    }
    std::ranges::stable_sort(scenario.events, {}, &model::ScenarioEvent::at);
    if (scenario.name.empty()) scenario.name = file;
    return scenario;
}

} // namespace ft::importers
