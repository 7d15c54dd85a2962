#include "promql_response.h"

#include "json_document.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

namespace ft::importers {
namespace {

using json = nlohmann::json;

// API times are seconds since the epoch; a TimeNs holds about ±292 years around 1970.
constexpr double kMaxApiSeconds = 9.0e9;

std::unexpected<Error> fail(std::string message) {
    return std::unexpected(Error{std::move(message), {}, 0, 0, {}});
}

// obj[key] when it is a string, else the fallback (a server may send any type anywhere).
std::string textOf(const json& obj, const char* key, std::string fallback) {
    const auto it = obj.find(key);
    return it != obj.end() && it->is_string() ? it->get<std::string>() : std::move(fallback);
}

bool parseValue(const json& v, double& out) {
    if (v.is_number()) {
        out = v.get<double>();
        return true;
    }
    if (!v.is_string()) return false;
    std::string_view s = v.get_ref<const std::string&>();
    if (!s.empty() && s.front() == '+') s.remove_prefix(1); // "+Inf"
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc{} && end == s.data() + s.size();
}

bool parsePoint(const json& p, std::pair<model::TimeNs, double>& out) {
    if (!p.is_array() || p.size() != 2 || !p[0].is_number()) return false;
    const double seconds = p[0].get<double>();
    if (!std::isfinite(seconds) || std::fabs(seconds) > kMaxApiSeconds) return false;
    out.first = std::llround(seconds * 1000.0) * model::kNsPerMs;
    return parseValue(p[1], out.second);
}

void labelsOf(const json& series, PromqlSeries& s) {
    if (auto m = series.find("metric"); m != series.end() && m->is_object())
        for (const auto& [k, v] : m->items())
            if (v.is_string()) s.labels.emplace_back(k, v.get<std::string>());
}

std::expected<PromqlResult, Error> parse(std::string_view body) {
    if (jsonNestingBeyond(body, kJsonAnswerDepth))
        return fail("not a Prometheus API answer: JSON nested deeper than " +
                    std::to_string(kJsonAnswerDepth) + " levels");
    const json j = json::parse(body.begin(), body.end(), nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        std::string head(body.substr(0, 80));
        std::ranges::replace(head, '\n', ' ');
        return fail("not a Prometheus API answer (not JSON): " + head);
    }
    const std::string status = textOf(j, "status", "");
    if (status == "error")
        return fail(textOf(j, "errorType", "error") + ": " + textOf(j, "error", "(no message)"));
    if (status != "success")
        return fail("not a Prometheus API answer (status '" + status.substr(0, 40) + "')");
    PromqlResult out;
    if (auto w = j.find("warnings"); w != j.end() && w->is_array())
        for (const auto& item : *w) {
            if (!item.is_string()) continue;
            if (out.warnings.size() < PromqlResult::kMaxWarnings)
                out.warnings.push_back(
                    item.get_ref<const std::string&>().substr(0, PromqlResult::kMaxWarningBytes));
            ++out.warningCount;
        }
    const auto data = j.find("data");
    if (data == j.end() || !data->is_object()) return fail("answer without data");
    out.resultType = textOf(*data, "resultType", "");
    const auto result = data->find("result");
    if (result == data->end()) return fail("answer without data.result");

    if (out.resultType == "scalar") {
        PromqlSeries s;
        std::pair<model::TimeNs, double> p;
        if (!parsePoint(*result, p)) return fail("scalar result is not [time, \"value\"]");
        s.points.push_back(p);
        out.series.push_back(std::move(s));
    } else if (out.resultType == "vector" || out.resultType == "matrix") {
        if (!result->is_array()) return fail("data.result is not a list");
        const bool matrix = out.resultType == "matrix";
        out.series.reserve(result->size());
        for (const auto& item : *result) {
            if (!item.is_object()) return fail("a result entry is not an object");
            PromqlSeries s;
            labelsOf(item, s);
            std::pair<model::TimeNs, double> p;
            if (matrix) {
                // Native histograms ("histograms") carry no float value for the twin.
                if (auto values = item.find("values"); values != item.end() && values->is_array()) {
                    s.points.reserve(values->size());
                    for (const auto& v : *values) {
                        if (!parsePoint(v, p))
                            return fail("a matrix point is not [time, \"value\"] with a time "
                                        "the twin can hold");
                        s.points.push_back(p);
                    }
                }
            } else if (auto value = item.find("value"); value != item.end()) {
                if (!parsePoint(*value, p))
                    return fail("a vector value is not [time, \"value\"] with a time the twin "
                                "can hold");
                s.points.push_back(p);
            }
            out.series.push_back(std::move(s));
        }
    } else if (out.resultType != "string") {
        return fail("unknown resultType '" + out.resultType.substr(0, 40) + "'");
    }
    return out;
}

} // namespace

std::expected<PromqlResult, Error> parsePromqlResponse(std::string_view body) {
    try {
        return parse(body);
    } catch (const std::exception& e) { // nlohmann's type errors, allocation failures
        return fail(std::string("not a Prometheus API answer: ") + e.what());
    }
}

} // namespace ft::importers
