#include "redfish_values.h"

#include "redfish_role.h"

#include <utility>

namespace ft::importers::redfish::detail {

// For a collection role, the role of its members; nullopt for a resource role.
std::optional<Role> memberRole(Role role) {
    switch (role) {
    case Role::CoolingUnits:
        return Role::CoolingUnit;
    case Role::Connectors:
        return Role::Connector;
    case Role::Pumps:
        return Role::Pump;
    case Role::Filters:
        return Role::Filter;
    case Role::Reservoirs:
        return Role::Reservoir;
    case Role::LeakDetectors:
        return Role::LeakDetector;
    case Role::Distributions:
        return Role::Distribution;
    case Role::Circuits:
        return Role::Circuit;
    case Role::PowerSupplies:
        return Role::PowerSupply;
    default:
        return std::nullopt;
    }
}

// The resource type a role expects in @odata.type ("#Pump.v1_2_0.Pump" -> "Pump").
std::string_view expectedType(Role role) {
    switch (role) {
    case Role::Root:
        return "ServiceRoot";
    case Role::Thermal:
        return "ThermalEquipment";
    case Role::CoolingUnit:
        return "CoolingUnit";
    case Role::Connector:
        return "CoolantConnector";
    case Role::Pump:
        return "Pump";
    case Role::Filter:
        return "Filter";
    case Role::Reservoir:
        return "Reservoir";
    case Role::Environment:
        return "EnvironmentMetrics";
    case Role::LeakDetection:
        return "LeakDetection";
    case Role::LeakDetector:
        return "LeakDetector";
    case Role::Power:
        return "PowerEquipment";
    case Role::Distribution:
        return "PowerDistribution";
    case Role::Circuit:
        return "Circuit";
    case Role::DistributionMetrics:
        return "PowerDistributionMetrics";
    case Role::Chassis:
        return "Chassis";
    case Role::PowerSubsystem:
        return "PowerSubsystem";
    case Role::PowerSupply:
        return "PowerSupply";
    case Role::PowerSupplyMetrics:
        return "PowerSupplyMetrics";
    case Role::Sensor:
        return "Sensor";
    default:
        return {};
    }
}

// The unit a property's name promises (Redfish names carry it: SupplyTemperatureCelsius,
// PowerWatts, EnergykWh), as UCUM ReadingUnits; empty when the name says none.
std::string_view unitOfProperty(std::string_view p) {
    static constexpr std::pair<std::string_view, std::string_view> kSuffixes[] = {
        {"Celsius", "Cel"}, {"kPa", "kPa"},       {"LitersPerMinute", "L/min"},
        {"Percent", "%"},   {"kWh", "kW.h"},      {"Watts", "W"},
        {"kW", "kW"},       {"Amps", "A"},        {"Voltage", "V"},
        {"Hz", "Hz"},       {"RPM", "{rev}/min"}, {"Liters", "L"}};
    for (const auto& [suffix, unit] : kSuffixes)
        if (p.ends_with(suffix)) return unit;
    return {};
}

// A Sensor's ReadingUnits converted to the unit its property promises: the factor, or nullopt
// when they measure different things. "C" and "°C" for Celsius are common enough to accept.
std::optional<double> unitFactor(std::string_view have, std::string_view want) {
    if (want.empty() || have == want) return 1.0;
    if (want == "Cel" && (have == "C" || have == "°C" || have == "degC")) return 1.0;
    if (want == "W" && have == "kW") return 1000.0;
    if (want == "kW" && have == "W") return 0.001;
    if (want == "kW.h" && (have == "kWh" || have == "kW.h")) return 1.0;
    if (want == "kPa" && have == "Pa") return 0.001;
    return std::nullopt;
}

// Status -> 0 OK, 1 warning, 2 critical or offline; nullopt when absent (nothing to say). A
// State or Health that is no string (an object where a word belongs) reads as absent, never as
// a throw.
std::optional<double> statusValue(const json& status) {
    if (!status.is_object()) return std::nullopt;
    const std::string state = text(status, "State");
    if (state == "Absent") return std::nullopt;
    const std::string health = text(status, "Health");
    double v = health == "Critical" ? 2 : health == "Warning" ? 1 : 0;
    if (state == "UnavailableOffline") v = 2;
    return v;
}

std::optional<double> levelValue(const json& v) {
    if (!v.is_string()) return std::nullopt;
    const auto& s = v.get_ref<const std::string&>();
    if (s == "OK") return 0;
    if (s == "Warning") return 1;
    if (s == "Critical") return 2;
    return std::nullopt; // "Unavailable", "Absent": no reading
}

std::string text(const json& v, const char* key) {
    if (!v.is_object()) return {};
    const auto it = v.find(key);
    if (it == v.end()) return {};
    if (it->is_string()) return it->get<std::string>();
    if (it->is_number_integer()) return std::to_string(it->get<long long>());
    return {};
}

const json& at(const json& v, const char* key) {
    static const json kNull;
    if (!v.is_object()) return kNull;
    const auto it = v.find(key);
    return it == v.end() ? kNull : *it;
}

std::string linkOf(const json& v) {
    return text(v, "@odata.id");
}

ODataType parseType(std::string_view t) {
    ODataType out;
    if (!t.starts_with('#')) return out;
    t.remove_prefix(1);
    const auto lastDot = t.rfind('.');
    if (lastDot == std::string_view::npos || lastDot + 1 >= t.size()) return out;
    out.type = std::string(t.substr(lastDot + 1));
    const std::string_view head = t.substr(0, lastDot); // "CoolingUnit.v1_5_0" or "CoolingUnit"
    if (const auto dot = head.find('.'); dot != std::string_view::npos) {
        std::string_view version = head.substr(dot + 1);
        if (!version.starts_with('v')) return out;
        version.remove_prefix(1);
        int major = 0;
        std::size_t i = 0;
        for (; i < version.size() && version[i] >= '0' && version[i] <= '9'; ++i)
            major = major * 10 + (version[i] - '0');
        if (i == 0 || (i < version.size() && version[i] != '_')) return out;
        out.major = major;
    }
    out.valid = true;
    return out;
}

bool isExcerpt(const json& v) {
    return v.is_object() &&
           (v.contains("Reading") || v.contains("DataSourceUri") || v.contains("SetPoint"));
}

} // namespace ft::importers::redfish::detail
