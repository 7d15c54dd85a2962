#include "entity_resolver.h"

#include <algorithm>
#include <charconv>

namespace ft::importers::mapping {

using model::EntityKind;
using F = CaptureField;

bool isAddress(std::string_view host) {
    if (host.starts_with('[') || std::ranges::count(host, ':') >= 2) return true;
    int dots = 0;
    for (const char c : host) {
        if (c == '.')
            ++dots;
        else if (c < '0' || c > '9')
            return false;
    }
    return dots == 3;
}

template <class IndexFn>
std::expected<Resolved, std::string> EntityResolver::leafPort(const Captures& c, IndexFn& index) {
    const auto leafText = std::string(*c[static_cast<std::size_t>(F::Leaf)]);
    std::optional<EntityId> leaf;
    if (c[static_cast<std::size_t>(F::Rail)]) {
        auto rail = index(F::Rail);
        auto local = index(F::Leaf);
        if (rail && local && *rail < m_t.rails.plane.size() && *local < m_t.rails.leafCount[*rail])
            leaf = static_cast<EntityId>(m_t.rails.firstLeaf[*rail] + *local);
    } else {
        leaf = m_names.find(EntityKind::Leaf, leafText);
    }
    if (!leaf) return std::unexpected("leaf '" + leafText + "'");
    auto port = index(F::Port);
    if (!port) return std::unexpected("leaf '" + leafText + "' " + port.error());
    const auto half = static_cast<std::uint64_t>(m_t.spec().fabric.switchRadix / 2);
    const auto notCabled = [&] {
        return std::unexpected("leaf '" + leafText + "' port " +
                               std::string(*c[static_cast<std::size_t>(F::Port)]) +
                               " (not cabled)");
    };
    const auto rail = m_t.leaves.rail[*leaf];
    const std::size_t nics = m_t.count(EntityKind::Nic);
    if (*port < half) {
        // Downlinks: port p of the l-th leaf of a rail reaches tray l * radix/2 + p.
        const std::uint64_t tray = (*leaf - m_t.rails.firstLeaf[rail]) * half + *port;
        if (tray >= m_t.count(EntityKind::ComputeTray)) return notCabled();
        const auto nicsPerTray =
            static_cast<std::uint64_t>(m_t.spec().rack.gpusPerTray * m_t.spec().rack.nicsPerGpu);
        return Resolved{static_cast<EntityId>(tray * nicsPerTray + rail), true};
    }
    // Uplinks: radix/2 .. radix-1, laid over the leaf's spine bundles in order.
    std::uint64_t lane = *port - half, seen = 0;
    const auto& from = m_t.fabricLinks.from;
    for (auto it =
             std::lower_bound(from.begin() + static_cast<std::ptrdiff_t>(nics), from.end(), *leaf);
         it != from.end() && *it == *leaf; ++it) {
        const auto id = static_cast<std::size_t>(it - from.begin());
        seen += m_t.fabricLinks.lanes[id];
        if (lane < seen) return Resolved{static_cast<EntityId>(id), false};
    }
    return notCabled();
}

// The module at `bus` on the tray model, from its table (model::RackModelSpec::gpuPci).
std::optional<std::uint64_t> EntityResolver::moduleOfPci(PciBus bus) {
    if (!m_pci) {
        m_pci.emplace();
        for (const auto& text : m_t.spec().rack.gpuPci)
            m_pci->push_back(parsePciAddress(text).value_or(PciBus{~0u, ~0u}));
    }
    for (std::size_t m = 0; m < m_pci->size(); ++m)
        if ((*m_pci)[m] == bus) return m;
    return std::nullopt;
}

std::expected<Resolved, std::string> EntityResolver::resolve(const EntitySpec& spec,
                                                             const Captures& c) {
    const auto has = [&](F f) { return c[static_cast<std::size_t>(f)].has_value(); };
    const auto get = [&](F f) { return *c[static_cast<std::size_t>(f)]; };
    const std::string kindName(model::entityKindName(spec.kind));
    if (has(F::Name)) {
        if (auto id = m_names.find(spec.kind, get(F::Name))) return Resolved{*id, false, kByName};
        return std::unexpected(kindName + " '" + std::string(get(F::Name)) + "'");
    }
    auto index = [&](F f) -> std::expected<std::uint64_t, std::string> {
        const std::string_view text = get(f);
        std::uint64_t v = 0;
        auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        const int base = spec.indexBase[static_cast<std::size_t>(f)];
        if (ec != std::errc() || p != text.data() + text.size() ||
            v < static_cast<std::uint64_t>(base))
            return std::unexpected(std::string(kCaptureFieldNames[static_cast<std::size_t>(f)]) +
                                   " '" + std::string(text) + "'");
        return v - static_cast<std::uint64_t>(base);
    };
    auto tray = [&]() -> std::expected<EntityId, std::string> {
        if (auto t = m_names.trayOfHost(get(F::Host))) return *t;
        if (isAddress(get(F::Host)))
            return std::unexpected(std::string(get(F::Host)) +
                                   ": an address, not a host name (a pod's instance: the "
                                   "series need a Hostname label)");
        return std::unexpected(std::string(get(F::Host)));
    };
    const auto& rk = m_t.spec().rack;
    const auto gpusPerTray = static_cast<std::uint64_t>(rk.gpusPerTray);
    const auto nicsPerTray = static_cast<std::uint64_t>(rk.gpusPerTray * rk.nicsPerGpu);
    const auto switchTrays = static_cast<std::uint64_t>(rk.switchTrays);
    const auto outOfRange = [&](F f, std::uint64_t limit) {
        return std::unexpected(std::string(has(F::Host)   ? get(F::Host)
                                           : has(F::Uuid) ? get(F::Uuid)
                                                          : "") +
                               " " + std::string(kCaptureFieldNames[static_cast<std::size_t>(f)]) +
                               " " + std::string(get(f)) + " (the floor has " +
                               std::to_string(limit) + ")");
    };

    switch (spec.kind) {
    case EntityKind::Gpu:
    case EntityKind::NvlinkLink: {
        // The GPU's UUID names it whatever the host label says (a missing or wrong host
        // label still lands on the right GPU); else host and index.
        std::optional<std::uint64_t> byUuid;
        if (has(F::Uuid))
            if (auto g = m_names.gpuOfUuid(get(F::Uuid))) byUuid = *g;
        const bool byHost = has(F::Host) && (has(F::Gpu) || has(F::Pci));
        if (!byUuid && !byHost) return std::unexpected("GPU UUID " + std::string(get(F::Uuid)));
        std::uint64_t gpu = 0;
        Key key = kByUuid;
        std::string moved;
        if (byUuid) {
            gpu = *byUuid;
            // The inventory has the UUID on one host, the telemetry on another.
            if (has(F::Host))
                if (const auto t = m_names.trayOfHost(get(F::Host)); t && *t != gpu / gpusPerTray)
                    moved = std::string(get(F::Uuid)) + ": the inventory's " +
                            m_t.hostName(static_cast<EntityId>(gpu / gpusPerTray)) +
                            ", the telemetry's " + std::string(get(F::Host));
        } else {
            auto t = tray();
            if (!t) return std::unexpected(t.error());
            // The module's PCI address, through the tray model's table, names it surely;
            // the index follows enumeration.
            std::optional<std::uint64_t> module;
            if (has(F::Pci))
                if (const auto bus = parsePciAddress(get(F::Pci)))
                    if (const auto m = moduleOfPci(*bus)) module = *m;
            if (module) {
                gpu = *t * gpusPerTray + *module;
                key = kByPci;
            } else {
                if (!has(F::Gpu))
                    return std::unexpected(std::string(get(F::Host)) + ": PCI address " +
                                           std::string(get(F::Pci)) +
                                           " is no GPU module of its tray");
                auto g = index(F::Gpu);
                if (!g) return std::unexpected(g.error());
                // One reason per host, whichever index: "host has more GPUs than its tray".
                if (*g >= gpusPerTray)
                    return std::unexpected(std::string(get(F::Host)) +
                                           ": more GPUs than its tray's " +
                                           std::to_string(gpusPerTray));
                gpu = *t * gpusPerTray + *g;
                key = kByHostIndex;
            }
        }
        if (spec.kind == EntityKind::Gpu)
            return Resolved{static_cast<EntityId>(gpu), false, key, std::move(moved)};
        auto l = index(F::Link);
        if (!l) return std::unexpected(l.error());
        if (*l >= switchTrays) return outOfRange(F::Link, switchTrays);
        return Resolved{static_cast<EntityId>(gpu * switchTrays + *l), false, key};
    }
    case EntityKind::ComputeTray: {
        auto t = tray();
        if (!t) return std::unexpected(t.error());
        return Resolved{*t};
    }
    case EntityKind::Nic:
    case EntityKind::FabricLink: {
        if (has(F::Host) && has(F::Nic)) {
            auto t = tray();
            if (!t) return std::unexpected(t.error());
            auto n = index(F::Nic);
            if (!n) return std::unexpected(n.error());
            if (*n >= nicsPerTray) return outOfRange(F::Nic, nicsPerTray);
            return Resolved{
                static_cast<EntityId>(*t * nicsPerTray + *n)}; // NIC -> leaf link id == NIC id
        }
        if (spec.kind == EntityKind::FabricLink) return leafPort(c, index);
        break;
    }
    case EntityKind::Rack:
    case EntityKind::PowerShelf:
    case EntityKind::Psu: {
        // A management address the floor knows is the surest tie; then the rack's name,
        // then the host's rack.
        std::optional<EntityId> rack;
        if (has(F::Bmc)) rack = m_names.rackOfBmc(get(F::Bmc));
        if (!rack && has(F::Rack)) {
            rack = m_names.find(EntityKind::Rack, get(F::Rack));
            if (!rack) return std::unexpected("rack '" + std::string(get(F::Rack)) + "'");
        } else if (!rack && has(F::Host)) {
            auto t = tray();
            if (!t) return std::unexpected(t.error());
            rack = m_t.computeTrays.rack[*t];
        } else if (!rack) {
            return std::unexpected("BMC " + std::string(get(F::Bmc)) +
                                   " (no rack or host on the floor has it)");
        }
        if (spec.kind == EntityKind::Rack) return Resolved{*rack};
        const std::string rackName = m_t.racks.name[*rack];
        const auto perRack = static_cast<std::uint64_t>(m_t.spec().rack.powerShelves);
        auto sh = index(F::Shelf);
        if (!sh || *sh >= perRack)
            return std::unexpected(rackName + " shelf '" + std::string(get(F::Shelf)) +
                                   "' (racks have " + std::to_string(perRack) + ")");
        const auto shelf = static_cast<EntityId>(*rack * perRack + *sh);
        if (spec.kind == EntityKind::PowerShelf) return Resolved{shelf};
        const auto perShelf = static_cast<std::uint64_t>(m_t.spec().power.psusPerShelf);
        auto p = index(F::Psu);
        if (!p || *p >= perShelf)
            return std::unexpected(rackName + " shelf " + std::string(get(F::Shelf)) + " PSU '" +
                                   std::string(get(F::Psu)) + "' (shelves have " +
                                   std::to_string(perShelf) + ")");
        return Resolved{static_cast<EntityId>(shelf * perShelf + *p)};
    }
    case EntityKind::Cdu: {
        // A controller address the floor knows first; then the CDU's name.
        if (has(F::Bmc))
            if (auto id = m_names.cduOfBmc(get(F::Bmc))) return Resolved{*id};
        if (!has(F::Cdu))
            return std::unexpected(has(F::Bmc) ? "BMC " + std::string(get(F::Bmc)) +
                                                     " (no CDU on the floor has it)"
                                               : std::string("cdu (no way to name it)"));
        if (auto id = m_names.find(EntityKind::Cdu, get(F::Cdu))) return Resolved{*id};
        return std::unexpected("cdu '" + std::string(get(F::Cdu)) + "'");
    }
    case EntityKind::Pump: {
        // The CDU by its controller's address when the floor knows it, else by its name.
        std::optional<EntityId> cdu;
        if (has(F::Bmc)) cdu = m_names.cduOfBmc(get(F::Bmc));
        if (!cdu && has(F::Cdu)) {
            cdu = m_names.find(EntityKind::Cdu, get(F::Cdu));
            if (!cdu) return std::unexpected("cdu '" + std::string(get(F::Cdu)) + "'");
        }
        if (cdu) {
            const std::string cduName = m_t.name(EntityKind::Cdu, *cdu);
            auto p = index(F::Pump);
            const auto perCdu = static_cast<std::uint64_t>(m_t.spec().cooling.pumpsPerCdu);
            if (!p || *p >= perCdu)
                return std::unexpected("cdu '" + cduName + "' pump '" + std::string(get(F::Pump)) +
                                       "'");
            return Resolved{static_cast<EntityId>(*cdu * perCdu + *p)};
        }
        // A bare number is a pump's place in its CDU, not a floor-wide id: without the CDU it
        // names nothing.
        const std::string_view pump = get(F::Pump);
        if (pump.find_first_not_of("0123456789") != std::string_view::npos)
            if (auto id = m_names.find(EntityKind::Pump, pump)) return Resolved{*id};
        return std::unexpected("pump '" + std::string(pump) + "'");
    }
    default:
        break;
    }
    return std::unexpected(kindName + " (no way to name it)");
}

bool canName(const EntitySpec& spec, const Captures& c) {
    const auto has = [&](F f) { return c[static_cast<std::size_t>(f)].has_value(); };
    if (has(F::Name)) return true;
    switch (spec.kind) {
    case EntityKind::Gpu:
        return (has(F::Host) && (has(F::Gpu) || has(F::Pci))) || has(F::Uuid);
    case EntityKind::NvlinkLink:
        return ((has(F::Host) && (has(F::Gpu) || has(F::Pci))) || has(F::Uuid)) && has(F::Link);
    case EntityKind::ComputeTray:
        return has(F::Host);
    case EntityKind::Nic:
        return has(F::Host) && has(F::Nic);
    case EntityKind::FabricLink:
        return (has(F::Host) && has(F::Nic)) || (has(F::Leaf) && has(F::Port));
    case EntityKind::Rack:
        return has(F::Rack) || has(F::Host) || has(F::Bmc);
    case EntityKind::PowerShelf:
        return (has(F::Rack) || has(F::Host) || has(F::Bmc)) && has(F::Shelf);
    case EntityKind::Psu:
        return (has(F::Rack) || has(F::Host) || has(F::Bmc)) && has(F::Shelf) && has(F::Psu);
    case EntityKind::Cdu:
        return has(F::Cdu) || has(F::Bmc);
    case EntityKind::Pump:
        return has(F::Pump);
    default:
        return false;
    }
}

} // namespace ft::importers::mapping
