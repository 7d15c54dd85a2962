#pragma once
// The PromQL HTTP API's requests and answers as the live source (promql_source.cpp) and the
// incident-window import (incident_window.cpp) both use them: the API's seconds, a call as GET
// or as a POST form when the URL would be long, an answer mapped onto the floor, and a failure
// in the API's own words. Internal to importers/sources.
#include "importers/formats/promql_response.h"
#include "importers/mapping/series_mapper.h"
#include "importers/net/http_client.h"
#include "promql_source.h"

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ft::importers::promql_api {

// "1790000000.250": the API's seconds with millisecond precision.
std::string apiSeconds(model::TimeNs t);
// The URL without its trailing slashes.
std::string baseUrl(const std::string& url);

struct ApiCall {
    std::string url;
    std::string body; // empty: GET
};
// BASE/api/v1/ENDPOINT with `params`: a GET, or a POST form past the length proxies cut at.
ApiCall apiCall(const std::string& base, const std::string& endpoint,
                const std::vector<std::pair<std::string, std::string>>& params);

// What one API answer yields, mapped; shared by the live source and the importer.
struct MappedAnswer {
    std::uint64_t points = 0, mapped = 0, unmapped = 0, outOfOrder = 0;
};
MappedAnswer mapResult(const PromqlResult& result, const PromqlQuery& query, SeriesMapper& mapper,
                       const std::unordered_map<std::string, model::EntityId>& rackKeys,
                       std::vector<model::Sample>& out);

// The API's own words for a failed answer, else the transport's or the HTTP status; whether the
// server is to blame (worth a retry).
std::string failureOf(const HttpResult& r, bool& serverSide);

} // namespace ft::importers::promql_api
