#pragma once
// MqttSource: the building-management bus (NVIDIA DSX Exchange "BMS Event Bus", MQTT 3.1.1) as a
// live source. One libmosquitto client per broker, each on libmosquitto's own network thread
// (mosquitto_loop_start), subscribed to the BMS value and metadata topics; messages are parsed
// and mapped (bms_message.h: the retained metadata says which rack a point belongs to) on that
// thread and gathered; a flusher thread hands them to the sink every flushInterval, so a bus
// publishing thousands of points a second becomes a few batches, not a batch per message. A
// lost broker reads Down at once; libmosquitto reconnects with capped exponential delays and
// resubscribes. start()/stop() from the owner, health() from any thread.
#include "importers/mapping/mapping_rules.h"
#include "live_source.h"
#include "model/topology.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <expected>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

struct mosquitto;
struct mosquitto_message;

namespace ft::importers {

class BmsMapper; // bms_message.h

constexpr int kMqttDefaultPort = 1883;

struct MqttBroker {
    std::string host;
    int port = kMqttDefaultPort;
};

// "--source mqtt=HOST[:PORT][,HOST[:PORT]...]": the part after "mqtt=" (or the whole argument).
std::expected<std::vector<MqttBroker>, std::string> parseMqttSpec(const std::string& spec);

struct MqttConfig {
    std::vector<MqttBroker> brokers;
    // Metadata is retained on the bus and says what a value belongs to: subscribe to both.
    std::vector<std::string> topics{"BMS/v1/PUB/Value/#", "BMS/v1/PUB/Metadata/#"};
    int qos = 1;
    std::string clientId = "floortwin"; // a per-process, per-broker suffix keeps ids unique
    std::string username, password;     // empty: anonymous
    std::string caFile;                 // non-empty: TLS with this CA bundle
    bool insecureSkipVerify = false;
    int keepaliveSeconds = 30;
    int reconnectDelayS = 1, reconnectDelayMaxS = 30;
    std::chrono::milliseconds flushInterval{100};
    std::size_t maxPendingSamples = 1u << 20; // past this (sink stalled) new samples are dropped
    // A BMS message is a few hundred bytes of JSON; one over this is counted bad, not parsed.
    std::size_t maxPayloadBytes = 256u << 10;
    std::uint16_t sourceId = 0;
    bool acceptBadQuality = false;
};

class MqttSource final : public LiveSource {
public:
    // Each broker maps with its own BmsMapper over `rules` on `topology`.
    MqttSource(MqttConfig config, const MappingRules& rules,
               std::shared_ptr<const model::Topology> topology, SubmitFn submit);
    ~MqttSource() override;
    MqttSource(const MqttSource&) = delete;
    MqttSource& operator=(const MqttSource&) = delete;

    void start() override;
    void stop() override;
    // One per broker; polls counts messages received.
    std::vector<SourceHealth> health() const override;

private:
    struct Broker;
    static void onConnect(mosquitto*, void* self, int rc);
    static void onDisconnect(mosquitto*, void* self, int rc);
    static void onMessage(mosquitto*, void* self, const mosquitto_message* message);
    void flusherMain();
    void flush();

    MqttConfig m_config;
    std::shared_ptr<const model::Topology> m_topology; // outlives the mappers, which refer to it
    std::vector<std::unique_ptr<Broker>> m_brokers;
    SubmitFn m_submit;

    std::thread m_flusher;
    std::mutex m_flushMutex;
    std::condition_variable m_flushWake;
    bool m_stopFlusher = false;
    bool m_started = false;

    mutable std::mutex m_mutex; // health of every broker
};

} // namespace ft::importers
