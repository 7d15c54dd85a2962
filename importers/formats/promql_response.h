#pragma once
// A Prometheus HTTP API answer (/api/v1/query, /api/v1/query_range) decoded: the series with
// their labels and points, and the server's warnings (Thanos' and Mimir's "partial response",
// PromQL's annotations). The error envelope ({"status":"error","errorType":...,"error":...})
// becomes the Error. Whatever the body holds (any JSON, any types, huge numbers, times outside
// what a TimeNs holds) is an answer or an Error, never an exception. Pure C++ (no Qt).
#include "error.h"
#include "model/timestamp.h"

#include <expected>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ft::importers {

// Scalars come as one series without labels; strings are skipped.
struct PromqlSeries {
    std::vector<std::pair<std::string, std::string>> labels; // __name__ included when present
    std::vector<std::pair<model::TimeNs, double>> points;
};

struct PromqlResult {
    std::string resultType; // vector, matrix, scalar, string
    std::vector<PromqlSeries> series;
    // The first kMaxWarnings, each cut to kMaxWarningBytes; warningCount counts them all.
    std::vector<std::string> warnings;
    std::size_t warningCount = 0;
    static constexpr std::size_t kMaxWarnings = 20, kMaxWarningBytes = 300;
};

// Values: numbers, decimal strings, "NaN", "+Inf", "-Inf".
std::expected<PromqlResult, Error> parsePromqlResponse(std::string_view body);

} // namespace ft::importers
