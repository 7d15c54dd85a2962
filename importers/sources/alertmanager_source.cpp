#include "alertmanager_source.h"

#include "importers/mapping/alert_placement.h"
#include "importers/mapping/entity_name_index.h"
#include "importers/net/secrets.h"
#include "importers/net/wall_clock.h"

#include <QUrl>
#include <algorithm>
#include <map>

namespace ft::importers {

namespace {

// 100,000 alerts of some 700 bytes each, with room.
constexpr std::size_t kMaxAnswerBytes = 256u << 20;

HttpOptions readOptions(const AlertmanagerConfig& c) {
    HttpOptions o = c.http;
    o.maxBodyBytes = std::max(o.maxBodyBytes, kMaxAnswerBytes);
    return o;
}

// "400 Bad Request: silence invalid: ..." from a refused write.
std::string refusal(const std::string& what, const HttpResult& r) {
    std::string out = what + ": " + r.describeFailure();
    if (r.status != 0 && !r.body.empty()) {
        std::string body = r.body.substr(0, 300);
        while (!body.empty() && (body.back() == '\n' || body.back() == ' '))
            body.pop_back();
        out += ": " + body;
    }
    return out;
}

std::string authority(const std::string& url) {
    return QUrl(QString::fromStdString(url)).authority().toStdString();
}

} // namespace

std::string alertmanagerName(const AlertmanagerConfig& config) {
    return "alertmanager " + authority(config.url);
}

std::expected<AlertmanagerConfig, std::string> parseAlertmanagerSpec(const std::string& spec) {
    std::string rest = trimBlanks(spec.starts_with("alertmanager=") ? spec.substr(13) : spec);
    AlertmanagerConfig c;
    const QUrl u(QString::fromStdString(rest), QUrl::StrictMode);
    if (!(rest.starts_with("http://") || rest.starts_with("https://")) || !u.isValid() ||
        u.host().isEmpty())
        return std::unexpected("alertmanager=" + redactUrl(rest) +
                               ": expected Alertmanager's URL (http://host:9093)");
    if (!u.userInfo().isEmpty())
        return std::unexpected("alertmanager=" + redactUrl(rest) +
                               ": credentials in the URL are not taken (use --user and "
                               "--password-file, or --token-file)");
    while (rest.size() > 8 && rest.back() == '/')
        rest.pop_back();
    // Someone who pasted the API's own address means the server.
    for (const std::string_view tail : {"/api/v2/alerts", "/api/v2"})
        if (rest.ends_with(tail)) rest.resize(rest.size() - tail.size());
    c.url = rest;
    return c;
}

AlertmanagerRead readAlertmanagerOnce(const AlertmanagerConfig& c, HttpClient& client,
                                      EntityNameIndex& index) {
    AlertmanagerRead r;
    const HttpOptions options = readOptions(c);
    const std::string alertsUrl =
        c.url + "/api/v2/alerts?active=true&silenced=true&inhibited=true&unprocessed=true";
    const HttpResult alerts = requestBlocking(client, alertsUrl, options);
    r.latencyMs = alerts.latencyMs;
    if (!alerts.ok() || alerts.truncated) {
        r.error = c.url + "/api/v2/alerts: " +
                  (alerts.truncated
                       ? "answer over " + std::to_string(options.maxBodyBytes >> 20) + " MiB, cut"
                       : alerts.describeFailure());
        return r;
    }
    auto answer = parseAlertmanagerAlerts(alerts.body, c.url + "/api/v2/alerts");
    if (!answer) {
        r.error = answer.error();
        return r;
    }
    r.answer = std::move(*answer);
    const HttpResult silences = requestBlocking(client, c.url + "/api/v2/silences", options);
    r.latencyMs += silences.latencyMs;
    if (!silences.ok() || silences.truncated) {
        r.answer.warnings.push_back(c.url + "/api/v2/silences: " + silences.describeFailure() +
                                    " (alerts shown without their silences' words)");
    } else if (auto s = parseAlertmanagerSilences(silences.body, c.url + "/api/v2/silences"); !s) {
        r.answer.warnings.push_back(s.error() + " (alerts shown without their silences' words)");
    } else {
        r.answer.silences = std::move(s->silences);
        r.answer.skipped += s->skipped;
        std::ranges::move(s->warnings, std::back_inserter(r.answer.warnings));
    }
    // Expired silences are history: the board keeps the active and pending ones.
    std::erase_if(r.answer.silences,
                  [](const model::SilenceNote& s) { return s.state == "expired"; });
    attachSilences(r.answer.alerts, r.answer.silences);
    const std::string source = alertmanagerName(c);
    for (auto& a : r.answer.alerts) {
        a.source = source;
        a.severity = severityOf(a, c.severity);
    }
    placeAlerts(r.answer.alerts, index);
    std::ranges::stable_sort(r.answer.alerts, {}, &model::ExternalAlert::startsAt);
    return r;
}

std::expected<std::string, std::string> createSilence(const AlertmanagerConfig& c,
                                                      const NewSilence& silence) {
    HttpOptions o = c.http;
    const HttpResult r = requestBlocking(c.url + "/api/v2/silences", o, nullptr,
                                         silenceRequestBody(silence), "application/json");
    if (!r.ok()) return std::unexpected(refusal("silence refused by " + authority(c.url), r));
    return parseSilenceCreated(r.body);
}

std::expected<void, std::string> expireSilence(const AlertmanagerConfig& c, const std::string& id) {
    HttpOptions o = c.http;
    o.method = "DELETE";
    const HttpResult r = requestBlocking(c.url + "/api/v2/silence/" + urlEncode(id), o, nullptr);
    if (!r.ok()) return std::unexpected(refusal("expiring silence " + id + " refused", r));
    return {};
}

std::expected<void, std::string> postAlerts(const AlertmanagerConfig& c,
                                            const std::vector<PostedAlert>& alerts) {
    const HttpResult r = requestBlocking(c.url + "/api/v2/alerts", c.http, nullptr,
                                         alertsRequestBody(alerts), "application/json");
    if (!r.ok()) return std::unexpected(refusal("alerts refused by " + authority(c.url), r));
    return {};
}

AlertmanagerSource::AlertmanagerSource(AlertmanagerConfig config,
                                       std::shared_ptr<const model::Topology> topology,
                                       SubmitFn submit)
    : m_config(std::move(config)), m_topology(std::move(topology)), m_submit(std::move(submit)) {
    m_health.name = alertmanagerName(m_config);
    m_health.url = redactUrl(m_config.url);
    m_health.targetsTotal = 1;
}

AlertmanagerSource::~AlertmanagerSource() {
    stop();
}

void AlertmanagerSource::start() {
    m_poller.start(m_config.interval, [this] {
        // Made on the poll thread, and destroyed there.
        auto index = std::make_shared<EntityNameIndex>(*m_topology);
        auto client = std::make_shared<HttpClient>();
        return [this, index, client] { pollOnce(*client, *index); };
    });
}

void AlertmanagerSource::stop() {
    m_poller.stop();
}

void AlertmanagerSource::pollSoon() {
    m_poller.pollSoon();
}

void AlertmanagerSource::pollOnce(HttpClient& client, EntityNameIndex& index) {
    AlertmanagerRead read = readAlertmanagerOnce(m_config, client, index);
    if (!read.error.empty()) {
        std::lock_guard lock(m_mutex);
        ++m_health.polls;
        ++m_health.errors;
        m_health.lastError = read.error;
        m_health.lastLatencyMs = read.latencyMs;
        m_health.state = m_health.lastSuccess == 0 || m_health.state != SourceState::Up
                             ? SourceState::Down
                             : SourceState::Degraded;
        m_health.targetsUp = 0;
        return;
    }
    AlertmanagerAnswer& answer = read.answer;
    std::size_t placed = 0, firing = 0, muted = 0;
    std::map<std::string, std::uint64_t> unplaced; // "alert 'X' (instance=...)" -> count
    for (const auto& a : answer.alerts) {
        placed += a.entities.empty() ? 0 : 1;
        firing += a.state == model::AlertState::Firing ? 1 : 0;
        muted += model::alertMuted(a.state) ? 1 : 0;
        if (a.entities.empty()) ++unplaced["alert '" + a.name + "': " + a.placedBy];
    }
    const std::size_t listed = answer.alerts.size();
    auto board = std::make_shared<model::AlertBoard>();
    board->alerts = std::move(answer.alerts);
    board->silences = std::move(answer.silences);
    model::SampleBatch batch;
    batch.source = m_config.sourceId;
    batch.alerts = std::move(board);
    const bool accepted = m_submit && m_submit(std::move(batch));

    std::lock_guard lock(m_mutex);
    ++m_health.polls;
    m_health.samples += listed;
    m_health.mapped += placed;
    m_health.unmapped += listed - placed;
    m_health.badLines += answer.skipped;
    if (!accepted) m_health.dropped += listed;
    m_health.lastLatencyMs = read.latencyMs;
    m_health.lastSuccess = wallNow();
    m_health.targetsUp = 1;
    m_health.conditions = {std::to_string(firing) + " firing, " + std::to_string(muted) +
                           " silenced or inhibited, " + std::to_string(listed - placed) +
                           " not on this floor"};
    if (!answer.warnings.empty()) {
        m_health.formatWarnings += answer.warnings.size();
        m_health.lastFormatWarning = answer.warnings.back();
    }
    m_health.state = answer.skipped == 0 ? SourceState::Up : SourceState::Degraded;
    if (answer.skipped) m_health.lastError = answer.warnings.front();
    m_health.unresolved.clear();
    for (const auto& [what, n] : unplaced)
        m_health.unresolved.push_back({what, n});
    std::ranges::stable_sort(m_health.unresolved, std::greater<>{}, &NameCount::count);
    if (m_health.unresolved.size() > 20) m_health.unresolved.resize(20);
}

std::vector<SourceHealth> AlertmanagerSource::health() const {
    std::lock_guard lock(m_mutex);
    return {m_health};
}

} // namespace ft::importers
