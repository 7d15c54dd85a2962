#include "slurm_json.h"

#include "json_document.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

namespace ft::importers {

namespace {

using Json = nlohmann::json;
using S = model::SchedulerState;

bool jsonTooDeep(std::string_view body) {
    return jsonNestingBeyond(body, kJsonAnswerDepth).has_value();
}

std::string upper(std::string_view s) {
    std::string out;
    for (const char c : s)
        if (c != ' ') out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
}

std::string text(const Json& j, const char* key) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_string()) return {};
    return it->get<std::string>();
}

// A number as either generation writes it: plain, or {"set": true, "infinite": false,
// "number": N} (v0.0.39 on); unset and infinite read as nothing.
std::optional<std::int64_t> number(const Json& j, const char* key) {
    const auto it = j.find(key);
    if (it == j.end()) return std::nullopt;
    const Json* v = &*it;
    if (v->is_object()) {
        const auto flag = [&](const char* k) {
            const auto f = v->find(k);
            return f != v->end() && f->is_boolean() ? std::optional(f->get<bool>()) : std::nullopt;
        };
        if (flag("set") == false || flag("infinite") == true) return std::nullopt;
        const auto n = v->find("number");
        if (n == v->end()) return std::nullopt;
        v = &*n;
    }
    if (v->is_number_integer()) return v->get<std::int64_t>();
    if (v->is_number_float()) return static_cast<std::int64_t>(v->get<double>());
    return std::nullopt;
}

// A list of words written as an array of strings or as one string ("idle", "RUNNING").
std::vector<std::string> words(const Json& j, const char* key) {
    std::vector<std::string> out;
    const auto it = j.find(key);
    if (it == j.end()) return out;
    if (it->is_string()) {
        if (!it->get_ref<const std::string&>().empty())
            out.push_back(upper(it->get_ref<const std::string&>()));
    } else if (it->is_array()) {
        for (const auto& w : *it)
            if (w.is_string() && !w.get_ref<const std::string&>().empty())
                out.push_back(upper(w.get_ref<const std::string&>()));
    }
    return out;
}

void readNode(const Json& n, SlurmAnswer& out, std::size_t index) {
    if (!n.is_object()) {
        out.warnings.push_back("nodes[" + std::to_string(index) + "]: not an object");
        return;
    }
    SlurmNode node;
    node.name = text(n, "name");
    node.hostname = text(n, "hostname");
    if (node.name.empty()) node.name = node.hostname;
    if (node.name.empty()) {
        out.warnings.push_back("nodes[" + std::to_string(index) + "]: no name");
        return;
    }
    // 21.08/22.05: "state": "idle" (a base state, "mixed+drain"-style words split) and
    // "state_flags": ["DRAIN"]; 23.02 on: "state": ["IDLE", "DRAIN"].
    for (const auto& w : words(n, "state")) {
        std::size_t at = 0;
        while (at <= w.size()) {
            const std::size_t plus = std::min(w.find('+', at), w.size());
            if (plus > at) node.states.push_back(w.substr(at, plus - at));
            at = plus + 1;
        }
    }
    for (auto& w : words(n, "state_flags"))
        node.states.push_back(std::move(w));
    node.reason = text(n, "reason");
    node.reasonBy = text(n, "reason_set_by_user");
    node.reasonSince = number(n, "reason_changed_at").value_or(0);
    if (const auto it = n.find("partitions"); it != n.end() && it->is_array()) {
        for (const auto& p : *it)
            if (p.is_string()) node.partitions.push_back(p.get<std::string>());
    }
    out.nodes.push_back(std::move(node));
}

// The job's nodes: the host list in `nodes` (every generation), else what job_resources names.
std::vector<std::string> jobNodes(const Json& j, std::string& problem) {
    std::string list = text(j, "nodes");
    if (list.empty())
        if (const auto r = j.find("job_resources"); r != j.end() && r->is_object()) {
            list = text(*r, "nodes");
            if (const auto n = r->find("nodes"); list.empty() && n != r->end() && n->is_object())
                list = text(*n, "list");
        }
    if (list.empty()) return {};
    auto names = expandHostList(list);
    if (!names) {
        problem = names.error();
        return {};
    }
    return std::move(*names);
}

