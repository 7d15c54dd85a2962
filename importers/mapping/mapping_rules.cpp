#include "mapping_rules.h"

#include "importers/formats/json_document.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <initializer_list>
#include <sstream>

namespace ft::importers {
namespace {

using Type = JsonValue::Type;
using model::EntityKind;
using Fields =
    std::vector<CaptureField>; // owning: an initializer_list returned in a vector would dangle

constexpr std::string_view kFormat = "floortwin-mapping/1";

bool validLabelName(std::string_view name) {
    return name == "__name__" || isLabelName(name);
}

std::string describe(const JsonValue& v) {
    if (v.type == Type::String) return "\"" + v.string + "\"";
    if (v.type == Type::Number) {
        std::ostringstream s;
        s << v.number;
        return s.str();
    }
    return std::string(JsonValue::typeName(v.type));
}

std::string joinFieldNames(const Fields& fields, std::string_view sep) {
    std::string out;
    for (CaptureField f : fields) {
        if (!out.empty()) out += sep;
        out += "'" + std::string(kCaptureFieldNames[static_cast<std::size_t>(f)]) + "'";
    }
    return out;
}

// The ways each kind can be named (see mapping_rules.h); "name" works for every kind.
std::vector<Fields> waysToName(EntityKind kind) {
    using F = CaptureField;
    switch (kind) {
    case EntityKind::Gpu:
        return {{F::Host, F::Gpu}, {F::Uuid}};
    case EntityKind::NvlinkLink:
        return {{F::Host, F::Gpu, F::Link}, {F::Uuid, F::Link}};
    case EntityKind::ComputeTray:
        return {{F::Host}};
    case EntityKind::Nic:
        return {{F::Host, F::Nic}};
    case EntityKind::FabricLink:
        return {{F::Host, F::Nic}, {F::Leaf, F::Port}};
    case EntityKind::Rack:
        return {{F::Rack}, {F::Host}, {F::Bmc}};
    case EntityKind::PowerShelf:
        return {{F::Rack, F::Shelf}, {F::Host, F::Shelf}, {F::Bmc, F::Shelf}};
    case EntityKind::Psu:
        return {
            {F::Rack, F::Shelf, F::Psu}, {F::Host, F::Shelf, F::Psu}, {F::Bmc, F::Shelf, F::Psu}};
    case EntityKind::Cdu:
        return {{F::Cdu}, {F::Bmc}};
    case EntityKind::Pump:
        return {{F::Cdu, F::Pump}, {F::Bmc, F::Pump}, {F::Pump}};
    default:
        return {};
    }
}

class RulesReader {
public:
    RulesReader(const std::string& file) : m_file(file) {}

    std::unexpected<Error> fail(const JsonValue& at, const std::string& key,
                                std::string message) const {
        return std::unexpected(Error{std::move(message), m_file, at.line, at.column, key});
    }

