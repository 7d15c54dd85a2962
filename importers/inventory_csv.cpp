#include "inventory_csv.h"

#include "delimited_record.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <unordered_map>

namespace ft::importers {

namespace {

enum Column : std::uint8_t {
    Hostname,
    Rack,
    Row,
    Tray,
    PositionU,
    Hall,
    Site,
    GpuUuids,
    Bmc,
    Serial,
    Status,
    kColumns
};

struct ColumnName {
    std::string_view canonical;
    std::vector<std::string_view> spellings; // normalised: lower case, '_' for blanks and dashes
};

const std::array<ColumnName, kColumns>& columnNames() {
    static const std::array<ColumnName, kColumns> names{{
        {"hostname",
         {"hostname", "host", "host_name", "node", "node_name", "name", "device", "device_name",
          "server"}},
        {"rack", {"rack", "rack_name", "cabinet", "rack_id"}},
        {"row", {"row", "row_name", "aisle", "rack_row"}},
        {"tray", {"tray", "tray_slot", "slot", "node_slot", "compute_tray"}},
        {"position_u", {"position_u", "position", "u", "rack_u", "ru", "u_position"}},
        {"hall", {"hall", "data_hall", "room", "location"}},
        {"site", {"site", "datacenter", "data_center", "dc"}},
        {"gpu_uuids", {"gpu_uuids", "gpu_uuid", "uuids", "gpus"}},
        {"bmc", {"bmc", "bmc_ip", "bmc_address", "oob_ip", "ipmi", "ipmi_address"}},
        {"serial", {"serial", "serial_number", "sn", "asset_serial"}},
        {"status", {"status", "rack_status", "state", "lifecycle"}},
    }};
    return names;
}

std::string normalise(std::string_view header) {
    std::string out;
    for (char c : header) {
        if (c == ' ' || c == '-' || c == '.') c = '_';
        out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    while (!out.empty() && out.front() == '_')
        out.erase(out.begin());
    while (!out.empty() && out.back() == '_')
        out.pop_back();
    return out;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// NetBox-style statuses -> the lifecycle state a rack starts in, with how far from ready it is
// (the rack takes its least ready host's).
struct StatusMeaning {
    std::string_view lifecycle;
    int rank; // lower: further from production
};
std::optional<StatusMeaning> statusMeaning(std::string_view status) {
    static const std::map<std::string, StatusMeaning, std::less<>> table{
        {"", {"production", 9}},
        {"active", {"production", 9}},
        {"production", {"production", 9}},
        {"planned", {"delivered", 1}},
        {"delivered", {"delivered", 1}},
        {"inventory", {"delivered", 1}},
        {"staged", {"hardware_detection", 2}},
        {"staging", {"hardware_detection", 2}},
        {"failed", {"troubleshooting", 0}},
        {"offline", {"troubleshooting", 0}},
        {"decommissioning", {"maintenance", 3}},
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

struct HostRow {
    std::string name, rack, row, hall, site, bmc, serial, status;
    std::vector<std::string> uuids;
    int tray = 0; // 0: not given
    std::optional<double> positionU;
    int line = 0;
};

} // namespace

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

std::expected<Inventory, Error> parseInventoryCsv(std::string_view text, const std::string& file,
                                                  const model::FloorSpec& base) {
    auto fail = [&](int line, int column, std::string message, std::string key = {}) {
        return std::unexpected(Error{std::move(message), file, line, column, std::move(key)});
    };
    // Lines, the header first (blank lines and '#' comments skipped).
    std::vector<std::pair<int, std::string_view>> lines;
    {
        int number = 0;
        std::size_t at = 0;
        if (text.starts_with("\xEF\xBB\xBF")) at = 3; // a spreadsheet's byte-order mark
        while (at <= text.size()) {
            const std::size_t nl = std::min(text.find('\n', at), text.size());
            std::string_view line = text.substr(at, nl - at);
            if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
            ++number;
            const auto first = line.find_first_not_of(" \t");
            if (first != std::string_view::npos && line[first] != '#')
                lines.emplace_back(number, line);
            if (nl >= text.size()) break;
            at = nl + 1;
        }
    }
    if (lines.empty())
        return fail(1, 1,
                    "the inventory is empty: expected a header line with hostname, rack and row");
    const char delimiter = lines.front().second.find('\t') != std::string_view::npos ? '\t' : ',';

    Inventory inv;
    std::array<int, kColumns> index;
    index.fill(-1);
    std::vector<std::string> fields;
    std::vector<int> columns;
    {
        const auto [number, header] = lines.front();
        if (auto p = splitDelimited(header, delimiter, fields, columns))
            return fail(number, p->column, p->message);
        for (std::size_t i = 0; i < fields.size(); ++i) {
            const std::string n = normalise(fields[i]);
            int found = -1;
            for (int c = 0; c < kColumns; ++c)
                if (std::ranges::find(columnNames()[c].spellings, n) !=
                    columnNames()[c].spellings.end())
                    found = c;
            if (found < 0) {
                std::string known;
                for (const auto& c : columnNames())
                    known += (known.empty() ? "" : ", ") + std::string(c.canonical);
                return fail(number, columns[i],
                            "unknown column '" + fields[i] + "' (columns: " + known + ")",
                            fields[i]);
            }
            if (index[found] >= 0)
                return fail(number, columns[i],
                            "columns '" + fields[static_cast<std::size_t>(index[found])] +
                                "' and '" + fields[i] + "' both give " +
                                std::string(columnNames()[found].canonical),
                            fields[i]);
            index[found] = static_cast<int>(i);
            inv.columns.emplace_back(columnNames()[found].canonical, fields[i]);
        }
        for (Column required : {Hostname, Rack, Row})
            if (index[required] < 0) {
                std::string spellings;
                for (auto s : columnNames()[required].spellings)
                    spellings += (spellings.empty() ? "" : ", ") + std::string(s);
                return fail(number, 1,
                            "missing column " + std::string(columnNames()[required].canonical) +
                                " (any of: " + spellings + ")");
            }
    }

    const int trays = base.rack.computeTrays;
    std::vector<HostRow> hosts;
    std::unordered_map<std::string, int> hostLine;                        // lower-case host -> line
    std::unordered_map<std::string, std::pair<std::string, int>> rackRow; // rack -> (row key, line)
    for (std::size_t k = 1; k < lines.size(); ++k) {
        const auto [number, line] = lines[k];
        if (auto p = splitDelimited(line, delimiter, fields, columns))
            return fail(number, p->column, p->message);
        auto field = [&](Column c) -> std::string {
            const int i = index[c];
            return i >= 0 && static_cast<std::size_t>(i) < fields.size()
                       ? fields[static_cast<std::size_t>(i)]
                       : std::string();
        };
        auto columnOf = [&](Column c) {
            const int i = index[c];
            return i >= 0 && static_cast<std::size_t>(i) < columns.size()
                       ? columns[static_cast<std::size_t>(i)]
                       : 1;
        };
        HostRow h;
        h.line = number;
        h.name = field(Hostname);
        h.rack = field(Rack);
        h.row = field(Row);
        for (Column c : {Hostname, Rack, Row})
            if (field(c).empty())
                return fail(number, columnOf(c),
                            "expected a " + std::string(columnNames()[c].canonical),
                            std::string(columnNames()[c].canonical));
        h.hall = field(Hall);
        h.site = field(Site);
        h.bmc = field(Bmc);
        h.serial = field(Serial);
        h.status = field(Status);
        if (!statusMeaning(h.status))
            return fail(number, columnOf(Status),
                        "unknown status '" + h.status +
                            "' (planned, staged, active, failed, offline, decommissioning, ...)",
                        "status");
        if (const std::string tray = field(Tray); !tray.empty()) {
            auto [p, ec] = std::from_chars(tray.data(), tray.data() + tray.size(), h.tray);
            if (ec != std::errc() || p != tray.data() + tray.size() || h.tray < 1 || h.tray > trays)
                return fail(number, columnOf(Tray),
                            "tray '" + tray + "' is outside the rack (compute trays 1.." +
                                std::to_string(trays) + ")",
                            "tray");
        }
        if (const std::string pos = field(PositionU); !pos.empty()) {
            double u = 0;
            auto [p, ec] = std::from_chars(pos.data(), pos.data() + pos.size(), u);
            if (ec != std::errc() || p != pos.data() + pos.size() || u < 1 || u > 60)
                return fail(number, columnOf(PositionU),
                            "position_u '" + pos + "' is not a rack unit from 1 to 60",
                            "position_u");
            h.positionU = u;
        }
        if (const std::string uuids = field(GpuUuids); !uuids.empty()) {
            std::stringstream ss(uuids);
            for (std::string u; std::getline(ss, u, ';');) {
                while (!u.empty() && u.front() == ' ')
                    u.erase(u.begin());
                while (!u.empty() && u.back() == ' ')
                    u.pop_back();
                if (!u.empty()) h.uuids.push_back(u);
            }
            if (h.uuids.size() > static_cast<std::size_t>(base.rack.gpusPerTray))
                return fail(number, columnOf(GpuUuids),
                            std::to_string(h.uuids.size()) +
                                " GPU UUIDs for one host; a tray has " +
                                std::to_string(base.rack.gpusPerTray),
                            "gpu_uuids");
        }
        if (auto [it, fresh] = hostLine.emplace(lower(h.name), number); !fresh)
            return fail(number, columnOf(Hostname),
                        "host '" + h.name + "' is listed twice (first on line " +
                            std::to_string(it->second) + ")",
                        "hostname");
        const std::string rowKey = h.hall + "\x1f" + h.row;
        if (auto [it, fresh] = rackRow.emplace(h.rack, std::pair{rowKey, number});
            !fresh && it->second.first != rowKey)
            return fail(number, columnOf(Row),
                        "rack '" + h.rack + "' is in row '" + h.row +
                            "' here but in another row on line " +
                            std::to_string(it->second.second),
                        "row");
        hosts.push_back(std::move(h));
    }
    if (hosts.empty())
        return fail(lines.front().first, 1, "the inventory has a header but no hosts");

    // Halls, their rows and racks, in natural order.
    std::vector<std::string> halls;
    for (const auto& h : hosts)
        if (std::ranges::find(halls, h.hall) == halls.end()) halls.push_back(h.hall);
    std::ranges::sort(halls, naturalLess);
    model::FloorSpec spec = base;
    spec.rows.clear();
    spec.hosts.clear();
    std::string site;
    for (const auto& h : hosts)
        if (!h.site.empty()) site = h.site;
    spec.name =
        !site.empty()
            ? site + (halls.size() == 1 && !halls.front().empty() ? " " + halls.front() : "")
            : std::filesystem::path(file).stem().string();
    constexpr double kRowPitch = 3.0, kHallGap = 12.0;
    double hallX = 0;
    for (const auto& hall : halls) {
        std::vector<std::string> rows;
        for (const auto& h : hosts)
            if (h.hall == hall && std::ranges::find(rows, h.row) == rows.end())
                rows.push_back(h.row);
        std::ranges::sort(rows, naturalLess);
        double longest = 0;
        for (std::size_t r = 0; r < rows.size(); ++r) {
            std::vector<std::string> racks;
            std::map<std::string, int> status; // rack -> least ready rank seen
            std::map<std::string, std::string> lifecycle;
            for (const auto& h : hosts) {
                if (h.hall != hall || h.row != rows[r]) continue;
                if (std::ranges::find(racks, h.rack) == racks.end()) racks.push_back(h.rack);
                const auto m = *statusMeaning(h.status);
                if (!status.contains(h.rack) || m.rank < status[h.rack]) {
                    status[h.rack] = m.rank;
                    lifecycle[h.rack] = std::string(m.lifecycle);
                }
            }
            std::ranges::sort(racks, naturalLess);
            // Rack names that end in distinct numbers stand in those slots; missing ones are gaps.
            std::vector<std::optional<int>> numbers;
            numbers.reserve(racks.size());
            for (const auto& name : racks)
                numbers.push_back(trailingNumber(name));
            bool bySlot = std::ranges::all_of(
                numbers, [](const auto& n) { return n && *n >= 1 && *n <= 1000; });
            for (std::size_t i = 1; bySlot && i < numbers.size(); ++i)
                bySlot = *numbers[i] > *numbers[i - 1];
            model::RowSpec row;
            row.name = halls.size() > 1 && !hall.empty() ? hall + "-" + rows[r] : rows[r];
            row.x = hallX;
            row.y = static_cast<double>(r) * kRowPitch;
            for (std::size_t i = 0; i < racks.size(); ++i) {
                model::RackSpec rack;
                rack.name = racks[i];
                rack.slot = bySlot ? *numbers[i] - 1 : static_cast<int>(i);
                if (lifecycle[racks[i]] != "production") rack.lifecycle = lifecycle[racks[i]];
                row.rackList.push_back(std::move(rack));
            }
            row.racks = static_cast<int>(row.rackList.size());
            longest = std::max(longest, static_cast<double>(row.rackList.back().slot + 1) *
                                            base.rack.widthM);
            spec.rows.push_back(std::move(row));
        }
        hallX += longest + kHallGap;
    }

    // Trays: given, or top down by rack unit (highest first), or by name.
    std::map<std::string, std::vector<HostRow*>> byRack;
    for (auto& h : hosts)
        byRack[h.rack].push_back(&h);
    for (auto& [rack, members] : byRack) {
        std::map<int, const HostRow*> taken;
        std::vector<HostRow*> placed;
        for (HostRow* h : members) {
            if (h->tray == 0) continue;
            if (auto [it, fresh] = taken.emplace(h->tray, h); !fresh)
                return fail(h->line, 1,
                            "hosts '" + it->second->name + "' (line " +
                                std::to_string(it->second->line) + ") and '" + h->name +
                                "' are both in rack '" + rack + "' tray " + std::to_string(h->tray),
                            "tray");
        }
        std::vector<HostRow*> open;
        for (HostRow* h : members)
            if (h->tray == 0) open.push_back(h);
        const bool byU =
            std::ranges::all_of(open, [](const HostRow* h) { return h->positionU.has_value(); });
        std::ranges::sort(open, [byU](const HostRow* a, const HostRow* b) {
            if (byU && *a->positionU != *b->positionU) return *a->positionU > *b->positionU;
            return naturalLess(a->name, b->name);
        });
        if (byU)
            for (std::size_t i = 1; i < open.size(); ++i)
                if (*open[i]->positionU == *open[i - 1]->positionU)
                    return fail(open[i]->line, 1,
                                "hosts '" + open[i - 1]->name + "' (line " +
                                    std::to_string(open[i - 1]->line) + ") and '" + open[i]->name +
                                    "' are both at U" +
                                    std::to_string(static_cast<int>(*open[i]->positionU)) +
                                    " of rack '" + rack + "'",
                                "position_u");
        int next = 1;
        for (HostRow* h : open) {
            while (taken.contains(next))
                ++next;
            if (next > trays)
                return fail(h->line, 1,
                            "rack '" + rack + "' has more hosts than its " + std::to_string(trays) +
                                " compute trays (host '" + h->name + "')",
                            "rack");
            h->tray = next;
            taken.emplace(next, h);
        }
    }
    for (const auto& h : hosts)
        spec.hosts.push_back({h.name, h.rack, h.tray, h.uuids, h.bmc, h.serial});

    inv.spec = std::move(spec);
    inv.hosts = hosts.size();
    inv.racks = rackRow.size();
    inv.rows = inv.spec.rows.size();
    inv.halls = halls.size();
    return inv;
}

std::expected<Inventory, Error> loadInventoryCsv(const std::string& path,
                                                 const model::FloorSpec& base) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::unexpected(Error{"cannot open the inventory", path, 0, 0, {}});
    std::stringstream buffer;
    buffer << in.rdbuf();
    return parseInventoryCsv(buffer.str(), path, base);
}

} // namespace ft::importers
