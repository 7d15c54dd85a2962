#pragma once
// Column: one channel's values, one float per entity of its kind. It reads and writes like a
// std::vector<float>, and its buffer can also be shared: share() gives another handle on the same
// values without copying them, which is how the simulator publishes its large per-GPU, per-CPU
// and per-PSU channels each tick (copying 1.8 M values, 7 MB, was a sixth of a 1,778-rack tick).
//
// Copying a Column copies its values, as a vector does; only share() shares. A shared buffer is
// read-only: assign(), resize() and clear() on a shared column give it a buffer of its own
// first, but writing through data(), begin() or operator[] needs one that nobody else holds
// (unshare() first). Builds with assertions (the ASan build) stop on such a write; a release
// build would write into a snapshot others are reading. Reading is safe from any thread; the
// handles themselves are not shared between threads (each thread has its own).
//
// ColumnPool recycles buffers: one a column of its takes from the pool goes back to it when
// its last handle is dropped, on whatever thread that happens, so a tick that renews its
// columns allocates nothing once the pool has buffers of their sizes.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <mutex>
#include <span>
#include <utility>
#include <vector>

namespace ft::model {

class ColumnPool;

class Column {
public:
    using value_type = float;
    // The state archive writes and reads a column as it does a std::vector<float>.
    static constexpr bool kArchiveAsVector = true;

    Column() = default;
    explicit Column(std::size_t n, float value = 0.0f) { assign(n, value); }
    Column(const Column& other) { assign(other.begin(), other.end()); }
    Column(Column&& other) noexcept { swap(other); }
    Column& operator=(const Column& other) {
        if (this != &other) assign(other.begin(), other.end());
        return *this;
    }
    Column& operator=(Column&& other) noexcept {
        swap(other);
        return *this;
    }
    ~Column() { release(); }

    // Reading.
    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    const float* data() const { return m_data; }
    const float& operator[](std::size_t i) const { return m_data[i]; }
    const float* begin() const { return m_data; }
    const float* end() const { return m_data + m_size; }
    operator std::span<const float>() const { return {m_data, m_size}; }
    friend bool operator==(const Column& a, const Column& b) { return std::ranges::equal(a, b); }
    friend bool operator==(const Column& a, const std::vector<float>& b) {
        return std::ranges::equal(a, b);
    }

    // Writing element by element: into a buffer this column alone holds. As cheap as a
    // vector's (the simulator's stages index columns in their inner loops).
    float* data() { return mine(); }
    float& operator[](std::size_t i) { return mine()[i]; }
    float* begin() { return mine(); }
    float* end() { return mine() + m_size; }

    // Replacing the values: safe whether or not the buffer is shared.
    void assign(std::size_t n, float value) {
        if (shared()) release();
        own().assign(n, value);
        sync();
    }
    template <std::forward_iterator It> void assign(It first, It last) {
        if (shared()) release();
        own().assign(first, last);
        sync();
    }
    void resize(std::size_t n, float value = 0.0f) {
        if (shared()) unshare();
        own().resize(n, value);
        sync();
    }
    void clear() {
        if (shared()) release();
        if (m_buffer) m_buffer->values.clear();
        sync();
    }

    // Sharing.
    Column share() const {
        Column other;
        if (m_buffer) {
            m_buffer->refs.fetch_add(1, std::memory_order_relaxed);
            other.m_buffer = m_buffer;
            other.sync();
        }
        return other;
    }
    // Another handle holds the buffer (a published snapshot, a column of the previous tick).
    bool shared() const { return m_buffer && m_buffer->refs.load(std::memory_order_acquire) > 1; }
    // The buffer came from a ColumnPool (and goes back there once nobody holds it).
    bool pooled() const { return m_buffer && !m_buffer->home.expired(); }
    // Gives this column a buffer of its own, with the same values (from `pool` when given).
    void unshare(ColumnPool* pool = nullptr);

private:
    friend class ColumnPool;
    struct Buffer {
        std::atomic<std::uint32_t> refs{1};
        std::vector<float> values;
        std::weak_ptr<ColumnPool> home; // expired: deleted with its last handle
    };
    explicit Column(Buffer* buffer) : m_buffer(buffer) { sync(); }
    void swap(Column& other) noexcept {
        std::swap(m_buffer, other.m_buffer);
        std::swap(m_data, other.m_data);
        std::swap(m_size, other.m_size);
    }
    // The values, for a change of their size or their buffer (sync() after).
    std::vector<float>& own() {
        if (!m_buffer) m_buffer = std::make_unique<Buffer>().release();
        return m_buffer->values;
    }
    void sync() {
        m_data = m_buffer ? m_buffer->values.data() : nullptr;
        m_size = m_buffer ? m_buffer->values.size() : 0;
    }
    float* mine() {
#ifdef _GLIBCXX_ASSERTIONS
        if (shared()) fail("a write into a column whose values others are reading");
#endif
        return m_data;
    }
    [[noreturn]] static void fail(const char* what);
    void release();

    Buffer* m_buffer = nullptr;
    float* m_data = nullptr; // the buffer's values, kept here so that an element is one load away
    std::size_t m_size = 0;
};

class ColumnPool : public std::enable_shared_from_this<ColumnPool> {
public:
    ColumnPool() = default;
    ColumnPool(const ColumnPool&) = delete;
    ColumnPool& operator=(const ColumnPool&) = delete;

    // A column of n values, unspecified (the last user's, or zero), that nobody else holds.
    Column take(std::size_t n);
    // How many buffers wait for reuse (tests).
    std::size_t kept() const;

private:
    friend class Column;
    void give(std::unique_ptr<Column::Buffer> buffer);

    // More than a tick's worth of renewed columns (and their readers') is kept: a floor's
    // largest channels are under 1 MB each.
    static constexpr std::size_t kMaxKept = 256;
    static constexpr std::size_t kMaxKeptBytes = std::size_t{128} << 20;
    mutable std::mutex m_mutex;
    std::vector<std::unique_ptr<Column::Buffer>> m_free;
    std::size_t m_freeBytes = 0;
};

} // namespace ft::model
