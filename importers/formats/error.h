#pragma once
// Error: what went wrong while reading input, and where. toString() gives the one-line form
// "FILE:LINE:COLUMN: key 'KEY': MESSAGE" that the command line prints.
#include <string>

namespace ft::importers {

struct Error {
    std::string message;
    std::string file;
    int line = 0;
    int column = 0;
    std::string key;

    std::string toString() const {
        std::string out;
        if (!file.empty()) out += file + ":";
        if (line > 0) out += std::to_string(line) + ":" + std::to_string(column) + ":";
        if (!out.empty()) out += " ";
        if (!key.empty()) out += "key '" + key + "': ";
        return out + message;
    }
};

} // namespace ft::importers
