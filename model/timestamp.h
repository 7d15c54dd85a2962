#pragma once
// One time type everywhere: int64 nanoseconds since the Unix epoch, UTC.
#include <cstdint>
#include <string>

namespace ft::model {

using TimeNs = std::int64_t;

constexpr TimeNs kNsPerMs = 1'000'000;
constexpr TimeNs kNsPerSecond = 1'000'000'000;

constexpr double toSeconds(TimeNs t) {
    return static_cast<double>(t) / 1e9;
}
constexpr TimeNs fromSeconds(double s) {
    return static_cast<TimeNs>(s * 1e9);
}

// "2026-11-30 06:33:41.250 UTC" style, for HUD and logs.
std::string formatUtc(TimeNs t, bool withMillis = false);

// Parses a duration such as "90s", "10m", "1.5h", "250ms", "2d" or a bare number of seconds.
// Returns false on malformed input.
bool parseDuration(const std::string& text, TimeNs& out);

} // namespace ft::model