void readJob(const Json& j, SlurmAnswer& out, std::size_t index) {
    const std::string where = "jobs[" + std::to_string(index) + "]";
    if (!j.is_object()) {
        out.warnings.push_back(where + ": not an object");
        return;
    }
    SlurmJob job;
    const auto id = number(j, "job_id");
    if (!id) {
        out.warnings.push_back(where + ": no job_id");
        return;
    }
    job.id = std::to_string(*id);
    // An array task is "ARRAY_TASK" as squeue prints it.
    const auto arrayJob = number(j, "array_job_id");
    const auto arrayTask = number(j, "array_task_id");
    if (arrayJob && *arrayJob > 0 && arrayTask)
        job.id = std::to_string(*arrayJob) + "_" + std::to_string(*arrayTask);
    job.name = text(j, "name");
    job.user = text(j, "user_name");
    job.partition = text(j, "partition");
    const auto states = words(j, "job_state");
    job.state = states.empty() ? std::string() : states.front();
    job.start = number(j, "start_time").value_or(0);
    std::string problem;
    job.nodes = jobNodes(j, problem);
    if (!problem.empty()) out.warnings.push_back(where + " (job " + job.id + "): " + problem);
    out.jobs.push_back(std::move(job));
}

} // namespace

namespace {

std::expected<SlurmAnswer, std::string> readAnswer(const Json& doc, const std::string& label) {
    if (!doc.is_object()) return std::unexpected(label + ": expected a JSON object at the top");
    SlurmAnswer out;
    if (const auto meta = doc.find("meta"); meta != doc.end() && meta->is_object()) {
        if (const auto plugin = meta->find("plugin"); plugin != meta->end() && plugin->is_object())
            out.plugin = text(*plugin, "type");
        for (const char* key : {"Slurm", "slurm"})
            if (const auto s = meta->find(key); s != meta->end() && s->is_object()) {
                out.release = text(*s, "release");
                const auto v = s->find("version");
                if (out.release.empty() && v != s->end() && v->is_object()) {
                    // Numbers until 23.02, strings after.
                    const auto part = [&](const char* k) {
                        const auto p = v->find(k);
                        if (p == v->end()) return std::string("?");
                        return p->is_string() ? p->get<std::string>() : p->dump();
                    };
                    out.release = part("major") + "." + part("minor") + "." + part("micro");
                }
            }
    }
    if (const auto errors = doc.find("errors"); errors != doc.end() && errors->is_array())
        for (const auto& e : *errors) {
            if (e.is_string()) {
                out.errors.push_back(e.get<std::string>());
                continue;
            }
            if (!e.is_object()) continue;
            std::string words = text(e, "description");
            if (words.empty()) words = text(e, "error");
            if (const auto n = number(e, "error_number"); n && *n != 0)
                words += " (error " + std::to_string(*n) + ")";
            out.errors.push_back(words);
        }
    const auto nodes = doc.find("nodes");
    const auto jobs = doc.find("jobs");
    if (nodes == doc.end() && jobs == doc.end()) {
        if (!out.errors.empty()) return std::unexpected(label + ": " + out.errors.front());
        return std::unexpected(label + R"(: expected a "nodes" or "jobs" array)");
    }
    if (nodes != doc.end()) {
        if (!nodes->is_array()) return std::unexpected(label + ": \"nodes\" is not an array");
        for (std::size_t i = 0; i < nodes->size(); ++i)
            readNode((*nodes)[i], out, i);
    }
    if (jobs != doc.end()) {
        if (!jobs->is_array()) return std::unexpected(label + ": \"jobs\" is not an array");
        for (std::size_t i = 0; i < jobs->size(); ++i)
            readJob((*jobs)[i], out, i);
    }
    return out;
}

} // namespace

std::expected<SlurmAnswer, std::string> parseSlurmJson(std::string_view body,
                                                       std::string_view what) {
    const std::string label(what);
    if (jsonTooDeep(body)) return std::unexpected(label + ": nested too deep");
    try {
        return readAnswer(Json::parse(body), label);
    } catch (const Json::parse_error& e) {
        return std::unexpected(label + ": not JSON (byte " + std::to_string(e.byte) + ")");
    } catch (const Json::exception& e) {
        return std::unexpected(label + ": " + e.what());
    }
}

