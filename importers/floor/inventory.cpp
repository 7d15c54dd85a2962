#include "inventory.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <unordered_map>

namespace ft::importers {

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// NetBox-style statuses -> the lifecycle state a rack starts in, with how far from ready it is
// (the rack takes its least ready host's, or its own).
struct StatusMeaning {
    std::string_view lifecycle;
    int rank; // lower: further from production
};
std::optional<StatusMeaning> statusMeaning(std::string_view status) {
    static const std::map<std::string, StatusMeaning, std::less<>> table{
        {"", {"production", 9}},
        {"active", {"production", 9}},
        {"production", {"production", 9}},
        {"available", {"production", 9}}, // a NetBox rack status
        {"reserved", {"production", 9}},
        {"planned", {"delivered", 1}},
        {"delivered", {"delivered", 1}},
        {"inventory", {"delivered", 1}},
        {"staged", {"hardware_detection", 2}},
        {"staging", {"hardware_detection", 2}},
        {"failed", {"troubleshooting", 0}},
        {"offline", {"troubleshooting", 0}},
        {"decommissioning", {"maintenance", 3}},
        {"deprecated", {"maintenance", 3}},
    };
    const auto it = table.find(lower(status));
    if (it == table.end()) return std::nullopt;
    return it->second;
}

std::optional<int> trailingNumber(std::string_view name) {
    std::size_t end = name.size();
    std::size_t begin = end;
    while (begin > 0 && std::isdigit(static_cast<unsigned char>(name[begin - 1])))
        --begin;
    if (begin == end || end - begin > 4) return std::nullopt;
    int v = 0;
    std::from_chars(name.data() + begin, name.data() + end, v);
    return v;
}

Error errorAt(const InventoryOrigin& o, std::string message, std::string key = {}) {
    if (!o.object.empty()) message = o.object + ": " + message;
    return Error{std::move(message), o.file, o.line, o.line > 0 ? o.column : 0, std::move(key)};
}

// "line 12" or "device 1234 'x'": the other object in a two-object error.
std::string mention(const InventoryOrigin& o) {
    if (!o.object.empty()) return o.object;
    return "line " + std::to_string(o.line);
}

struct RackInfo {
    std::string name, row, hall, site;
    std::optional<std::pair<double, double>> position;
    InventoryOrigin origin;
    int rank = 9;
    std::string lifecycle = "production";
    bool explicitRack = false;
    std::size_t hosts = 0;
    std::vector<std::string> bmc;
};

} // namespace

std::optional<std::string> lifecycleOfStatus(std::string_view status) {
    const auto m = statusMeaning(status);
    if (!m) return std::nullopt;
    return m->lifecycle == "production" ? std::string() : std::string(m->lifecycle);
}

bool naturalLess(std::string_view a, std::string_view b) {
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const bool da = std::isdigit(static_cast<unsigned char>(a[i])) != 0;
        const bool db = std::isdigit(static_cast<unsigned char>(b[j])) != 0;
        if (da && db) {
            std::size_t ie = i, je = j;
            while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie])))
                ++ie;
            while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je])))
                ++je;
            std::string_view na = a.substr(i, ie - i), nb = b.substr(j, je - j);
            while (na.size() > 1 && na.front() == '0')
                na.remove_prefix(1);
            while (nb.size() > 1 && nb.front() == '0')
                nb.remove_prefix(1);
            if (na.size() != nb.size()) return na.size() < nb.size();
            if (na != nb) return na < nb;
            i = ie;
            j = je;
            continue;
        }
        const char ca = static_cast<char>(std::tolower(static_cast<unsigned char>(a[i])));
        const char cb = static_cast<char>(std::tolower(static_cast<unsigned char>(b[j])));
        if (ca != cb) return ca < cb;
        ++i;
        ++j;
    }
    return a.size() - i < b.size() - j;
}

