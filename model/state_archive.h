#pragma once
// StateWriter / StateReader: the simulator's own state as bytes, for the keyframes recordings
// carry (a what-if fork restores the newest one before its moment instead of re-running the
// whole recording). One list of members per class serves both directions: a class declares
//     template <class Archive> void persist(Archive& ar) { ar(m_a, m_b, ...); }
// (or two non-template overloads, where its members are private to its .cpp); the writer reads
// through it, the reader writes through it.
//
// Values: arithmetic and enums, trivially copyable structs (their bytes as they lie in memory:
// a keyframe is a cache for the build that wrote it, checked by SimModel's layout fingerprint,
// not an interchange format), strings, vectors, arrays, deques, optionals, pairs, unordered maps,
// and anything with its own persist(). Pointers and string views are refused at compile time. The
// reader checks every length against what is left, so a truncated or corrupt blob only makes ok()
// false (the values read are then unspecified) and never allocates more than it holds. Not
// thread-safe; one archive per keyframe.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ft::model {

namespace archive_detail {
template <class T> struct IsVector : std::false_type {};
template <class T, class A> struct IsVector<std::vector<T, A>> : std::true_type {};
// A type that stores itself as a vector of its value_type (Column).
template <class T>
requires T::kArchiveAsVector struct IsVector<T> : std::true_type {
};
template <class T> struct IsDeque : std::false_type {};
template <class T, class A> struct IsDeque<std::deque<T, A>> : std::true_type {};
template <class T> struct IsArray : std::false_type {};
template <class T, std::size_t N> struct IsArray<std::array<T, N>> : std::true_type {};
template <class T> struct IsOptional : std::false_type {};
template <class T> struct IsOptional<std::optional<T>> : std::true_type {};
template <class T> struct IsPair : std::false_type {};
template <class A, class B> struct IsPair<std::pair<A, B>> : std::true_type {};
template <class T> struct IsMap : std::false_type {};
template <class K, class V, class H, class E, class A>
struct IsMap<std::unordered_map<K, V, H, E, A>> : std::true_type {};

// A value stored as its bytes: no pointers inside that we know of (a struct holding one must
// have its own persist()).
template <class T>
constexpr bool kPlain = std::is_trivially_copyable_v<T> && !std::is_pointer_v<T> &&
                        !std::is_same_v<T, std::string_view> && !IsPair<T>::value;
} // namespace archive_detail

class StateWriter {
public:
    static constexpr bool kReading = false;

    template <class... T> void operator()(const T&... values) { (put(values), ...); }
    void raw(const void* p, std::size_t n) {
        if (n == 0) return; // an empty vector's data() may be null
        const auto* b = static_cast<const std::byte*>(p);
        m_bytes.insert(m_bytes.end(), b, b + n);
    }
    void reserve(std::size_t n) { m_bytes.reserve(n); }
    std::vector<std::byte> take() { return std::move(m_bytes); }
    std::size_t size() const { return m_bytes.size(); }

private:
    void count(std::size_t n) {
        const auto v = static_cast<std::uint64_t>(n);
        raw(&v, sizeof v);
    }
    template <class T> void put(const T& v) {
        using namespace archive_detail;
        if constexpr (requires(T & t, StateWriter & w) { t.persist(w); }) {
            // persist() serves both directions, so it is not const; writing only reads through it.
            const_cast<T&>(v).persist(*this);
        } else if constexpr (std::is_same_v<T, std::string>) {
            count(v.size());
            raw(v.data(), v.size());
        } else if constexpr (IsVector<T>::value) {
            count(v.size());
            if constexpr (kPlain<typename T::value_type> &&
                          !std::is_same_v<typename T::value_type, bool>)
                raw(v.data(), v.size() * sizeof(typename T::value_type));
            else
                for (const auto& e : v)
                    put(e);
        } else if constexpr (IsArray<T>::value && !kPlain<T>) {
            for (const auto& e : v)
                put(e);
        } else if constexpr (IsDeque<T>::value) {
            count(v.size());
            for (const auto& e : v)
                put(e);
        } else if constexpr (IsOptional<T>::value) {
            const bool has = v.has_value();
            put(has);
            if (has) put(*v);
        } else if constexpr (IsPair<T>::value) {
            put(v.first);
            put(v.second);
        } else if constexpr (IsMap<T>::value) {
            // In key order: the same map gives the same bytes whatever its buckets' history.
            std::vector<const typename T::value_type*> entries;
            entries.reserve(v.size());
            for (const auto& entry : v)
                entries.push_back(&entry);
            std::ranges::sort(entries, {}, [](const auto* e) { return e->first; });
            count(entries.size());
            for (const auto* entry : entries) {
                put(entry->first);
                put(entry->second);
            }
        } else {
            static_assert(kPlain<T>, "give this type a persist() of its own");
            raw(&v, sizeof v);
        }
    }

