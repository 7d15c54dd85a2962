#include "slurm_source.h"

#include "importers/formats/slurm_json.h"
#include "importers/mapping/entity_name_index.h"
#include "importers/mapping/slurm_floor.h"
#include "importers/net/secrets.h"
#include "importers/net/wall_clock.h"

#include <QDir>
#include <QProcess>
#include <QUrl>
#include <fstream>
#include <sstream>

namespace ft::importers {

namespace {

// slurmrestd's data API versions, newest first: the first that answers is used.
constexpr const char* kApiVersions[] = {"v0.0.42", "v0.0.41", "v0.0.40",
                                        "v0.0.39", "v0.0.38", "v0.0.37"};

// Runs `program args` to the end; its stdout, or why not.
std::expected<std::string, std::string>
runCommand(const std::string& program, const QStringList& args, std::chrono::milliseconds timeout) {
    QProcess p;
    p.setProgram(QString::fromStdString(program));
    p.setArguments(args);
    p.start();
    const std::string line = program + " " + args.join(' ').toStdString();
    if (!p.waitForStarted(static_cast<int>(timeout.count())))
        return std::unexpected(line + ": cannot start (" + p.errorString().toStdString() + ")");
    if (!p.waitForFinished(static_cast<int>(timeout.count()))) {
        p.kill();
        p.waitForFinished(1000);
        return std::unexpected(line + ": no answer in " + std::to_string(timeout.count()) + " ms");
    }
    std::string out = p.readAllStandardOutput().toStdString();
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        // The last line says most ("fatal: Could not establish a configuration source").
        std::string err = p.readAllStandardError().trimmed().toStdString();
        if (const auto nl = err.rfind('\n'); nl != std::string::npos) err.erase(0, nl + 1);
        // squeue and sinfo print their error envelope as JSON on stdout too: keep its words.
        if (err.empty())
            if (auto answer = parseSlurmJson(out, line); answer && !answer->errors.empty())
                err = answer->errors.front();
        return std::unexpected(line + ": exit " + std::to_string(p.exitCode()) +
                               (err.empty() ? std::string() : ": " + err));
    }
    return out;
}

std::expected<std::string, std::string> readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::unexpected(path + ": cannot open");
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

HttpOptions restOptions(const SlurmConfig& c) {
    HttpOptions o = c.http;
    o.timeout = c.timeout;
    // slurmrestd's own headers, not a bearer token.
    if (!o.bearerToken.empty()) o.headers.emplace_back("X-SLURM-USER-TOKEN", o.bearerToken);
    o.bearerToken.clear();
    if (!c.user.empty()) o.headers.emplace_back("X-SLURM-USER-NAME", c.user);
    return o;
}

} // namespace

std::expected<SlurmConfig, std::string> parseSlurmSpec(const std::string& spec) {
    std::string rest = spec.starts_with("slurm=") ? spec.substr(6) : spec;
    rest = trimBlanks(rest);
    SlurmConfig c;
    if (rest.empty() || rest == "commands") return c;
    if (rest.starts_with("commands:")) {
        const std::string dir = rest.substr(9);
        if (!QDir(QString::fromStdString(dir)).exists())
            return std::unexpected("slurm=commands:" + dir + ": no such folder");
        c.sinfo = dir + "/sinfo";
        c.squeue = dir + "/squeue";
        return c;
    }
    if (rest.starts_with("http://") || rest.starts_with("https://")) {
        const QUrl u(QString::fromStdString(rest), QUrl::StrictMode);
        if (!u.isValid() || u.host().isEmpty())
            return std::unexpected("slurm=" + redactUrl(rest) + ": not a valid URL");
        if (!u.userInfo().isEmpty())
            return std::unexpected("slurm=" + redactUrl(rest) +
                                   ": credentials in the URL are not taken (use --user and "
                                   "--token-file)");
        c.mode = SlurmConfig::Mode::Http;
        c.url = rest;
        while (c.url.size() > 8 && c.url.back() == '/')
            c.url.pop_back();
        return c;
    }
    c.mode = SlurmConfig::Mode::Files;
    std::size_t at = 0;
    while (at <= rest.size()) {
        const std::size_t comma = std::min(rest.find(',', at), rest.size());
        const std::string file = trimBlanks(std::string_view(rest).substr(at, comma - at));
        if (!file.empty()) {
            if (!std::ifstream(file))
                return std::unexpected("slurm=" + file +
                                       ": no such file (expected \"commands\", "
                                       "\"commands:DIR\", a slurmrestd URL, or answers of "
                                       "sinfo/squeue --json)");
            c.files.push_back(file);
        }
        at = comma + 1;
    }
    if (c.files.empty()) return std::unexpected("slurm=" + rest + ": no files named");
    return c;
}

