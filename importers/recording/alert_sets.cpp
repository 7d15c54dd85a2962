#include "alert_sets.h"

#include <nlohmann/json.hpp>

namespace ft::importers {

namespace {

using Json = nlohmann::json;

Json labels(const model::Labels& l) {
    Json out = Json::array();
    for (const auto& [k, v] : l)
        out.push_back({k, v});
    return out;
}

model::Labels labelsOf(const Json& j) {
    model::Labels out;
    for (const auto& p : j)
        out.emplace_back(p.at(0).get<std::string>(), p.at(1).get<std::string>());
    return out;
}

Json silence(const model::SilenceNote& s) {
    return {{"id", s.id},
            {"by", s.createdBy},
            {"comment", s.comment},
            {"from", s.startsAt},
            {"until", s.endsAt},
            {"state", s.state},
            {"matchers", labels(s.matchers)}};
}

model::SilenceNote silenceOf(const Json& j) {
    model::SilenceNote s;
    s.id = j.at("id").get<std::string>();
    s.createdBy = j.value("by", "");
    s.comment = j.value("comment", "");
    s.startsAt = j.value("from", model::TimeNs{0});
    s.endsAt = j.value("until", model::TimeNs{0});
    s.state = j.value("state", "");
    if (j.contains("matchers")) s.matchers = labelsOf(j["matchers"]);
    return s;
}

} // namespace

std::string alertBoardToJson(const model::AlertBoard& board) {
    Json alerts = Json::array();
    for (const auto& a : board.alerts) {
        Json entities = Json::array();
        for (const auto& e : a.entities)
            entities.push_back({static_cast<int>(e.kind), e.id});
        Json silences = Json::array();
        for (const auto& s : a.silences)
            silences.push_back(silence(s));
        alerts.push_back({{"source", a.source},
                          {"fingerprint", a.fingerprint},
                          {"name", a.name},
                          {"severity", static_cast<int>(a.severity)},
                          {"state", static_cast<int>(a.state)},
                          {"labels", labels(a.labels)},
                          {"annotations", labels(a.annotations)},
                          {"generator", a.generatorUrl},
                          {"starts", a.startsAt},
                          {"ends", a.endsAt},
                          {"updated", a.updatedAt},
                          {"receivers", a.receivers},
                          {"silencedBy", a.silencedBy},
                          {"inhibitedBy", a.inhibitedBy},
                          {"mutedBy", a.mutedBy},
                          {"silences", silences},
                          {"entities", entities},
                          {"placedBy", a.placedBy}});
    }
    Json silences = Json::array();
    for (const auto& s : board.silences)
        silences.push_back(silence(s));
    return Json{{"alerts", alerts}, {"silences", silences}}.dump();
}

std::expected<model::AlertBoard, std::string> alertBoardFromJson(std::string_view text) {
    try {
        const Json j = Json::parse(text);
        model::AlertBoard board;
        for (const auto& a : j.at("alerts")) {
            model::ExternalAlert x;
            x.source = a.value("source", "");
            x.fingerprint = a.at("fingerprint").get<std::string>();
            x.name = a.value("name", "");
            const int severity = a.value("severity", 0), state = a.value("state", 0);
            if (severity < 0 || severity > 2 || state < 0 || state > 3)
                return std::unexpected("alert " + x.fingerprint +
                                       ": severity or state out of range");
            x.severity = static_cast<model::Severity>(severity);
            x.state = static_cast<model::AlertState>(state);
            x.labels = labelsOf(a.at("labels"));
            x.annotations = labelsOf(a.at("annotations"));
            x.generatorUrl = a.value("generator", "");
            x.startsAt = a.value("starts", model::TimeNs{0});
            x.endsAt = a.value("ends", model::TimeNs{0});
            x.updatedAt = a.value("updated", model::TimeNs{0});
            x.receivers = a.value("receivers", std::vector<std::string>{});
            x.silencedBy = a.value("silencedBy", std::vector<std::string>{});
            x.inhibitedBy = a.value("inhibitedBy", std::vector<std::string>{});
            x.mutedBy = a.value("mutedBy", std::vector<std::string>{});
            for (const auto& s : a.value("silences", Json::array()))
                x.silences.push_back(silenceOf(s));
            for (const auto& e : a.value("entities", Json::array())) {
                const int kind = e.at(0).get<int>();
                if (kind < 0 || kind >= static_cast<int>(model::kEntityKindCount))
                    return std::unexpected("alert " + x.fingerprint + ": no such entity kind");
                x.entities.push_back(
                    {static_cast<model::EntityKind>(kind), e.at(1).get<model::EntityId>()});
            }
            x.placedBy = a.value("placedBy", "");
            board.alerts.push_back(std::move(x));
        }
        for (const auto& s : j.value("silences", Json::array()))
            board.silences.push_back(silenceOf(s));
        return board;
    } catch (const Json::exception& e) {
        return std::unexpected(std::string("alert set: ") + e.what());
    }
}

} // namespace ft::importers
