#pragma once
// The Redfish reader's small readings of JSON (redfish_reader.cpp): roles and the types they
// expect, units by property name and their conversions, Status and level words as numbers,
// text and links that never throw on the wrong JSON type. Pure functions; any thread.
#include "redfish_crawl.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace ft::importers::redfish::detail {

using Role = Crawl::Role;
using nlohmann::json;

// For a collection role, the role of its members; nullopt for a resource role.
std::optional<Role> memberRole(Role role);
// The resource type a role's answer must be ("CoolingUnit").
std::string_view expectedType(Role role);
// The unit a property's name promises (Redfish names carry it: SupplyTemperatureCelsius,
// PowerWatts, EnergykWh), as UCUM ReadingUnits; empty when the name says none.
std::string_view unitOfProperty(std::string_view p);
// A Sensor's ReadingUnits converted to the unit its property promises: the factor, or nullopt
// when they measure different things.
std::optional<double> unitFactor(std::string_view have, std::string_view want);
// Status -> 0 OK, 1 warning, 2 critical or offline; nullopt when absent (nothing to say).
std::optional<double> statusValue(const json& status);
// "OK", "Warning", "Critical" -> 0, 1, 2; nullopt for anything else.
std::optional<double> levelValue(const json& v);
// A string (or integer) member as text; "" when absent or of another type.
std::string text(const json& v, const char* key);
// A member, or null when absent (or `v` is no object).
const json& at(const json& v, const char* key);
// A link's target ("@odata.id").
std::string linkOf(const json& v);

// "#CoolingUnit.v1_5_0.CoolingUnit" -> type "CoolingUnit", major 1; unversioned (collections,
// some services): major 0.
struct ODataType {
    std::string type;
    int major = 0;
    bool valid = false;
};
ODataType parseType(std::string_view t);
bool isExcerpt(const json& v);

} // namespace ft::importers::redfish::detail
