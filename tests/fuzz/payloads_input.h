#pragma once
// One fuzz input for what arrives from other systems: a BMS bus message (topic, newline,
// payload), mapping rules, an inventory CSV export and a NetBox API page. The first byte picks
// the parser, the rest is the text. Errors must say what is wrong; what parses is read back
// (every object and field touched) so that a view past the input trips AddressSanitizer. Shared
// by the libFuzzer target and the regression test that replays tests/data/fuzz-regressions.
#include "importers/bms_message.h"
#include "importers/inventory_csv.h"
#include "importers/mapping_rules.h"
#include "importers/netbox_inventory.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
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

inline void fuzzPayloads(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return;
    const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
    volatile std::size_t sink = 0;
    switch (data[0] % 4) {
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
    default: {
        std::vector<ft::importers::NetboxObject> objects;
        auto page = ft::importers::readNetboxPage(text, "fuzz.json", objects);
        if (!page) mustExplain(page.error());
        sink = sink + objects.size();
        break;
    }
    }
    (void)sink;
}

} // namespace ft::fuzz
