#pragma once
// SourceStatus: one live telemetry source as the HUD shows it. A plain struct so the app can
// fill it from its sources without the views knowing about importers.
#include <string>

namespace ft::views {

struct SourceStatus {
    std::string name;   // "scrape 127.0.0.1:9400", "prometheus", "mqtt broker:1883"
    int level = 0;      // 0 up, 1 degraded or connecting, 2 down
    std::string detail; // "12,480 samples/s, 0.4 s ago" or the last error
};

} // namespace ft::views
