#include "inventory_csv.h"

#include "importers/formats/delimited_record.h"

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

} // namespace

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
    std::vector<InventoryHost> hosts;
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
        InventoryHost h;
        h.origin = {file, number, 1, {}};
        h.nameColumn = columnOf(Hostname);
        h.rowColumn = columnOf(Row);
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
        if (!lifecycleOfStatus(h.status))
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
        hosts.push_back(std::move(h));
    }
    if (hosts.empty())
        return fail(lines.front().first, 1, "the inventory has a header but no hosts");

    auto built =
        buildInventory(std::move(hosts), {}, base, std::filesystem::path(file).stem().string());
    if (!built) return std::unexpected(built.error());
    built->columns = std::move(inv.columns);
    return built;
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
