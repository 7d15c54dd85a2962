#pragma once
// Small helpers the exposition rules share between their files (exposition_rules.cpp, the
// general rules; exposition_distributions.cpp, histograms and summaries): how a finding spells
// a number or a name, and label look-ups. Internal to the parser.
#include "exposition_rules.h"

#include <charconv>
#include <cmath>
#include <span>
#include <string>
#include <string_view>

namespace ft::importers::prom::detail {

// The shortest spelling that reads back as v.
inline std::string number(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return {buf, r.ptr};
}

inline std::string quoted(std::string_view s) {
    return "'" + std::string(s.substr(0, 80)) + (s.size() > 80 ? "...'" : "'");
}

inline const Label* findLabel(std::span<const Label> labels, std::string_view name) {
    for (const Label& l : labels)
        if (l.name == name) return &l;
    return nullptr;
}

inline bool parseBound(std::string_view text, double& out) {
    return !text.empty() && parseNumber(text.data(), text.data() + text.size(), out) &&
           !std::isnan(out);
}

} // namespace ft::importers::prom::detail
