#include "timestamp.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>

namespace ft::model {

std::string formatUtc(TimeNs t, bool withMillis) {
    const auto secs = static_cast<std::time_t>(t / kNsPerSecond);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[64];
    std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
    if (withMillis) {
        const long ms = static_cast<long>((t % kNsPerSecond) / kNsPerMs);
        n += static_cast<std::size_t>(std::snprintf(buf + n, sizeof buf - n, ".%03ld", ms));
    }
    std::snprintf(buf + n, sizeof buf - n, " UTC");
    return buf;
}

bool parseDuration(const std::string& text, TimeNs& out) {
    // One or more <number><unit> parts ("90s", "4m10s", "1h30m", "250ms"); a bare number is
    // seconds.
    if (text.empty()) return false;
    double total = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t used = 0;
        double value = 0;
        if (!std::isdigit(static_cast<unsigned char>(text[pos])) && text[pos] != '.') return false;
        try {
            value = std::stod(text.substr(pos), &used);
        } catch (...) {
            return false;
        }
        pos += used;
        std::size_t unitEnd = pos;
        while (unitEnd < text.size() && std::isalpha(static_cast<unsigned char>(text[unitEnd])))
            ++unitEnd;
        const std::string unit = text.substr(pos, unitEnd - pos);
        pos = unitEnd;
        double scale = 1.0;
        if (unit.empty()) {
            if (pos != text.size() || total != 0) return false; // a bare number stands alone
        } else if (unit == "s")
            scale = 1.0;
        else if (unit == "ms")
            scale = 1e-3;
        else if (unit == "m" || unit == "min")
            scale = 60.0;
        else if (unit == "h")
            scale = 3600.0;
        else if (unit == "d")
            scale = 86400.0;
        else
            return false;
        total += value * scale;
    }
    // Nothing the twin does spans a century; past that a time no longer fits in TimeNs's
    // 292 years (and "1e400s" is not a duration anyone meant).
    constexpr double kMaxSeconds = 100.0 * 365.25 * 86400.0;
    if (!std::isfinite(total) || total > kMaxSeconds) return false;
    out = fromSeconds(total);
    return true;
}

} // namespace ft::model
