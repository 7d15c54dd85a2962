#pragma once
// One fuzz input for what arrives from other systems: a BMS bus message (topic, newline,
// payload), mapping rules, an inventory CSV export, a NetBox API page and a Redfish service's
// pages. The first byte picks the parser (its value modulo 8: 0 BMS, 1 rules, 2 CSV, 3 NetBox,
// 4-7 Redfish), the rest is the text. A Redfish input is pages separated by 0x1E, each its path,
// a line feed and its body: the crawl walks them from /redfish/v1 as it would a service, a
// path that is not there answering 404. Errors must say what is wrong; what parses is read back
// (every object and field touched) so that a view past the input trips AddressSanitizer. Shared
// by the libFuzzer target and the regression test that replays tests/data/fuzz-regressions.
#include "importers/floor/inventory_csv.h"
#include "importers/floor/netbox_inventory.h"
#include "importers/formats/bms_message.h"
#include "importers/formats/redfish_crawl.h"
#include "importers/mapping/mapping_rules.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace ft::fuzz {

inline void mustExplain(const ft::importers::Error& e) {
    if (e.toString().empty()) std::abort(); // an error says what is wrong
}

inline std::size_t touch(const std::string& s) {
    std::size_t h = 0;
    for (const char c : s)
        h = h * 31 + static_cast<unsigned char>(c);
    return h;
}

// Returns a hash of everything read; `readings` (when given) gets how many readings came.
inline std::size_t fuzzRedfish(std::string_view text, std::size_t* readings = nullptr) {
    std::map<std::string, std::string_view, std::less<>> pages;
    for (std::size_t at = 0; at <= text.size();) {
        const std::size_t end = std::min(text.find('\x1e', at), text.size());
        const std::string_view page = text.substr(at, end - at);
        const std::size_t nl = page.find('\n');
        if (nl != std::string_view::npos) pages.emplace(page.substr(0, nl), page.substr(nl + 1));
        at = end + 1;
    }
    ft::importers::redfish::Crawl crawl(ft::importers::redfish::Limits{500, 8, 20});
    crawl.begin("/redfish/v1", "https://10.0.3.21", {{"service", "fuzz"}});
    std::size_t fetches = 0;
    while (!crawl.done()) {
        const auto f = crawl.next();
        if (!f) std::abort();              // not done, yet waiting for nothing outstanding
        if (++fetches > 600) std::abort(); // past maxResources: the limit did not hold
        const auto p = pages.find(f->path);
        if (p == pages.end())
            crawl.deliver(f->job, 404, "{}", 1000);
        else
            crawl.deliver(f->job, 200, p->second, 1000);
    }
    std::size_t h = crawl.problemTotal();
    for (const auto& r : crawl.readings()) {
        h += touch(r.metric) + static_cast<std::size_t>(r.value == r.value);
        for (const auto& l : r.labels)
            h += touch(l.name) + touch(l.value);
    }
    for (const auto& r : crawl.reports())
        if (r.what.empty()) std::abort(); // a problem says what is wrong
    for (const auto& c : crawl.conditions())
        h += touch(c.message) + touch(c.origin);
    if (readings) *readings = crawl.readings().size();
    return h;
}

inline void fuzzPayloads(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return;
    const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
    volatile std::size_t sink = 0;
    switch (data[0] % 8) {
    case 0: {
        const auto nl = text.find('\n');
        const auto topic = text.substr(0, nl);
        const auto payload =
            nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
        auto m = ft::importers::parseBmsMessage(topic, payload);
        if (!m) mustExplain(m.error());
        break;
    }
    case 1: {
        auto rules = ft::importers::parseMappingRules(text, "fuzz.json");
        if (!rules) mustExplain(rules.error());
        break;
    }
    case 2: {
        auto inventory = ft::importers::parseInventoryCsv(text, "fuzz.csv");
        if (!inventory) mustExplain(inventory.error());
        break;
    }
    case 3: {
        std::vector<ft::importers::NetboxObject> objects;
        auto page = ft::importers::readNetboxPage(text, "fuzz.json", objects);
        if (!page) mustExplain(page.error());
        sink = sink + objects.size();
        break;
    }
    default:
        sink = sink + fuzzRedfish(text);
        break;
    }
    (void)sink;
}

} // namespace ft::fuzz
