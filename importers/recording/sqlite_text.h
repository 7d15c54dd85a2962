#pragma once
// A text column of a SQLite row, read the same way by every part of the recording reader.
#include <cstddef>
#include <sqlite3.h>
#include <string>

namespace ft::importers {

// The text, "" where it is NULL (a damaged or hand-edited recording).
inline std::string columnText(sqlite3_stmt* st, int column) {
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(st, column));
    return text ? std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(st, column)))
                : std::string();
}

} // namespace ft::importers