namespace {

// The racks: the explicit ones first, then those only hosts name; each host checked (status,
// tray, UUIDs, its row against its rack's).
std::expected<std::map<std::string, RackInfo>, Error>
collectRacks(const std::vector<InventoryHost>& hosts, const std::vector<InventoryRack>& rackList,
             const model::RackModelSpec& rk, const std::string& name) {
    const int trays = rk.computeTrays;
    std::map<std::string, RackInfo> racks;
    auto rankIn = [](RackInfo& rack, const std::string& status) {
        const auto m = statusMeaning(status);
        if (m && m->rank < rack.rank) {
            rack.rank = m->rank;
            rack.lifecycle = std::string(m->lifecycle);
        }
    };
    for (const auto& r : rackList) {
        if (!statusMeaning(r.status))
            return std::unexpected(
                errorAt(r.origin, "unknown status '" + r.status + "'", "status"));
        auto [it, fresh] = racks.try_emplace(r.name);
        if (!fresh)
            return std::unexpected(errorAt(r.origin,
                                           "rack '" + r.name + "' is listed twice (also " +
                                               mention(it->second.origin) + ")",
                                           "rack"));
        RackInfo& info = it->second;
        info.name = r.name;
        info.row = r.row;
        info.hall = r.hall;
        info.site = r.site;
        info.position = r.position;
        info.origin = r.origin;
        info.explicitRack = true;
        info.bmc = r.bmc;
        rankIn(info, r.status);
    }
    std::unordered_map<std::string, const InventoryHost*> byName; // lower-case host
    for (const auto& h : hosts) {
        if (!statusMeaning(h.status))
            return std::unexpected(
                errorAt(h.origin,
                        "unknown status '" + h.status +
                            "' (planned, staged, active, failed, offline, decommissioning, ...)",
                        "status"));
        if (h.tray != 0 && (h.tray < 1 || h.tray > trays))
            return std::unexpected(errorAt(h.origin,
                                           "tray " + std::to_string(h.tray) +
                                               " is outside the rack (compute trays 1.." +
                                               std::to_string(trays) + ")",
                                           "tray"));
        if (h.uuids.size() > static_cast<std::size_t>(rk.gpusPerTray))
            return std::unexpected(errorAt(h.origin,
                                           std::to_string(h.uuids.size()) +
                                               " GPU UUIDs for one host; a tray has " +
                                               std::to_string(rk.gpusPerTray),
                                           "gpu_uuids"));
        InventoryOrigin at = h.origin;
        at.column = h.nameColumn;
        if (auto [it, fresh] = byName.emplace(lower(h.name), &h); !fresh)
            return std::unexpected(errorAt(at,
                                           "host '" + h.name + "' is listed twice (first on " +
                                               mention(it->second->origin) + ")",
                                           "hostname"));
        auto [rit, fresh] = racks.try_emplace(h.rack);
        RackInfo& rack = rit->second;
        if (fresh) {
            rack.name = h.rack;
            rack.row = h.row;
            rack.hall = h.hall;
            rack.site = h.site;
            rack.origin = h.origin;
        } else if (rack.row.empty() && rack.hall == h.hall) {
            rack.row = h.row; // a listed rack without a row takes its hosts'
        }
        if (!h.row.empty() && (rack.row != h.row || rack.hall != h.hall)) {
            InventoryOrigin rowAt = h.origin;
            rowAt.column = h.rowColumn;
            return std::unexpected(errorAt(rowAt,
                                           "rack '" + h.rack + "' is in row '" + h.row +
                                               "' here but in row '" + rack.row + "' (" +
                                               mention(rack.origin) + ")",
                                           "row"));
        }
        if (rack.site.empty()) rack.site = h.site;
        ++rack.hosts;
        rankIn(rack, h.status);
    }
    if (racks.empty())
        return std::unexpected(Error{"the inventory names no racks", name, 0, 0, {}});
    for (auto& [key, rack] : racks)
        if (rack.row.empty() && !rack.position)
            return std::unexpected(
                errorAt(rack.origin,
                        "rack '" + rack.name + "' has no row (and no floor-plan position)", "row"));

    return racks;
}

// A rack of the inventory as the floor file has it, in slot `slot` of its row.
model::RackSpec rackSpecOf(const RackInfo& r, int slot) {
    model::RackSpec rack;
    rack.name = r.name;
    rack.slot = slot;
    if (r.lifecycle != "production") rack.lifecycle = r.lifecycle;
    rack.bmc = r.bmc;
    // A rack the inventory lists without a single host has no trays installed yet.
    if (r.explicitRack && r.hosts == 0) rack.computeTrays = 0;
    return rack;
}

// The rows of a hall whose every rack has a floor-plan position: racks whose centres line up
// across the hall form a row. Returns the hall's right edge.
std::expected<double, Error> plannedRows(std::vector<const RackInfo*> members,
                                         const std::string& hall, bool manyHalls, double hallX,
                                         const model::RackModelSpec& rk, model::FloorSpec& spec) {
    double right = hallX;
    std::ranges::sort(members, [](const RackInfo* a, const RackInfo* b) {
        return a->position->second != b->position->second
                   ? a->position->second < b->position->second
                   : a->position->first < b->position->first;
    });
    double minX = 1e300;
    for (const RackInfo* r : members)
        minX = std::min(minX, r->position->first);
    std::vector<std::vector<const RackInfo*>> rows;
    for (const RackInfo* r : members) {
        if (rows.empty() ||
            std::abs(r->position->second - rows.back().front()->position->second) > rk.depthM / 2)
            rows.emplace_back();
        rows.back().push_back(r);
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
        auto& members2 = rows[i];
        std::ranges::sort(members2, [](const RackInfo* a, const RackInfo* b) {
            return a->position->first < b->position->first;
        });
        model::RowSpec row;
        // The racks' own row when they agree on one, else the row's place in the hall.
        const std::string common = members2.front()->row;
        const bool agree = !common.empty() && std::ranges::all_of(members2, [&](const RackInfo* r) {
            return r->row == common;
        });
        const std::string rowName = agree ? common : "row " + std::to_string(i + 1);
        row.name = manyHalls && !hall.empty() ? hall + "-" + rowName : rowName;
        row.x = hallX + (members2.front()->position->first - minX);
        row.y = members2.front()->position->second;
        int lastSlot = -1;
        for (const RackInfo* r : members2) {
            const int slot = static_cast<int>(
                std::lround((r->position->first - members2.front()->position->first) / rk.widthM));
            if (slot <= lastSlot)
                return std::unexpected(
                    errorAt(r->origin,
                            "rack '" + r->name + "' overlaps rack '" + row.rackList.back().name +
                                "' on the floor plan (" + std::to_string(r->position->first) +
                                ", " + std::to_string(r->position->second) + " m)",
                            "position"));
            lastSlot = slot;
            row.rackList.push_back(rackSpecOf(*r, slot));
        }
        row.racks = static_cast<int>(row.rackList.size());
        right = std::max(right, row.x + (lastSlot + 1) * rk.widthM);
        spec.rows.push_back(std::move(row));
    }
    return right;
}

// The rows of a hall by their names, racks in natural name order (a trailing number is the
// rack's slot, so gaps stay gaps). Returns the hall's right edge.
double namedRows(const std::vector<const RackInfo*>& members, const std::string& hall,
                 bool manyHalls, double hallX, double rowPitch, const model::RackModelSpec& rk,
                 model::FloorSpec& spec) {
    double right = hallX;
    std::vector<std::string> rows;
    for (const RackInfo* r : members)
        if (std::ranges::find(rows, r->row) == rows.end()) rows.push_back(r->row);
    std::ranges::sort(rows, naturalLess);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        std::vector<const RackInfo*> inRow;
        for (const RackInfo* r : members)
            if (r->row == rows[i]) inRow.push_back(r);
        std::ranges::sort(inRow, [](const RackInfo* a, const RackInfo* b) {
            return naturalLess(a->name, b->name);
        });
        // Rack names that end in distinct numbers stand in those slots; missing ones
        // are gaps.
        std::vector<std::optional<int>> numbers;
        numbers.reserve(inRow.size());
        for (const RackInfo* r : inRow)
            numbers.push_back(trailingNumber(r->name));
        bool bySlot =
            std::ranges::all_of(numbers, [](const auto& n) { return n && *n >= 1 && *n <= 1000; });
        for (std::size_t k = 1; bySlot && k < numbers.size(); ++k)
            bySlot = *numbers[k] > *numbers[k - 1];
        model::RowSpec row;
        row.name = manyHalls && !hall.empty() ? hall + "-" + rows[i] : rows[i];
        row.x = hallX;
        row.y = static_cast<double>(i) * rowPitch;
        for (std::size_t k = 0; k < inRow.size(); ++k)
            row.rackList.push_back(
                rackSpecOf(*inRow[k], bySlot ? *numbers[k] - 1 : static_cast<int>(k)));
        row.racks = static_cast<int>(row.rackList.size());
        right =
            std::max(right, hallX + static_cast<double>(row.rackList.back().slot + 1) * rk.widthM);
        spec.rows.push_back(std::move(row));
    }
    return right;
}