std::expected<std::vector<std::string>, std::string> expandHostList(std::string_view list,
                                                                    std::size_t limit) {
    std::vector<std::string> out;
    // Split at the commas outside brackets.
    std::vector<std::string_view> entries;
    int depth = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i < list.size(); ++i) {
        if (list[i] == '[') ++depth;
        if (list[i] == ']' && --depth < 0)
            return std::unexpected("host list \"" + std::string(list) + "\": ']' without '['");
        if (list[i] == ',' && depth == 0) {
            entries.push_back(list.substr(start, i - start));
            start = i + 1;
        }
    }
    if (depth != 0)
        return std::unexpected("host list \"" + std::string(list) + "\": '[' without ']'");
    entries.push_back(list.substr(start));
    for (std::string_view entry : entries) {
        while (!entry.empty() && entry.front() == ' ')
            entry.remove_prefix(1);
        while (!entry.empty() && entry.back() == ' ')
            entry.remove_suffix(1);
        if (entry.empty()) continue;
        // Expand bracket groups left to right: every name so far times the group's numbers.
        std::vector<std::string> names{""};
        std::size_t at = 0;
        while (at < entry.size()) {
            const std::size_t open = entry.find('[', at);
            const std::string_view literal = entry.substr(at, open - at);
            for (auto& n : names)
                n += literal;
            if (open == std::string_view::npos) break;
            const std::size_t close = entry.find(']', open);
            const std::string_view ranges = entry.substr(open + 1, close - open - 1);
            std::vector<std::string> numbers;
            std::size_t r = 0;
            while (r <= ranges.size()) {
                const std::size_t comma = std::min(ranges.find(',', r), ranges.size());
                const std::string_view range = ranges.substr(r, comma - r);
                const std::size_t dash = range.find('-');
                const std::string_view lo = range.substr(0, dash);
                const std::string_view hi =
                    dash == std::string_view::npos ? lo : range.substr(dash + 1);
                auto digits = [](std::string_view d) {
                    return !d.empty() && d.size() <= 9 &&
                           std::ranges::all_of(d, [](char c) { return c >= '0' && c <= '9'; });
                };
                if (!digits(lo) || !digits(hi))
                    return std::unexpected("host list \"" + std::string(list) + "\": \"" +
                                           std::string(range) + "\" is not a number or a range");
                const long a = std::stol(std::string(lo)), b = std::stol(std::string(hi));
                if (b < a)
                    return std::unexpected("host list \"" + std::string(list) + "\": range \"" +
                                           std::string(range) + "\" runs backwards");
                if (static_cast<std::size_t>(b - a) >= limit)
                    return std::unexpected("host list \"" + std::string(list) + "\": more than " +
                                           std::to_string(limit) + " names");
                for (long k = a; k <= b; ++k) {
                    std::string number = std::to_string(k);
                    if (number.size() < lo.size()) number.insert(0, lo.size() - number.size(), '0');
                    numbers.push_back(std::move(number));
                    if (numbers.size() > limit)
                        return std::unexpected("host list \"" + std::string(list) +
                                               "\": more than " + std::to_string(limit) + " names");
                }
                r = comma + 1;
            }
            // Slurm's order: the first group varies slowest.
            if (names.size() * numbers.size() + out.size() > limit)
                return std::unexpected("host list \"" + std::string(list) + "\": more than " +
                                       std::to_string(limit) + " names");
            std::vector<std::string> next;
            next.reserve(names.size() * numbers.size());
            for (const auto& n : names)
                for (const auto& number : numbers)
                    next.push_back(n + number);
            names = std::move(next);
            at = close + 1;
        }
        for (auto& n : names)
            out.push_back(std::move(n));
    }
    return out;
}

model::SchedulerState schedulerStateOf(const SlurmNode& node) {
    auto has = [&](std::string_view w) {
        return std::ranges::find(node.states, w) != node.states.end();
    };
    if (has("FAIL") || has("FAILING") || has("ERROR")) return S::Failed;
    if (has("DOWN") || has("NOT_RESPONDING")) return S::Down;
    const bool running = has("ALLOCATED") || has("MIXED") || has("COMPLETING");
    if (has("DRAIN") || has("DRAINING") || has("DRAINED"))
        return running || has("DRAINING") ? S::Draining : S::Drained;
    if (has("MAINTENANCE") || has("MAINT") || has("RESERVED") || has("REBOOT_REQUESTED") ||
        has("REBOOT_ISSUED"))
        return S::Reserved;
    if (running) return S::Busy;
    return S::Idle;
}

std::string describeNodeState(const SlurmNode& node) {
    std::string out;
    for (const auto& w : node.states) {
        std::string word;
        for (const char c : w)
            word += c == '_' ? ' ' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (word == "drain") word = schedulerStateOf(node) == S::Drained ? "drained" : "draining";
        if (out.find(word) != std::string::npos) continue;
        out += out.empty() ? word : " + " + word;
    }
    return out.empty() ? "unknown" : out;
}

bool jobOnNodes(const SlurmJob& job) {
    return job.state == "RUNNING" || job.state == "COMPLETING" || job.state == "SUSPENDED" ||
           job.state == "CONFIGURING" || job.state == "STOPPED";
}

} // namespace ft::importers
