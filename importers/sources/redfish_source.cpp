#include "redfish_source.h"

#include "importers/mapping/series_mapper.h"
#include "importers/net/secrets.h"

#include <QByteArray>
#include <QTimer>
#include <QUrl>
#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>

namespace ft::importers {

namespace {

using SteadyClock = std::chrono::steady_clock;
constexpr const char* kSessionsPath = "/SessionService/Sessions";

std::string hostPortOf(const std::string& base) {
    const QUrl u(QString::fromStdString(base));
    return u.host().toStdString() + ":" +
           std::to_string(u.port(u.scheme() == QLatin1String("https") ? 443 : 80));
}

std::string hostOf(const std::string& base) {
    return QUrl(QString::fromStdString(base)).host().toStdString();
}

} // namespace

std::expected<std::vector<RedfishService>, std::string> parseRedfishSpec(const std::string& spec) {
    std::string_view rest = spec;
    if (rest.starts_with("redfish=")) rest.remove_prefix(8);
    std::vector<RedfishService> out;
    while (true) {
        const std::size_t comma = rest.find(',');
        const std::string entry = trimBlanks(rest.substr(0, comma));
        if (entry.empty())
            return std::unexpected("redfish: empty entry in '" + spec +
                                   "' (expected URL[,URL...])");
        std::string url = entry;
        if (url.find("://") == std::string::npos) url = "https://" + url;
        const QUrl u(QString::fromStdString(url), QUrl::StrictMode);
        if (!u.isValid() || u.host().isEmpty())
            return std::unexpected("redfish: '" + entry + "' is not a valid URL");
        if (u.scheme() != QLatin1String("http") && u.scheme() != QLatin1String("https"))
            return std::unexpected("redfish: '" + entry + "' is not an http:// or https:// URL");
        if (!u.userInfo().isEmpty())
            return std::unexpected("redfish: '" + redactUrl(entry) +
                                   "': credentials in the URL are not supported (use --user "
                                   "and --password-file, or --token-file)");
        RedfishService s;
        s.base = u.scheme().toStdString() + "://" + u.authority().toStdString();
        std::string path = u.path().toStdString();
        while (path.size() > 1 && path.back() == '/')
            path.pop_back();
        if (!path.empty() && path != "/") s.root = path;
        out.push_back(std::move(s));
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
    }
    return out;
}

// Loop-thread state of one service; its health lives in m_health (guarded by m_mutex).
struct RedfishSource::Service {
    RedfishService target;
    std::unique_ptr<HttpClient> http; // one per service: a deadline aborts only its own requests
    std::unique_ptr<QTimer> timer;
    redfish::Crawl crawl;
    std::unique_ptr<SeriesMapper> mapper; // its own: what did not resolve is per service
    RedfishAuth auth = RedfishAuth::None; // what is in use (Session may have fallen back to Basic)
    std::string token;                    // session or given token
    std::string sessionPath;              // the session to delete on stop
    bool polling = false;
    bool unauthorized = false; // a 401 during this poll
    std::string unauthorizedPath;
    bool retriedLogin = false; // one immediate re-login after a session expired
    int inFlight = 0;
    int failures = 0; // in a row
    bool everAnswered = false;
    SteadyClock::time_point pollStarted;
};

RedfishSource::RedfishSource(RedfishConfig config, const MappingRules& rules,
                             std::shared_ptr<const model::Topology> topology, SubmitFn submit)
    : m_config(std::move(config)), m_topology(std::move(topology)), m_submit(std::move(submit)),
      m_loop("redfish") {
    if (m_config.pollDeadline.count() <= 0)
        m_config.pollDeadline = std::max(m_config.interval * 3, std::chrono::milliseconds(30000));
    m_health.resize(m_config.services.size());
    for (std::size_t i = 0; i < m_config.services.size(); ++i) {
        auto s = std::make_unique<Service>();
        s->target = m_config.services[i];
        s->crawl = redfish::Crawl(m_config.limits);
        s->mapper = std::make_unique<SeriesMapper>(rules, *m_topology);
        s->auth = m_config.auth;
        if (s->auth == RedfishAuth::Token) s->token = m_config.token;
        m_health[i].name = "redfish " + hostPortOf(s->target.base);
        m_health[i].url = redactUrl(s->target.base + s->target.root);
        m_services.push_back(std::move(s));
    }
}

RedfishSource::~RedfishSource() {
    stop();
}

void RedfishSource::start() {
    if (m_loop.running()) return;
    m_loop.start([this] { setupOnThread(); });
}

void RedfishSource::stop() {
    m_loop.stop([this] { teardownOnThread(); });
}

std::vector<SourceHealth> RedfishSource::health() const {
    std::lock_guard lock(m_mutex);
    return m_health;
}

void RedfishSource::setupOnThread() {
    const std::size_t n = m_services.size();
    for (std::size_t i = 0; i < n; ++i) {
        Service& s = *m_services[i];
        s.http = std::make_unique<HttpClient>();
        s.timer = std::make_unique<QTimer>();
        s.timer->setSingleShot(true);
        QObject::connect(s.timer.get(), &QTimer::timeout, m_loop.context(), [this, i] { poll(i); });
        s.polling = false;
        s.inFlight = 0;
        schedule(i, m_config.interval * static_cast<long>(i) /
                        static_cast<long>(std::max<std::size_t>(n, 1)));
    }
}

void RedfishSource::teardownOnThread() {
    for (auto& sp : m_services) {
        Service& s = *sp;
        if (!s.http) continue;
        s.http->abortAll();
        // A BMC keeps only a few sessions: give ours back rather than leave it to time out.
        if (s.auth == RedfishAuth::Session && !s.token.empty() && !s.sessionPath.empty()) {
            HttpOptions o = requestOptions(s);
            o.method = "DELETE";
            o.timeout = std::chrono::milliseconds(1000);
            (void)requestBlocking(*s.http, s.target.base + s.sessionPath, o);
            s.token.clear();
        }
        s.http.reset();
        s.timer.reset();
        s.polling = false;
        s.inFlight = 0;
    }
}

void RedfishSource::schedule(std::size_t index, std::chrono::milliseconds delay) {
    m_services[index]->timer->start(std::max(delay, std::chrono::milliseconds(0)));
}

HttpOptions RedfishSource::requestOptions(const Service& s) const {
    HttpOptions o = m_config.http;
    o.bearerToken.clear();
    o.timeout = m_config.timeout;
    o.maxBodyBytes = m_config.maxBodyBytes;
    o.headers.emplace_back("Accept", "application/json");
    o.headers.emplace_back("OData-Version", "4.0");
    if ((s.auth == RedfishAuth::Session || s.auth == RedfishAuth::Token) && !s.token.empty())
        o.headers.emplace_back("X-Auth-Token", s.token);
    if (s.auth == RedfishAuth::Basic) {
        const QByteArray cred =
            QByteArray::fromStdString(m_config.user + ":" + m_config.password).toBase64();
        o.headers.emplace_back("Authorization", "Basic " + cred.toStdString());
    }
    return o;
}

void RedfishSource::poll(std::size_t index) {
    Service& s = *m_services[index];
    if (s.polling || !s.http) return;
    s.polling = true;
    s.unauthorized = false;
    s.unauthorizedPath.clear();
    s.pollStarted = SteadyClock::now();
    {
        std::lock_guard lock(m_mutex);
        ++m_health[index].polls;
    }
    if (s.auth == RedfishAuth::Session && s.token.empty()) {
        login(index);
        return;
    }
    s.crawl.begin(s.target.root, s.target.base,
                  {{"service", hostPortOf(s.target.base)}, {"bmc", hostOf(s.target.base)}});
    pump(index);
}

void RedfishSource::login(std::size_t index) {
    Service& s = *m_services[index];
    HttpOptions o = m_config.http;
    o.bearerToken.clear();
    o.timeout = m_config.timeout;
    o.maxBodyBytes = 1u << 20;
    o.headers.emplace_back("Accept", "application/json");
    const std::string body =
        nlohmann::json{{"UserName", m_config.user}, {"Password", m_config.password}}.dump();
    s.http->request(
        s.target.base + s.target.root + kSessionsPath, o,
        [this, index](const HttpResult& r) {
            Service& s = *m_services[index];
            if (r.status == 404 || r.status == 405 || r.status == 501) {
                // No session service here: the same credentials as Basic.
                s.auth = RedfishAuth::Basic;
                s.polling = false;
                poll(index);
                return;
            }
            if (!r.ok()) {
                pollFailed(index, r.status == 401 || r.status == 403
                                      ? "login refused (HTTP " + std::to_string(r.status) +
                                            "): check --user and --password-file"
                                      : "login: " + scrubSecrets(r.describeFailure(),
                                                                 std::array{m_config.password}));
                return;
            }
            s.token = r.header("X-Auth-Token");
            if (s.token.empty()) {
                pollFailed(index, "login: the session service answered without an X-Auth-Token");
                return;
            }
            // Location: the session's URI (absolute or a path), for the logout.
            std::string location = r.header("Location");
            if (const auto path = redfish::crawlPath(location, s.target.base)) location = *path;
            if (location.empty() || location.find("://") != std::string::npos) {
                try {
                    const auto j = nlohmann::json::parse(r.body);
                    location = j.value("@odata.id", std::string());
                } catch (const nlohmann::json::exception&) {
                    location.clear();
                }
            }
            s.sessionPath = location;
            s.crawl.begin(s.target.root, s.target.base,
                          {{"service", hostPortOf(s.target.base)}, {"bmc", hostOf(s.target.base)}});
            pump(index);
        },
        body, "application/json");
}

void RedfishSource::pump(std::size_t index) {
    Service& s = *m_services[index];
    if (SteadyClock::now() - s.pollStarted > m_config.pollDeadline)
        s.crawl.abandon("the poll took longer than " +
                        std::to_string(m_config.pollDeadline.count()) + " ms");
    while (s.inFlight < std::max(1, m_config.maxInFlight)) {
        const auto f = s.crawl.next();
        if (!f) break;
        ++s.inFlight;
        s.http->request(s.target.base + f->path, requestOptions(s),
                        [this, index, job = f->job, path = f->path](const HttpResult& r) {
                            if (r.status == 401 && m_services[index]->unauthorizedPath.empty())
                                m_services[index]->unauthorizedPath = path;
                            fetched(index, job, r);
                        });
    }
    if (s.crawl.done() && s.inFlight == 0) finishPoll(index);
}

void RedfishSource::fetched(std::size_t index, std::uint32_t job, const HttpResult& r) {
    Service& s = *m_services[index];
    --s.inFlight;
    if (r.status == 401) s.unauthorized = true;
    if (r.truncated)
        s.crawl.deliver(job, 0, {}, r.receivedAt,
                        "body over " + std::to_string(m_config.maxBodyBytes) + " bytes");
    else if (!r.error.empty())
        s.crawl.deliver(job, 0, {}, r.receivedAt, r.error);
    else
        s.crawl.deliver(job, r.status, r.body, r.receivedAt);
    pump(index);
}

void RedfishSource::pollFailed(std::size_t index, const std::string& why) {
    Service& s = *m_services[index];
    s.polling = false;
    ++s.failures;
    {
        std::lock_guard lock(m_mutex);
        SourceHealth& h = m_health[index];
        ++h.errors;
        h.lastError = why;
        h.state = s.failures >= m_config.downAfterFailures ? SourceState::Down
                  : s.everAnswered                         ? SourceState::Degraded
                                                           : SourceState::Connecting;
        h.targetsUp = 0;
        h.lastLatencyMs =
            std::chrono::duration<double, std::milli>(SteadyClock::now() - s.pollStarted).count();
    }
    // An expired session gets one immediate retry with a new one.
    if (s.auth == RedfishAuth::Session && s.unauthorized && !s.retriedLogin) {
        s.retriedLogin = true;
        schedule(index, std::chrono::milliseconds(0));
        return;
    }
    const int shift = std::min(s.failures - 1, 20);
    const auto backoff = std::min(m_config.maxBackoff, m_config.interval * (1L << shift));
    schedule(index, std::max(backoff, m_config.interval));
}

void RedfishSource::finishPoll(std::size_t index) {
    Service& s = *m_services[index];
    const redfish::Crawl& c = s.crawl;
    if (s.unauthorized) {
        // Readings without the rest would look like a partial floor: the poll failed.
        if (s.auth == RedfishAuth::Session) s.token.clear(); // log in again
        pollFailed(index, "HTTP 401 at " + s.unauthorizedPath +
                              (s.auth == RedfishAuth::Session ? ": the session expired"
                               : s.auth == RedfishAuth::None
                                   ? ": credentials needed (--user and --password-file, or "
                                     "--token-file)"
                                   : ": credentials refused"));
        return;
    }
    if (c.rootStatus() < 200 || c.rootStatus() >= 300) {
        pollFailed(index, s.target.root + ": " +
                              (c.rootStatus() == 0 ? c.rootFailure()
                                                   : "HTTP " + std::to_string(c.rootStatus())));
        return;
    }
    s.polling = false;
    s.failures = 0;
    s.retriedLogin = false;
    s.everAnswered = true;

    auto& readings = s.crawl.readings();
    m_scratch.clear();
    const MapperStats before = s.mapper->stats();
    std::vector<prom::Label> labels;
    for (const auto& r : readings) {
        labels.clear();
        for (const auto& l : r.labels)
            labels.push_back({l.name, l.value});
        s.mapper->map(r.metric, labels, r.value, r.time, m_scratch);
    }
    const MapperStats& after = s.mapper->stats();
    const std::uint64_t mapped = m_scratch.size();
    const std::uint64_t unmapped = (after.unmapped - before.unmapped) +
                                   (after.unresolved - before.unresolved) +
                                   (after.invalid - before.invalid);
    const std::uint64_t outOfOrder = after.outOfOrder - before.outOfOrder;
    const std::uint64_t dropped =
        submitInBatches(m_submit, m_config.sourceId, m_scratch, m_config.maxBatchSamples);

    const auto& p = c.problems();
    const auto count = [&](redfish::Problem k) { return p[static_cast<std::size_t>(k)]; };
    const std::uint64_t bad =
        count(redfish::Problem::BadJson) + count(redfish::Problem::MissingProperty) +
        count(redfish::Problem::WrongUnits) + count(redfish::Problem::UnknownType) +
        count(redfish::Problem::DanglingLink);
    const std::uint64_t failed =
        count(redfish::Problem::FetchFailed) + count(redfish::Problem::OverLimit);
    std::vector<redfish::Condition> sorted = c.conditions();
    std::ranges::stable_sort(sorted, [](const auto& a, const auto& b) {
        return (a.severity == "Critical") > (b.severity == "Critical");
    });
    std::vector<std::string> conditions;
    conditions.reserve(sorted.size());
    for (const auto& cond : sorted)
        conditions.push_back(cond.severity + ": " + cond.message + " (" + cond.origin + ")");
    {
        std::lock_guard lock(m_mutex);
        SourceHealth& h = m_health[index];
        h.samples += readings.size();
        h.mapped += mapped;
        h.unmapped += unmapped;
        h.badLines += bad;
        h.errors += failed;
        h.outOfOrder += outOfOrder;
        h.dropped += dropped;
        h.lastSuccess = std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
        h.lastLatencyMs =
            std::chrono::duration<double, std::milli>(SteadyClock::now() - s.pollStarted).count();
        h.targetsUp = static_cast<int>(c.answered());
        h.targetsTotal = static_cast<int>(c.fetched());
        h.conditions = std::move(conditions);
        h.unresolved = s.mapper->topUnresolved(10);
        h.state = SourceState::Up;
        if (bad + failed > 0) {
            const auto& first = c.reports().front();
            h.lastError = std::to_string(bad + failed) + " bad resources, first " +
                          std::string(redfish::problemName(first.kind)) + " at " + first.uri +
                          ": " + first.what;
            h.state = SourceState::Degraded;
        }
    }
    const auto elapsed =
        std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - s.pollStarted);
    schedule(index, m_config.interval - elapsed);
}

} // namespace ft::importers
