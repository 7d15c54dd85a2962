#include "json_document.h"

#include <charconv>
#include <cstdint>

namespace ft::importers {

JsonValue::JsonValue() = default;
JsonValue::JsonValue(const JsonValue&) = default;
JsonValue::JsonValue(JsonValue&&) noexcept = default;
JsonValue& JsonValue::operator=(const JsonValue&) = default;
JsonValue& JsonValue::operator=(JsonValue&&) noexcept = default;
JsonValue::~JsonValue() = default;

const JsonValue* JsonValue::find(std::string_view key) const {
    for (const auto& [k, v] : object)
        if (k == key) return &v;
    return nullptr;
}

std::string_view JsonValue::typeName(Type t) {
    switch (t) {
    case Type::Null:
        return "null";
    case Type::Bool:
        return "a boolean";
    case Type::Number:
        return "a number";
    case Type::String:
        return "a string";
    case Type::Array:
        return "an array";
    case Type::Object:
        return "an object";
    }
    return "?";
}

namespace {

class Parser {
public:
    Parser(std::string_view text, const std::string& file) : m_text(text), m_file(file) {}

    std::expected<JsonValue, Error> parseDocument() {
        skipSpace();
        auto value = parseValue(0);
        if (!value) return value;
        skipSpace();
        if (m_pos < m_text.size()) return fail("unexpected text after the JSON document");
        return value;
    }

private:
    std::unexpected<Error> fail(std::string message) const {
        return std::unexpected(Error{
            std::move(message), m_file, m_line, static_cast<int>(m_pos - m_lineStart + 1), {}});
    }

    void advance() {
        if (m_text[m_pos] == '\n') {
            ++m_line;
            m_lineStart = m_pos + 1;
        }
        ++m_pos;
    }

    void skipSpace() {
        while (m_pos < m_text.size()) {
            const char c = m_text[m_pos];
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
                advance();
            else
                break;
        }
    }

    bool literal(std::string_view word) {
        if (m_text.substr(m_pos, word.size()) != word) return false;
        m_pos += word.size();
        return true;
    }

    std::expected<JsonValue, Error> parseValue(int depth) {
        if (depth > 64) return fail("nesting deeper than 64 levels");
        if (m_pos >= m_text.size()) return fail("unexpected end of file, expected a value");
        JsonValue v;
        v.line = m_line;
        v.column = static_cast<int>(m_pos - m_lineStart + 1);
        const char c = m_text[m_pos];
        if (c == '{') {
            v.type = JsonValue::Type::Object;
            advance();
            skipSpace();
            if (m_pos < m_text.size() && m_text[m_pos] == '}') {
                advance();
                return v;
            }
            while (true) {
                skipSpace();
                if (m_pos >= m_text.size() || m_text[m_pos] != '"')
                    return fail("expected a quoted key");
                auto key = parseString();
                if (!key) return std::unexpected(key.error());
                skipSpace();
                if (m_pos >= m_text.size() || m_text[m_pos] != ':')
                    return fail("expected ':' after key");
                advance();
                skipSpace();
                auto member = parseValue(depth + 1);
                if (!member) return member;
                v.object.emplace_back(std::move(*key), std::move(*member));
                skipSpace();
                if (m_pos < m_text.size() && m_text[m_pos] == ',') {
                    advance();
                    continue;
                }
                if (m_pos < m_text.size() && m_text[m_pos] == '}') {
                    advance();
                    return v;
                }
                return fail("expected ',' or '}' in object");
            }
        }
        if (c == '[') {
            v.type = JsonValue::Type::Array;
            advance();
            skipSpace();
            if (m_pos < m_text.size() && m_text[m_pos] == ']') {
                advance();
                return v;
            }
            while (true) {
                skipSpace();
                auto item = parseValue(depth + 1);
                if (!item) return item;
                v.array.push_back(std::move(*item));
                skipSpace();
                if (m_pos < m_text.size() && m_text[m_pos] == ',') {
                    advance();
                    continue;
                }
                if (m_pos < m_text.size() && m_text[m_pos] == ']') {
                    advance();
                    return v;
                }
                return fail("expected ',' or ']' in array");
            }
        }
        if (c == '"') {
            auto s = parseString();
            if (!s) return std::unexpected(s.error());
            v.type = JsonValue::Type::String;
            v.string = std::move(*s);
            return v;
        }
        if (literal("true")) {
            v.type = JsonValue::Type::Bool;
            v.boolean = true;
            return v;
        }
        if (literal("false")) {
            v.type = JsonValue::Type::Bool;
            return v;
        }
        if (literal("null")) return v;
        if (c == '-' || (c >= '0' && c <= '9')) {
            std::size_t end = m_pos;
            while (end < m_text.size() &&
                   std::string_view("+-0123456789.eE").find(m_text[end]) != std::string_view::npos)
                ++end;
            double d = 0;
            auto [ptr, ec] = std::from_chars(m_text.data() + m_pos, m_text.data() + end, d);
            if (ec != std::errc() || ptr != m_text.data() + end) return fail("malformed number");
            m_pos = end;
            v.type = JsonValue::Type::Number;
            v.number = d;
            return v;
        }
        return fail(std::string("unexpected character '") + c + "', expected a value");
    }

    std::expected<std::string, Error> parseString() {
        advance(); // opening quote
        std::string out;
        while (true) {
            if (m_pos >= m_text.size()) return fail("unterminated string");
            const char c = m_text[m_pos];
            if (c == '"') {
                advance();
                return out;
            }
            if (c == '\n') return fail("newline inside a string");
            if (c != '\\') {
                out += c;
                advance();
                continue;
            }
            advance();
            if (m_pos >= m_text.size()) return fail("unterminated string");
            const char e = m_text[m_pos];
            advance();
            switch (e) {
            case '"':
                out += '"';
                break;
            case '\\':
                out += '\\';
                break;
            case '/':
                out += '/';
                break;
            case 'b':
                out += '\b';
                break;
            case 'f':
                out += '\f';
                break;
            case 'n':
                out += '\n';
                break;
            case 'r':
                out += '\r';
                break;
            case 't':
                out += '\t';
                break;
            case 'u': {
                if (m_pos + 4 > m_text.size()) return fail("short \\u escape");
                unsigned code = 0;
                auto [p, ec] =
                    std::from_chars(m_text.data() + m_pos, m_text.data() + m_pos + 4, code, 16);
                if (ec != std::errc() || p != m_text.data() + m_pos + 4)
                    return fail("malformed \\u escape");
                m_pos += 4;
                appendUtf8(out, code);
                break;
            }
            default:
                return fail(std::string("unknown escape '\\") + e + "'");
            }
        }
    }

    static void appendUtf8(std::string& out, unsigned code) {
        if (code < 0x80)
            out += static_cast<char>(code);
        else if (code < 0x800) {
            out += static_cast<char>(0xC0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else {
            out += static_cast<char>(0xE0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        }
    }

    std::string_view m_text;
    const std::string& m_file;
    std::size_t m_pos = 0;
    int m_line = 1;
    std::size_t m_lineStart = 0;
};

} // namespace

std::expected<JsonValue, Error> parseJson(std::string_view text, const std::string& file) {
    return Parser(text, file).parseDocument();
}

std::optional<std::size_t> jsonNestingBeyond(std::string_view text, int limit) {
    int depth = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i; // the escaped character, whatever it is
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > limit) return i;
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return std::nullopt;
}

} // namespace ft::importers
