#pragma once
// Inventory CSV (or TSV) -> FloorSpec: one row per host, as DCIM and provisioning systems export
// them. Required columns hostname, rack, row; optional tray (slot in the rack, 1 = top compute
// tray), position_u, hall, site, gpu_uuids (';'-separated, GPU 0 first), bmc, serial, status
// (NetBox-style: planned, staged, active, failed, offline, ...). The usual header spellings are
// accepted (host, node, name, rack_name, cabinet, ...) and the report says which header was taken
// for which column. Racks are laid out in rows by natural name order; a rack name ending in a
// number stands in that slot of its row, so missing numbers are gaps. Without a tray column, the
// hosts of a rack fill its trays top down by position_u (highest first), else by name.
// Bad input is an Error with the file, line and column: a missing or unknown column, a duplicate
// host, two hosts in one slot, a rack in two rows, a tray outside the rack. Pure; any thread.
#include "importers/formats/error.h"
#include "inventory.h"
#include "model/floor_spec.h"

#include <expected>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ft::importers {

// `base` supplies the rack model, fabric, cooling and storage (the defaults when not given).
std::expected<Inventory, Error> parseInventoryCsv(std::string_view text, const std::string& file,
                                                  const model::FloorSpec& base = {});
std::expected<Inventory, Error> loadInventoryCsv(const std::string& path,
                                                 const model::FloorSpec& base = {});

} // namespace ft::importers