SlurmRead readSlurmOnce(const SlurmConfig& c, HttpClient* client, std::string* apiVersion) {
    SlurmRead r;
    switch (c.mode) {
    case SlurmConfig::Mode::Commands: {
        r.where = c.sinfo + " --json, " + c.squeue + " --json";
        auto nodes = runCommand(c.sinfo, {"--json"}, c.timeout);
        if (!nodes) {
            r.error = nodes.error();
            return r;
        }
        auto jobs = runCommand(c.squeue, {"--json", "--all"}, c.timeout);
        if (!jobs) {
            r.error = jobs.error();
            return r;
        }
        r.nodesBody = std::move(*nodes);
        r.jobsBody = std::move(*jobs);
        return r;
    }
    case SlurmConfig::Mode::Files: {
        for (const auto& f : c.files) {
            auto body = readFile(f);
            if (!body) {
                r.error = body.error();
                return r;
            }
            // Whichever answer the file is: the one that carries "nodes" gives the nodes.
            const bool nodes = body->find("\"nodes\"") != std::string::npos &&
                               body->find("\"jobs\"") == std::string::npos;
            (nodes ? r.nodesBody : r.jobsBody) = std::move(*body);
        }
        r.where = "files";
        return r;
    }
    case SlurmConfig::Mode::Http:
        break;
    }
    std::unique_ptr<HttpClient> own;
    if (!client) {
        own = std::make_unique<HttpClient>();
        client = own.get();
    }
    const HttpOptions options = restOptions(c);
    auto get = [&](const std::string& url) { return requestBlocking(*client, url, options); };
    std::string base = c.url, version;
    if (const auto at = base.find("/slurm/v"); at != std::string::npos) {
        version = base.substr(at + 7);
        base.resize(at);
    } else if (apiVersion && !apiVersion->empty()) {
        version = *apiVersion;
    }
    auto fetch = [&](const std::string& v, const char* what) {
        return get(base + "/slurm/" + v + "/" + what);
    };
    HttpResult nodes;
    if (version.empty()) {
        for (const char* v : kApiVersions) {
            nodes = fetch(v, "nodes");
            if (nodes.ok() || (nodes.status != 404 && nodes.status != 0)) {
                version = v;
                break;
            }
            if (nodes.status == 0) break; // nothing answers at all
        }
        if (version.empty()) {
            r.where = base + "/slurm/v0.0.NN/nodes";
            r.error = nodes.status == 0 ? nodes.describeFailure()
                                        : "no slurmrestd data API (v0.0.37 to v0.0.42) answers";
            return r;
        }
    } else {
        nodes = fetch(version, "nodes");
    }
    if (apiVersion) *apiVersion = version;
    r.where = base + "/slurm/" + version + "/nodes";
    if (!nodes.ok()) {
        r.error = r.where + ": " + nodes.describeFailure();
        return r;
    }
    HttpResult jobs = fetch(version, "jobs");
    if (!jobs.ok()) {
        r.error = base + "/slurm/" + version + "/jobs: " + jobs.describeFailure();
        return r;
    }
    r.nodesBody = std::move(nodes.body);
    r.jobsBody = std::move(jobs.body);
    return r;
}

SlurmSource::SlurmSource(SlurmConfig config, std::shared_ptr<const model::Topology> topology,
                         SubmitFn submit)
    : m_config(std::move(config)), m_topology(std::move(topology)), m_submit(std::move(submit)) {
    switch (m_config.mode) {
    case SlurmConfig::Mode::Commands:
        m_health.name = "slurm (sinfo, squeue)";
        m_health.url = m_config.sinfo + ", " + m_config.squeue;
        break;
    case SlurmConfig::Mode::Http:
        m_health.name =
            "slurmrestd " + QUrl(QString::fromStdString(m_config.url)).authority().toStdString();
        m_health.url = redactUrl(m_config.url);
        break;
    case SlurmConfig::Mode::Files:
        m_health.name = "slurm (files)";
        for (const auto& f : m_config.files)
            m_health.url += (m_health.url.empty() ? "" : ", ") + f;
        break;
    }
    m_health.targetsTotal = 1;
}

SlurmSource::~SlurmSource() {
    stop();
}

void SlurmSource::start() {
    m_poller.start(m_config.interval, [this] {
        // Made on the poll thread, and destroyed there.
        auto index = std::make_shared<EntityNameIndex>(*m_topology);
        std::shared_ptr<HttpClient> client;
        if (m_config.mode == SlurmConfig::Mode::Http) client = std::make_shared<HttpClient>();
        return [this, index, client] { pollOnce(client.get(), *index); };
    });
}

