#include "series_key.h"

#include <bit>
#include <cstring>
#include <functional>

namespace ft::importers {

namespace {

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return std::rotl(h * 0xFF51AFD7ED558CCDull, 29);
}

} // namespace

// Metric + every label, in the order given. An exporter writes its labels in a fixed order, so
// the same series hashes the same each scrape; a different order only costs a second entry.
// 64 bits: a collision among even ten million series is about a one-in-a-hundred-thousand event.
std::uint64_t seriesKey(std::string_view metric, std::span<const prom::Label> labels) {
    const std::hash<std::string_view> hash;
    std::uint64_t h = hash(metric);
    for (const auto& l : labels) {
        h = mix(h, hash(l.name));
        h = mix(h, hash(l.value));
    }
    return h;
}

// A series' text as one key: two lanes of eight bytes a step (independent multiplies, so they
// overlap), then mixed so that every input bit reaches every output bit. The same text is the
// same series; texts that differ only in how they are written (label order, escapes) make two
// entries with the same answer.
std::uint64_t textKey(std::string_view text) {
    constexpr std::uint64_t kOdd1 = 0x9E3779B97F4A7C15ull, kOdd2 = 0xC2B2AE3D27D4EB4Full,
                            kOdd3 = 0x165667B19E3779F9ull;
    std::uint64_t a = text.size() * kOdd1, b = kOdd3;
    const char* p = text.data();
    std::size_t n = text.size();
    auto word = [](const char* at, std::size_t bytes) {
        std::uint64_t w = 0;
        std::memcpy(&w, at, bytes);
        return w;
    };
    for (; n >= 16; p += 16, n -= 16) {
        a = std::rotl(a ^ (word(p, 8) * kOdd2), 31) * kOdd1;
        b = std::rotl(b ^ (word(p + 8, 8) * kOdd2), 31) * kOdd1;
    }
    if (n >= 8) {
        a = std::rotl(a ^ (word(p, 8) * kOdd2), 31) * kOdd1;
        p += 8;
        n -= 8;
    }
    if (n > 0) b = std::rotl(b ^ (word(p, n) * kOdd2), 31) * kOdd1;
    std::uint64_t h = a ^ std::rotl(b, 17);
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ull;
    h ^= h >> 33;
    return h;
}

} // namespace ft::importers
