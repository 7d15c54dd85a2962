#pragma once
// Floor files (JSON) and generated floors -> FloorSpec. Errors name the file, the line and
// column, and the key. Pure functions; the caller decides what to do with an Error.
#include "importers/formats/error.h"
#include "model/floor_spec.h"

#include <expected>
#include <string>
#include <string_view>

namespace ft::importers {

// Parses the text of a floor file; `file` is only used in error messages.
std::expected<model::FloorSpec, Error> parseFloorFile(std::string_view text,
                                                      const std::string& file);

// "generate:racks=N[,racks_per_row=M]" -> a synthetic floor of N NVL72 racks in pods of rows.
std::expected<model::FloorSpec, Error> parseGenerateSpec(std::string_view spec);
model::FloorSpec generateFloor(int racks, int racksPerRow = 0);

// A path to a floor file or a generate: spec.
std::expected<model::FloorSpec, Error> loadFloor(const std::string& pathOrSpec);

// A FloorSpec as floor-file JSON that parseFloorFile reads back to the same spec (recordings
// carry the floor they were made on).
std::string floorSpecToJson(const model::FloorSpec& spec);

// Spreadsheet-style row names: A..Z, AA, AB, ...
std::string rowName(int index);

constexpr int kMaxGeneratedRacks = 1778;

} // namespace ft::importers
