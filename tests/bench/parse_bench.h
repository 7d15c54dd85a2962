#pragma once
// Prometheus text parsing on a whole-floor scrape: a dcgm-exporter style dump for every GPU of
// the 1,778-rack generated floor (128,016 GPUs), parsed by importers::prom::parse and, for
// scale, checked by `promtool check metrics`. Single-threaded; writes one file in workDir and
// removes it again.
#include <functional>
#include <string>
#include <vector>

namespace ft {

// Reports parse.prometheus.{mb_per_s,samples_per_s,file_mb} and, when promtool is installed,
// parse.promtool.seconds and parse.prometheus.vs_promtool (promtool time / our time).
// A dcgm-exporter scrape (12 default counters) of four GPUs per host, in host order.
std::string dcgmScrape(const std::vector<std::string>& hosts);
// The 32,004 hosts of `generate:racks=1778`, as its host_pattern names them.
std::vector<std::string> generatedFloorHosts();

void benchParse(
    const std::function<void(const std::string& name, double value, const char* unit)>& figure,
    const std::string& workDir);

} // namespace ft
