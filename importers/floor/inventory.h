#pragma once
// Inventory -> FloorSpec: what every inventory source (a CSV export, NetBox's API or a dump of
// it) reduces to — hosts with their rack, row and slot, racks with their row, status and, where
// a floor plan has them, coordinates — laid out as a floor. Racks go into rows (by row name, or
// by their floor-plan coordinates), rows into halls, in natural name order; a rack whose name
// ends in a number stands in that slot of its row, so missing numbers are gaps. Hosts without a
// tray fill their rack's compute trays top down by rack unit (highest first), else by name.
// Statuses (NetBox's: planned, staged, active, failed, offline, ...) set the lifecycle state a
// rack starts in: its least ready host's or its own. Bad input is an Error naming where the
// object came from (file and line, or URL and object id): a duplicate host, two hosts in one
// slot, a rack in two rows, more hosts than trays. Pure; any thread.
#include "importers/formats/error.h"
#include "model/floor_spec.h"

#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ft::importers {

struct Inventory {
    model::FloorSpec spec;
    // Which field each column came from, in column order: {"hostname", "Host Name"}.
    std::vector<std::pair<std::string, std::string>> columns;
    std::size_t hosts = 0, racks = 0, rows = 0, halls = 0;
};

// Where an inventory object came from, for errors: a file and line (and column), or a URL and
// the object ("device 1234").
struct InventoryOrigin {
    std::string file;
    int line = 0;
    int column = 1;
    std::string object; // "device 1234 'gpu-node-0001'"; empty for file rows
};

struct InventoryHost {
    std::string name, rack, row, hall, site, bmc, serial, status;
    std::vector<std::string> uuids;
    int tray = 0; // 1 = the top compute tray; 0: not given
    std::optional<double> positionU;
    InventoryOrigin origin;
    int nameColumn = 1, rowColumn = 1; // CSV: where those fields are on the line
};

struct InventoryRack {
    std::string name, row, hall, site, status;
    // Floor-plan coordinates of the rack's centre, metres (x along the rows, y across them).
    std::optional<std::pair<double, double>> position;
    // Management addresses of the rack's own equipment (power shelves, PDUs): what a Redfish
    // service at that address reports belongs to this rack.
    std::vector<std::string> bmc;
    InventoryOrigin origin;
};

// The lifecycle state a status starts a rack in ("delivered", ...; "" for production), or
// nullopt for a status it does not know.
std::optional<std::string> lifecycleOfStatus(std::string_view status);

// `racks` may add racks without hosts (planned, empty) and give rows, statuses and positions;
// a rack only named by hosts takes its row from them. `name` is the floor's name when no site
// names it. `base` supplies the rack model, fabric, cooling and storage.
std::expected<Inventory, Error> buildInventory(std::vector<InventoryHost> hosts,
                                               const std::vector<InventoryRack>& racks,
                                               const model::FloorSpec& base,
                                               const std::string& name);

// "a2" < "a10": digit runs compare as numbers, the rest ignoring case.
bool naturalLess(std::string_view a, std::string_view b);

} // namespace ft::importers
