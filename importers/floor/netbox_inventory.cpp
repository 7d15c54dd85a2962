#include "netbox_inventory.h"

#include "importers/formats/json_document.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace ft::importers {

using nlohmann::json;

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// A string field, or a nested object's field (NetBox nests brief objects: {"id", "name", ...}).
std::string text(const json& v, std::string_view key = {}) {
    const json* x = &v;
    if (!key.empty()) {
        if (!v.is_object()) return {};
        const auto it = v.find(key);
        if (it == v.end()) return {};
        x = &*it;
    }
    if (x->is_string()) return x->get<std::string>();
    if (x->is_number_integer()) return std::to_string(x->get<long long>());
    return {};
}

std::optional<long long> idOf(const json& v) {
    if (v.is_number_integer()) return v.get<long long>();
    if (v.is_object())
        if (const auto it = v.find("id"); it != v.end() && it->is_number_integer())
            return it->get<long long>();
    return std::nullopt;
}

std::optional<double> number(const json& v) {
    if (v.is_number()) return v.get<double>();
    if (v.is_string()) {
        // DRF writes DecimalFields as strings ("30.00").
        try {
            std::size_t used = 0;
            const double d = std::stod(v.get<std::string>(), &used);
            if (used == v.get<std::string>().size()) return d;
        } catch (const std::exception&) {
        }
    }
    return std::nullopt;
}

const json& field(const json& v, std::string_view key) {
    static const json kNull;
    if (!v.is_object()) return kNull;
    const auto it = v.find(key);
    return it == v.end() ? kNull : *it;
}

// A choice field: {"value": "active", "label": "Active"} (or a bare "active").
std::string choice(const json& v, std::string_view key) {
    const json& f = field(v, key);
    if (f.is_object()) return text(f, "value");
    return text(f);
}

std::string objectLabel(std::string_view kind, const json& v) {
    std::string out(kind);
    if (const auto id = idOf(v)) out += " " + std::to_string(*id);
    if (const std::string name = text(v, "name"); !name.empty()) out += " '" + name + "'";
    return out;
}

bool computeRole(const json& device) {
    const json& role =
        field(device, "role").is_null() ? field(device, "device_role") : field(device, "role");
    const std::string words = lower(text(role, "slug") + " " + text(role, "name") + " " +
                                    (role.is_string() ? role.get<std::string>() : ""));
    for (const char* k : {"compute", "gpu", "server", "node", "host"})
        if (words.find(k) != std::string::npos) return true;
    return false;
}

std::vector<std::string> uuidsOf(const json& device) {
    const json& cf = field(device, "custom_fields");
    std::vector<std::string> out;
    for (const char* key : {"gpu_uuids", "gpu_uuid", "gpus"}) {
        const json& f = field(cf, key);
        if (f.is_array()) {
            for (const auto& u : f)
                if (u.is_string() && !u.get<std::string>().empty())
                    out.push_back(u.get<std::string>());
        } else if (f.is_string()) {
            // "GPU-a;GPU-b" or "GPU-a, GPU-b"
            std::string list = f.get<std::string>();
            std::ranges::replace(list, ',', ';');
            std::stringstream ss(list);
            for (std::string u; std::getline(ss, u, ';');) {
                std::erase(u, ' ');
                if (!u.empty()) out.push_back(u);
            }
        }
        if (!out.empty()) break;
    }
    return out;
}

std::string bmcOf(const json& device) {
    std::string address = text(field(device, "oob_ip"), "address");
    if (address.empty()) {
        const json& cf = field(device, "custom_fields");
        for (const char* key : {"bmc", "bmc_ip", "bmc_address", "ipmi"})
            if (address = text(cf, key); !address.empty()) break;
    }
    if (const auto slash = address.find('/'); slash != std::string::npos) address.resize(slash);
    return address;
}

} // namespace

