#include "column.h"

#include <cstdio>
#include <cstdlib>

namespace ft::model {

void Column::release() {
    Buffer* buffer = std::exchange(m_buffer, nullptr);
    m_data = nullptr;
    m_size = 0;
    // acq_rel: this handle's reads of the values happen before whoever reuses the buffer.
    if (!buffer || buffer->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    std::unique_ptr<Buffer> last(buffer);
    if (auto pool = last->home.lock()) pool->give(std::move(last));
}

void Column::unshare(ColumnPool* pool) {
    if (!shared()) return;
    Column copy = pool ? pool->take(size()) : Column();
    if (pool)
        std::ranges::copy(std::as_const(*this), copy.m_data);
    else
        copy.assign(std::as_const(*this).begin(), std::as_const(*this).end());
    *this = std::move(copy);
}

void Column::fail(const char* what) {
    std::fprintf(stderr, "floortwin: %s\n", what);
    std::abort();
}

Column ColumnPool::take(std::size_t n) {
    {
        std::lock_guard lock(m_mutex);
        const auto it = std::ranges::find(
            m_free, n, [](const std::unique_ptr<Column::Buffer>& b) { return b->values.size(); });
        if (it != m_free.end()) {
            std::unique_ptr<Column::Buffer> buffer = std::move(*it);
            *it = std::move(m_free.back());
            m_free.pop_back();
            m_freeBytes -= n * sizeof(float);
            buffer->refs.store(1, std::memory_order_relaxed);
            return Column(buffer.release());
        }
    }
    auto buffer = std::make_unique<Column::Buffer>();
    buffer->values.resize(n);
    buffer->home = weak_from_this();
    return Column(buffer.release());
}

std::size_t ColumnPool::kept() const {
    std::lock_guard lock(m_mutex);
    return m_free.size();
}

void ColumnPool::give(std::unique_ptr<Column::Buffer> buffer) {
    const std::size_t bytes = buffer->values.size() * sizeof(float);
    std::lock_guard lock(m_mutex);
    if (m_free.size() < kMaxKept && m_freeBytes + bytes <= kMaxKeptBytes) {
        m_free.push_back(std::move(buffer));
        m_freeBytes += bytes;
    }
}

} // namespace ft::model