    std::vector<std::byte> m_bytes;
};

class StateReader {
public:
    static constexpr bool kReading = true;

    explicit StateReader(std::span<const std::byte> bytes) : m_bytes(bytes) {}
    template <class... T> void operator()(T&... values) { (get(values), ...); }
    // False once anything was short or out of range; stays false.
    bool ok() const { return m_ok; }
    bool atEnd() const { return m_at == m_bytes.size(); }
    void fail() { m_ok = false; }
    bool raw(void* p, std::size_t n) {
        if (n == 0) return m_ok; // an empty vector's data() may be null
        if (!m_ok || n > m_bytes.size() - m_at) {
            m_ok = false;
            std::memset(p, 0, n);
            return false;
        }
        std::memcpy(p, m_bytes.data() + m_at, n);
        m_at += n;
        return true;
    }

private:
    // A count of elements each at least `least` bytes long: never more than what is left holds.
    std::size_t count(std::size_t least) {
        std::uint64_t n = 0;
        raw(&n, sizeof n);
        if (!m_ok || n > (m_bytes.size() - m_at) / std::max<std::size_t>(least, 1)) {
            m_ok = false;
            return 0;
        }
        return static_cast<std::size_t>(n);
    }
    template <class T> void get(T& v) {
        using namespace archive_detail;
        if constexpr (requires(T & t, StateReader & r) { t.persist(r); }) {
            v.persist(*this);
        } else if constexpr (std::is_same_v<T, std::string>) {
            v.resize(count(1));
            raw(v.data(), v.size());
        } else if constexpr (IsVector<T>::value) {
            using E = typename T::value_type;
            if constexpr (kPlain<E> && !std::is_same_v<E, bool>) {
                v.resize(count(sizeof(E)));
                raw(v.data(), v.size() * sizeof(E));
            } else {
                v.clear();
                v.resize(count(1));
                for (auto& e : v)
                    get(e);
            }
        } else if constexpr (IsArray<T>::value && !kPlain<T>) {
            for (auto& e : v)
                get(e);
        } else if constexpr (IsDeque<T>::value) {
            v.clear();
            v.resize(count(1));
            for (auto& e : v)
                get(e);
        } else if constexpr (IsOptional<T>::value) {
            bool has = false;
            get(has);
            if (has) {
                v.emplace();
                get(*v);
            } else {
                v.reset();
            }
        } else if constexpr (IsPair<T>::value) {
            get(v.first);
            get(v.second);
        } else if constexpr (IsMap<T>::value) {
            v.clear();
            const std::size_t n = count(1);
            for (std::size_t i = 0; i < n && m_ok; ++i) {
                typename T::key_type key{};
                typename T::mapped_type value{};
                get(key);
                get(value);
                v.insert_or_assign(std::move(key), std::move(value));
            }
        } else {
            static_assert(kPlain<T>, "give this type a persist() of its own");
            raw(&v, sizeof v);
        }
    }

    std::span<const std::byte> m_bytes;
    std::size_t m_at = 0;
    bool m_ok = true;
};

} // namespace ft::model
