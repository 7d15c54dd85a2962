#include "redfish_crawl.h"

#include "json_document.h"
#include "redfish_role.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

namespace ft::importers::redfish {

using nlohmann::json;

std::string_view problemName(Problem p) {
    switch (p) {
    case Problem::BadJson:
        return "bad JSON";
    case Problem::MissingProperty:
        return "missing property";
    case Problem::WrongUnits:
        return "wrong units";
    case Problem::UnknownType:
        return "unknown type";
    case Problem::DanglingLink:
        return "dangling DataSourceUri";
    case Problem::FetchFailed:
        return "fetch failed";
    case Problem::OverLimit:
        return "over the resource limit";
    }
    return "?";
}

std::optional<std::string> crawlPath(std::string_view uri, std::string_view base) {
    if (uri.empty() || uri.find('#') != std::string_view::npos) return std::nullopt;
    if (!uri.starts_with('/')) {
        // An absolute URL: ours only when it starts with the service's own scheme and authority.
        if (base.empty() || !uri.starts_with(base)) return std::nullopt;
        uri.remove_prefix(base.size());
        if (!uri.starts_with('/')) return std::nullopt;
    }
    if (const auto q = uri.find('?'); q != std::string_view::npos) uri = uri.substr(0, q);
    while (uri.size() > 1 && uri.back() == '/')
        uri.remove_suffix(1);
    return std::string(uri);
}

Crawl::Crawl(Limits limits) : m_limits(limits) {}

std::uint64_t Crawl::problemTotal() const {
    std::uint64_t n = 0;
    for (const auto c : m_problems)
        n += c;
    return n;
}

void Crawl::begin(const std::string& root, std::string base, std::vector<Label> labels) {
    m_base = std::move(base);
    m_baseLabels = std::move(labels);
    m_jobs.clear();
    m_queue.clear();
    m_queueHead = 0;
    m_seen.clear();
    m_sensorJobs.clear();
    m_contexts.clear();
    m_sensorWants.clear();
    m_outstanding = 0;
    m_finished = false;
    m_overLimit = false;
    m_readings.clear();
    m_readingContext.clear();
    m_reports.clear();
    m_problems = {};
    m_conditions.clear();
    m_conditionKeys.clear();
    m_fetched = m_answered = 0;
    m_rootStatus = 0;
    m_rootFailure.clear();
    m_contexts.push_back({{}, {}, m_baseLabels, 0});
    follow(root, Role::Root, 0);
}

std::optional<Crawl::Fetch> Crawl::next() {
    if (m_queueHead >= m_queue.size()) return std::nullopt;
    const std::uint32_t job = m_queue[m_queueHead++];
    ++m_outstanding;
    return Fetch{job, m_jobs[job].path};
}

void Crawl::abandon(const std::string& why) {
    if (m_queueHead >= m_queue.size()) return;
    problem(Problem::OverLimit, m_jobs[m_queue[m_queueHead]].path,
            why + ": " + std::to_string(m_queue.size() - m_queueHead) + " resources not read");
    m_queueHead = m_queue.size();
    if (m_outstanding == 0) finish();
}

std::uint32_t Crawl::follow(std::string_view uri, Role role, std::uint32_t context) {
    auto path = crawlPath(uri, m_base);
    if (!path || !m_seen.insert(*path).second) return UINT32_MAX;
    if (m_jobs.size() >= m_limits.maxResources) {
        if (!m_overLimit)
            problem(Problem::OverLimit, *path,
                    "more than " + std::to_string(m_limits.maxResources) +
                        " resources in one poll; the rest are not read");
        m_overLimit = true;
        return UINT32_MAX;
    }
    const auto id = static_cast<std::uint32_t>(m_jobs.size());
    m_jobs.push_back({std::move(*path), role, context, {}});
    m_queue.push_back(id);
    return id;
}

void Crawl::problem(Problem kind, const std::string& uri, std::string what) {
    ++m_problems[static_cast<std::size_t>(kind)];
    if (m_reports.size() < m_limits.maxReported) m_reports.push_back({kind, uri, std::move(what)});
}

void Crawl::emit(std::uint32_t context, std::string_view property, double value, model::TimeNs time,
                 const Label* extra) {
    if (!std::isfinite(value)) return;
    const Context& c = m_contexts[context];
    Reading r;
    r.metric.reserve(c.equipment.size() + c.part.size() + property.size() + 2);
    r.metric = c.equipment;
    if (!c.part.empty()) r.metric += "/" + c.part;
    r.metric += "/";
    r.metric += property;
    r.labels = c.labels;
    if (extra) r.labels.push_back(*extra);
    r.value = value;
    r.time = time;
    m_readings.push_back(std::move(r));
    m_readingContext.push_back(context);
}

// Reads one answered resource: its readings, its conditions and the links to follow.

void Crawl::deliver(std::uint32_t job, int status, std::string_view body, model::TimeNs receivedAt,
                    std::string_view failure) {
    if (job >= m_jobs.size() || m_outstanding == 0) return;
    --m_outstanding;
    ++m_fetched;
    // A copy: reading the answer queues more jobs, which may move m_jobs.
    const Job j = m_jobs[job];
    if (job == 0) {
        m_rootStatus = status;
        m_rootFailure = status == 0 ? std::string(failure) : std::string();
    }
    if (status < 200 || status >= 300) {
        std::string why = status == 0 ? std::string(failure) : "HTTP " + std::to_string(status);
        if (j.role == Role::Sensor) {
            std::string from;
            for (std::size_t i = 0; i < j.wants.size() && i < 3; ++i)
                from += (i ? ", " : "") + m_sensorWants[j.wants[i]].from;
            problem(Problem::DanglingLink, j.path,
                    "the DataSourceUri of " + from + " does not resolve (" + why + ")");
        } else {
            problem(Problem::FetchFailed, j.path, why);
        }
    } else {
        ++m_answered;
        json doc;
        try {
            if (const auto deep = jsonNestingBeyond(body, kJsonAnswerDepth)) {
                const auto line =
                    1 + std::count(body.begin(), body.begin() + static_cast<long>(*deep), '\n');
                problem(Problem::BadJson, j.path,
                        "line " + std::to_string(line) + ": nested deeper than " +
                            std::to_string(kJsonAnswerDepth) + " levels; not read");
            } else {
                doc = json::parse(body);
            }
        } catch (const json::parse_error& e) {
            // Byte offset -> line, for a message someone can find in the body.
            const std::size_t at = std::min<std::size_t>(e.byte, body.size());
            const auto line =
                1 + std::count(body.begin(), body.begin() + static_cast<long>(at), '\n');
            std::string what = e.what();
            if (const auto colon = what.find("]: "); colon != std::string::npos)
                what = what.substr(colon + 3);
            problem(Problem::BadJson, j.path, "line " + std::to_string(line) + ": " + what);
            doc = nullptr;
        } catch (const json::exception& e) {
            // Well-formed but unreadable: a number past what a double holds.
            problem(Problem::BadJson, j.path, std::string("unreadable JSON: ") + e.what());
            doc = nullptr;
        }
        if (!doc.is_null()) {
            if (!doc.is_object()) {
                problem(Problem::BadJson, j.path,
                        "expected a JSON object, got " + std::string(doc.type_name()));
            } else {
                read(j, doc, receivedAt);
            }
        }
    }
    if (m_outstanding == 0 && m_queueHead >= m_queue.size()) finish();
}

void Crawl::finish() {
    if (m_finished) return;
    m_finished = true;
    // Per equipment: the worst leak detector, and its PSUs (those delivering, their sums).
    struct Rollup {
        double worstLeak = -1;
        int psus = 0, delivering = 0;
        double input = 0, output = 0;
        bool haveInput = false, haveOutput = false;
        model::TimeNs time = 0;
    };
    std::map<std::uint32_t, Rollup> rollups;
    const std::size_t n = m_readings.size();
    for (std::size_t i = 0; i < n; ++i) {
        const Context& c = m_contexts[m_readingContext[i]];
        const Reading& r = m_readings[i];
        const std::string_view metric = r.metric;
        if (c.part == "LeakDetector" && metric.ends_with("/DetectorState")) {
            Rollup& u = rollups[c.equipmentContext];
            u.worstLeak = std::max(u.worstLeak, r.value);
            u.time = std::max(u.time, r.time);
        } else if (c.part == "PowerSupply") {
            Rollup& u = rollups[c.equipmentContext];
            u.time = std::max(u.time, r.time);
            if (metric.ends_with("/State")) {
                ++u.psus;
                if (r.value == 0) ++u.delivering;
            } else if (metric.ends_with("/InputPowerWatts")) {
                u.input += r.value;
                u.haveInput = true;
            } else if (metric.ends_with("/OutputPowerWatts")) {
                u.output += r.value;
                u.haveOutput = true;
            }
        }
    }
    for (const auto& [eq, u] : rollups) {
        const auto ctx = static_cast<std::uint32_t>(m_contexts.size());
        Context c = m_contexts[eq];
        c.part.clear();
        m_contexts.push_back(std::move(c));
        if (u.worstLeak >= 0) emit(ctx, "LeakDetection/DetectorState", u.worstLeak, u.time);
        if (u.psus > 0) emit(ctx, "PowerSupplies/Delivering", u.delivering, u.time);
        if (u.haveInput) emit(ctx, "PowerSupplies/InputPowerWatts", u.input, u.time);
        if (u.haveOutput) emit(ctx, "PowerSupplies/OutputPowerWatts", u.output, u.time);
    }
}

} // namespace ft::importers::redfish