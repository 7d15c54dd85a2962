#pragma once
// SharedLog: an append-only log that every snapshot can hold as it stood, without copying it.
//
// Entries live in fixed chunks shared by every view. A view (SharedLog) is the entries
// [firstSeq, endSeq) of the log's sequence — one number per entry ever appended, so a reader
// that remembers endSeq() finds what is new with since() even after old entries were dropped.
// The writer (SharedLogWriter) only writes slots past every published view's end, so views are
// immutable and can be read on any thread while the writer appends.
#include "index_iterator.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <memory>
#include <ranges>
#include <vector>

namespace ft::model {

template <class T, std::size_t N> class SharedLogWriter;

template <class T, std::size_t N = 256> class SharedLog {
public:
    using value_type = T;
    using size_type = std::size_t;

    using iterator = IndexIterator<SharedLog, T>;
    using const_iterator = iterator;
    using reverse_iterator = std::reverse_iterator<iterator>;

    SharedLog() = default;

    std::size_t size() const { return static_cast<std::size_t>(m_end - m_first); }
    bool empty() const { return m_end == m_first; }
    // Sequence numbers: of the first entry held, and one past the last.
    std::uint64_t firstSeq() const { return m_first; }
    std::uint64_t endSeq() const { return m_end; }

    const T& operator[](std::size_t i) const {
        const std::uint64_t seq = m_first + i;
        return m_chunks[static_cast<std::size_t>(seq / N - m_chunkBase / N)]->items[seq % N];
    }
    const T& front() const { return (*this)[0]; }
    const T& back() const { return (*this)[size() - 1]; }
    iterator begin() const { return {this, 0}; }
    iterator end() const { return {this, size()}; }
    reverse_iterator rbegin() const { return reverse_iterator(end()); }
    reverse_iterator rend() const { return reverse_iterator(begin()); }

    // The entries appended at or after `seq` that this view still holds.
    std::ranges::subrange<iterator> since(std::uint64_t seq) const {
        const std::uint64_t from = std::clamp(seq, m_first, m_end);
        return {iterator(this, static_cast<std::size_t>(from - m_first)), end()};
    }
    std::vector<T> copySince(std::uint64_t seq) const {
        const auto r = since(seq);
        return {r.begin(), r.end()};
    }
    // The first n entries of this view (sharing its chunks).
    SharedLog prefix(std::size_t n) const {
        SharedLog out;
        out.m_first = m_first;
        out.m_end = m_first + std::min(n, size());
        out.m_chunkBase = m_chunkBase;
        const std::size_t chunks =
            out.m_end == m_chunkBase
                ? 0
                : static_cast<std::size_t>((out.m_end - 1) / N - m_chunkBase / N) + 1;
        out.m_chunks.assign(m_chunks.begin(),
                            m_chunks.begin() +
                                static_cast<std::ptrdiff_t>(std::min(chunks, m_chunks.size())));
        return out;
    }

private:
    friend class SharedLogWriter<T, N>;
    struct Chunk {
        std::array<T, N> items{};
    };
    std::vector<std::shared_ptr<Chunk>> m_chunks; // chunk k: sequence numbers from m_chunkBase + kN
    std::uint64_t m_chunkBase = 0;                // a multiple of N
    std::uint64_t m_first = 0, m_end = 0;
};

template <class T, std::size_t N = 256> class SharedLogWriter {
public:
    using Log = SharedLog<T, N>;
    // Keeps at least the `keep` newest entries (whole chunks are dropped from the front).
    explicit SharedLogWriter(std::size_t keep = std::numeric_limits<std::size_t>::max())
        : m_keep(keep), m_shared(std::make_shared<const Log>()) {}

    void append(T item) {
        const auto slot = static_cast<std::size_t>(m_log.m_end % N);
        if (slot == 0) m_log.m_chunks.push_back(std::make_shared<typename Log::Chunk>());
        m_log.m_chunks.back()->items[slot] = std::move(item);
        ++m_log.m_end;
        if (m_log.size() > m_keep) {
            m_log.m_first = m_log.m_end - m_keep;
            std::size_t drop = 0;
            while (m_log.m_chunkBase + N <= m_log.m_first) {
                m_log.m_chunkBase += N;
                ++drop;
            }
            m_log.m_chunks.erase(m_log.m_chunks.begin(),
                                 m_log.m_chunks.begin() + static_cast<std::ptrdiff_t>(drop));
        }
        m_dirty = true;
    }
    // The log as it is now (the writer's thread only).
    const Log& log() const { return m_log; }
    // Keyframes (state_archive.h): the entries held and their sequence numbers, so a restored
    // log goes on numbering where the saved one was.
    template <class Archive> void persist(Archive& ar) {
        std::uint64_t first = m_log.m_first, end = m_log.m_end;
        ar(first, end);
        if constexpr (Archive::kReading) {
            if (end < first || end - first > m_keep) return ar.fail();
            m_log = Log();
            m_log.m_chunkBase = m_log.m_first = m_log.m_end = first / N * N;
            for (std::uint64_t seq = m_log.m_end; seq < first; ++seq)
                append(T{}); // pads the first chunk up to `first`
            m_log.m_first = first;
            for (std::uint64_t seq = first; seq < end && ar.ok(); ++seq) {
                T item{};
                ar(item);
                append(std::move(item));
            }
            m_dirty = true;
        } else {
            for (const T& item : m_log.since(first))
                ar(item);
        }
    }
    // The log as a shared, immutable view: a new one only after an append.
    const std::shared_ptr<const Log>& shared() {
        if (m_dirty) {
            m_shared = std::make_shared<const Log>(m_log);
            m_dirty = false;
        }
        return m_shared;
    }

private:
    Log m_log;
    std::size_t m_keep;
    std::shared_ptr<const Log> m_shared;
    bool m_dirty = false;
};

// A log holding `items`, in their order.
template <class T, std::size_t N = 256> SharedLog<T, N> sharedLogOf(const std::vector<T>& items) {
    SharedLogWriter<T, N> w;
    for (const T& item : items)
        w.append(item);
    return w.log();
}

} // namespace ft::model
