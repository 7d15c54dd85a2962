#pragma once
// EntityNameIndex: finds entities by the names people and other systems use for them — the
// display name Topology::name gives ("A03 tray 02 GPU 1", "CDU A1", "Leaf P0-R3-1"), the short
// form after a single space ("A1" for "CDU A1"), a numeric id, or a compute tray's host name
// ("a03-n02", from the floor's host_pattern) — without Topology::find's scan over every entity.
// Lookups ignore case. Each kind's table is built the first time that kind is asked for, so an
// index costs nothing for kinds nobody names; NVLink and fabric links (a million of them on a
// big floor) are parsed from their name's parts instead of tabled.
// Owned by one importer or mapper and used on its thread only (the tables fill lazily).
#include "model/entity_kind.h"
#include "model/topology.h"

#include <array>
#include <expected>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace ft::importers {

class EntityNameIndex {
public:
    explicit EntityNameIndex(const model::Topology& topology);

    std::optional<model::EntityId> find(model::EntityKind kind, std::string_view name);

    // The compute tray whose host name is `host`; a host name with a domain ("a03-n02.dc1.example")
    // also matches by its first label.
    std::optional<model::EntityId> trayOfHost(std::string_view host);
    // The GPU with this UUID in the floor's host table (dcgm-exporter's UUID label), ignoring case.
    std::optional<model::EntityId> gpuOfUuid(std::string_view uuid);

    // The rack a management address speaks for: one of the rack's own controllers (the floor
    // file's rack "bmc" list), else the rack of the compute tray with that BMC. Ignores case.
    std::optional<model::EntityId> rackOfBmc(std::string_view address);
    // The CDU whose controller has this management address (the floor file's cooling.cdu_bmc).
    std::optional<model::EntityId> cduOfBmc(std::string_view address);

    // "kind:name", e.g. "gpu:A03 tray 02 GPU 1", "rack:A03", "cdu:CDU A1", "gpu:17". The error
    // says what was wrong in words (unknown kind, no such entity).
    std::expected<model::EntityRef, std::string> parseRef(std::string_view text);

    const model::Topology& topology() const { return m_topology; }

private:
    using Table = std::unordered_map<std::string, model::EntityId>;
    const Table& table(model::EntityKind kind);
    std::optional<model::EntityId> findNvlinkLink(std::string_view lowerName);
    std::optional<model::EntityId> findFabricLink(std::string_view lowerName);

    const model::Topology& m_topology;
    std::array<std::unique_ptr<Table>, model::kEntityKindCount> m_tables;
    std::unique_ptr<Table> m_hosts;
    std::unique_ptr<Table> m_uuids;
    std::unique_ptr<Table> m_bmcs;
    std::unique_ptr<Table> m_cduBmcs;
};

// ASCII lower case; names and labels here are ASCII.
std::string toLowerAscii(std::string_view text);

} // namespace ft::importers
