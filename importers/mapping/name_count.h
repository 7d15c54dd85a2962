#pragma once
// NameCount: a name with how many samples carried it (unknown hosts, unmapped metrics).
#include <cstdint>
#include <string>

namespace ft::importers {

struct NameCount {
    std::string name;
    std::uint64_t count = 0;
};

} // namespace ft::importers