void SlurmSource::stop() {
    m_poller.stop();
}

void SlurmSource::pollOnce(HttpClient* client, EntityNameIndex& index) {
    const auto started = std::chrono::steady_clock::now();
    const SlurmRead read = readSlurmOnce(m_config, client, &m_apiVersion);
    const double latency =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count();
    auto fail = [&](const std::string& why) {
        std::lock_guard lock(m_mutex);
        ++m_health.polls;
        ++m_health.errors;
        m_health.lastError = why;
        m_health.lastLatencyMs = latency;
        m_health.state = m_health.lastSuccess == 0 || m_health.state == SourceState::Down ||
                                 m_health.state == SourceState::Degraded
                             ? SourceState::Down
                             : SourceState::Degraded;
        m_health.targetsUp = 0;
    };
    if (!read.error.empty()) return fail(read.error);
    auto nodes = parseSlurmJson(read.nodesBody, "nodes (" + read.where + ")");
    if (!nodes) return fail(nodes.error());
    auto jobs = parseSlurmJson(read.jobsBody, "jobs (" + read.where + ")");
    if (!jobs) return fail(jobs.error());
    const model::TimeNs now = wallNow();
    SlurmPlacement placed = placeSlurm(*nodes, *jobs, index, now);

    model::SampleBatch batch;
    batch.source = m_config.sourceId;
    batch.schedulerJobs = true;
    batch.samples = std::move(placed.samples);
    for (auto& [gpu, job] : placed.gpuJobs) {
        auto [it, fresh] = m_sentJobs.try_emplace(gpu, job);
        if (!fresh && it->second == job) continue;
        it->second = job;
        batch.gpuJobs.emplace_back(gpu, job);
    }
    for (auto& note : placed.notes) {
        std::string key = note.node + '\n' + note.state + '\n' + note.reason + '\n' + note.jobs;
        auto [it, fresh] = m_sentNotes.try_emplace(note.tray, key);
        if (!fresh && it->second == key) continue;
        it->second = std::move(key);
        batch.nodeNotes.push_back(std::move(note));
    }
    const std::size_t samples = batch.samples.size();
    const bool accepted = m_submit && m_submit(std::move(batch));
    if (!accepted) { // sent again in full next time
        m_sentJobs.clear();
        m_sentNotes.clear();
    }

    // What the scheduler says is wrong, for the Sources panel: the nodes out of service.
    std::vector<std::string> conditions;
    for (const SlurmNode& n : nodes->nodes) {
        const model::SchedulerState st = schedulerStateOf(n);
        if (!model::schedulerOutOfService(st)) continue;
        conditions.push_back(n.name + " " + describeNodeState(n) +
                             (n.reason.empty() ? std::string() : ": " + n.reason));
    }
    std::lock_guard lock(m_mutex);
    ++m_health.polls;
    m_health.samples += placed.nodes;
    m_health.mapped += placed.placed;
    m_health.unmapped += placed.nodes - placed.placed;
    if (!accepted) m_health.dropped += samples;
    m_health.lastLatencyMs = latency;
    m_health.lastSuccess = now;
    m_health.targetsUp = 1;
    m_health.conditions = std::move(conditions);
    std::string warning;
    for (const auto* answer : {&*nodes, &*jobs})
        for (const auto& w : answer->warnings)
            warning = w;
    if (!warning.empty()) {
        m_health.formatWarnings += nodes->warnings.size() + jobs->warnings.size();
        m_health.lastFormatWarning = warning;
    }
    m_health.state =
        nodes->errors.empty() && jobs->errors.empty() ? SourceState::Up : SourceState::Degraded;
    if (!nodes->errors.empty()) m_health.lastError = nodes->errors.front();
    if (!jobs->errors.empty()) m_health.lastError = jobs->errors.front();
    m_unknownNodes = std::move(placed.unknownNodes);
    m_health.unresolved.clear();
    for (const auto& n : m_unknownNodes)
        m_health.unresolved.push_back({"node '" + n.name + "'", n.count});
}

std::vector<SourceHealth> SlurmSource::health() const {
    std::lock_guard lock(m_mutex);
    return {m_health};
}

std::vector<NameCount> SlurmSource::unknownHosts() const {
    std::lock_guard lock(m_mutex);
    std::vector<NameCount> top(
        m_unknownNodes.begin(),
        m_unknownNodes.begin() +
            static_cast<std::ptrdiff_t>(std::min<std::size_t>(10, m_unknownNodes.size())));
    return top;
}

} // namespace ft::importers
