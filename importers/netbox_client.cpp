#include "netbox_client.h"

namespace ft::importers {

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
        auto& objects = out.byEndpoint[k];
        while (!url.empty()) {
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
                return std::unexpected(
                    Error{"the page is larger than the body limit", url, 0, 0, {}});
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
            url = page->next.value_or(std::string());
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