std::expected<NetboxPage, Error> readNetboxPage(std::string_view body, const std::string& source,
                                                std::vector<NetboxObject>& into) {
    json page;
    if (const auto deep = jsonNestingBeyond(body, kJsonAnswerDepth)) {
        const auto line =
            1 + std::count(body.begin(), body.begin() + static_cast<long>(*deep), '\n');
        return std::unexpected(Error{"nested deeper than " + std::to_string(kJsonAnswerDepth) +
                                         " levels: not a NetBox API page",
                                     source,
                                     static_cast<int>(line),
                                     0,
                                     {}});
    }
    try {
        page = json::parse(body);
    } catch (const json::parse_error& e) {
        int line = 1, column = 1;
        for (std::size_t i = 0; i + 1 < e.byte && i < body.size(); ++i) {
            if (body[i] == '\n') {
                ++line;
                column = 1;
            } else
                ++column;
        }
        return std::unexpected(
            Error{"not JSON: " + std::string(e.what()), source, line, column, {}});
    } catch (const json::exception& e) {
        // Well-formed but unreadable: a number past what a double holds ("count": 1e999).
        return std::unexpected(
            Error{"unreadable JSON: " + std::string(e.what()), source, 0, 0, {}});
    }
    NetboxPage out;
    const json* results = nullptr;
    if (page.is_array())
        results = &page;
    else if (page.is_object() && page.contains("results") && page["results"].is_array()) {
        results = &page["results"];
        if (page["next"].is_string()) out.next = page["next"].get<std::string>();
        if (page["count"].is_number_unsigned()) out.count = page["count"].get<std::size_t>();
    } else {
        std::string detail =
            page.is_object() && page.contains("detail") && page["detail"].is_string()
                ? " (the server says: " + page["detail"].get<std::string>() + ")"
                : "";
        return std::unexpected(Error{"expected a NetBox API page ({count, next, results}) or an "
                                     "array of objects" +
                                         detail,
                                     source,
                                     0,
                                     0,
                                     {}});
    }
    for (const auto& o : *results) {
        if (!o.is_object())
            return std::unexpected(
                Error{"expected objects in the page's results", source, 0, 0, {}});
        into.push_back({source, o});
    }
    out.results = results->size();
    return out;
}

std::expected<NetboxObjects, Error> loadNetboxDump(const std::string& dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        return std::unexpected(Error{"not a directory (a NetBox dump is a directory of the API's "
                                     "JSON pages: sites.json, racks.json, devices.json, ...)",
                                     dir,
                                     0,
                                     0,
                                     {}});
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
    std::ranges::sort(files, [](const fs::path& a, const fs::path& b) {
        return naturalLess(a.filename().string(), b.filename().string());
    });
    NetboxObjects out;
    for (std::size_t k = 0; k < kNetboxDumpNames.size(); ++k) {
        const std::string_view name = kNetboxDumpNames[k];
        std::size_t found = 0;
        for (const auto& f : files) {
            const std::string stem = f.stem().string();
            // "devices", "devices-2", "devices_page3", "devices.1": not "devices_types".
            if (!stem.starts_with(name)) continue;
            if (stem.size() > name.size() &&
                std::isalpha(static_cast<unsigned char>(stem[name.size()])))
                continue;
            if (stem.size() > name.size() + 1 && stem[name.size()] == '_' &&
                !std::isdigit(static_cast<unsigned char>(stem.back())))
                continue;
            std::ifstream in(f, std::ios::binary);
            std::stringstream ss;
            ss << in.rdbuf();
            auto page = readNetboxPage(ss.str(), f.string(), out.byEndpoint[k]);
            if (!page) return std::unexpected(page.error());
            ++found;
        }
        if (found == 0 && (name == "racks" || name == "devices"))
            return std::unexpected(Error{"no " + std::string(name) + "*.json (the pages of /api/" +
                                             std::string(kNetboxEndpoints[k]) + "/)",
                                         dir,
                                         0,
                                         0,
                                         {}});
    }
    return out;
}

