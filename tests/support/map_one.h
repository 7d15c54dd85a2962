#pragma once
// One input sample through a SeriesMapper, for the mapping suites: the twin's samples it makes.
#include "importers/mapping/series_mapper.h"

#include <initializer_list>
#include <span>
#include <string_view>
#include <vector>

namespace ft::testing {

// The time the mapping suites' samples carry unless they say otherwise (2026-11-30).
inline constexpr model::TimeNs kMapTime = 1'796'020'421 * model::kNsPerSecond;

inline std::vector<model::Sample> mapOne(importers::SeriesMapper& m, std::string_view metric,
                                         std::initializer_list<importers::prom::Label> labels,
                                         double value, model::TimeNs time = kMapTime) {
    std::vector<model::Sample> out;
    m.map(metric, std::span(labels.begin(), labels.size()), value, time, out);
    return out;
}

} // namespace ft::testing