// Each host's tray: given, or top down by rack unit (highest first), or by name.
std::expected<void, Error> assignTrays(std::vector<InventoryHost>& hosts, int trays) {
    std::map<std::string, std::vector<InventoryHost*>> byRack;
    for (auto& h : hosts)
        byRack[h.rack].push_back(&h);
    for (auto& [rack, members] : byRack) {
        std::map<int, const InventoryHost*> taken;
        for (InventoryHost* h : members) {
            if (h->tray == 0) continue;
            if (auto [it, fresh] = taken.emplace(h->tray, h); !fresh)
                return std::unexpected(errorAt(h->origin,
                                               "hosts '" + it->second->name + "' (" +
                                                   mention(it->second->origin) + ") and '" +
                                                   h->name + "' are both in rack '" + rack +
                                                   "' tray " + std::to_string(h->tray),
                                               "tray"));
        }
        std::vector<InventoryHost*> open;
        for (InventoryHost* h : members)
            if (h->tray == 0) open.push_back(h);
        const bool byU = std::ranges::all_of(
            open, [](const InventoryHost* h) { return h->positionU.has_value(); });
        std::ranges::sort(open, [byU](const InventoryHost* a, const InventoryHost* b) {
            if (byU && *a->positionU != *b->positionU) return *a->positionU > *b->positionU;
            return naturalLess(a->name, b->name);
        });
        if (byU)
            for (std::size_t i = 1; i < open.size(); ++i)
                if (*open[i]->positionU == *open[i - 1]->positionU)
                    return std::unexpected(errorAt(
                        open[i]->origin,
                        "hosts '" + open[i - 1]->name + "' (" + mention(open[i - 1]->origin) +
                            ") and '" + open[i]->name + "' are both at U" +
                            std::to_string(static_cast<int>(*open[i]->positionU)) + " of rack '" +
                            rack + "'",
                        "position_u"));
        int next = 1;
        for (InventoryHost* h : open) {
            while (taken.contains(next))
                ++next;
            if (next > trays)
                return std::unexpected(errorAt(h->origin,
                                               "rack '" + rack + "' has more hosts than its " +
                                                   std::to_string(trays) +
                                                   " compute trays (host '" + h->name + "')",
                                               "rack"));
            h->tray = next;
            taken.emplace(next, h);
        }
    }
    return {};
}

} // namespace