std::expected<Inventory, Error> netboxInventory(const NetboxObjects& objects,
                                                const model::FloorSpec& base,
                                                const std::string& name, NetboxReport* report) {
    NetboxReport rep;
    auto fail = [](const NetboxObject& o, std::string_view kind, std::string message,
                   std::string key = {}) {
        return std::unexpected(Error{objectLabel(kind, o.value) + ": " + std::move(message),
                                     o.source, 0, 0, std::move(key)});
    };
    std::map<long long, std::string> siteName;
    for (const auto& s : objects.byEndpoint[0])
        if (const auto id = idOf(s.value)) siteName[*id] = text(s.value, "name");
    struct Location {
        std::string name;
        std::optional<long long> parent;
    };
    std::map<long long, Location> locations;
    for (const auto& l : objects.byEndpoint[1])
        if (const auto id = idOf(l.value))
            locations[*id] = {text(l.value, "name"), idOf(field(l.value, "parent"))};
    auto locationName = [&](const json& ref) {
        if (std::string n = text(ref, "name"); !n.empty()) return n;
        if (const auto id = idOf(ref); id && locations.contains(*id)) return locations[*id].name;
        return std::string();
    };

    // Floor-plan coordinates, metres, by rack id.
    std::map<long long, std::pair<double, double>> planned;
    for (const auto& fp : objects.byEndpoint[4]) {
        const json& canvas = field(fp.value, "canvas");
        const json& shapes = field(canvas, "objects");
        if (!shapes.is_array()) continue;
        const auto width = number(field(fp.value, "width"));
        const double unit = text(fp.value, "measurement_unit") == "ft" ? 0.3048 : 1.0;
        const json* boundary = nullptr;
        for (const auto& s : shapes)
            if (text(field(s, "custom_meta"), "object_type") == "floorplan_boundry" ||
                text(field(s, "custom_meta"), "object_type") == "floorplan_boundary")
                boundary = &s;
        const double originX = boundary ? number(field(*boundary, "left")).value_or(0) : 0;
        const double originY = boundary ? number(field(*boundary, "top")).value_or(0) : 0;
        const double canvasWidth = boundary ? number(field(*boundary, "width")).value_or(0) *
                                                  number(field(*boundary, "scaleX")).value_or(1)
                                            : 0;
        // Canvas units to metres: the boundary spans the floor plan's width.
        const double scale = width && canvasWidth > 0 ? *width * unit / canvasWidth : unit;
        for (const auto& s : shapes) {
            const json& meta = field(s, "custom_meta");
            if (text(meta, "object_type") != "rack") continue;
            const auto id = number(field(meta, "object_id"));
            const auto left = number(field(s, "left")), top = number(field(s, "top"));
            if (!id || !left || !top) continue;
            double x = *left, y = *top;
            if (text(s, "originX") != "center")
                x += number(field(s, "width")).value_or(0) *
                     number(field(s, "scaleX")).value_or(1) / 2;
            if (text(s, "originY") != "center")
                y += number(field(s, "height")).value_or(0) *
                     number(field(s, "scaleY")).value_or(1) / 2;
            planned[static_cast<long long>(*id)] = {(x - originX) * scale, (y - originY) * scale};
        }
    }

    std::vector<InventoryRack> racks;
    std::map<long long, std::size_t> rackById;
    for (const auto& r : objects.byEndpoint[2]) {
        InventoryRack rack;
        rack.name = text(r.value, "name");
        if (rack.name.empty()) return fail(r, "rack", "has no name", "name");
        const json& location = field(r.value, "location");
        rack.row = locationName(location);
        if (rack.row.empty()) rack.row = text(field(r.value, "custom_fields"), "row");
        if (const auto lid = idOf(location); lid && locations.contains(*lid)) {
            if (const auto parent = locations[*lid].parent; parent && locations.contains(*parent))
                rack.hall = locations[*parent].name;
        }
        rack.site = text(field(r.value, "site"), "name");
        if (rack.site.empty())
            if (const auto sid = idOf(field(r.value, "site")); sid && siteName.contains(*sid))
                rack.site = siteName[*sid];
        rack.status = choice(r.value, "status");
        if (!lifecycleOfStatus(rack.status))
            return fail(r, "rack", "unknown status '" + rack.status + "'", "status");
        const auto id = idOf(r.value);
        if (id && planned.contains(*id)) {
            rack.position = planned[*id];
            ++rep.racksPlaced;
        }
        rack.origin = {r.source, 0, 1, objectLabel("rack", r.value)};
        if (id) rackById[*id] = racks.size();
        racks.push_back(std::move(rack));
    }

    std::vector<InventoryHost> hosts;
    for (const auto& d : objects.byEndpoint[3]) {
        ++rep.devices;
        if (!computeRole(d.value)) {
            ++rep.ignoredByRole;
            // A power shelf, PDU or rack manager with a management address: a Redfish service
            // there speaks for its rack.
            if (const std::string bmc = bmcOf(d.value); !bmc.empty())
                if (const auto rid = idOf(field(d.value, "rack")); rid && rackById.contains(*rid))
                    racks[rackById[*rid]].bmc.push_back(bmc);
            continue;
        }
        const json& rackRef = field(d.value, "rack");
        if (rackRef.is_null()) {
            ++rep.unracked;
            continue;
        }
        ++rep.computeDevices;
        InventoryHost h;
        h.name = text(d.value, "name");
        if (h.name.empty())
            return fail(d, "device", "a compute device needs a name (its host name)", "name");
        h.rack = text(rackRef, "name");
        if (const auto rid = idOf(rackRef); rid && rackById.contains(*rid)) {
            const InventoryRack& rack = racks[rackById[*rid]];
            h.rack = rack.name;
            h.hall = rack.hall;
        }
        if (h.rack.empty())
            return fail(d, "device", "its rack is not among the racks read", "rack");
        h.site = text(field(d.value, "site"), "name");
        h.serial = text(d.value, "serial");
        h.status = choice(d.value, "status");
        h.bmc = bmcOf(d.value);
        h.uuids = uuidsOf(d.value);
        const json& position = field(d.value, "position");
        if (!position.is_null()) {
            const auto u = number(position);
            if (!u || *u < 1 || *u > 60)
                return fail(d, "device", "position '" + position.dump() + "' is not a rack unit",
                            "position");
            h.positionU = *u;
        }
        h.origin = {d.source, 0, 1, objectLabel("device", d.value)};
        hosts.push_back(std::move(h));
    }
    if (report) *report = rep;
    return buildInventory(std::move(hosts), racks, base, name);
}

} // namespace ft::importers
