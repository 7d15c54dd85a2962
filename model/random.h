#pragma once
// Deterministic randomness for the simulation: a small sequential generator for events and a
// counter-based hash for per-entity noise, so results depend only on the seed and the tick,
// never on thread timing or iteration order.
#include <cstdint>

namespace ft::model {

constexpr std::uint64_t mix64(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

// Uniform in [-1, 1), a pure function of its inputs.
inline float hashNoise(std::uint64_t seed, std::uint64_t a, std::uint64_t b = 0) {
    const std::uint64_t h = mix64(seed ^ mix64(a * 0x100000001b3ULL ^ mix64(b)));
    return static_cast<float>(static_cast<double>(h >> 11) * (2.0 / 9007199254740992.0) - 1.0);
}

class Rng {
public:
    explicit Rng(std::uint64_t seed) : m_state(seed) {}
    std::uint64_t next() { return mix64(m_state++); }
    double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
    int range(int lo, int hiInclusive) {
        return lo + static_cast<int>(next() % static_cast<std::uint64_t>(hiInclusive - lo + 1));
    }

private:
    std::uint64_t m_state;
};

} // namespace ft::model
