#include "mqtt_source.h"

#include "importers/formats/bms_message.h"
#include "importers/mapping/mapping_rules.h"
#include "importers/net/http_client.h"
#include "importers/net/wall_clock.h"

#include <charconv>
#include <mosquitto.h>
#include <unistd.h>

namespace ft::importers {

namespace {

using SteadyClock = std::chrono::steady_clock;

// A broker that has never answered reads Down after this long (libmosquitto reports no
// callback for a connect attempt that fails).
constexpr auto kConnectGrace = std::chrono::seconds(3);
// Bad payloads within this window keep a connected broker Degraded.
constexpr auto kBadWindow = std::chrono::seconds(10);

std::atomic<unsigned> g_clientCounter{0};

} // namespace

std::expected<std::vector<MqttBroker>, std::string> parseMqttSpec(const std::string& spec) {
    std::string_view rest = spec;
    if (rest.starts_with("mqtt=")) rest.remove_prefix(5);
    std::vector<MqttBroker> out;
    while (true) {
        const std::size_t comma = rest.find(',');
        std::string entry = trimBlanks(rest.substr(0, comma));
        if (entry.starts_with("mqtt://")) entry.erase(0, 7);
        if (entry.empty())
            return std::unexpected("mqtt: empty entry in '" + spec +
                                   "' (expected HOST[:PORT][,HOST[:PORT]...])");
        MqttBroker b;
        std::string port;
        if (entry.starts_with('[')) {
            const std::size_t close = entry.find(']');
            if (close == std::string::npos)
                return std::unexpected("mqtt: '" + entry + "': unclosed '[' in the host");
            b.host = entry.substr(1, close - 1);
            if (close + 1 < entry.size()) {
                if (entry[close + 1] != ':')
                    return std::unexpected("mqtt: '" + entry + "': junk after the IPv6 address");
                port = entry.substr(close + 2);
            }
        } else if (const std::size_t colon = entry.rfind(':'); colon != std::string::npos) {
            b.host = entry.substr(0, colon);
            port = entry.substr(colon + 1);
            if (port.empty()) return std::unexpected("mqtt: '" + entry + "': empty port");
        } else {
            b.host = entry;
        }
        if (b.host.empty() || b.host.find_first_of("/ ") != std::string::npos)
            return std::unexpected("mqtt: '" + entry + "' has no valid host");
        if (!port.empty()) {
            const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), b.port);
            if (ec != std::errc{} || end != port.data() + port.size() || b.port < 1 ||
                b.port > 65535)
                return std::unexpected("mqtt: '" + entry + "': port '" + port +
                                       "' is not a number from 1 to 65535");
        }
        out.push_back(std::move(b));
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
    }
    return out;
}

struct MqttSource::Broker {
    MqttSource* owner = nullptr;
    std::size_t index = 0;
    MqttBroker address;
    mosquitto* mosq = nullptr;
    std::unique_ptr<BmsMapper> mapper;  // network thread
    std::vector<model::Sample> scratch; // network thread

    std::mutex pendingMutex;
    std::vector<model::Sample> pending; // guarded by pendingMutex

    // Guarded by owner->m_mutex.
    SourceHealth health;
    bool running = false; // its network thread runs
    bool connected = false;
    bool everConnected = false;
    SteadyClock::time_point since; // start, or the loss of the connection
    SteadyClock::time_point lastBad{};
    bool anyBad = false;
};

MqttSource::MqttSource(MqttConfig config, const MappingRules& rules,
                       std::shared_ptr<const model::Topology> topology, SubmitFn submit)
    : m_config(std::move(config)), m_topology(std::move(topology)), m_submit(std::move(submit)) {
    for (std::size_t i = 0; i < m_config.brokers.size(); ++i) {
        auto b = std::make_unique<Broker>();
        b->owner = this;
        b->index = i;
        b->address = m_config.brokers[i];
        b->mapper = std::make_unique<BmsMapper>(rules, *m_topology, m_config.acceptBadQuality);
        b->health.name = "mqtt " + b->address.host + ":" + std::to_string(b->address.port);
        b->health.url = (m_config.caFile.empty() ? "mqtt://" : "mqtts://") + b->address.host + ":" +
                        std::to_string(b->address.port);
        b->health.targetsTotal = 1;
        m_brokers.push_back(std::move(b));
    }
}

MqttSource::~MqttSource() {
    stop();
}

