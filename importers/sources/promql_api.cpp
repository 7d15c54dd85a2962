#include "promql_api.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

namespace ft::importers::promql_api {

namespace {
// Past this a query goes in a POST body: proxies in front of Thanos and Mimir cut long URLs.
constexpr std::size_t kMaxGetUrl = 4000;
} // namespace

std::string apiSeconds(model::TimeNs t) {
    const long long ms = t / model::kNsPerMs;
    char buf[48];
    std::snprintf(buf, sizeof buf, "%lld.%03lld", ms / 1000, std::llabs(ms % 1000));
    return buf;
}

std::string baseUrl(const std::string& url) {
    std::string b = url;
    while (!b.empty() && b.back() == '/')
        b.pop_back();
    return b;
}

ApiCall apiCall(const std::string& base, const std::string& endpoint,
                const std::vector<std::pair<std::string, std::string>>& params) {
    std::string form;
    for (const auto& [k, v] : params)
        form += (form.empty() ? "" : "&") + k + "=" + urlEncode(v);
    const std::string url = baseUrl(base) + "/api/v1/" + endpoint;
    if (url.size() + 1 + form.size() <= kMaxGetUrl) return {url + "?" + form, {}};
    return {url, form};
}

MappedAnswer mapResult(const PromqlResult& result, const PromqlQuery& query, SeriesMapper& mapper,
                       const std::unordered_map<std::string, model::EntityId>& rackKeys,
                       std::vector<model::Sample>& out) {
    MappedAnswer a;
    const MapperStats before = mapper.stats();
    std::vector<prom::Label> labels;
    for (const PromqlSeries& s : result.series) {
        a.points += s.points.size();
        if (query.channel) {
            const model::ChannelId channel = *query.channel;
            std::optional<model::EntityId> rack;
            for (const auto& [k, v] : s.labels)
                if (k == query.rackLabel)
                    if (auto it = rackKeys.find(v); it != rackKeys.end()) rack = it->second;
            for (const auto& [time, value] : s.points) {
                if (!rack || !std::isfinite(value)) {
                    ++a.unmapped;
                    continue;
                }
                out.push_back(
                    {time, channel, *rack, static_cast<float>(value * query.scale + query.offset)});
                ++a.mapped;
            }
            continue;
        }
        std::string_view metric;
        labels.clear();
        for (const auto& [k, v] : s.labels) {
            if (k == "__name__")
                metric = v;
            else
                labels.push_back({k, v});
        }
        for (const auto& [time, value] : s.points)
            a.mapped += mapper.map(metric, labels, value, time, out);
    }
    const MapperStats& after = mapper.stats();
    a.unmapped += (after.unmapped - before.unmapped) + (after.unresolved - before.unresolved) +
                  (after.invalid - before.invalid);
    a.outOfOrder += after.outOfOrder - before.outOfOrder;
    return a;
}

std::string failureOf(const HttpResult& r, bool& serverSide) {
    serverSide = r.status == 0 || r.status >= 500 || r.status == 429;
    if (!r.error.empty() || r.status == 0) return r.describeFailure();
    if (auto parsed = parsePromqlResponse(r.body); !parsed)
        return "HTTP " + std::to_string(r.status) + ": " + parsed.error().message;
    return r.describeFailure();
}

} // namespace ft::importers::promql_api