    std::expected<MappingRules, Error> read(const JsonValue& doc) {
        if (doc.type != Type::Object)
            return fail(doc, "", "expected a JSON object at the top level, got " + describe(doc));
        MappingRules out;
        out.file = m_file;
        const JsonValue* rules = nullptr;
        for (const auto& [key, v] : doc.object) {
            if (key == "format") {
                if (v.type != Type::String || v.string != kFormat)
                    return fail(v, key,
                                "expected \"" + std::string(kFormat) + "\", got " + describe(v));
            } else if (key == "name" || key == "description") {
                if (v.type != Type::String)
                    return fail(v, key, "expected a string, got " + describe(v));
                (key == "name" ? out.name : out.description) = v.string;
            } else if (key == "comment") {
                continue;
            } else if (key == "defaults") {
                if (auto r = readDefaults(v); !r) return std::unexpected(r.error());
            } else if (key == "rules") {
                rules = &v;
            } else {
                return fail(
                    v, key,
                    "unknown key (expected format, name, description, defaults, rules or comment)");
            }
        }
        if (!rules) return fail(doc, "rules", "missing required key");
        if (rules->type != Type::Array || rules->array.empty())
            return fail(*rules, "rules",
                        "expected a non-empty array of rules, got " + describe(*rules));
        for (std::size_t i = 0; i < rules->array.size(); ++i) {
            auto rule = readRule(rules->array[i], "rules[" + std::to_string(i) + "]");
            if (!rule) return std::unexpected(rule.error());
            out.rules.push_back(std::move(*rule));
        }
        return out;
    }

private:
    std::expected<void, Error> readDefaults(const JsonValue& v) {
        if (v.type != Type::Object)
            return fail(v, "defaults",
                        "expected an object of capture field -> sources, got " + describe(v));
        for (const auto& [key, item] : v.object) {
            const auto field = captureFieldFromName(key);
            if (!field)
                return fail(item, "defaults." + key,
                            "unknown capture field (expected one of " + allFieldNames() + ")");
            auto sources = readSources(item, *field, "defaults." + key);
            if (!sources) return std::unexpected(sources.error());
            m_defaults[static_cast<std::size_t>(*field)] = std::move(*sources);
        }
        return {};
    }

    static std::string allFieldNames() {
        std::string out;
        for (auto n : kCaptureFieldNames)
            out += (out.empty() ? "" : ", ") + std::string(n);
        return out;
    }

    // A pattern's captures must all be capture fields; returns the field of each.
    std::expected<std::vector<CaptureField>, Error>
    fieldsOf(const LabelPattern& p, const JsonValue& at, const std::string& key) {
        std::vector<CaptureField> fields;
        for (const auto& name : p.captureNames()) {
            const auto f = captureFieldFromName(name);
            if (!f)
                return fail(at, key,
                            "capture '{" + name + "}' is not a capture field (expected one of " +
                                allFieldNames() + ")");
            fields.push_back(*f);
        }
        return fields;
    }

    std::expected<std::vector<CaptureSource>, Error>
    readSources(const JsonValue& v, CaptureField field, const std::string& key) {
        std::vector<const JsonValue*> items;
        if (v.type == Type::String)
            items.push_back(&v);
        else if (v.type == Type::Array && !v.array.empty())
            for (const auto& item : v.array)
                items.push_back(&item);
        else
            return fail(v, key,
                        "expected a source (\"label\" or \"label=pattern\") or a non-empty list of "
                        "them, got " +
                            describe(v));
        std::vector<CaptureSource> out;
        const std::string_view fieldName = kCaptureFieldNames[static_cast<std::size_t>(field)];
        for (const JsonValue* item : items) {
            if (item->type != Type::String)
                return fail(*item, key, "expected a string, got " + describe(*item));
            const std::string& text = item->string;
            const std::size_t eq = text.find('=');
            CaptureSource src;
            src.label = text.substr(0, eq);
            if (!validLabelName(src.label))
                return fail(*item, key,
                            "'" + src.label + "' is not a label name (in \"" + text + "\")");
            if (eq != std::string::npos) {
                auto p = LabelPattern::compile(std::string_view(text).substr(eq + 1));
                if (!p) return fail(*item, key, p.error());
                if (p->captureIndex(fieldName) < 0)
                    return fail(*item, key,
                                "the pattern in \"" + text + "\" has no '{" +
                                    std::string(fieldName) + "}' capture");
                auto fields = fieldsOf(*p, *item, key);
                if (!fields) return std::unexpected(fields.error());
                src.fields = std::move(*fields);
                src.pattern = std::move(*p);
            }
            out.push_back(std::move(src));
        }
        return out;
    }

    std::expected<double, Error> number(const JsonValue& v, const std::string& key) {
        if (v.type != Type::Number || !std::isfinite(v.number))
            return fail(v, key, "expected a number, got " + describe(v));
        return v.number;
    }

