#pragma once
// The wall clock as the twin's time (nanoseconds since the Unix epoch): when an answer came, when
// a source last succeeded, what a live sample is stamped with.
#include "model/timestamp.h"

#include <chrono>

namespace ft::importers {

inline model::TimeNs wallNow() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

} // namespace ft::importers
