// The PromQL a source asks: for each mapping rule, one selector per rule (per rack, where a
// rack's hosts share a name pattern) with the rule's matchers, and the rack aggregates that keep
// a big floor's answers small (buildQuerySet). Pure text: no network.
#include "importers/mapping/mapping_rules.h"
#include "promql_source.h"

#include <algorithm>
#include <cmath>
#include <regex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ft::importers {

namespace {

using model::EntityKind;

constexpr std::string_view kRackLabel = "ft_rack";

std::string regexEscape(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (std::string_view(".^$|()[]{}*+?\\").find(c) != std::string_view::npos) out += '\\';
        out += c;
    }
    return out;
}

// A PromQL double-quoted string literal.
std::string promqlString(std::string_view text) {
    std::string out = "\"";
    for (char c : text) {
        if (c == '\\' || c == '"') out += '\\';
        out += c;
    }
    return out + "\"";
}

// A LabelPattern (rules syntax) as a regular expression over metric names.
std::string patternRegex(std::string_view pattern) {
    std::string out;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        const char c = pattern[i];
        if (c == '{') {
            const std::size_t close = pattern.find('}', i);
            if (close == std::string_view::npos) return out + regexEscape(pattern.substr(i));
            out += ".+";
            i = close;
        } else if (c == '*') {
            out += ".*";
            if (i + 1 < pattern.size() && pattern[i + 1] == '*') ++i;
        } else {
            out += regexEscape(std::string_view(&c, 1));
        }
    }
    return out;
}

std::string metricsRegex(const std::vector<const MappingRule*>& rules) {
    std::vector<std::string> parts;
    for (const MappingRule* r : rules)
        for (const LabelPattern& p : r->metrics) {
            std::string re = patternRegex(p.text());
            if (std::ranges::find(parts, re) == parts.end()) parts.push_back(std::move(re));
        }
    std::string out;
    for (const auto& p : parts)
        out += (out.empty() ? "" : "|") + p;
    return out;
}

bool isDeviceKind(EntityKind k) {
    switch (k) {
    case EntityKind::Gpu:
    case EntityKind::Cpu:
    case EntityKind::Dpu:
    case EntityKind::Nic:
    case EntityKind::ComputeTray:
    case EntityKind::SwitchTray:
    case EntityKind::NvlinkLink:
    case EntityKind::FabricLink:
        return true;
    default:
        return false;
    }
}

// A rule's "match" conditions as PromQL label matchers, so the server filters as the mapper would.
std::string matchersOf(const MappingRule& rule) {
    std::string out;
    for (const LabelMatcher& m : rule.matchers) {
        std::string one;
        if (m.pattern.isEmpty())
            one = m.label + (m.negate ? "!=" : "=") + "\"\"";
        else if (m.pattern.isLiteral())
            one = m.label + (m.negate ? "!=" : "=") + promqlString(m.pattern.text());
        else
            one = m.label + (m.negate ? "!~" : "=~") + promqlString(patternRegex(m.pattern.text()));
        out += (out.empty() ? "" : ",") + one;
    }
    return out;
}

std::string selector(const std::string& nameRegex, const std::string& extra) {
    std::string s = "{__name__=~" + promqlString(nameRegex);
    if (!extra.empty()) s += "," + extra;
    return s + "}";
}

} // namespace

std::string rackKeyRegex(const std::string& hostPattern) {
    const std::size_t trayAt = hostPattern.find("{tray");
    if (trayAt == std::string::npos) return {};
    const std::size_t trayEnd = hostPattern.find('}', trayAt);
    if (trayEnd == std::string::npos) return {};
    const std::string prefix = hostPattern.substr(0, trayAt);
    const std::size_t lastPlaceholder = prefix.rfind('}');
    if (lastPlaceholder == std::string::npos) return {}; // nothing in the host names a rack
    auto convert = [](std::string_view part) {
        std::string out;
        for (std::size_t i = 0; i < part.size(); ++i) {
            if (part[i] == '{') {
                const std::size_t close = part.find('}', i);
                if (close == std::string_view::npos) return out + regexEscape(part.substr(i));
                if (!out.ends_with(".+")) out += ".+"; // "{row_lc}{rack:02}": one run of anything
                i = close;
            } else {
                out += regexEscape(part.substr(i, 1));
            }
        }
        return out;
    };
    // A domain suffix (".cluster.local") or a port (instance="host:9400") may follow.
    return "(" + convert(prefix.substr(0, lastPlaceholder + 1)) + ")" +
           regexEscape(prefix.substr(lastPlaceholder + 1)) + "[0-9]+" +
           convert(hostPattern.substr(trayEnd + 1)) + "(?:[.:].*)?";
}

