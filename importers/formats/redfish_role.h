#pragma once
// What the Redfish walk expects a resource to be, from the link that led to it. Internal to
// redfish_crawl.cpp and redfish_reader.cpp.
#include "redfish_crawl.h"

#include <cstdint>

namespace ft::importers::redfish {

enum class Crawl::Role : std::uint8_t {
    Root,
    Thermal,
    CoolingUnits,
    CoolingUnit,
    Connectors,
    Connector,
    Pumps,
    Pump,
    Filters,
    Filter,
    Reservoirs,
    Reservoir,
    Environment,
    LeakDetection,
    LeakDetectors,
    LeakDetector,
    Power,
    Distributions,
    Distribution,
    Circuits,
    Circuit,
    DistributionMetrics,
    Chassis,
    PowerSubsystem,
    PowerSupplies,
    PowerSupply,
    PowerSupplyMetrics,
    Sensor
};

} // namespace ft::importers::redfish
