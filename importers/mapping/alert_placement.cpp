#include "alert_placement.h"

#include "entity_resolver.h"

#include <array>
#include <charconv>

namespace ft::importers {

namespace {

using model::EntityKind;
using model::EntityRef;

std::string_view valueOf(const model::Labels& labels, std::string_view key) {
    for (const auto& [k, v] : labels)
        if (k == key) return v;
    return {};
}

// "a01-n03:9400" -> "a01-n03"; "[fd00::1]:9100" -> "fd00::1"; an address without a port as is.
std::string_view withoutPort(std::string_view instance) {
    if (instance.starts_with('[')) {
        const auto close = instance.find(']');
        return close == std::string_view::npos ? instance : instance.substr(1, close - 1);
    }
    if (std::ranges::count(instance, ':') == 1) return instance.substr(0, instance.find(':'));
    return instance;
}

std::optional<std::uint32_t> index(std::string_view text) {
    std::uint32_t n = 0;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || p != text.data() + text.size()) return std::nullopt;
    return n;
}

} // namespace

AlertPlace placeAlert(const model::Labels& labels, EntityNameIndex& names) {
    AlertPlace out;
    const model::Topology& t = names.topology();
    auto place = [&](EntityKind kind, model::EntityId id, std::string_view by) {
        out.entities.push_back({kind, id});
        out.by = by;
        return out;
    };
    // A GPU by its UUID.
    for (const char* key : {"UUID", "uuid", "gpu_uuid", "GPU_UUID"})
        if (const auto v = valueOf(labels, key); !v.empty())
            if (const auto gpu = names.gpuOfUuid(v)) return place(EntityKind::Gpu, *gpu, key);
    // A compute tray by its host, and its GPU by index.
    const auto gpusPerTray = static_cast<std::uint32_t>(t.spec().rack.gpusPerTray);
    for (const char* key :
         {"Hostname", "hostname", "host", "node", "nodename", "instance", "exported_instance"}) {
        const auto raw = valueOf(labels, key);
        if (raw.empty()) continue;
        const std::string_view host = withoutPort(raw);
        if (mapping::isAddress(host)) {
            if (const auto rack = names.rackOfBmc(host)) return place(EntityKind::Rack, *rack, key);
            if (const auto cdu = names.cduOfBmc(host)) return place(EntityKind::Cdu, *cdu, key);
            continue;
        }
        const auto tray = names.trayOfHost(host);
        if (!tray || !t.trayInstalled(*tray)) continue;
        if (const auto gpu = index(valueOf(labels, "gpu")); gpu && *gpu < gpusPerTray)
            return place(EntityKind::Gpu, *tray * gpusPerTray + *gpu,
                         std::string(key) + " and gpu");
        return place(EntityKind::ComputeTray, *tray, key);
    }
    // Equipment the rule names itself.
    struct Named {
        const char* key;
        std::array<EntityKind, 2> kinds;
    };
    static constexpr std::array<Named, 6> kNamed{{
        {"rack", {EntityKind::Rack, EntityKind::Rack}},
        {"cdu", {EntityKind::Cdu, EntityKind::Cdu}},
        {"pdu", {EntityKind::PowerFeed, EntityKind::PowerShelf}},
        {"leaf", {EntityKind::Leaf, EntityKind::Leaf}},
        {"spine", {EntityKind::Spine, EntityKind::Spine}},
        {"row", {EntityKind::Row, EntityKind::Row}},
    }};
    for (const Named& n : kNamed) {
        const auto v = valueOf(labels, n.key);
        if (v.empty()) continue;
        for (const EntityKind kind : n.kinds)
            if (const auto id = names.find(kind, v)) return place(kind, *id, n.key);
    }
    // Why not: the labels that could have placed it, as they were.
    std::string tried;
    for (const char* key : {"UUID", "uuid", "gpu_uuid", "Hostname", "hostname", "host", "node",
                            "nodename", "instance", "rack", "cdu", "pdu", "leaf", "spine", "row"})
        if (const auto v = valueOf(labels, key); !v.empty())
            tried += (tried.empty() ? "" : ", ") + std::string(key) + "=" + std::string(v);
    out.by = tried.empty() ? "no label names a place (host, instance, UUID, rack, row, cdu, pdu)"
                           : "not on this floor: " + tried;
    return out;
}

void placeAlerts(std::vector<model::ExternalAlert>& alerts, EntityNameIndex& index) {
    for (auto& a : alerts) {
        AlertPlace p = placeAlert(a.labels, index);
        a.entities = std::move(p.entities);
        a.placedBy = std::move(p.by);
    }
}

} // namespace ft::importers