namespace {

// One regex for a rack's hosts: their common prefix, then the alternatives, then an optional
// domain or port ("dh2-r14-c07-n(?:01|02|...)(?:[.:].*)?").
std::string hostsRegex(const std::vector<std::string>& hosts) {
    std::string prefix = hosts.front();
    for (const auto& h : hosts)
        while (!h.starts_with(prefix))
            prefix.pop_back();
    std::string alternatives;
    for (const auto& h : hosts)
        alternatives += (alternatives.empty() ? "" : "|") + regexEscape(h.substr(prefix.size()));
    return regexEscape(prefix) + "(?:" + alternatives + ")(?:[.:].*)?";
}

} // namespace

std::vector<PromqlQuery> buildQuerySet(const MappingRules& rules, const model::Topology& topology,
                                       const QuerySetOptions& options) {
    std::vector<PromqlQuery> queries;
    // A floor with a host table names its hosts freely: racks are found by host alternations
    // (batched under the server's query length), not by cutting a key out of the host name.
    const bool hostTable = !topology.spec().hosts.empty();
    const std::string keyRegex =
        hostTable ? std::string() : rackKeyRegex(topology.spec().hostPattern);
    std::vector<std::pair<std::string, std::string>> rackHosts; // rack name -> hosts regex
    if (hostTable) {
        std::map<std::string, std::vector<std::string>> byRack;
        for (const auto& h : topology.spec().hosts)
            byRack[h.rack].push_back(h.name);
        for (model::EntityId r = 0; r < topology.count(EntityKind::Rack); ++r)
            if (auto it = byRack.find(topology.racks.name[r]); it != byRack.end())
                rackHosts.emplace_back(it->first, hostsRegex(it->second));
    }

    if (options.rackOverview && (!keyRegex.empty() || !rackHosts.empty()) &&
        !options.hostLabels.empty()) {
        struct Aggregate {
            std::string_view gpuChannel, op, rackChannel, name;
            double unit; // GPU channel unit -> rack channel unit
        };
        static constexpr Aggregate kAggregates[] = {
            {"gpu.temperature", "max", "rack.gpu_temperature_max", "rack hottest GPU", 1.0},
            {"gpu.temperature", "avg", "rack.gpu_temperature_mean", "rack mean GPU temperature",
             1.0},
            {"gpu.utilization", "avg", "rack.gpu_utilization", "rack mean GPU utilization", 1.0},
            {"gpu.nvlink_tx", "sum", "rack.nvlink_throughput", "rack NVLink traffic",
             1e-3}, // GB/s -> TB/s
        };
        for (const Aggregate& a : kAggregates) {
            const auto gpuChannel = model::findChannel(a.gpuChannel);
            const auto rackChannel = model::findChannel(a.rackChannel);
            if (!gpuChannel || !rackChannel) continue;
            const MappingRule* rule = nullptr;
            for (const MappingRule& r : rules.rules)
                if (r.ignore.empty() && r.channel == *gpuChannel &&
                    r.entity.kind == EntityKind::Gpu && !r.fallback &&
                    r.transform != ValueTransform::Counter) {
                    rule = &r;
                    break;
                }
            if (!rule) continue;
            // A sum of (v * scale + offset) is not sum(v) * scale + offset.
            if (a.op == "sum" && rule->offset != 0.0) continue;
            std::string extra = matchersOf(*rule);
            if (!options.selector.empty()) extra += (extra.empty() ? "" : ",") + options.selector;
            if (hostTable) {
                // Per rack: OP over its hosts' series (under any of the host labels), named by
                // the rack; racks joined with `or`, as many per query as the length allows.
                auto perRack = [&](const std::string& rackName, const std::string& hosts) {
                    std::string any;
                    for (const auto& label : options.hostLabels) {
                        const std::string m =
                            (extra.empty() ? "" : extra + ",") + label + "=~" + promqlString(hosts);
                        std::string sel = selector(metricsRegex({rule}), m);
                        if (rule->transform == ValueTransform::Rate) sel = "rate(" + sel + "[1m])";
                        any += (any.empty() ? "" : " or ") + sel;
                    }
                    std::string in = "(" + any + ")";
                    if (std::isfinite(rule->validMin))
                        in = "(" + in + " >= " + std::to_string(rule->validMin) + ")";
                    if (std::isfinite(rule->validMax))
                        in = "(" + in + " <= " + std::to_string(rule->validMax) + ")";
                    return "label_replace(" + std::string(a.op) + "(" + in + "), " +
                           promqlString(kRackLabel) + ", " + promqlString(rackName) +
                           R"(, "", ""))";
                };
                std::string expr;
                std::size_t first = 0;
                auto flush = [&](std::size_t end) {
                    if (expr.empty()) return;
                    PromqlQuery q;
                    q.name = std::string(a.name) + " (racks " + rackHosts[first].first + " to " +
                             rackHosts[end - 1].first + ")";
                    q.expr = expr;
                    q.channel = *rackChannel;
                    q.rackLabel = std::string(kRackLabel);
                    q.scale = rule->scale * a.unit;
                    q.offset = a.op == "sum" ? 0.0 : rule->offset * a.unit;
                    queries.push_back(std::move(q));
                    expr.clear();
                    first = end;
                };
                for (std::size_t i = 0; i < rackHosts.size(); ++i) {
                    const std::string one = perRack(rackHosts[i].first, rackHosts[i].second);
                    if (!expr.empty() && expr.size() + 4 + one.size() > options.maxQueryBytes)
                        flush(i);
                    expr += (expr.empty() ? "" : " or ") + one;
                }
                flush(rackHosts.size());
                continue;
            }
            std::string inner = selector(metricsRegex({rule}), extra);
            if (rule->transform == ValueTransform::Rate) inner = "rate(" + inner + "[1m])";
            // The rule's valid range, applied by the server: out-of-range readings (DCGM's blank
            // sentinels) must not win a max.
            if (std::isfinite(rule->validMin))
                inner = "(" + inner + " >= " + std::to_string(rule->validMin) + ")";
            if (std::isfinite(rule->validMax))
                inner = "(" + inner + " <= " + std::to_string(rule->validMax) + ")";
            std::string keyed = inner;
            for (const auto& hostLabel : std::ranges::reverse_view(options.hostLabels))
                keyed = "label_replace(" + keyed + ", \"" + std::string(kRackLabel) +
                        R"(", "$1", )" + promqlString(hostLabel) + ", " + promqlString(keyRegex) +
                        ")";
            PromqlQuery q;
            q.name = std::string(a.name);
            q.expr = std::string(a.op) + " by (" + std::string(kRackLabel) + ") (" + keyed + ")";
            q.channel = *rackChannel;
            q.rackLabel = std::string(kRackLabel);
            q.scale = rule->scale * a.unit;
            q.offset = a.op == "sum" ? 0.0 : rule->offset * a.unit;
            queries.push_back(std::move(q));
        }
    }

    std::vector<const MappingRule*> facility, device;
    // What "ignore" rules match is left out on purpose: never asked for.
    for (const MappingRule& r : rules.rules)
        if (r.ignore.empty()) (isDeviceKind(r.entity.kind) ? device : facility).push_back(&r);
    if (options.facility && !facility.empty())
        queries.push_back({"facility series",
                           selector(metricsRegex(facility), options.selector),
                           std::nullopt,
                           {},
                           1.0,
                           0.0});

    if (!device.empty() && (options.perDevice || !options.detailRacks.empty())) {
        const std::string names = metricsRegex(device);
        if (options.perDevice) {
            queries.push_back({"device series, every host",
                               selector(names, options.selector),
                               std::nullopt,
                               {},
                               1.0,
                               0.0});
        } else {
            std::string hosts;
            for (const std::string& rackName : options.detailRacks) {
                const auto rack = topology.find(EntityKind::Rack, rackName);
                if (!rack) continue;
                for (model::EntityId tray = 0; tray < topology.computeTrays.rack.size(); ++tray)
                    if (topology.computeTrays.rack[tray] == *rack)
                        hosts += (hosts.empty() ? "" : "|") + regexEscape(topology.hostName(tray));
            }
            if (!hosts.empty()) {
                const std::string hostRegex = "(?:" + hosts + ")(?:[.:].*)?";
                std::string expr;
                for (const std::string& label : options.hostLabels) {
                    std::string extra = label + "=~" + promqlString(hostRegex);
                    if (!options.selector.empty()) extra += "," + options.selector;
                    expr += (expr.empty() ? "" : " or ") + selector(names, extra);
                }
                queries.push_back(
                    {"device series, racks in detail", expr, std::nullopt, {}, 1.0, 0.0});
            }
        }
    }
    return queries;
}

std::unordered_map<std::string, model::EntityId> rackKeysOf(const model::Topology& t) {
    std::unordered_map<std::string, model::EntityId> keys;
    // Host-table floors key their aggregates by the rack's own name.
    if (!t.spec().hosts.empty()) {
        for (model::EntityId r = 0; r < t.count(EntityKind::Rack); ++r)
            keys.emplace(t.racks.name[r], r);
        return keys;
    }
    const std::string re = rackKeyRegex(t.spec().hostPattern);
    if (re.empty()) return keys;
    const std::regex rx(re);
    std::vector<bool> seen(t.count(EntityKind::Rack), false);
    for (model::EntityId tray = 0; tray < t.computeTrays.rack.size(); ++tray) {
        const model::EntityId rack = t.computeTrays.rack[tray];
        if (seen[rack]) continue;
        seen[rack] = true;
        std::smatch m;
        const std::string host = t.hostName(tray);
        if (std::regex_match(host, m, rx)) keys.emplace(m[1].str(), rack);
    }
    return keys;
}

} // namespace ft::importers
