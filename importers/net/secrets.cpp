#include "secrets.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace ft::importers {
namespace {

// Query keys whose values are credentials (compared without case).
constexpr std::array<std::string_view, 16> kSecretKeys = {
    "token", "access_token", "auth",   "authorization", "password", "passwd",
    "pass",  "pwd",          "secret", "client_secret", "api_key",  "apikey",
    "key",   "signature",    "sig",    "x-auth-token"};

bool secretKey(std::string_view key) {
    return std::ranges::any_of(kSecretKeys, [key](std::string_view k) {
        return k.size() == key.size() &&
               std::equal(k.begin(), k.end(), key.begin(), [](char a, char b) {
                   return a == std::tolower(static_cast<unsigned char>(b));
               });
    });
}

// [begin, end) of the user info (before '@') in the URL, if any; a URL without a scheme
// ("ops:pw@host:9400") is all authority up to its first '/', '?' or '#'.
bool userInfo(std::string_view url, std::size_t& begin, std::size_t& end) {
    const std::size_t scheme = url.find("://");
    begin = scheme == std::string_view::npos ? 0 : scheme + 3;
    const std::size_t authorityEnd = url.find_first_of("/?#", begin);
    const std::string_view authority =
        url.substr(begin, authorityEnd == std::string_view::npos ? url.npos : authorityEnd - begin);
    const std::size_t at = authority.rfind('@');
    if (at == std::string_view::npos) return false;
    end = begin + at;
    return true;
}

} // namespace

std::expected<SecretFile, std::string> readSecretFile(const std::string& path,
                                                      std::string_view flag) {
    const std::string who(flag);
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::unexpected(who + ": cannot read " + path);
    std::ostringstream ss;
    ss << in.rdbuf();
    SecretFile out{ss.str(), {}};
    while (!out.value.empty() && (out.value.back() == '\n' || out.value.back() == '\r' ||
                                  out.value.back() == ' ' || out.value.back() == '\t'))
        out.value.pop_back();
    if (out.value.empty()) return std::unexpected(who + ": " + path + " is empty");
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && (st.st_mode & (S_IROTH | S_IWOTH))) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
        out.warning = who + " " + path + " can be read by every user of this machine (mode " +
                      mode + "); chmod 600 it";
    }
    return out;
}

bool urlHasUserInfo(std::string_view url) {
    std::size_t begin = 0, end = 0;
    return userInfo(url, begin, end);
}

std::string redactUrl(std::string_view url) {
    std::string out(url);
    std::size_t begin = 0, end = 0;
    if (userInfo(out, begin, end)) {
        const std::size_t colon = out.find(':', begin);
        if (colon != std::string::npos && colon < end)
            out.replace(colon + 1, end - colon - 1, kRedacted);
    }
    const std::size_t query = out.find('?');
    if (query == std::string::npos) return out;
    const std::size_t fragment = out.find('#', query);
    std::string rebuilt = out.substr(0, query + 1);
    const std::string_view params = std::string_view(out).substr(
        query + 1, fragment == std::string::npos ? std::string::npos : fragment - query - 1);
    std::size_t pos = 0;
    while (pos <= params.size()) {
        const std::size_t amp = std::min(params.find('&', pos), params.size());
        const std::string_view pair = params.substr(pos, amp - pos);
        const std::size_t eq = pair.find('=');
        if (eq != std::string_view::npos && secretKey(pair.substr(0, eq)))
            rebuilt += std::string(pair.substr(0, eq + 1)) + std::string(kRedacted);
        else
            rebuilt += pair;
        if (amp < params.size()) rebuilt += '&';
        pos = amp + 1;
    }
    if (fragment != std::string::npos) rebuilt += out.substr(fragment);
    return rebuilt;
}

std::string scrubSecrets(std::string text, std::span<const std::string> secrets) {
    for (const std::string& secret : secrets) {
        if (secret.size() < 4) continue;
        for (std::size_t at = text.find(secret); at != std::string::npos;
             at = text.find(secret, at + kRedacted.size()))
            text.replace(at, secret.size(), kRedacted);
    }
    // URLs in the text (Qt names the one that failed): mask their passwords and secret values.
    for (std::size_t at = text.find("://"); at != std::string::npos;
         at = text.find("://", at + 3)) {
        std::size_t start = at;
        while (start > 0 && std::isalpha(static_cast<unsigned char>(text[start - 1])))
            --start;
        std::size_t end = at + 3;
        while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end])) &&
               text[end] != '"' && text[end] != '\'' && text[end] != '>')
            ++end;
        const std::string redacted = redactUrl(std::string_view(text).substr(start, end - start));
        text.replace(start, end - start, redacted);
        at = start + redacted.size() - 3;
    }
    return text;
}

} // namespace ft::importers
