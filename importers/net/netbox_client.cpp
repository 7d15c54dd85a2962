#include "netbox_client.h"

#include <QUrl>
#include <set>

namespace ft::importers {

namespace {

// A page's `next` link, on the server we were given: its path and query (relative links
// resolved against the page's URL), our scheme, host and port. NetBox behind a proxy that does
// not pass X-Forwarded-Proto/Host writes http:// or an inside name into its links; and the token
// goes only to the server the user named, never to a host a page points at. (A proxy that also
// strips a path prefix makes NetBox write links without it: those answer 404, named.)
std::string onOurServer(const std::string& next, const std::string& page, const std::string& base) {
    const QUrl ours(QString::fromStdString(base));
    QUrl url = QUrl(QString::fromStdString(page)).resolved(QUrl(QString::fromStdString(next)));
    url.setScheme(ours.scheme());
    url.setHost(ours.host());
    url.setPort(ours.port());
    url.setUserInfo(ours.userInfo());
    return url.toString(QUrl::FullyEncoded).toStdString();
}

} // namespace

std::expected<NetboxObjects, Error> fetchNetbox(const std::string& baseUrl,
                                                const NetboxFetchOptions& options) {
    std::string base = baseUrl;
    while (!base.empty() && base.back() == '/')
        base.pop_back();
    if (base.ends_with("/api")) base.resize(base.size() - 4);
    HttpOptions http = options.http;
    if (!options.token.empty())
        http.headers.emplace_back("Authorization", "Token " + options.token);
    http.headers.emplace_back("Accept", "application/json");
    HttpClient client;
    NetboxObjects out;
    for (std::size_t k = 0; k < kNetboxEndpoints.size(); ++k) {
        const bool optional = k + 1 == kNetboxEndpoints.size(); // the floor-plan plugin
        std::string url = base + "/api/" + std::string(kNetboxEndpoints[k]) +
                          "/?limit=" + std::to_string(options.pageSize);
        std::optional<std::size_t> expected;
        std::size_t pages = 0;
        std::set<std::string> seen; // the pages read: a `next` back to one of them loops
        auto& objects = out.byEndpoint[k];
        while (!url.empty()) {
            if (!seen.insert(url).second)
                return std::unexpected(Error{"the `next` links loop back to a page already read "
                                             "after " +
                                                 std::to_string(pages) + " pages",
                                             url,
                                             0,
                                             0,
                                             {}});
            if (options.cancel && options.cancel->load())
                return std::unexpected(Error{"cancelled", url, 0, 0, {}});
            const HttpResult r = requestBlocking(client, url, http, options.cancel);
            if (optional && pages == 0 && r.error.empty() && r.status == 404) break; // no plugin
            if (!r.error.empty())
                return std::unexpected(Error{"no answer: " + r.error, url, 0, 0, {}});
            if (r.status == 401 || r.status == 403)
                return std::unexpected(Error{"the token was refused (HTTP " +
                                                 std::to_string(r.status) +
                                                 "): check --token-file and the token's "
                                                 "permissions to view dcim objects",
                                             url,
                                             0,
                                             0,
                                             {}});
            if (r.status != 200)
                return std::unexpected(Error{"HTTP " + std::to_string(r.status) +
                                                 (pages > 0 ? " after " + std::to_string(pages) +
                                                                  " pages: the read is incomplete"
                                                            : std::string()),
                                             url,
                                             0,
                                             0,
                                             {}});
            if (r.truncated)
                return std::unexpected(Error{"the page is larger than the body limit of " +
                                                 std::to_string(http.maxBodyBytes) + " bytes",
                                             url,
                                             0,
                                             0,
                                             {}});
            auto page = readNetboxPage(r.body, url, objects);
            if (!page) return std::unexpected(page.error());
            if (!expected) expected = page->count;
            ++pages;
            if (options.progress)
                options.progress((static_cast<double>(k) +
                                  (expected && *expected > 0
                                       ? std::min(1.0, static_cast<double>(objects.size()) /
                                                           static_cast<double>(*expected))
                                       : 1.0)) /
                                 static_cast<double>(kNetboxEndpoints.size()));
            // More objects than the server counts: pages that never end (a `next` loop with
            // changing URLs) are stopped here, not when memory runs out.
            if (expected && objects.size() > *expected)
                return std::unexpected(Error{"the server counts " + std::to_string(*expected) +
                                                 " " + std::string(kNetboxDumpNames[k]) +
                                                 " but its first " + std::to_string(pages) +
                                                 " pages hold " + std::to_string(objects.size()) +
                                                 ": the `next` links go on past the count, or "
                                                 "objects were added while reading; try again",
                                             url,
                                             0,
                                             0,
                                             {}});
            const std::string from = url;
            url = page->next ? onOurServer(*page->next, from, base) : std::string();
            if (pages > 100000)
                return std::unexpected(
                    Error{"more than 100000 pages: the `next` links loop", url, 0, 0, {}});
        }
        if (expected && objects.size() != *expected)
            return std::unexpected(Error{"the server counts " + std::to_string(*expected) + " " +
                                             std::string(kNetboxDumpNames[k]) +
                                             " but its pages held " +
                                             std::to_string(objects.size()) +
                                             ": the read is incomplete (objects changed while "
                                             "reading?), try again",
                                         base + "/api/" + std::string(kNetboxEndpoints[k]) + "/",
                                         0,
                                         0,
                                         {}});
    }
    return out;
}

} // namespace ft::importers
