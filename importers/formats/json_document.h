#pragma once
// A small JSON reader that keeps the line and column of every value, so that configuration
// errors (floor files, mapping rules) can point at the exact place. Pure function over bytes.
#include "error.h"

#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ft::importers {

class JsonValue {
public:
    enum class Type { Null, Bool, Number, String, Array, Object };

    // Out of line: `object` holds pairs of this very type, complete only after the class.
    JsonValue();
    JsonValue(const JsonValue&);
    JsonValue(JsonValue&&) noexcept;
    JsonValue& operator=(const JsonValue&);
    JsonValue& operator=(JsonValue&&) noexcept;
    ~JsonValue();

    Type type = Type::Null;
    int line = 0;
    int column = 0;
    bool boolean = false;
    double number = 0;
    std::string string;
    std::vector<JsonValue> array;
    std::vector<std::pair<std::string, JsonValue>> object; // in file order

    const JsonValue* find(std::string_view key) const;
    static std::string_view typeName(Type t);
};

std::expected<JsonValue, Error> parseJson(std::string_view text, const std::string& file = {});

// Where `text` first nests arrays and objects deeper than `limit` (the byte offset of the
// bracket that goes too deep), or nothing. One pass over the bytes, strings skipped: asked
// before a body from a server goes to a DOM parser, where every level costs a heap node (a
// 4 MiB page of '[' would cost some 150 MB).
std::optional<std::size_t> jsonNestingBeyond(std::string_view text, int limit);
constexpr int kJsonAnswerDepth = 64; // servers' answers: Redfish, NetBox and PromQL need < 16

} // namespace ft::importers
