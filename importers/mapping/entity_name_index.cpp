#include "entity_name_index.h"

#include <algorithm>
#include <charconv>

namespace ft::importers {
namespace {

using model::EntityId;
using model::EntityKind;

std::optional<std::uint64_t> parseUnsigned(std::string_view text) {
    std::uint64_t v = 0;
    if (text.empty()) return std::nullopt;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || p != text.data() + text.size()) return std::nullopt;
    return v;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

} // namespace

std::string toLowerAscii(std::string_view text) {
    std::string out(text);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

EntityNameIndex::EntityNameIndex(const model::Topology& topology) : m_topology(topology) {}

const EntityNameIndex::Table& EntityNameIndex::table(EntityKind kind) {
    auto& slot = m_tables[static_cast<std::size_t>(kind)];
    if (slot) return *slot;
    slot = std::make_unique<Table>();
    const std::size_t n = m_topology.count(kind);
    slot->reserve(n * 2);
    for (EntityId id = 0; id < n; ++id) {
        std::string name = toLowerAscii(m_topology.name(kind, id));
        if (name.empty()) continue; // storage tiers have no display name of their own
        // "CDU A1" is also "A1", "Row B" also "B" — the same short form Topology::find accepts.
        if (const auto space = name.find(' ');
            space != std::string::npos && name.find(' ', space + 1) == std::string::npos)
            slot->emplace(name.substr(space + 1), id);
        slot->emplace(std::move(name), id);
    }
    return *slot;
}

std::optional<EntityId> EntityNameIndex::find(EntityKind kind, std::string_view name) {
    const std::string lower = toLowerAscii(trim(name));
    std::optional<EntityId> found;
    if (kind == EntityKind::NvlinkLink)
        found = findNvlinkLink(lower);
    else if (kind == EntityKind::FabricLink)
        found = findFabricLink(lower);
    else if (const Table& t = table(kind); !t.empty()) {
        if (auto it = t.find(lower); it != t.end()) found = it->second;
    }
    if (found) return found;
    if (auto id = parseUnsigned(lower); id && *id < m_topology.count(kind))
        return static_cast<EntityId>(*id);
    return std::nullopt;
}

std::optional<EntityId> EntityNameIndex::findNvlinkLink(std::string_view lowerName) {
    // "<gpu name> <-> NVSwitch N", N being the switch tray's 1-based place in the rack.
    constexpr std::string_view kSep = " <-> nvswitch ";
    const std::size_t at = lowerName.rfind(kSep);
    if (at == std::string_view::npos) return std::nullopt;
    const auto gpu = find(EntityKind::Gpu, lowerName.substr(0, at));
    const auto n = parseUnsigned(lowerName.substr(at + kSep.size()));
    const auto switches = static_cast<std::uint64_t>(m_topology.spec().rack.switchTrays);
    if (!gpu || !n || *n < 1 || *n > switches) return std::nullopt;
    return static_cast<EntityId>(*gpu * switches + (*n - 1));
}

std::optional<EntityId> EntityNameIndex::findFabricLink(std::string_view lowerName) {
    // "<nic> -> <leaf>" (link id == NIC id) or "<leaf> -> <spine>".
    constexpr std::string_view kSep = " -> ";
    const std::size_t at = lowerName.find(kSep);
    if (at == std::string_view::npos) return std::nullopt;
    const std::string_view from = lowerName.substr(0, at), to = lowerName.substr(at + kSep.size());
    const auto& links = m_topology.fabricLinks;
    if (auto nic = find(EntityKind::Nic, from)) {
        const auto leaf = find(EntityKind::Leaf, to);
        if (leaf && links.to[*nic] == *leaf) return *nic;
        return std::nullopt;
    }
    const auto leaf = find(EntityKind::Leaf, from);
    const auto spine = find(EntityKind::Spine, to);
    if (!leaf || !spine) return std::nullopt;
    // Leaf -> spine bundles follow the NIC links, ordered by leaf.
    const auto first =
        links.from.begin() + static_cast<std::ptrdiff_t>(m_topology.count(EntityKind::Nic));
    for (auto it = std::lower_bound(first, links.from.end(), *leaf);
         it != links.from.end() && *it == *leaf; ++it) {
        const auto id = static_cast<std::size_t>(it - links.from.begin());
        if (links.to[id] == *spine) return static_cast<EntityId>(id);
    }
    return std::nullopt;
}

std::optional<EntityId> EntityNameIndex::trayOfHost(std::string_view host) {
    if (!m_hosts) {
        m_hosts = std::make_unique<Table>();
        const std::size_t n = m_topology.count(EntityKind::ComputeTray);
        m_hosts->reserve(n);
        for (EntityId t = 0; t < n; ++t)
            if (std::string host = m_topology.hostName(t); !host.empty())
                m_hosts->emplace(toLowerAscii(host), t);
    }
    std::string lower = toLowerAscii(trim(host));
    if (auto it = m_hosts->find(lower); it != m_hosts->end()) return it->second;
    if (const auto dot = lower.find('.'); dot != std::string::npos && dot > 0) {
        lower.resize(dot);
        if (auto it = m_hosts->find(lower); it != m_hosts->end()) return it->second;
    }
    return std::nullopt;
}

std::optional<EntityId> EntityNameIndex::gpuOfUuid(std::string_view uuid) {
    if (!m_uuids) {
        m_uuids = std::make_unique<Table>();
        const auto& all = m_topology.gpus.uuid;
        for (EntityId g = 0; g < all.size(); ++g)
            if (!all[g].empty()) m_uuids->emplace(toLowerAscii(all[g]), g);
    }
    if (m_uuids->empty()) return std::nullopt;
    if (auto it = m_uuids->find(toLowerAscii(trim(uuid))); it != m_uuids->end()) return it->second;
    return std::nullopt;
}

std::optional<EntityId> EntityNameIndex::rackOfBmc(std::string_view address) {
    if (!m_bmcs) {
        m_bmcs = std::make_unique<Table>();
        // The rack's own controllers first, then the hosts' BMCs (a tray's BMC speaks for the
        // rack only where nothing else does).
        for (const auto& row : m_topology.spec().rows)
            for (const auto& rack : row.rackList)
                if (!rack.bmc.empty())
                    if (const auto id = find(model::EntityKind::Rack, rack.name))
                        for (const auto& b : rack.bmc)
                            m_bmcs->emplace(toLowerAscii(b), *id);
        const auto& trays = m_topology.computeTrays;
        for (EntityId t = 0; t < trays.bmc.size(); ++t)
            if (!trays.bmc[t].empty()) m_bmcs->emplace(toLowerAscii(trays.bmc[t]), trays.rack[t]);
    }
    std::string lower = toLowerAscii(trim(address));
    if (lower.size() > 2 && lower.front() == '[' && lower.back() == ']')
        lower = lower.substr(1, lower.size() - 2); // an IPv6 literal from a URL
    if (auto it = m_bmcs->find(lower); it != m_bmcs->end()) return it->second;
    return std::nullopt;
}

std::optional<EntityId> EntityNameIndex::cduOfBmc(std::string_view address) {
    if (!m_cduBmcs) {
        m_cduBmcs = std::make_unique<Table>();
        for (const auto& [cdu, bmc] : m_topology.spec().cooling.cduBmc)
            if (const auto id = find(model::EntityKind::Cdu, cdu))
                m_cduBmcs->emplace(toLowerAscii(bmc), *id);
    }
    if (m_cduBmcs->empty()) return std::nullopt;
    std::string lower = toLowerAscii(trim(address));
    if (lower.size() > 2 && lower.front() == '[' && lower.back() == ']')
        lower = lower.substr(1, lower.size() - 2);
    if (auto it = m_cduBmcs->find(lower); it != m_cduBmcs->end()) return it->second;
    return std::nullopt;
}

std::expected<model::EntityRef, std::string> EntityNameIndex::parseRef(std::string_view text) {
    const std::size_t colon = text.find(':');
    if (colon == std::string_view::npos)
        return std::unexpected(
            "expected kind:name (e.g. rack:A03 or gpu:A03 tray 02 GPU 1), got '" +
            std::string(text) + "'");
    const std::string kindName = toLowerAscii(trim(text.substr(0, colon)));
    const auto kind = model::entityKindFromName(kindName);
    if (!kind) return std::unexpected("unknown entity kind '" + kindName + "'");
    const std::string_view name = trim(text.substr(colon + 1));
    if (name.empty()) return std::unexpected("no entity name after '" + kindName + ":'");
    const auto id = find(*kind, name);
    if (!id)
        return std::unexpected("no " + kindName + " named '" + std::string(name) +
                               "' on this floor");
    return model::EntityRef{*kind, *id};
}

} // namespace ft::importers