void MqttSource::start() {
    if (m_started) return;
    static std::once_flag libInit;
    std::call_once(libInit, [] { mosquitto_lib_init(); }); // process-wide; never cleaned up
    m_started = true;
    for (auto& b : m_brokers) {
        {
            std::lock_guard lock(m_mutex);
            b->since = SteadyClock::now();
            b->connected = false;
            b->health.state = SourceState::Connecting;
        }
        const std::string id = m_config.clientId + "-" + std::to_string(::getpid()) + "-" +
                               std::to_string(g_clientCounter++);
        b->mosq = mosquitto_new(id.c_str(), true, b.get());
        if (!b->mosq) {
            std::lock_guard lock(m_mutex);
            b->health.state = SourceState::Down;
            b->health.lastError = "cannot create an MQTT client";
            continue;
        }
        mosquitto_int_option(b->mosq, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311);
        mosquitto_connect_callback_set(b->mosq, &MqttSource::onConnect);
        mosquitto_disconnect_callback_set(b->mosq, &MqttSource::onDisconnect);
        mosquitto_message_callback_set(b->mosq, &MqttSource::onMessage);
        mosquitto_reconnect_delay_set(
            b->mosq, static_cast<unsigned>(std::max(1, m_config.reconnectDelayS)),
            static_cast<unsigned>(std::max(m_config.reconnectDelayS, m_config.reconnectDelayMaxS)),
            true);
        if (!m_config.username.empty())
            mosquitto_username_pw_set(b->mosq, m_config.username.c_str(),
                                      m_config.password.empty() ? nullptr
                                                                : m_config.password.c_str());
        if (!m_config.caFile.empty()) {
            if (const int rc = mosquitto_tls_set(b->mosq, m_config.caFile.c_str(), nullptr, nullptr,
                                                 nullptr, nullptr);
                rc != MOSQ_ERR_SUCCESS) {
                std::lock_guard lock(m_mutex);
                b->health.lastError = std::string("TLS setup: ") + mosquitto_strerror(rc);
            }
            if (m_config.insecureSkipVerify) mosquitto_tls_insecure_set(b->mosq, true);
        }
        // The first attempt may fail (broker not up yet); the network thread keeps trying.
        if (const int rc = mosquitto_connect_async(b->mosq, b->address.host.c_str(),
                                                   b->address.port, m_config.keepaliveSeconds);
            rc != MOSQ_ERR_SUCCESS) {
            std::lock_guard lock(m_mutex);
            b->health.lastError = std::string("cannot connect: ") + mosquitto_strerror(rc);
        }
        const int rc = mosquitto_loop_start(b->mosq);
        std::lock_guard lock(m_mutex);
        b->running = rc == MOSQ_ERR_SUCCESS;
        if (!b->running) {
            b->health.state = SourceState::Down;
            b->health.lastError =
                std::string("cannot start the MQTT thread: ") + mosquitto_strerror(rc);
        }
    }
    {
        std::lock_guard lock(m_flushMutex);
        m_stopFlusher = false;
    }
    m_flusher = std::thread([this] { flusherMain(); });
}

void MqttSource::stop() {
    if (!m_started) return;
    for (auto& b : m_brokers) {
        if (!b->mosq) continue;
        // Disconnect first: the network thread then leaves its loop (a reconnect wait included).
        mosquitto_disconnect(b->mosq);
        mosquitto_loop_stop(b->mosq, false);
        mosquitto_destroy(b->mosq);
        b->mosq = nullptr;
        std::lock_guard lock(m_mutex);
        b->connected = false;
        b->running = false;
    }
    {
        std::lock_guard lock(m_flushMutex);
        m_stopFlusher = true;
    }
    m_flushWake.notify_all();
    if (m_flusher.joinable()) m_flusher.join();
    flush(); // what arrived last
    m_started = false;
}

std::vector<SourceHealth> MqttSource::health() const {
    std::lock_guard lock(m_mutex);
    std::vector<SourceHealth> out;
    out.reserve(m_brokers.size());
    for (const auto& b : m_brokers)
        out.push_back(b->health);
    return out;
}

void MqttSource::onConnect(mosquitto* mosq, void* self, int rc) {
    runBehindTheWindow(); // libmosquitto's own loop thread, where messages are parsed
    auto* b = static_cast<Broker*>(self);
    MqttSource& s = *b->owner;
    if (rc != 0) {
        std::lock_guard lock(s.m_mutex);
        b->health.state = SourceState::Down;
        b->health.lastError =
            std::string("broker refused the connection: ") + mosquitto_connack_string(rc);
        ++b->health.errors;
        return;
    }
    // A clean session forgets subscriptions: subscribe on every (re)connect. Retained
    // metadata arrives again with it.
    std::string subscribeError;
    for (const std::string& topic : s.m_config.topics)
        if (const int r = mosquitto_subscribe(mosq, nullptr, topic.c_str(), s.m_config.qos);
            r != MOSQ_ERR_SUCCESS)
            subscribeError = "cannot subscribe to " + topic + ": " + mosquitto_strerror(r);
    std::lock_guard lock(s.m_mutex);
    b->connected = true;
    b->everConnected = true;
    b->health.state = subscribeError.empty() ? SourceState::Up : SourceState::Degraded;
    if (!subscribeError.empty()) {
        b->health.lastError = subscribeError;
        ++b->health.errors;
    }
    b->health.targetsUp = 1;
    b->health.lastSuccess = wallNow();
}

