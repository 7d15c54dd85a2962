#pragma once
// HostSuggester: for a host name the telemetry carries but the floor does not know, the floor's
// host names an operator most likely meant ("gpu-node-1" -> "gpu-node-0001", "a03-n02.dc1" ->
// "a03-n02"). Names compare lowercased, without a domain or port, with digit runs compared as
// numbers (leading zeros dropped), then by edit distance. Answers are cached per name: a UI can
// ask every frame. One thread at a time; the topology must outlive it.
#include "model/topology.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ft::importers {

// Edit distance between two normalized names, or limit + 1 once it is past `limit`.
std::size_t boundedEditDistance(std::string_view a, std::string_view b, std::size_t limit);
// Lowercase, no domain (".dc1.example"), no port (":9400"), digit runs without leading zeros.
std::string normalizeHostName(std::string_view name);

class HostSuggester {
public:
    explicit HostSuggester(const model::Topology& topology) : m_topology(topology) {}
    // Up to `count` floor host names nearest to `host`, nearest first; empty when nothing is
    // close enough to be a plausible typo or naming difference.
    const std::vector<std::string>& suggest(std::string_view host, std::size_t count = 3);

private:
    const model::Topology& m_topology;
    std::vector<std::string> m_names, m_normalized; // built on first use
    std::unordered_map<std::string, std::vector<std::string>> m_cache;
};

} // namespace ft::importers
