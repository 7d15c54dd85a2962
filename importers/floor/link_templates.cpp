#include "link_templates.h"

#include "importers/formats/alertmanager_json.h"
#include "importers/formats/url_text.h"

namespace ft::importers {

namespace {

// The GPU, tray and rack an entity stands for (what it is, or what it is part of).
struct Place {
    std::optional<model::EntityId> gpu, tray, rack;
};
Place placeOf(const model::Topology& t, model::EntityRef ref) {
    Place p;
    using model::EntityKind;
    if (ref.kind == EntityKind::Gpu && ref.id < t.gpus.tray.size()) {
        p.gpu = ref.id;
        p.tray = t.gpus.tray[ref.id];
    } else if (ref.kind == EntityKind::ComputeTray && ref.id < t.computeTrays.rack.size()) {
        p.tray = ref.id;
    }
    p.rack = ref.kind == EntityKind::Rack ? std::optional(ref.id) : t.rackOf(ref.kind, ref.id);
    return p;
}

// One placeholder's value, or nothing when it cannot be filled; `known` false: not a
// placeholder at all.
std::optional<std::string> valueOf(const std::string& name, const model::Topology& t,
                                   model::EntityRef ref, model::TimeNs time, bool& known) {
    known = true;
    const Place p = placeOf(t, ref);
    auto nonEmpty = [](std::string v) {
        return v.empty() ? std::nullopt : std::optional(std::move(v));
    };
    if (name.starts_with("t") &&
        (name == "t" || name[1] == '-' || name[1] == '+' || name[1] == ':')) {
        std::string shift = name.substr(1), format = "ms";
        if (const auto colon = shift.find(':'); colon != std::string::npos) {
            format = shift.substr(colon + 1);
            shift = shift.substr(0, colon);
        }
        model::TimeNs at = time;
        if (!shift.empty()) {
            model::TimeNs d = 0;
            if (!model::parseDuration(shift.substr(1), d)) {
                known = false;
                return std::nullopt;
            }
            at += shift[0] == '-' ? -d : d;
        }
        if (format == "ms") return std::to_string(at / model::kNsPerMs);
        if (format == "s") return std::to_string(at / model::kNsPerSecond);
        if (format == "rfc3339") return importers::rfc3339(at);
        known = false;
        return std::nullopt;
    }
    if (name == "host") return p.tray ? nonEmpty(t.hostName(*p.tray)) : std::nullopt;
    if (name == "rack")
        return p.rack ? nonEmpty(t.name(model::EntityKind::Rack, *p.rack)) : std::nullopt;
    if (name == "row") return p.rack ? nonEmpty(t.rows.name[t.racks.row[*p.rack]]) : std::nullopt;
    if (name == "cdu") {
        if (ref.kind == model::EntityKind::Cdu) return t.name(ref.kind, ref.id);
        return p.rack ? nonEmpty(t.name(model::EntityKind::Cdu, t.racks.cdu[*p.rack]))
                      : std::nullopt;
    }
    if (name == "gpu")
        return p.gpu ? std::optional(std::to_string(t.gpus.indexInTray[*p.gpu])) : std::nullopt;
    if (name == "uuid" || name == "gpu_uuid")
        return p.gpu && *p.gpu < t.gpus.uuid.size() ? nonEmpty(t.gpus.uuid[*p.gpu]) : std::nullopt;
    if (name == "bmc")
        return p.tray && *p.tray < t.computeTrays.bmc.size() ? nonEmpty(t.computeTrays.bmc[*p.tray])
                                                             : std::nullopt;
    if (name == "tray")
        return p.tray ? std::optional(std::to_string(t.computeTrays.indexInRack[*p.tray] + 1))
                      : std::nullopt;
    if (name == "entity") return nonEmpty(t.name(ref.kind, ref.id));
    if (name == "kind") return std::string(model::entityKindName(ref.kind));
    if (name == "id") return std::to_string(ref.id);
    known = false;
    return std::nullopt;
}

} // namespace

std::optional<std::string> expandLinkTemplate(const std::string& url, const model::Topology& t,
                                              model::EntityRef ref, model::TimeNs time,
                                              std::string* why) {
    std::string out;
    for (std::size_t i = 0; i < url.size();) {
        const auto open = url.find('{', i);
        if (open == std::string::npos) {
            out += url.substr(i);
            break;
        }
        const auto close = url.find('}', open);
        if (close == std::string::npos) {
            if (why) *why = "an unclosed '{'";
            return std::nullopt;
        }
        out += url.substr(i, open - i);
        const std::string name = url.substr(open + 1, close - open - 1);
        bool known = false;
        const auto value = valueOf(name, t, ref, time, known);
        if (!value) {
            if (why) *why = "{" + name + "}";
            return std::nullopt;
        }
        // The moment's RFC 3339 form keeps its ':' (a query reads it as it is).
        out += name.ends_with(":rfc3339") ? *value : urlEncode(*value);
        i = close + 1;
    }
    return out;
}

std::optional<std::string> checkLinkTemplate(const std::string& url) {
    if (!url.starts_with("https://") && !url.starts_with("http://"))
        return "'" + url + "' is not a web address (expected https://… or http://…)";
    for (std::size_t i = url.find('{'); i != std::string::npos; i = url.find('{', i + 1)) {
        const auto close = url.find('}', i);
        if (close == std::string::npos) return "an unclosed '{' in '" + url + "'";
        const std::string name = url.substr(i + 1, close - i - 1);
        static const char* kNames[] = {"host",     "rack", "row",  "cdu",    "gpu",  "uuid",
                                       "gpu_uuid", "bmc",  "tray", "entity", "kind", "id"};
        bool ok = false;
        for (const char* k : kNames)
            ok = ok || name == k;
        if (!ok && name.starts_with("t")) {
            std::string rest = name.substr(1), format;
            if (const auto colon = rest.find(':'); colon != std::string::npos) {
                format = rest.substr(colon + 1);
                rest = rest.substr(0, colon);
            }
            model::TimeNs d = 0;
            ok = (rest.empty() || ((rest[0] == '-' || rest[0] == '+') &&
                                   model::parseDuration(rest.substr(1), d))) &&
                 (format.empty() || format == "ms" || format == "s" || format == "rfc3339");
        }
        if (!ok)
            return "unknown placeholder {" + name +
                   "} (known: host, rack, row, cdu, gpu, uuid, bmc, tray, entity, kind, id, t, "
                   "t-15m, t+15m, t:rfc3339, t:s)";
    }
    return std::nullopt;
}

} // namespace ft::importers
