#pragma once
// WallGroup: the screens of one wall as a group of floortwin processes, on one machine or on
// several of one network, talking UDP. No telemetry goes through the group: each screen reads
// its own sources or recording; the group carries only what is shown.
//
// - Every member says hello to every screen's address five times a second (its screen, whether
//   it leads and in which term). A member heard from within the last second is alive.
// - One leads: the member that claims it in the highest term (ties: the lower screen). With no
//   leader alive, the lowest alive screen claims the next term (one that asked to lead with
//   --wall-lead goes before the others, and takes over from a leader that did not ask).
// - The leader sends what it shows — its clock (the snapshot's time, speed, pause, direction),
//   camera, selection, layers, metric, caption and alarm focus, the tour's clock — up to 30
//   times a second while something moves, twice a second while nothing does.
// - Followers take it; their own clock keeps running between messages, and runs on alone, said
//   on screen, when the leader is lost; a new leader (or the old one back) is followed again.
// - A link opened on any screen goes to every member, which opens it (each its own recording).
// - Messages of another version or group, from a host that is not one of the wall's, or (with a
//   key in the wall file) without the key's signature, are ignored and counted.
// An observer (a screenshot of a wall screen) follows without a screen's port and never leads.
// UI thread only.
#include "wall_config.h"

#include <QHostAddress>
#include <QObject>
#include <QTimer>
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

class QUdpSocket;

namespace ft::app {

// What the leader shows. Times: ns since the epoch (model::TimeNs); wall: the sender's system
// clock.
struct WallState {
    std::int64_t time = 0;       // the moment shown (the snapshot's time)
    std::int64_t position = 0;   // the playhead when sent (a replay's, between its moments)
    std::int64_t shownSince = 0; // the sender's wall clock when that moment was first shown
    std::int64_t sentAt = 0;     // the sender's wall clock now
    double speed = 1;
    bool paused = false, reverse = false;
    std::array<double, 7> camera{}; // focus x, y, z, distance, azimuth, elevation, view angle
    bool hasCamera = false;
    std::string selection;           // KIND:ID, empty: none
    std::vector<std::string> layers; // the visible layers' ids
    std::string metric;
    std::string caption;
    bool focus = false, focusCritical = true;
    std::string focusTitle, focusDetail;
    int focusIndex = 1, focusOf = 1;
    double storyClock = -1; // seconds the leader's tour has run (-1: none plays)
    bool operator==(const WallState&) const = default;
};

struct WallCounters {
    std::uint64_t sent = 0, received = 0, bytesSent = 0, bytesReceived = 0;
    std::uint64_t foreign = 0; // another group's or another version's messages, ignored
    std::uint64_t malformed = 0;
};

class WallGroup : public QObject {
    Q_OBJECT
public:
    // observer: follow without taking the screen's port, never lead.
    WallGroup(WallConfig config, bool observer = false, QObject* parent = nullptr);
    ~WallGroup() override;

    // Binds the screen's port; false (with the reason) when it cannot.
    bool start(std::string* error = nullptr);
    void stop();

    // The leader's side: what this screen shows now (asked at up to 30 Hz while leading).
    void setCapture(std::function<WallState()> capture) { m_capture = std::move(capture); }
    // A link opened on this screen: sent to every member (and opened here by the caller).
    void sendLink(const std::string& link);

    bool leading() const { return m_leading; }
    // The screen that leads (-1: none heard), and whether this follower lost it.
    int leader() const { return m_leader; }
    bool leaderLost() const { return !m_leading && m_leader < 0 && m_everFollowed; }
    // The term of the leader followed (or of this screen's lead).
    std::uint64_t term() const { return m_leaderTerm; }
    const WallConfig& config() const { return m_config; }
    const WallCounters& counters() const { return m_counters; }
    // The latest state heard from the leader (nothing yet).
    const std::optional<WallState>& lastState() const { return m_last; }

    static std::int64_t wallNowNs();

signals:
    // A follower: the leader's state (apply it).
    void stateReceived(const ft::app::WallState& state);
    // A link opened on another screen.
    void linkReceived(const QString& link);
    // This screen began or ceased to lead, or lost or found its leader.
    void roleChanged();

private:
    struct Peer {
        QHostAddress address;
        quint16 port = 0;
        int screen = -1; // -1: an observer
        bool leads = false;
        std::uint64_t term = 0;
        bool wantsLead = false;
        std::int64_t lastHeard = 0;
    };
    void onReadable();
    void handle(const QByteArray& datagram, const QHostAddress& from, quint16 port);
    void tick();      // hellos and the election, five times a second
    void sendState(); // the leader, up to 30 times a second
    void elect();
    QByteArray envelope(const char* kind) const;
    // With the wall's key: the HMAC-SHA256 of a message, in hex.
    QByteArray signature(const QByteArray& body) const;
    bool fromWallHost(const QHostAddress& from) const;
    void prunePeers();
    void remember(const std::string& linkId);
    void sendToAll(const QByteArray& datagram, bool screensToo);

    WallConfig m_config;
    bool m_observer;
    std::unique_ptr<QUdpSocket> m_socket;
    std::function<WallState()> m_capture;
    QTimer m_helloTimer, m_stateTimer;
    std::map<std::string, Peer> m_peers; // by "address:port"
    bool m_leading = false;
    int m_leader = -1;
    bool m_everFollowed = false;
    std::uint64_t m_term = 0;              // the highest term heard or claimed
    std::uint64_t m_myTerm = 0;            // the term this screen claimed its lead in
    std::uint64_t m_leaderTerm = 0;        // the term of the leader followed, or m_myTerm
    std::vector<QHostAddress> m_addresses; // each screen's, looked up at start
    std::int64_t m_startedAt = 0;
    std::optional<WallState> m_last;
    std::optional<WallState> m_lastSent;
    std::int64_t m_lastSentAt = 0;
    std::vector<std::string> m_linksSeen; // ids of links already opened
    WallCounters m_counters;
};

// What a follower keeps of its clock against the leader's: the moment it shows and since when
// (a simulator's clock is read from it), and the skew — how far its clock was from the leader's
// when a state arrived, in milliseconds of the wall (the run's time divided by the speed): the
// figure the wall's benchmark reports.
struct WallClockLog {
    std::vector<double> skewMs;
    std::int64_t shownSince = 0;
    std::int64_t shown = -1;
    std::int64_t lastCorrection = 0;
    bool hurried = false;

    void shownHere(std::int64_t t, std::int64_t at) {
        if (t == shown) return;
        shown = t;
        shownSince = at;
    }
    void skew(double ms) {
        skewMs.push_back(ms);
        if (skewMs.size() > 200000) skewMs.erase(skewMs.begin(), skewMs.begin() + 100000);
    }
};

// The state as a compact JSON object and back (exposed for tests).
std::string wallStateJson(const WallState& state);
std::optional<WallState> wallStateFrom(const std::string& json);

} // namespace ft::app