std::expected<Inventory, Error> buildInventory(std::vector<InventoryHost> hosts,
                                               const std::vector<InventoryRack>& rackList,
                                               const model::FloorSpec& base,
                                               const std::string& name) {
    const model::RackModelSpec& rk = base.rack;
    const int trays = rk.computeTrays;
    Inventory inv;

    auto collected = collectRacks(hosts, rackList, rk, name);
    if (!collected) return std::unexpected(collected.error());
    const auto& racks = *collected;

    // Halls, in natural order; in each, rows by name or by floor-plan coordinates.
    std::vector<std::string> halls;
    for (const auto& [key, r] : racks)
        if (std::ranges::find(halls, r.hall) == halls.end()) halls.push_back(r.hall);
    std::ranges::sort(halls, naturalLess);
    model::FloorSpec spec = base;
    spec.rows.clear();
    spec.hosts.clear();
    std::string site;
    for (const auto& [key, r] : racks)
        if (!r.site.empty()) site = r.site;
    spec.name =
        !site.empty()
            ? site + (halls.size() == 1 && !halls.front().empty() ? " " + halls.front() : "")
            : name;
    constexpr double kRowPitch = 3.0, kHallGap = 12.0;
    double hallX = 0;
    for (const auto& hall : halls) {
        std::vector<const RackInfo*> members;
        for (const auto& [key, r] : racks)
            if (r.hall == hall) members.push_back(&r);
        const bool planned =
            std::ranges::all_of(members, [](const RackInfo* r) { return r->position.has_value(); });
        const auto edge =
            planned ? plannedRows(members, hall, halls.size() > 1, hallX, rk, spec)
                    : std::expected<double, Error>(
                          namedRows(members, hall, halls.size() > 1, hallX, kRowPitch, rk, spec));
        if (!edge) return std::unexpected(edge.error());
        hallX = *edge + kHallGap;
    }

    if (auto placed = assignTrays(hosts, trays); !placed) return std::unexpected(placed.error());
    for (const auto& h : hosts)
        spec.hosts.push_back({h.name, h.rack, h.tray, h.uuids, h.bmc, h.serial});

    inv.spec = std::move(spec);
    inv.hosts = hosts.size();
    inv.racks = racks.size();
    inv.rows = inv.spec.rows.size();
    inv.halls = halls.size();
    return inv;
}

} // namespace ft::importers
