#include "scrape_source.h"

#include "importers/formats/prometheus_text.h"
#include "importers/mapping/series_mapper.h"
#include "importers/net/secrets.h"

#include <QTimer>
#include <QUrl>
#include <algorithm>
#include <charconv>
#include <optional>

namespace ft::importers {

namespace {

// Maps each sample as the parser hands it over (the parser's views are only valid during the
// callback) and counts the lines that did not parse.
class MappingSink final : public prom::SampleSink {
public:
    MappingSink(SeriesMapper& mapper, model::TimeNs receivedAt, std::vector<model::Sample>& out)
        : m_mapper(mapper), m_receivedAt(receivedAt), m_out(out) {}

    void sample(const prom::Sample& s) override {
        ++samples;
        m_mapper.map(s, m_receivedAt, m_out);
    }
    void error(const prom::ParseError& e) override {
        ++badLines;
        if (firstError.empty()) firstError = where(e);
    }
    void warning(const prom::ParseError& w) override {
        ++warnings;
        if (firstWarning.empty()) firstWarning = where(w);
    }
    static std::string where(const prom::ParseError& e) {
        return "line " + std::to_string(e.line) + ":" + std::to_string(e.column) + ": " + e.message;
    }

    std::uint64_t samples = 0, badLines = 0, warnings = 0;
    std::string firstError, firstWarning;

private:
    SeriesMapper& m_mapper;
    model::TimeNs m_receivedAt;
    std::vector<model::Sample>& m_out;
};

std::string hostPortOf(const std::string& url) {
    const QUrl u(QString::fromStdString(url));
    return u.host().toStdString() + ":" +
           std::to_string(u.port(u.scheme() == QLatin1String("https") ? 443 : 80));
}

} // namespace

std::expected<std::vector<std::string>, std::string> parseScrapeSpec(const std::string& spec) {
    std::string_view rest = spec;
    if (rest.starts_with("scrape=")) rest.remove_prefix(7);
    std::vector<std::string> urls;
    while (true) {
        const std::size_t comma = rest.find(',');
        const std::string entry = trimBlanks(rest.substr(0, comma));
        if (entry.empty())
            return std::unexpected("scrape: empty entry in '" + spec + "' (expected URL[,URL...])");
        std::string url = entry;
        const std::size_t schemeEnd = url.find("://");
        if (schemeEnd == std::string::npos) {
            url = "http://" + url;
        } else {
            const std::string scheme = url.substr(0, schemeEnd);
            if (scheme != "http" && scheme != "https")
                return std::unexpected("scrape: '" + entry + "' is not an http:// or https:// URL");
        }
        const std::size_t hostStart = url.find("://") + 3;
        std::size_t pathStart = url.find('/', hostStart);
        if (pathStart == std::string::npos) {
            url += "/metrics";
            pathStart = url.find('/', hostStart);
        }
        std::string authority = url.substr(hostStart, pathStart - hostStart);
        if (authority.find('@') != std::string::npos)
            return std::unexpected("scrape: '" + redactUrl(entry) +
                                   "': credentials in the URL are not supported (use --user and "
                                   "--password-file, or --token-file)");
        // host, host:port, [v6], [v6]:port
        std::string host = authority, port;
        if (authority.starts_with('[')) {
            const std::size_t close = authority.find(']');
            if (close == std::string::npos)
                return std::unexpected("scrape: '" + entry + "': unclosed '[' in the host");
            host = authority.substr(0, close + 1);
            if (close + 1 < authority.size()) {
                if (authority[close + 1] != ':')
                    return std::unexpected("scrape: '" + entry + "': junk after the IPv6 address");
                port = authority.substr(close + 2);
            }
        } else if (const std::size_t colon = authority.rfind(':'); colon != std::string::npos) {
            host = authority.substr(0, colon);
            port = authority.substr(colon + 1);
        }
        if (host.empty()) return std::unexpected("scrape: '" + entry + "' has no host");
        if (port.empty() && authority.find(':') == std::string::npos) {
            // A bare host is a dcgm-exporter on its usual port; a full URL keeps its scheme's.
            if (schemeEnd == std::string::npos) port = std::to_string(kDcgmExporterPort);
        } else {
            int value = 0;
            const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
            if (port.empty() || ec != std::errc{} || end != port.data() + port.size() ||
                value < 1 || value > 65535)
                return std::unexpected("scrape: '" + entry + "': port '" + port +
                                       "' is not a number from 1 to 65535");
        }
        url = url.substr(0, hostStart) + host + (port.empty() ? "" : ":" + port) +
              url.substr(pathStart);
        if (!QUrl(QString::fromStdString(url), QUrl::StrictMode).isValid())
            return std::unexpected("scrape: '" + entry + "' is not a valid URL");
        urls.push_back(std::move(url));
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
    }
    return urls;
}

ScrapeSource::ScrapeSource(ScrapeConfig config, MappingRules rules,
                           std::shared_ptr<const model::Topology> topology, SubmitFn submit)
    : m_config(std::move(config)), m_topology(std::move(topology)),
      m_mapper(std::make_unique<SeriesMapper>(std::move(rules), *m_topology)),
      m_submit(std::move(submit)), m_loop("scrape") {
    m_targets.resize(m_config.urls.size());
    m_health.resize(m_config.urls.size());
    for (std::size_t i = 0; i < m_config.urls.size(); ++i) {
        m_targets[i].url = m_config.urls[i];
        m_health[i].name = "scrape " + hostPortOf(m_config.urls[i]);
        m_health[i].url = redactUrl(m_config.urls[i]);
        m_health[i].targetsTotal = 1;
    }
}

ScrapeSource::~ScrapeSource() {
    stop();
}

void ScrapeSource::start() {
    if (m_loop.running()) return;
    m_loop.start([this] { setupOnThread(); });
}

void ScrapeSource::stop() {
    m_loop.stop([this] { teardownOnThread(); });
}

std::vector<FamilyMapping> ScrapeSource::mappingReport() const {
    std::lock_guard lock(m_mutex);
    return m_mapping;
}

std::vector<NameCount> ScrapeSource::unknownHosts() const {
    std::lock_guard lock(m_mutex);
    return m_unknownHosts;
}

std::vector<SourceHealth> ScrapeSource::health() const {
    std::lock_guard lock(m_mutex);
    return m_health;
}

void ScrapeSource::setupOnThread() {
    m_http = std::make_unique<HttpClient>();
    const std::size_t n = m_targets.size();
    for (std::size_t i = 0; i < n; ++i) {
        Target& t = m_targets[i];
        t.timer = std::make_unique<QTimer>();
        t.timer->setSingleShot(true);
        t.timer->setTimerType(Qt::PreciseTimer);
        QObject::connect(t.timer.get(), &QTimer::timeout, m_loop.context(), [this, i] { poll(i); });
        t.inFlight = false;
        // Spread the first polls over one interval: a floor of exporters should not be hit
        // in the same millisecond every second.
        schedule(i, m_config.interval * static_cast<long>(i) /
                        static_cast<long>(std::max<std::size_t>(n, 1)));
    }
}

void ScrapeSource::teardownOnThread() {
    m_http.reset(); // aborts what is in flight, without callbacks
    for (Target& t : m_targets) {
        t.timer.reset();
        t.inFlight = false;
    }
}

void ScrapeSource::schedule(std::size_t index, std::chrono::milliseconds delay) {
    m_targets[index].timer->start(std::max(delay, std::chrono::milliseconds(0)));
}

void ScrapeSource::poll(std::size_t index) {
    Target& t = m_targets[index];
    if (t.inFlight || !m_http) return;
    t.inFlight = true;
    t.pollStarted = std::chrono::steady_clock::now();
    {
        std::lock_guard lock(m_mutex);
        ++m_health[index].polls;
    }
    HttpOptions options = m_config.http;
    options.timeout = m_config.timeout;
    options.maxBodyBytes = m_config.maxBodyBytes;
    // Prometheus' own preference: the classic text first; OpenMetrics parses too.
    options.headers.emplace_back("Accept", "text/plain;version=0.0.4;q=0.9,application/"
                                           "openmetrics-text;version=1.0.0;q=0.5,*/*;q=0.1");
    m_http->request(t.url, options, [this, index](const HttpResult& r) { finished(index, r); });
}

void ScrapeSource::finished(std::size_t index, const HttpResult& r) {
    Target& t = m_targets[index];
    t.inFlight = false;
    if (!r.ok()) {
        ++t.failures;
        const std::string why = r.describeFailure();
        {
            std::lock_guard lock(m_mutex);
            SourceHealth& h = m_health[index];
            ++h.errors;
            h.lastError = why;
            h.lastLatencyMs = r.latencyMs;
            h.state = t.failures >= m_config.downAfterFailures ? SourceState::Down
                      : t.everAnswered                         ? SourceState::Degraded
                                                               : SourceState::Connecting;
            h.targetsUp = 0;
        }
        schedule(index, backoff(t.failures));
        return;
    }

    t.failures = 0;
    t.everAnswered = true;
    std::string_view body = r.body;
    if (r.truncated) {
        // The last line was cut in the middle; what comes before it is whole.
        const std::size_t lastNewline = body.rfind('\n');
        body = lastNewline == std::string_view::npos ? std::string_view{}
                                                     : body.substr(0, lastNewline + 1);
    }
    const prom::Format format = r.contentType.find("openmetrics") != std::string::npos
                                    ? prom::Format::OpenMetrics
                                    : prom::Format::Auto;
    m_scratch.clear();
    const MapperStats before = m_mapper->stats();
    MappingSink sink(*m_mapper, r.receivedAt, m_scratch);
    // One exporter's answer: what the specifications forbid in one exposition is reported.
    prom::parse(body, sink, format, prom::Scope::Exposition);
    const MapperStats& after = m_mapper->stats();
    const std::uint64_t mapped = m_scratch.size();
    for (const auto& placed : m_mapper->takePlacements(r.receivedAt))
        m_scratch.push_back(placed);
    const std::uint64_t unmapped = (after.unmapped - before.unmapped) +
                                   (after.unresolved - before.unresolved) +
                                   (after.invalid - before.invalid);
    const std::uint64_t outOfOrder = after.outOfOrder - before.outOfOrder;
    const std::uint64_t dropped =
        submitInBatches(m_submit, m_config.sourceId, m_scratch, m_config.maxBatchSamples);
    // The jobs and slices that changed; the mapping report every few seconds.
    auto mapping = m_mapper->handOnNews(m_submit, m_config.sourceId, m_mappingAt);

    {
        std::lock_guard lock(m_mutex);
        if (mapping) m_mapping = std::move(*mapping);
        SourceHealth& h = m_health[index];
        if (after.unresolved != before.unresolved) {
            m_unknownHosts = m_mapper->topUnknownHosts(10);
            // Why series were not placed (an unknown host, a GPU past its tray), for the HUD.
            h.unresolved = m_mapper->topUnresolved(10);
        }
        // GPUs the inventory has on another host than the exporter says: moved, or stale.
        h.conditions.clear();
        for (const auto& moved : m_mapper->topMovedGpus(10))
            h.conditions.push_back("GPU moved? " + moved.name);
        h.samples += sink.samples;
        h.mapped += mapped;
        h.unmapped += unmapped;
        h.badLines += sink.badLines;
        // A page cut at the cap breaks rules at the cut (a histogram without its +Inf bucket, no
        // # EOF) that are the cut's, not the exporter's: not counted.
        if (r.truncated) sink.warnings = 0;
        h.formatWarnings += sink.warnings;
        if (sink.warnings > 0)
            h.lastFormatWarning = std::to_string(sink.warnings) +
                                  " lines break the exposition format, first: " + sink.firstWarning;
        h.outOfOrder += outOfOrder;
        h.dropped += dropped;
        h.lastLatencyMs = r.latencyMs;
        h.lastSuccess = r.receivedAt;
        h.targetsUp = 1;
        h.state = SourceState::Up;
        if (r.truncated) {
            ++h.errors;
            h.lastError =
                "page over " + std::to_string(m_config.maxBodyBytes) + " bytes, cut there";
            h.state = SourceState::Degraded;
        } else if (sink.badLines > 0) {
            h.lastError = std::to_string(sink.badLines) + " bad lines, first: " + sink.firstError;
            h.state = SourceState::Degraded;
        }
    }
    // A page over the cap costs the cap every poll (a 1 GiB page read to 64 MiB once a second
    // is a core's worth of copying and parsing on a small machine): what came is used, and the
    // target is polled with the backoff of a failing one until a page fits again.
    // At most four intervals apart, so the part that came stays fresh (live data reads as stale
    // after 15 s).
    t.cuts = r.truncated ? t.cuts + 1 : 0;
    if (t.cuts > 0) {
        schedule(index, std::min(backoff(t.cuts), 4 * m_config.interval));
        return;
    }
    const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - t.pollStarted);
    schedule(index, m_config.interval - elapsed);
}

std::chrono::milliseconds ScrapeSource::backoff(int times) const {
    // Capped exponential: interval, 2x, 4x, ... up to maxBackoff.
    const int shift = std::clamp(times - 1, 0, 20);
    return std::max(m_config.interval,
                    std::min(m_config.maxBackoff, m_config.interval * (1L << shift)));
}

} // namespace ft::importers
