#pragma once
// A Redfish poll at the size of a CDU and power aggregator: the project's CDU service
// (tests/data/redfish) copied into as many CDUs as make about 1,000 resources, served on 127.0.0.1
// (tests/support/loopback_server.h, a thread and a fresh connection per request, as many BMCs
// answer), polled by the RedfishSource with its defaults (8 requests in flight) and mapped through
// the bundled rules onto a floor with that many CDUs. Needs a QCoreApplication.
#include <functional>
#include <string>

namespace ft {

// Reports redfish.poll_ms.resources1000 (median of one whole poll: walk, sensors, mapping),
// redfish.resources_per_poll and redfish.readings_per_poll.
void benchRedfish(
    const std::function<void(const std::string& name, double value, const char* unit)>& figure);

} // namespace ft
