#include "wall_group.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QHostInfo>
#include <QMessageAuthenticationCode>
#include <QNetworkDatagram>
#include <QRandomGenerator>
#include <QUdpSocket>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace ft::app {

namespace {

using Json = nlohmann::json;
constexpr int kVersion = 1;
constexpr int kHelloMs = 200;
constexpr std::int64_t kAliveNs = 1'000'000'000;    // heard within this: alive
constexpr std::int64_t kClaimAfterNs = 700'000'000; // listen this long before claiming
constexpr int kStateMs = 33;                        // at most 30 states a second
constexpr std::int64_t kIdleStateNs = 500'000'000;  // unchanged: twice a second
constexpr std::size_t kMaxPeers = 256;

std::string keyOf(const QHostAddress& a, quint16 port) {
    return a.toString().toStdString() + ":" + std::to_string(port);
}

} // namespace

std::string wallStateJson(const WallState& s) {
    Json j{{"t", s.time},          {"pos", s.position},  {"since", s.shownSince},
           {"sent", s.sentAt},     {"speed", s.speed},   {"paused", s.paused},
           {"reverse", s.reverse}, {"layers", s.layers}, {"metric", s.metric}};
    if (s.hasCamera) j["camera"] = s.camera;
    if (!s.selection.empty()) j["select"] = s.selection;
    if (!s.caption.empty()) j["caption"] = s.caption;
    if (s.focus)
        j["focus"] = {{"critical", s.focusCritical},
                      {"title", s.focusTitle},
                      {"detail", s.focusDetail},
                      {"index", s.focusIndex},
                      {"of", s.focusOf}};
    if (s.storyClock >= 0) j["story"] = s.storyClock;
    return j.dump();
}

std::optional<WallState> wallStateFrom(const std::string& text) {
    Json j = Json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return std::nullopt;
    try {
        WallState s;
        s.time = j.at("t").get<std::int64_t>();
        s.position = j.at("pos").get<std::int64_t>();
        s.shownSince = j.at("since").get<std::int64_t>();
        s.sentAt = j.at("sent").get<std::int64_t>();
        s.speed = j.at("speed").get<double>();
        s.paused = j.at("paused").get<bool>();
        s.reverse = j.at("reverse").get<bool>();
        s.layers = j.at("layers").get<std::vector<std::string>>();
        s.metric = j.at("metric").get<std::string>();
        if (j.contains("camera")) {
            s.camera = j["camera"].get<std::array<double, 7>>();
            s.hasCamera = true;
        }
        s.selection = j.value("select", "");
        s.caption = j.value("caption", "");
        if (j.contains("focus")) {
            const auto& f = j["focus"];
            s.focus = true;
            s.focusCritical = f.at("critical").get<bool>();
            s.focusTitle = f.at("title").get<std::string>();
            s.focusDetail = f.at("detail").get<std::string>();
            s.focusIndex = f.at("index").get<int>();
            s.focusOf = f.at("of").get<int>();
        }
        s.storyClock = j.value("story", -1.0);
        // What a leader can send: a speed a transport takes, a camera that can be placed.
        const bool finite =
            std::ranges::all_of(s.camera, [](double v) { return std::isfinite(v); });
        if (!(s.speed > 0 && s.speed <= 10000) || !finite ||
            (s.hasCamera && (s.camera[3] <= 0.1 || s.camera[6] <= 1 || s.camera[6] >= 179)))
            return std::nullopt;
        return s;
    } catch (const Json::exception&) {
        return std::nullopt;
    }
}

std::int64_t WallGroup::wallNowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

WallGroup::WallGroup(WallConfig config, bool observer, QObject* parent)
    : QObject(parent), m_config(std::move(config)), m_observer(observer) {
    m_helloTimer.setInterval(kHelloMs);
    connect(&m_helloTimer, &QTimer::timeout, this, &WallGroup::tick);
    m_stateTimer.setInterval(kStateMs);
    m_stateTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_stateTimer, &QTimer::timeout, this, &WallGroup::sendState);
}

WallGroup::~WallGroup() {
    stop();
}

bool WallGroup::start(std::string* error) {
    // Each screen's address (a name is looked up once, here).
    m_addresses.clear();
    for (const auto& s : m_config.screens) {
        const QString host = QString::fromStdString(s.host);
        QHostAddress address(host == "localhost" ? QString("127.0.0.1") : host);
        if (address.isNull()) {
            const auto found = QHostInfo::fromName(host).addresses();
            if (found.isEmpty()) {
                if (error) *error = "wall: screen host '" + s.host + "' is not found";
                return false;
            }
            address = found.front();
        }
        m_addresses.push_back(address);
    }
    m_socket = std::make_unique<QUdpSocket>();
    const WallScreen& me = m_config.me();
    // A screen listens on its own port (the one its neighbours send to); an observer anywhere.
    const QHostAddress bindTo = me.host == "127.0.0.1" || me.host == "localhost"
                                    ? QHostAddress(QHostAddress::LocalHost)
                                    : QHostAddress(QHostAddress::AnyIPv4);
    if (!m_socket->bind(bindTo, m_observer ? 0 : me.port)) {
        if (error)
            *error = "wall: screen " + std::to_string(me.col) + "," + std::to_string(me.row) +
                     " cannot listen on UDP port " + std::to_string(me.port) + ": " +
                     m_socket->errorString().toStdString() +
                     " (is another process this screen of the group?)";
        m_socket.reset();
        return false;
    }
    connect(m_socket.get(), &QUdpSocket::readyRead, this, &WallGroup::onReadable);
    m_startedAt = wallNowNs();
    m_helloTimer.start();
    m_stateTimer.start();
    tick();
    return true;
}

