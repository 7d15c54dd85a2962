#pragma once
// The keys SeriesMapper caches a series' answer under: from its metric and labels one by one, or
// (faster) from the series' text as an exposition writes it. 64 bits each.
#include "importers/formats/prometheus_text.h"

#include <cstdint>
#include <span>
#include <string_view>

namespace ft::importers {

std::uint64_t seriesKey(std::string_view metric, std::span<const prom::Label> labels);
std::uint64_t textKey(std::string_view text);

} // namespace ft::importers
