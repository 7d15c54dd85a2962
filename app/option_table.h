#pragma once
// The table of floortwin's options: what each takes, does and means. The parser, its errors,
// --help and the Markdown reference (--help-reference, docs/command-line.md) all read it.
#include "command_line.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ft::app {

// One row per option: what --help prints and what the parser does come from the same place.
// `apply` gets the option's value (empty for switches) and returns an error, or nothing.
struct OptionSpec {
    std::string_view flag;
    std::string_view value; // what --help shows after the flag; empty: a switch
    std::string_view section;
    std::string_view help; // '\n' starts a continuation line
    std::function<std::optional<std::string>(Options&, const std::string&)> apply;
};
using Result = std::optional<std::string>;

// The help of --source: one row per kind of the source registry (source_kinds.cpp).
inline constexpr std::string_view kSourceRows = "{sources}";

// "a, b, c".
std::string joined(const std::vector<std::string>& items);
// Items joined by ", " in lines of at most `width` characters ('\n' between them).
std::string wrapped(const std::vector<std::string>& items, std::size_t width);
// An option's help with its fields ({layers}, {intervals}, {checkable}, {windows},
// {scenarios}) filled in.
std::string filledHelp(std::string_view help, const std::vector<std::string>& layerIds);

// Every option, in the order --help lists them, grouped by section.
const std::vector<OptionSpec>& optionTable();

} // namespace ft::app