    std::expected<bool, Error> boolean(const JsonValue& v, const std::string& key) {
        if (v.type != Type::Bool) return fail(v, key, "expected true or false, got " + describe(v));
        return v.boolean;
    }

    std::expected<model::ChannelId, Error> channel(const JsonValue& v, const std::string& key) {
        if (v.type != Type::String)
            return fail(v, key, "expected a channel name, got " + describe(v));
        const auto id = model::findChannel(v.string);
        if (!id)
            return fail(v, key, "unknown channel '" + v.string + "' (not in the channel catalog)");
        return *id;
    }

    std::expected<void, Error> readEntity(const JsonValue& v, const std::string& path,
                                          MappingRule& rule) {
        if (v.type != Type::Object)
            return fail(v, path,
                        "expected an object with \"kind\" and capture sources, got " + describe(v));
        const JsonValue* kind = v.find("kind");
        if (!kind) return fail(v, path + ".kind", "missing required key");
        if (kind->type != Type::String || !model::entityKindFromName(kind->string))
            return fail(*kind, path + ".kind",
                        "expected an entity kind (gpu, nvlink_link, rack, cdu, pump, fabric_link, "
                        "...), got " +
                            describe(*kind));
        EntitySpec& spec = rule.entity;
        spec.kind = *model::entityKindFromName(kind->string);
        // "CDU A1 pump 1", "A03 shelf 1" and "A03 shelf 1 PSU 1" are the first.
        spec.indexBase[static_cast<std::size_t>(CaptureField::Pump)] = 1;
        spec.indexBase[static_cast<std::size_t>(CaptureField::Shelf)] = 1;
        spec.indexBase[static_cast<std::size_t>(CaptureField::Psu)] = 1;
        std::array<bool, kCaptureFieldCount> given{};
        for (const auto& [key, item] : v.object) {
            const std::string itemKey = path + "." + key;
            if (key == "kind") continue;
            if (key == "index_base") {
                if (item.type != Type::Object)
                    return fail(item, itemKey,
                                "expected an object of capture field -> first number, got " +
                                    describe(item));
                for (const auto& [f, base] : item.object) {
                    const auto field = captureFieldFromName(f);
                    if (!field) return fail(base, itemKey + "." + f, "unknown capture field");
                    if (base.type != Type::Number || base.number != std::floor(base.number) ||
                        base.number < 0 || base.number > 1000)
                        return fail(base, itemKey + "." + f,
                                    "expected an integer from 0 to 1000, got " + describe(base));
                    spec.indexBase[static_cast<std::size_t>(*field)] =
                        static_cast<int>(base.number);
                }
                continue;
            }
            const auto field = captureFieldFromName(key);
            if (!field)
                return fail(item, itemKey,
                            "unknown key (expected kind, index_base or a capture field: " +
                                allFieldNames() + ")");
            auto sources = readSources(item, *field, itemKey);
            if (!sources) return std::unexpected(sources.error());
            spec.sources[static_cast<std::size_t>(*field)] = std::move(*sources);
            given[static_cast<std::size_t>(*field)] = true;
        }
        for (std::size_t f = 0; f < kCaptureFieldCount; ++f)
            if (!given[f]) spec.sources[f] = m_defaults[f];

        // Which fields can get a value: their own sources, captures in every metric pattern,
        // or captures riding along in another field's pattern.
        std::array<bool, kCaptureFieldCount> available{};
        for (std::size_t f = 0; f < kCaptureFieldCount; ++f) {
            if (!spec.sources[f].empty()) available[f] = true;
            for (const auto& src : spec.sources[f])
                for (CaptureField c : src.fields)
                    available[static_cast<std::size_t>(c)] = true;
        }
        for (std::size_t f = 0; f < kCaptureFieldCount; ++f) {
            bool everyMetric = !rule.metricFields.empty();
            for (const auto& fields : rule.metricFields)
                everyMetric =
                    everyMetric &&
                    std::ranges::find(fields, static_cast<CaptureField>(f)) != fields.end();
            if (everyMetric) available[f] = true;
        }
        if (available[static_cast<std::size_t>(CaptureField::Name)]) return {};
        const auto ways = waysToName(spec.kind);
        for (const Fields& way : ways) {
            bool all = true;
            for (CaptureField f : way)
                all = all && available[static_cast<std::size_t>(f)];
            if (all) return {};
        }
        std::string options = "'name'";
        for (const Fields& way : ways)
            options += ", or " + joinFieldNames(way, " and ");
        return fail(v, path,
                    "the rule cannot tell which " + kind->string + " a sample belongs to: give " +
                        options +
                        " (in the entity, the file's defaults, or as captures in the metric)");
    }

