#pragma once
// NetBox -> Inventory. NetBox (the DCIM most operators keep their floor in) serves sites,
// locations, racks and devices as paginated REST pages ({count, next, previous, results}); the
// floor-plan plugin adds rack coordinates. This reads those objects — fetched live (netbox=URL,
// see netbox_client.h) or from a dump directory of the same pages (netbox-dump=DIR) — into the
// inventory builder's hosts and racks:
//  - a rack's row is its location, its hall that location's parent; the floor plan's
//    coordinates, where every rack of a hall has them, lay the hall out instead;
//  - compute trays are the devices whose role (NetBox 4: "role", 3.x: "device_role") names
//    compute ("compute", "gpu", "server", "node", "host" in its slug or name); their rack,
//    position (U) and face place them, top down; switch trays, power shelves and PDUs are
//    counted and left out;
//  - statuses: rack and device "planned" -> delivered, "staged" -> bring-up (hardware
//    detection), "active" -> production, "failed"/"offline" -> troubleshooting;
//  - serial, the BMC (oob_ip, or custom field bmc/bmc_ip) and GPU UUIDs (custom field
//    gpu_uuids: a list or a ';'-separated string) go into the host table.
// Errors name the page URL (or dump file) and the object ("device 1234 'gpu-node-0001'"). Pure;
// any thread.
#include "importers/formats/error.h"
#include "inventory.h"
#include "model/floor_spec.h"

#include <array>
#include <expected>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ft::importers {

// The endpoints an inventory reads, below /api/, in order; the last is optional (a plugin).
inline constexpr std::array<std::string_view, 5> kNetboxEndpoints{
    "dcim/sites", "dcim/locations", "dcim/racks", "dcim/devices", "plugins/floorplan/floorplans"};
// Dump file names for them: sites*.json, locations*.json, ... (pages in natural order).
inline constexpr std::array<std::string_view, 5> kNetboxDumpNames{"sites", "locations", "racks",
                                                                  "devices", "floorplans"};

struct NetboxObject {
    std::string source; // page URL or dump file
    nlohmann::json value;
};

struct NetboxObjects {
    std::array<std::vector<NetboxObject>, kNetboxEndpoints.size()> byEndpoint;
    std::vector<NetboxObject>& sites() { return byEndpoint[0]; }
    std::vector<NetboxObject>& racks() { return byEndpoint[2]; }
    std::vector<NetboxObject>& devices() { return byEndpoint[3]; }
};

struct NetboxPage {
    std::optional<std::string> next;  // the next page's URL
    std::optional<std::size_t> count; // the endpoint's total, as the server says
    std::size_t results = 0;
};

// One page (or a dump file holding a page or a plain array of objects): its objects appended
// to `into`. Errors: not JSON (with the line and column), not a page.
std::expected<NetboxPage, Error> readNetboxPage(std::string_view body, const std::string& source,
                                                std::vector<NetboxObject>& into);

// A dump directory: for each endpoint the files named after it (devices.json, devices-2.json,
// ...) in natural order. Sites, locations, racks and devices must be there; floor plans may be.
std::expected<NetboxObjects, Error> loadNetboxDump(const std::string& dir);

struct NetboxReport {
    std::size_t devices = 0, computeDevices = 0, ignoredByRole = 0, unracked = 0;
    std::size_t racksPlaced = 0; // racks with floor-plan coordinates
};

std::expected<Inventory, Error> netboxInventory(const NetboxObjects& objects,
                                                const model::FloorSpec& base,
                                                const std::string& name,
                                                NetboxReport* report = nullptr);

} // namespace ft::importers
