#include "bms_message.h"

#include "json_document.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <fstream>
#include <sstream>

namespace ft::importers {
namespace {

using Type = JsonValue::Type;

std::unexpected<Error> topicError(std::string_view topic, std::string message) {
    return std::unexpected(Error{std::move(message), std::string(topic), 0, 0, {}});
}

std::unexpected<Error> payloadError(std::string_view topic, const JsonValue& at, std::string key,
                                    std::string message) {
    return std::unexpected(
        Error{std::move(message), std::string(topic), at.line, at.column, std::move(key)});
}

bool isInteger(const JsonValue& v) {
    return v.type == Type::Number && v.number == std::floor(v.number) && std::fabs(v.number) < 9e15;
}

std::expected<void, Error> readValue(std::string_view topic, const JsonValue& doc, BmsMessage& m) {
    const JsonValue *value = doc.find("value"), *timestamp = doc.find("timestamp"),
                    *quality = doc.find("quality");
    if (!value)
        return payloadError(
            topic, doc, "value",
            "missing required key (a value payload is {value, timestamp, quality})");
    if (!timestamp)
        return payloadError(topic, doc, "timestamp", "missing required key (epoch milliseconds)");
    if (!quality) return payloadError(topic, doc, "quality", "missing required key (1 = good)");
    if (value->type == Type::Number)
        m.value = value->number;
    else if (value->type == Type::Bool)
        m.value = value->boolean ? 1.0 : 0.0;
    else if (value->type != Type::Null)
        return payloadError(topic, *value, "value",
                            "expected a number or null, got " +
                                std::string(JsonValue::typeName(value->type)));
    // Milliseconds since the epoch up to the year 2200 (past 2262 nanoseconds overflow).
    constexpr double kMaxEpochMs = 7'258'118'400'000.0;
    if (!isInteger(*timestamp) || timestamp->number < 0 || timestamp->number > kMaxEpochMs)
        return payloadError(topic, *timestamp, "timestamp",
                            "expected an integer of milliseconds since the epoch (before 2200)");
    m.time = static_cast<model::TimeNs>(timestamp->number) * model::kNsPerMs;
    if (!isInteger(*quality) || std::abs(quality->number) > 1e9)
        return payloadError(topic, *quality, "quality", "expected an integer (1 = good)");
    m.quality = static_cast<int>(quality->number);
    return {};
}

std::expected<void, Error> readMetadata(std::string_view topic, const JsonValue& doc,
                                        BmsMessage& m) {
    BmsMetadata& md = m.metadata;
    for (const auto& [key, v] : doc.object) {
        const auto text = [&](std::string& out) -> std::expected<void, Error> {
            if (v.type != Type::String)
                return payloadError(topic, v, key,
                                    "expected a string, got " +
                                        std::string(JsonValue::typeName(v.type)));
            out = v.string;
            return {};
        };
        std::expected<void, Error> r;
        if (key == "objectType" || key == "pointType") {
            const std::string& fromTopic = key == "objectType" ? m.objectType : m.pointType;
            if (v.type != Type::String || v.string != fromTopic)
                return payloadError(topic, v, key,
                                    "does not match the topic's " + key + " '" + fromTopic + "'");
        } else if (key == "objectName")
            r = text(md.objectName);
        else if (key == "objectId")
            r = text(md.objectId);
        else if (key == "associateId")
            r = text(md.associateId);
        else if (key == "rackLocationName")
            r = text(md.rackLocationName);
        else if (key == "rackLocationId")
            r = text(md.rackLocationId);
        else if (key == "engUnit")
            r = text(md.engUnit);
        else if (key == "integration")
            r = text(md.integration);
        else if (key == "isSetpoint") {
            if (v.type != Type::Bool) return payloadError(topic, v, key, "expected true or false");
            md.isSetpoint = v.boolean;
        } else if (key == "stateText") {
            md.hasStateText = true;
        } else if (key == "processArea") {
            if (v.type != Type::Array)
                return payloadError(topic, v, key, "expected an array of strings");
            for (const auto& item : v.array) {
                if (item.type != Type::String)
                    return payloadError(topic, item, key, "expected an array of strings");
                md.processArea.push_back(item.string);
            }
        }
        // Other fields (servesId, scope, phase, ...) describe topology this importer does not use.
        if (!r) return r;
    }
    return {};
}

} // namespace

std::expected<BmsMessage, Error> parseBmsMessage(std::string_view topic, std::string_view payload) {
    // BMS / v1 / publisher / Value|Metadata / objectType / pointType / tagPath...
    std::array<std::string_view, 6> parts;
    std::string_view rest = topic;
    for (auto& part : parts) {
        const std::size_t slash = rest.find('/');
        if (slash == std::string_view::npos)
            return topicError(
                topic, "expected a topic "
                       "BMS/v1/{publisher}/{Value|Metadata}/{objectType}/{pointType}/{tagPath}");
        part = rest.substr(0, slash);
        rest.remove_prefix(slash + 1);
    }
    if (parts[0] != "BMS" || parts[1] != "v1")
        return topicError(topic, "expected a topic starting BMS/v1/");
    BmsMessage m;
    m.publisher = parts[2];
    if (parts[3] == "Value")
        m.kind = BmsMessageKind::Value;
    else if (parts[3] == "Metadata")
        m.kind = BmsMessageKind::Metadata;
    else
        return topicError(topic, "expected Value or Metadata after the publisher, got '" +
                                     std::string(parts[3]) + "'");
    if (m.kind == BmsMessageKind::Metadata && m.publisher != "PUB")
        return topicError(topic, "metadata is published by the BMS only (BMS/v1/PUB/Metadata/...)");
    m.objectType = parts[4];
    m.pointType = parts[5];
    m.tagPath = rest;
    if (m.publisher.empty() || m.objectType.empty() || m.pointType.empty() || m.tagPath.empty())
        return topicError(topic, "empty publisher, objectType, pointType or tagPath in the topic");

    auto doc = parseJson(payload, std::string(topic));
    if (!doc) return std::unexpected(doc.error());
    if (doc->type != Type::Object)
        return payloadError(topic, *doc, {}, "expected a JSON object payload");
    auto r =
        m.kind == BmsMessageKind::Value ? readValue(topic, *doc, m) : readMetadata(topic, *doc, m);
    if (!r) return std::unexpected(r.error());
    return m;
}

BmsMapper::BmsMapper(MappingRules rules, const model::Topology& topology, bool acceptBadQuality)
    : m_mapper(std::move(rules), topology), m_acceptBadQuality(acceptBadQuality) {}

BmsMapper::Outcome BmsMapper::apply(const BmsMessage& message, std::vector<model::Sample>& out) {
    const std::string key = message.pointKey();
    if (message.kind == BmsMessageKind::Metadata) {
        ++m_stats.metadata;
        BmsMetadata& md = m_metadata[key];
        md = message.metadata;
        if (auto it = m_held.find(key); it != m_held.end()) {
            // Its value came first: place it now.
            const BmsMessage waiting = std::move(it->second);
            m_held.erase(it);
            m_stats.held = m_held.size();
            const std::size_t before = out.size();
            if (mapValue(waiting, &md, out) == Outcome::Mapped && out.size() > before)
                ++m_stats.released;
        }
        return Outcome::Metadata;
    }
    ++m_stats.values;
    if (!message.value) {
        ++m_stats.noValue;
        return Outcome::NoValue;
    }
    if (!message.goodQuality() && !m_acceptBadQuality) {
        ++m_stats.badQuality;
        return Outcome::BadQuality;
    }
    const auto it = m_metadata.find(key);
    if (it != m_metadata.end()) return mapValue(message, &it->second, out);
    // No metadata yet: a rule that places the point by its tag alone maps it now. A point no
    // rule can place without metadata waits for it, and so does one whose tag path names
    // nothing on this floor: tag paths follow the site's own naming, which need not be the
    // floor's rack names, while the metadata's rackLocationName is.
    const Outcome now = mapValue(message, nullptr, out, /*count=*/false);
    if (now != Outcome::Unmapped && now != Outcome::Unresolved) return now;
    if (m_held.size() >= kMaxHeld && !m_held.contains(key)) {
        ++m_stats.heldDropped;
        ++m_stats.unmapped;
        return Outcome::Dropped;
    }
    m_held.insert_or_assign(key, message);
    m_stats.held = m_held.size();
    return Outcome::Held;
}

BmsMapper::Outcome BmsMapper::mapValue(const BmsMessage& message, const BmsMetadata* md,
                                       std::vector<model::Sample>& out, bool count) {
    m_metric.assign(message.objectType).append("/").append(message.pointType);
    std::array<prom::Label, 9> labels;
    std::size_t n = 0;
    labels[n++] = {"tag", message.tagPath};
    labels[n++] = {"publisher", message.publisher};
    if (md) {
        m_processArea.clear();
        for (const auto& p : md->processArea)
            m_processArea.append(m_processArea.empty() ? "" : "/").append(p);
        for (const prom::Label& l :
             {prom::Label{"rack", md->rackLocationName}, prom::Label{"rack_id", md->rackLocationId},
              prom::Label{"object", md->objectName}, prom::Label{"object_id", md->objectId},
              prom::Label{"associate", md->associateId}, prom::Label{"process_area", m_processArea},
              prom::Label{"unit", md->engUnit}})
            if (!l.value.empty()) labels[n++] = l;
    }
    const MapperStats before = m_mapper.stats();
    const std::size_t produced =
        m_mapper.map(m_metric, std::span(labels.data(), n), *message.value, message.time, out);
    if (produced > 0) return Outcome::Mapped;
    const MapperStats& after = m_mapper.stats();
    Outcome outcome = Outcome::Dropped;
    if (after.unmapped > before.unmapped)
        outcome = Outcome::Unmapped;
    else if (after.unresolved > before.unresolved)
        outcome = Outcome::Unresolved;
    if (count && (outcome == Outcome::Unmapped || outcome == Outcome::Unresolved))
        ++m_stats.unmapped;
    return outcome;
}

namespace {

std::expected<ImportReport, Error> importCapture(std::istream& in, std::uint64_t total,
                                                 const std::string& name, BmsMapper& mapper,
                                                 const ImportHooks& hooks) {
    ImportReport report;
    BatchCollector batches(hooks, report);
    std::vector<model::Sample> samples;
    forEachLine(in, total, hooks, report, [&](std::string_view line, std::uint64_t number) {
        const int lineNo = static_cast<int>(std::min<std::uint64_t>(number, INT32_MAX));
        while (!line.empty() && (line.front() == ' ' || line.front() == '\t'))
            line.remove_prefix(1);
        if (line.empty() || line.starts_with('#')) return true;
        // mosquitto_sub -v: the topic, one space, the payload (a JSON object).
        const std::size_t split = line.find(" {");
        if (split == std::string_view::npos) {
            batches.problem(Error{"expected TOPIC {json payload} (as mosquitto_sub -v prints it)",
                                  name,
                                  lineNo,
                                  1,
                                  {}});
            return true;
        }
        auto message = parseBmsMessage(line.substr(0, split), line.substr(split + 1));
        if (!message) {
            Error e = message.error();
            e.message = (e.file.empty() ? "" : e.file + ": ") +
                        e.message; // the topic, which the file stood for
            e.file = name;
            e.column = e.line > 0 ? static_cast<int>(split + 1) + e.column : 1;
            e.line = lineNo;
            batches.problem(std::move(e));
            return true;
        }
        samples.clear();
        mapper.apply(*message, samples);
        batches.addAll(samples);
        return true;
    });
    batches.flush();
    return report;
}

} // namespace

std::expected<ImportReport, Error> importBmsCaptureFile(const std::string& path, BmsMapper& mapper,
                                                        const ImportHooks& hooks) {
    std::ifstream in;
    auto size = openForImport(path, in);
    if (!size) return std::unexpected(size.error());
    return importCapture(in, *size, path, mapper, hooks);
}

std::expected<ImportReport, Error> importBmsCaptureText(std::string_view text,
                                                        const std::string& name, BmsMapper& mapper,
                                                        const ImportHooks& hooks) {
    std::istringstream in{std::string(text)};
    return importCapture(in, text.size(), name, mapper, hooks);
}

} // namespace ft::importers