void WallGroup::stop() {
    m_helloTimer.stop();
    m_stateTimer.stop();
    m_socket.reset();
}

QByteArray WallGroup::envelope(const char* kind) const {
    Json j{{"ft", "wall"},
           {"v", kVersion},
           {"g", m_config.group},
           {"kind", kind},
           {"screen", m_observer ? -1 : m_config.self},
           {"pid", static_cast<long long>(getpid())},
           {"lead", m_leading},
           {"term", m_leading ? m_myTerm : m_term},
           {"want", m_config.lead && !m_observer}};
    return QByteArray::fromStdString(j.dump());
}

void WallGroup::sendToAll(const QByteArray& unsigned_, bool screensToo) {
    if (!m_socket) return;
    const QByteArray datagram =
        m_config.key.empty() ? unsigned_ : unsigned_ + "\n" + signature(unsigned_);
    std::vector<std::string> sentTo;
    auto send = [&](const QHostAddress& a, quint16 port) {
        const auto key = keyOf(a, port);
        if (std::ranges::find(sentTo, key) != sentTo.end()) return;
        sentTo.push_back(key);
        if (m_socket->writeDatagram(datagram, a, port) >= 0) {
            ++m_counters.sent;
            m_counters.bytesSent += static_cast<std::uint64_t>(datagram.size());
        }
    };
    if (screensToo)
        for (std::size_t i = 0; i < m_config.screens.size(); ++i) {
            if (!m_observer && static_cast<int>(i) == m_config.self) continue; // not to itself
            send(m_addresses[i], m_config.screens[i].port);
        }
    const auto now = wallNowNs();
    for (const auto& [key, peer] : m_peers)
        if (now - peer.lastHeard < kAliveNs) send(peer.address, peer.port);
}

void WallGroup::tick() {
    elect();
    sendToAll(envelope("hello"), true);
}

void WallGroup::elect() {
    const auto now = wallNowNs();
    const bool wasLeading = m_leading;
    const int wasLeader = m_leader;
    // The leader alive in the highest term (ties: the lower screen).
    int leader = -1;
    std::uint64_t leaderTerm = 0;
    bool leaderWants = false;
    for (const auto& [key, p] : m_peers)
        if (now - p.lastHeard < kAliveNs && p.leads && p.screen >= 0 &&
            (p.term > leaderTerm || (p.term == leaderTerm && p.screen < leader))) {
            leader = p.screen;
            leaderTerm = p.term;
            leaderWants = p.wantsLead;
        }
    if (m_leading) {
        // Only a claim in a later term (or the same, from a lower screen) outranks this one.
        const bool outranked = leader >= 0 && (leaderTerm > m_myTerm ||
                                               (leaderTerm == m_myTerm && leader < m_config.self));
        if (outranked) m_leading = false;
    }
    if (!m_leading && !m_observer) {
        // Claim when no leader is alive and this is the first alive screen (those that asked to
        // lead first), or take over as the screen that asked from one that did not.
        bool first = true;
        for (const auto& [key, p] : m_peers) {
            if (now - p.lastHeard >= kAliveNs || p.screen < 0) continue;
            const bool before =
                p.wantsLead != m_config.lead ? p.wantsLead : p.screen < m_config.self;
            if (before) first = false;
        }
        const bool listened = now - m_startedAt >= kClaimAfterNs;
        if (listened && ((leader < 0 && first) || (m_config.lead && leader >= 0 && !leaderWants))) {
            m_myTerm = std::max(m_term, leaderTerm) + 1;
            m_term = m_myTerm;
            m_leading = true;
        }
    }
    m_leader = m_leading ? m_config.self : leader;
    m_leaderTerm = m_leading ? m_myTerm : leaderTerm;
    if (!m_leading && m_leader >= 0) m_everFollowed = true;
    if (m_leading != wasLeading || m_leader != wasLeader) {
        m_lastSent.reset();
        emit roleChanged();
    }
}

void WallGroup::sendState() {
    if (!m_leading || !m_capture) return;
    WallState s = m_capture();
    const auto now = wallNowNs();
    WallState key = s;
    key.sentAt = 0;
    const bool same = m_lastSent && *m_lastSent == key;
    // Unchanged (paused, or between two snapshots): the followers' clocks run on their own.
    if (same && now - m_lastSentAt < kIdleStateNs) return;
    s.sentAt = now;
    m_lastSent = key;
    m_lastSentAt = now;
    QByteArray datagram = envelope("state");
    datagram.chop(1); // the envelope's closing brace: the state goes inside it
    datagram += ",\"state\":" + QByteArray::fromStdString(wallStateJson(s)) + "}";
    sendToAll(datagram, false);
}

