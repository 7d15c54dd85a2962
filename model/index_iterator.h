#pragma once
// IndexIterator: a random-access iterator over anything that has `const T& operator[](size_t)`
// (a container and an index into it), for views that hold their entries indirectly.
#include <compare>
#include <cstddef>
#include <iterator>

namespace ft::model {

template <class Owner, class T> class IndexIterator {
public:
    using iterator_concept = std::random_access_iterator_tag;
    using iterator_category = std::random_access_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using reference = const T&;
    using pointer = const T*;

    IndexIterator() = default;
    IndexIterator(const Owner* owner, std::size_t i) : m_owner(owner), m_i(i) {}
    reference operator*() const { return (*m_owner)[m_i]; }
    pointer operator->() const { return &(*m_owner)[m_i]; }
    reference operator[](difference_type d) const { return *(*this + d); }
    IndexIterator& operator++() { return *this += 1; }
    IndexIterator operator++(int) {
        auto old = *this;
        ++*this;
        return old;
    }
    IndexIterator& operator--() { return *this -= 1; }
    IndexIterator operator--(int) {
        auto old = *this;
        --*this;
        return old;
    }
    IndexIterator& operator+=(difference_type d) {
        m_i = static_cast<std::size_t>(static_cast<difference_type>(m_i) + d);
        return *this;
    }
    IndexIterator& operator-=(difference_type d) { return *this += -d; }
    friend IndexIterator operator+(IndexIterator it, difference_type d) { return it += d; }
    friend IndexIterator operator+(difference_type d, IndexIterator it) { return it += d; }
    friend IndexIterator operator-(IndexIterator it, difference_type d) { return it -= d; }
    friend difference_type operator-(const IndexIterator& a, const IndexIterator& b) {
        return static_cast<difference_type>(a.m_i) - static_cast<difference_type>(b.m_i);
    }
    friend bool operator==(const IndexIterator& a, const IndexIterator& b) {
        return a.m_i == b.m_i;
    }
    friend auto operator<=>(const IndexIterator& a, const IndexIterator& b) {
        return a.m_i <=> b.m_i;
    }

private:
    const Owner* m_owner = nullptr;
    std::size_t m_i = 0;
};

} // namespace ft::model
