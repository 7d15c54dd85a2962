#pragma once
// How SeriesMapper finds a series' entity from a mapping rule's captures (a name, a host and a
// GPU index or PCI address, a UUID, a leaf and port...), and why it could not. Internal to the
// mapper (series_mapper.cpp); one resolver per lookup.
#include "entity_name_index.h"
#include "importers/floor/pci_address.h"
#include "mapping_rules.h"
#include "model/topology.h"

#include <array>
#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ft::importers::mapping {

using model::EntityId;

using Captures = std::array<std::optional<std::string_view>, kCaptureFieldCount>;

// How a series' entity was found, for the mapping report.
enum Key : std::uint8_t { kByOther, kByName, kByUuid, kByHostIndex, kByPci };
constexpr std::array<std::string_view, 5> kKeyNames{"labels", "name", "UUID", "host and index",
                                                    "host and PCI address"};

struct Resolved {
    EntityId entity = 0;
    bool toEnd = false; // measured at the link's 'to' end (a leaf port facing a NIC)
    Key key = kByOther;
    // Placed by its UUID on another host than the one its labels name: "UUID: the inventory's
    // HOST, the telemetry's HOST" (a GPU moved, or the inventory is behind).
    std::string moved;
};

// "10.0.172.246", "[fd00::1]", "fd00::1": an address, which a pod's `instance` is, not a host.
bool isAddress(std::string_view host);

// Entity lookup for one rule's captures; a failure carries what to count it under.
class EntityResolver {
public:
    EntityResolver(const model::Topology& t, EntityNameIndex& names) : m_t(t), m_names(names) {}

    std::expected<Resolved, std::string> resolve(const EntitySpec& spec, const Captures& c);

private:
    template <class IndexFn>
    std::expected<Resolved, std::string> leafPort(const Captures& c, IndexFn& index);
    // The module at `bus` on the tray model, from its table (model::RackModelSpec::gpuPci).
    std::optional<std::uint64_t> moduleOfPci(PciBus bus);

    const model::Topology& m_t;
    EntityNameIndex& m_names;
    std::optional<std::vector<PciBus>> m_pci;
};

// Whether a rule's captures can name an entity of its kind at all.
bool canName(const EntitySpec& spec, const Captures& c);

} // namespace ft::importers::mapping
