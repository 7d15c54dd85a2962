#pragma once
// Secrets the live sources carry (bearer tokens, passwords) kept out of everything the app
// shows or writes: source health, the headless summary, logs, recordings, screenshots. They
// are read only from files (--token-file, --password-file), never taken on the command line,
// where every user of the machine can read them; a file others can read gets a warning. URLs
// are shown with their password and secret-looking query values masked; error texts, which
// servers and Qt fill with the URL or an echo of the request, are scrubbed of both.
// Pure C++ (no Qt).
#include <expected>
#include <span>
#include <string>
#include <string_view>

namespace ft::importers {

inline constexpr std::string_view kRedacted = "***";

struct SecretFile {
    std::string value;   // the file's text without trailing blanks and line ends
    std::string warning; // non-empty: the file is readable by others, in words
};

// Reads the secret in `path` for the command-line flag `flag` ("--token-file"). Fails when the
// file cannot be read or holds nothing.
std::expected<SecretFile, std::string> readSecretFile(const std::string& path,
                                                      std::string_view flag);

// The URL as it may be shown: "https://ops:***@prom:9090/api?token=***&step=15".
std::string redactUrl(std::string_view url);
// Whether the URL carries user info (user@host, user:password@host).
bool urlHasUserInfo(std::string_view url);
// Every occurrence of each secret in `text` replaced by kRedacted (secrets under 4 bytes are
// left alone: they would mask ordinary words), and every URL with a password masked.
std::string scrubSecrets(std::string text, std::span<const std::string> secrets);

} // namespace ft::importers
