#include "timestamp.h"

#include <cctype>
#include <cstdio>
#include <ctime>

namespace ft::model {

std::string formatUtc(TimeNs t, bool withMillis) {
    const std::time_t secs = static_cast<std::time_t>(t / kNsPerSecond);
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
    if (text.empty()) return false;
    std::size_t pos = 0;
    double value = 0;
    try {
        value = std::stod(text, &pos);
    } catch (...) {
        return false;
    }
    if (value < 0) return false;
    const std::string unit = text.substr(pos);
    double scale = 1.0;
    if (unit.empty() || unit == "s") scale = 1.0;
    else if (unit == "ms") scale = 1e-3;
    else if (unit == "m" || unit == "min") scale = 60.0;
    else if (unit == "h") scale = 3600.0;
    else if (unit == "d") scale = 86400.0;
    else return false;
    out = fromSeconds(value * scale);
    return true;
}

} // namespace ft::model