void WallGroup::sendLink(const std::string& link) {
    QByteArray datagram = envelope("link");
    datagram.chop(1);
    // A random id: the same link heard twice (it is sent twice) is opened once.
    const std::string id = std::to_string(QRandomGenerator::global()->generate64());
    remember(id);
    datagram += ",\"id\":" + QByteArray::fromStdString(Json(id).dump()) +
                ",\"link\":" + QByteArray::fromStdString(Json(link).dump()) + "}";
    // Twice, a moment apart: a datagram can be lost; the id makes the second a no-op.
    sendToAll(datagram, true);
    QTimer::singleShot(100, this, [this, datagram] { sendToAll(datagram, true); });
}

void WallGroup::onReadable() {
    while (m_socket && m_socket->hasPendingDatagrams()) {
        const QNetworkDatagram d = m_socket->receiveDatagram(qint64{64} * 1024);
        ++m_counters.received;
        m_counters.bytesReceived += static_cast<std::uint64_t>(d.data().size());
        handle(d.data(), d.senderAddress(), static_cast<quint16>(d.senderPort()));
    }
}

void WallGroup::handle(const QByteArray& datagram, const QHostAddress& from, quint16 port) {
    // Only the wall's machines take part (a datagram from anywhere else is foreign), and with a
    // key only what carries its signature.
    if (!fromWallHost(from)) {
        ++m_counters.foreign;
        return;
    }
    QByteArray body = datagram;
    if (!m_config.key.empty()) {
        const auto cut = datagram.lastIndexOf('\n');
        if (cut < 0 || datagram.mid(cut + 1) != signature(datagram.left(cut))) {
            ++m_counters.foreign;
            return;
        }
        body = datagram.left(cut);
    }
    Json j = Json::parse(body.toStdString(), nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        ++m_counters.malformed;
        return;
    }
    try {
        if (j.at("ft").get<std::string>() != "wall") {
            ++m_counters.malformed;
            return;
        }
        if (j.at("v").get<int>() != kVersion || j.at("g").get<std::string>() != m_config.group) {
            ++m_counters.foreign;
            return;
        }
        const int screen = j.at("screen").get<int>();
        const auto term = j.at("term").get<std::uint64_t>();
        const std::string kind = j.at("kind").get<std::string>();
        // A screen of this wall (or an observer, -1), in a term that follows from the ones
        // heard (a term far ahead is no member's).
        if (screen < -1 || screen >= static_cast<int>(m_config.screens.size()) ||
            term > m_term + 1000) {
            ++m_counters.malformed;
            return;
        }
        const auto key = keyOf(from, port);
        if (!m_peers.contains(key) && m_peers.size() >= kMaxPeers) prunePeers();
        if (!m_peers.contains(key) && m_peers.size() >= kMaxPeers) {
            ++m_counters.foreign;
            return;
        }
        Peer& p = m_peers[key];
        p.address = from;
        p.port = port;
        p.screen = screen;
        p.leads = j.at("lead").get<bool>();
        p.term = term;
        p.wantsLead = j.at("want").get<bool>();
        p.lastHeard = wallNowNs();
        m_term = std::max(m_term, p.term);
        if (p.leads && (m_leader != p.screen || m_leading)) elect();
        if (kind == "state" && !m_leading && p.leads && p.screen == m_leader) {
            auto state = wallStateFrom(j.at("state").dump());
            if (!state) {
                ++m_counters.malformed;
                return;
            }
            m_last = *state;
            emit stateReceived(*state);
        } else if (kind == "link" && screen >= 0) {
            const std::string id = j.at("id").get<std::string>();
            if (std::ranges::find(m_linksSeen, id) != m_linksSeen.end()) return;
            remember(id);
            emit linkReceived(QString::fromStdString(j.at("link").get<std::string>()));
        }
    } catch (const Json::exception&) {
        ++m_counters.malformed;
    }
}

void WallGroup::remember(const std::string& linkId) {
    m_linksSeen.push_back(linkId);
    if (m_linksSeen.size() > 64) m_linksSeen.erase(m_linksSeen.begin());
}

void WallGroup::prunePeers() {
    const auto now = wallNowNs();
    std::erase_if(
        m_peers, [now](const auto& entry) { return now - entry.second.lastHeard > 10 * kAliveNs; });
}

bool WallGroup::fromWallHost(const QHostAddress& from) const {
    const QHostAddress v4 = QHostAddress(from.toIPv4Address());
    return std::ranges::any_of(m_addresses, [&](const QHostAddress& a) {
        return a.isEqual(from, QHostAddress::TolerantConversion) ||
               (a.isLoopback() && from.isLoopback()) || a == v4;
    });
}

QByteArray WallGroup::signature(const QByteArray& body) const {
    return QMessageAuthenticationCode::hash(body, QByteArray::fromStdString(m_config.key),
                                            QCryptographicHash::Sha256)
        .toHex();
}

} // namespace ft::app