    std::expected<MappingRule, Error> readRule(const JsonValue& v, const std::string& path) {
        if (v.type != Type::Object)
            return fail(v, path, "expected a rule object, got " + describe(v));
        MappingRule rule;
        rule.line = v.line;
        rule.column = v.column;
        const JsonValue *metric = v.find("metric"), *channelKey = v.find("channel"),
                        *entity = v.find("entity");
        if (!metric) return fail(v, path + ".metric", "missing required key");
        if (const JsonValue* ignore = v.find("ignore")) {
            if (ignore->type != Type::String || ignore->string.empty())
                return fail(*ignore, path + ".ignore",
                            "expected why these series are left out, got " + describe(*ignore));
            rule.ignore = ignore->string;
            for (const auto& [key, item] : v.object)
                if (key != "metric" && key != "match" && key != "ignore" && key != "comment")
                    return fail(item, path + "." + key,
                                "an \"ignore\" rule has only metric, match and comment");
        } else if (!channelKey)
            return fail(v, path + ".channel", "missing required key");
        if (!entity && rule.ignore.empty())
            return fail(v, path + ".entity", "missing required key");

        std::vector<const JsonValue*> metrics;
        if (metric->type == Type::String)
            metrics.push_back(metric);
        else if (metric->type == Type::Array && !metric->array.empty())
            for (const auto& m : metric->array)
                metrics.push_back(&m);
        else
            return fail(*metric, path + ".metric",
                        "expected a metric name or pattern, or a non-empty list of them, got " +
                            describe(*metric));
        for (const JsonValue* m : metrics) {
            if (m->type != Type::String || m->string.empty())
                return fail(*m, path + ".metric",
                            "expected a metric name or pattern, got " + describe(*m));
            auto p = LabelPattern::compile(m->string);
            if (!p) return fail(*m, path + ".metric", p.error());
            auto fields = fieldsOf(*p, *m, path + ".metric");
            if (!fields) return std::unexpected(fields.error());
            rule.metrics.push_back(std::move(*p));
            rule.metricFields.push_back(std::move(*fields));
        }

        bool counter = false, rate = false;
        const JsonValue* rateAt = nullptr;
        for (const auto& [key, item] : v.object) {
            const std::string itemKey = path + "." + key;
            if (key == "metric" || key == "entity" || key == "comment" || key == "ignore") continue;
            if (key == "channel") {
                auto c = channel(item, itemKey);
                if (!c) return std::unexpected(c.error());
                rule.channel = *c;
            } else if (key == "to_end_channel") {
                auto c = channel(item, itemKey);
                if (!c) return std::unexpected(c.error());
                rule.toEndChannel = *c;
            } else if (key == "match") {
                if (item.type != Type::Object)
                    return fail(item, itemKey,
                                "expected an object of label -> pattern, got " + describe(item));
                for (const auto& [label, pattern] : item.object) {
                    const std::string matchKey = itemKey + "." + label;
                    if (!validLabelName(label))
                        return fail(pattern, matchKey, "'" + label + "' is not a label name");
                    if (pattern.type != Type::String)
                        return fail(pattern, matchKey,
                                    "expected a pattern string, got " + describe(pattern));
                    std::string_view text = pattern.string;
                    LabelMatcher m;
                    m.label = label;
                    if (text.starts_with('!')) {
                        m.negate = true;
                        text.remove_prefix(1);
                    }
                    auto p = LabelPattern::compile(text);
                    if (!p) return fail(pattern, matchKey, p.error());
                    m.pattern = std::move(*p);
                    rule.matchers.push_back(std::move(m));
                }
            } else if (key == "scale" || key == "offset") {
                auto n = number(item, itemKey);
                if (!n) return std::unexpected(n.error());
                (key == "scale" ? rule.scale : rule.offset) = *n;
            } else if (key == "rate" || key == "counter" || key == "fallback" ||
                       key == "continue") {
                auto b = boolean(item, itemKey);
                if (!b) return std::unexpected(b.error());
                if (key == "rate") {
                    rate = *b;
                    rateAt = &item;
                } else if (key == "counter")
                    counter = *b;
                else if (key == "fallback")
                    rule.fallback = *b;
                else
                    rule.continueMatching = *b;
            } else if (key == "valid") {
                if (item.type != Type::Array || item.array.size() != 2 ||
                    item.array[0].type != Type::Number || item.array[1].type != Type::Number ||
                    !(item.array[0].number <= item.array[1].number))
                    return fail(item, itemKey,
                                "expected [min, max] with min <= max, got " + describe(item));
                rule.validMin = item.array[0].number;
                rule.validMax = item.array[1].number;
            } else {
                return fail(item, itemKey,
                            "unknown key (expected metric, channel, entity, match, scale, offset, "
                            "rate, counter, valid, "
                            "fallback, continue, to_end_channel or comment)");
            }
        }
        if (rate && counter)
            return fail(*rateAt, path + ".rate",
                        R"(a rule is either "rate" or "counter", not both)");
        rule.transform = rate      ? ValueTransform::Rate
                         : counter ? ValueTransform::Counter
                                   : ValueTransform::Gauge;
        if (!rule.ignore.empty()) return rule;

        if (auto r = readEntity(*entity, path + ".entity", rule); !r)
            return std::unexpected(r.error());
        const auto& info = model::channelInfo(rule.channel);
        if (info.kind != rule.entity.kind)
            return fail(*channelKey, path + ".channel",
                        "channel '" + std::string(info.name) + "' belongs to " +
                            std::string(model::entityKindName(info.kind)) +
                            " entities, but the rule's entity kind is " +
                            std::string(model::entityKindName(rule.entity.kind)));
        if (rule.toEndChannel) {
            const JsonValue* at = v.find("to_end_channel");
            if (rule.entity.kind != EntityKind::FabricLink)
                return fail(*at, path + ".to_end_channel", "only fabric_link rules have a far end");
            if (model::channelInfo(*rule.toEndChannel).kind != EntityKind::FabricLink)
                return fail(*at, path + ".to_end_channel", "expected a fabric_link channel");
        }
        return rule;
    }

    const std::string& m_file;
    std::array<std::vector<CaptureSource>, kCaptureFieldCount> m_defaults;
};

} // namespace

std::optional<CaptureField> captureFieldFromName(std::string_view name) {
    for (std::size_t i = 0; i < kCaptureFieldCount; ++i)
        if (kCaptureFieldNames[i] == name) return static_cast<CaptureField>(i);
    return std::nullopt;
}

std::expected<MappingRules, Error> parseMappingRules(std::string_view text,
                                                     const std::string& file) {
    auto doc = parseJson(text, file);
    if (!doc) return std::unexpected(doc.error());
    return RulesReader(file).read(*doc);
}

std::expected<MappingRules, Error> loadMappingRules(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::unexpected(Error{"cannot open mapping rules file", path, 0, 0, {}});
    std::stringstream buffer;
    buffer << in.rdbuf();
    return parseMappingRules(buffer.str(), path);
}

} // namespace ft::importers
