#pragma once
// Percent-encoding (RFC 3986) for the URLs the twin writes: query values, links into the twin
// and out of it. Plain C++.
#include <string>
#include <string_view>

namespace ft::importers {

// Every byte but the unreserved ones (A-Z a-z 0-9 - _ . ~) and those in `keep` as %XX.
std::string urlEncode(std::string_view text, std::string_view keep = {});

} // namespace ft::importers