void MqttSource::onDisconnect(mosquitto*, void* self, int rc) {
    auto* b = static_cast<Broker*>(self);
    MqttSource& s = *b->owner;
    std::lock_guard lock(s.m_mutex);
    b->connected = false;
    b->health.targetsUp = 0;
    b->since = SteadyClock::now();
    if (rc == 0) return; // we asked for it (stop)
    b->health.state = SourceState::Down;
    b->health.lastError =
        std::string("connection lost (") + mosquitto_strerror(rc) + "), reconnecting";
    ++b->health.errors;
}

void MqttSource::onMessage(mosquitto*, void* self, const mosquitto_message* message) {
    auto* b = static_cast<Broker*>(self);
    MqttSource& s = *b->owner;
    const std::string_view topic = message->topic ? message->topic : "";
    const std::string_view payload(static_cast<const char*>(message->payload),
                                   static_cast<std::size_t>(std::max(message->payloadlen, 0)));
    if (payload.size() > s.m_config.maxPayloadBytes) {
        std::lock_guard lock(s.m_mutex);
        ++b->health.polls;
        ++b->health.badLines;
        b->health.lastError = "message of " + std::to_string(payload.size()) + " bytes on " +
                              std::string(topic.substr(0, 120)) + " over the " +
                              std::to_string(s.m_config.maxPayloadBytes) + "-byte cap; not read";
        b->lastBad = SteadyClock::now();
        b->anyBad = true;
        return;
    }
    auto parsed = parseBmsMessage(topic, payload);
    if (!parsed) {
        std::lock_guard lock(s.m_mutex);
        ++b->health.polls;
        ++b->health.badLines;
        b->health.lastError = parsed.error().toString();
        b->lastBad = SteadyClock::now();
        b->anyBad = true;
        return;
    }
    b->scratch.clear();
    const std::uint64_t outOfOrderBefore = b->mapper->mapper().stats().outOfOrder;
    const BmsMapper::Outcome outcome = b->mapper->apply(*parsed, b->scratch);
    const std::uint64_t outOfOrder = b->mapper->mapper().stats().outOfOrder - outOfOrderBefore;
    std::uint64_t dropped = 0;
    bool wake = false;
    if (!b->scratch.empty()) {
        std::lock_guard lock(b->pendingMutex);
        const std::size_t room = s.m_config.maxPendingSamples -
                                 std::min(s.m_config.maxPendingSamples, b->pending.size());
        const std::size_t take = std::min(room, b->scratch.size());
        b->pending.insert(b->pending.end(), b->scratch.begin(),
                          b->scratch.begin() + static_cast<std::ptrdiff_t>(take));
        dropped = b->scratch.size() - take;
        wake = b->pending.size() >= 65536;
    }
    {
        std::lock_guard lock(s.m_mutex);
        SourceHealth& h = b->health;
        ++h.polls;
        h.lastSuccess = wallNow();
        // Metadata can release a value that waited for it: its samples count as mapped.
        h.mapped += b->scratch.size();
        h.dropped += dropped;
        if (outcome != BmsMapper::Outcome::Metadata) {
            ++h.samples;
            h.outOfOrder += outOfOrder;
            if (outcome == BmsMapper::Outcome::BadQuality ||
                outcome == BmsMapper::Outcome::NoValue || outcome == BmsMapper::Outcome::Unmapped ||
                outcome == BmsMapper::Outcome::Unresolved)
                ++h.unmapped;
        }
    }
    if (wake) s.m_flushWake.notify_one();
}

void MqttSource::flush() {
    for (auto& b : m_brokers) {
        std::vector<model::Sample> batch;
        {
            std::lock_guard lock(b->pendingMutex);
            batch.swap(b->pending);
        }
        const std::uint64_t refused =
            batch.empty() ? 0 : submitInBatches(m_submit, m_config.sourceId, batch, 65536);
        const auto now = SteadyClock::now();
        std::lock_guard lock(m_mutex);
        SourceHealth& h = b->health;
        h.dropped += refused;
        if (b->connected) {
            h.state = b->anyBad && now - b->lastBad < kBadWindow ? SourceState::Degraded
                                                                 : SourceState::Up;
        } else if (b->running && now - b->since > kConnectGrace && h.state != SourceState::Down) {
            h.state = SourceState::Down;
            if (h.lastError.empty() || b->everConnected)
                h.lastError = "cannot reach " + b->address.host + ":" +
                              std::to_string(b->address.port) + " (retrying)";
        }
    }
}

void MqttSource::flusherMain() {
    runBehindTheWindow();
    std::unique_lock lock(m_flushMutex);
    while (!m_stopFlusher) {
        m_flushWake.wait_for(lock, m_config.flushInterval);
        if (m_stopFlusher) break;
        lock.unlock();
        flush();
        lock.lock();
    }
}

} // namespace ft::importers
