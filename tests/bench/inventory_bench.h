#pragma once
// Inventories at the whole-floor scale: a 1,778-rack, 32,004-host CSV export (provisioning-style
// host names, GPU UUIDs, BMC addresses) read into a floor, and a 128k-GPU dcgm-exporter scrape
// of those hosts mapped through the floor's host table, next to the same scrape of the
// generated floor mapped through its host_pattern, and next to parsing alone. Single-threaded;
// writes one file in workDir and removes it again.
#include <functional>
#include <string>

namespace ft {

// Reports inventory.load_ms.hosts32004 (CSV -> floor spec -> topology), inventory.csv_mb,
// mapping.host_table.mb_per_s, mapping.host_pattern.mb_per_s, parse.prometheus.mb_per_s.same_run
// and mapping.host_table.vs_parse (mapping throughput / parse throughput on the same text).
void benchInventory(
    const std::function<void(const std::string& name, double value, const char* unit)>& figure,
    const std::string& workDir);

} // namespace ft
