#pragma once
// LoopbackServer: the one test server of the suites and benchmarks, on 127.0.0.1. It accepts
// connections on a thread of its own and hands each, on a thread of its own, to a behaviour:
// either HTTP (http(): the request parsed, a handler's Response written back, see PageServer)
// or raw bytes for servers that misbehave on purpose (HostileServer). stop() (and the
// destructor) shuts every socket, so blocked sends and waits end; start() again (on the same
// port, to play a server that restarts) is allowed after stop(). Finished connections' threads
// are reaped as new ones come, so a long test does not pile them up.
#include <arpa/inet.h>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <netinet/in.h>
#include <poll.h>
#include <string>
#include <string_view>
#include <sys/resource.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <utility>
#include <vector>

namespace ft::testing {

class LoopbackServer {
public:
    // A connection: its socket, the request head it sent, and whether the server is stopping.
    struct Connection {
        int fd = -1;
        std::string request;
        const std::atomic<bool>* stopping = nullptr;

        // Sends all of `bytes`; false once the client is gone or the server stops.
        bool send(std::string_view bytes) const {
            while (!bytes.empty()) {
                if (stopping->load()) return false;
                const auto n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
                if (n <= 0) return false;
                bytes.remove_prefix(static_cast<std::size_t>(n));
            }
            return true;
        }
        // Waits, waking for a stop or the client hanging up; false when either happened.
        bool wait(std::chrono::milliseconds ms) const {
            const auto until = std::chrono::steady_clock::now() + ms;
            while (std::chrono::steady_clock::now() < until) {
                if (stopping->load()) return false;
                pollfd p{fd, POLLIN | POLLRDHUP, 0};
                if (::poll(&p, 1, 50) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR))) {
                    char c;
                    if (::recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) <= 0) return false;
                }
            }
            return true;
        }
        // Reads what is left of a request body of `length` bytes after the head (up to 16 MiB).
        std::string body(std::size_t length) const {
            std::string out;
            if (const auto end = request.find("\r\n\r\n"); end != std::string::npos)
                out = request.substr(end + 4);
            char buf[4096];
            while (out.size() < length && out.size() < (16u << 20) && !stopping->load()) {
                pollfd p{fd, POLLIN, 0};
                if (::poll(&p, 1, 5000) <= 0) break;
                const auto n = ::recv(fd, buf, sizeof buf, 0);
                if (n <= 0) break;
                out.append(buf, static_cast<std::size_t>(n));
            }
            return out;
        }
    };
    using Behaviour = std::function<void(const Connection&)>;

    // Listens on 127.0.0.1:`port` (0: any free port) and serves every connection with
    // `behaviour`. port() is 0 when the port could not be had.
    // A negative port: listen only when start() is called.
    explicit LoopbackServer(Behaviour behaviour, int port = 0) : m_behaviour(std::move(behaviour)) {
        if (port >= 0) start(port);
    }
    ~LoopbackServer() { stop(); }
    LoopbackServer(const LoopbackServer&) = delete;
    LoopbackServer& operator=(const LoopbackServer&) = delete;

    // Listens again after stop(), on `port` (0: any free port); false when it cannot.
    bool start(int port = 0) {
        stop();
        m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        const int one = 1;
        ::setsockopt(m_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        addr.sin_port = htons(static_cast<std::uint16_t>(port));
        if (::bind(m_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
            ::listen(m_fd, 64) != 0) {
            ::close(m_fd);
            m_fd = -1;
            m_port = 0;
            return false;
        }
        socklen_t len = sizeof addr;
        ::getsockname(m_fd, reinterpret_cast<sockaddr*>(&addr), &len);
        m_port = ntohs(addr.sin_port);
        m_stopping = false;
        m_accept = std::thread([this] { acceptLoop(); });
        return true;
    }

    void stop() {
        if (!m_accept.joinable()) return;
        m_stopping = true;
        ::shutdown(m_fd, SHUT_RDWR);
        m_accept.join();
        ::close(m_fd);
        m_fd = -1;
        std::vector<Worker> workers;
        {
            std::lock_guard lock(m_mutex);
            for (int fd : m_open)
                ::shutdown(fd, SHUT_RDWR);
            workers = std::move(m_workers);
            m_workers.clear();
        }
        for (auto& w : workers)
            w.thread.join();
        std::lock_guard lock(m_mutex);
        for (int fd : m_open)
            ::close(fd);
        m_open.clear();
    }

    int port() const { return m_port; }
    std::string base() const { return "http://127.0.0.1:" + std::to_string(m_port); }
    std::string url(const std::string& scheme = "http",
                    const std::string& path = "/metrics") const {
        return scheme + "://127.0.0.1:" + std::to_string(m_port) + path;
    }
    int connections() const { return m_connections.load(); }
    // Benchmarks: the connections' threads run at this nice value (19: the lowest), standing in
    // for a server on another machine. In one process on two cores, a server streaming a
    // gigabyte at full speed would otherwise take the core that a remote server takes from no
    // one, and the figure would measure the fixture, not the client.
    void setNice(int nice) { m_nice = nice; }

protected:
    void setBehaviour(Behaviour behaviour) {
        std::lock_guard lock(m_mutex);
        m_behaviour = std::move(behaviour);
    }

private:
    struct Worker {
        std::thread thread;
        std::shared_ptr<std::atomic<bool>> done;
    };

    void acceptLoop() {
        while (!m_stopping) {
            const int c = ::accept4(m_fd, nullptr, nullptr, SOCK_CLOEXEC);
            if (c < 0) {
                if (m_stopping) return;
                std::this_thread::sleep_for(std::chrono::milliseconds(10)); // EMFILE and such
                continue;
            }
            ++m_connections;
            std::lock_guard lock(m_mutex);
            for (auto it = m_workers.begin(); it != m_workers.end();) {
                if (it->done->load()) {
                    it->thread.join();
                    it = m_workers.erase(it);
                } else {
                    ++it;
                }
            }
            m_open.push_back(c);
            auto done = std::make_shared<std::atomic<bool>>(false);
            Behaviour behaviour = m_behaviour;
            m_workers.push_back({std::thread([this, c, done, behaviour = std::move(behaviour)] {
                                     if (const int nice = m_nice.load(); nice != 0)
                                         ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()),
                                                       nice);
                                     const Connection conn{c, readHead(c), &m_stopping};
                                     if (!conn.request.empty() && behaviour) behaviour(conn);
                                     // Closed under the lock, and forgotten: stop() never
                                     // shuts a reused number.
                                     std::lock_guard closing(m_mutex);
                                     ::shutdown(c, SHUT_RDWR);
                                     ::close(c);
                                     std::erase(m_open, c);
                                     done->store(true);
                                 }),
                                 done});
        }
    }
    static std::string readHead(int fd) {
        std::string head;
        char buf[4096];
        while (head.find("\r\n\r\n") == std::string::npos && head.size() < 65536) {
            pollfd p{fd, POLLIN, 0};
            if (::poll(&p, 1, 5000) <= 0) break;
            const auto n = ::recv(fd, buf, sizeof buf, 0);
            if (n <= 0) break;
            head.append(buf, static_cast<std::size_t>(n));
            if (head.front() == '\x16') break; // a TLS ClientHello: no HTTP head will come
        }
        return head;
    }

    Behaviour m_behaviour;
    int m_fd = -1;
    int m_port = 0;
    std::atomic<bool> m_stopping{false};
    std::atomic<int> m_connections{0};
    std::atomic<int> m_nice{0};
    std::thread m_accept;
    std::mutex m_mutex;
    std::vector<int> m_open;
    std::vector<Worker> m_workers;
};

// PageServer: HTTP/1.1 on a LoopbackServer, for the suites that serve API pages (NetBox,
// Redfish, PromQL answers, exporter pages, Alertmanager). Each request goes to a handler that
// sees the method, the target (path and query), the headers and the body, and returns a
// status, a content type, a body, any other headers, and how to send them (after a delay,
// chunked, or not at all: the connection closed on the client). One request per connection
// (Connection: close). Connections run on threads of their own; with `concurrent` false the
// handler is called for one request at a time, so it need not be thread-safe.
class PageServer : public LoopbackServer {
public:
    struct Request {
        std::string method, target;
        std::map<std::string, std::string> headers; // names lower-cased
        std::string body;
        std::string head; // the request line and headers as sent
    };
    struct Response {
        int status = 200;
        std::string body;
        std::string contentType; // empty: the server's default type
        std::vector<std::pair<std::string, std::string>> headers;
        int delayMs = 0;      // wait before answering (woken by stop())
        bool chunked = false; // Transfer-Encoding: chunked, in pieces of 777 bytes
        bool hangUp = false;  // close the connection without an answer
    };
    using Handler = std::function<Response(const Request&)>;

    explicit PageServer(Handler handler, bool concurrent = false, int port = 0)
        : LoopbackServer(nullptr, port), m_concurrent(concurrent) {
        setHandler(std::move(handler));
    }
    // A server that listens once start() is called; answers without a type of their own are
    // `defaultType`. Requests run concurrently.
    explicit PageServer(std::string defaultType)
        : LoopbackServer(nullptr, -1), m_concurrent(true), m_defaultType(std::move(defaultType)) {}
    // Listens (again) on `port` (0: any free port) with `handler`; false when it cannot.
    bool start(Handler handler, int port = 0) {
        setHandler(std::move(handler));
        return LoopbackServer::start(port);
    }
    // The connections' threads use this object's members: they end before the members do.
    ~PageServer() { stop(); }
    PageServer(const PageServer&) = delete;
    PageServer& operator=(const PageServer&) = delete;

    // Another handler for the requests from now on.
    void setHandler(Handler handler) {
        auto h = std::make_shared<Handler>(std::move(handler));
        setBehaviour([this, h](const Connection& c) { answer(c, *h); });
    }
    // Every request target served so far, in order (methods other than GET in front: "POST /x").
    std::vector<std::string> targets() const {
        std::lock_guard lock(m_targetsMutex);
        return m_targets;
    }
    int requests() const { return m_requests.load(); }

private:
    void answer(const Connection& c, const Handler& handler) {
        Request req;
        const auto headEnd = c.request.find("\r\n\r\n");
        req.head = c.request.substr(0, headEnd);
        const auto lineEnd = c.request.find("\r\n");
        const std::string line = c.request.substr(0, lineEnd);
        const auto sp1 = line.find(' '), sp2 = line.rfind(' ');
        if (sp1 != std::string::npos && sp2 > sp1) {
            req.method = line.substr(0, sp1);
            req.target = line.substr(sp1 + 1, sp2 - sp1 - 1);
        }
        for (std::size_t at = lineEnd + 2; lineEnd != std::string::npos && at < c.request.size();) {
            const auto end = c.request.find("\r\n", at);
            if (end == std::string::npos || end == at) break;
            const std::string h = c.request.substr(at, end - at);
            if (const auto colon = h.find(':'); colon != std::string::npos) {
                std::string name = h.substr(0, colon);
                for (auto& ch : name)
                    ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
                std::string value = h.substr(colon + 1);
                while (!value.empty() && value.front() == ' ')
                    value.erase(value.begin());
                req.headers[name] = value;
            }
            at = end + 2;
        }
        std::size_t length = 0;
        if (auto it = req.headers.find("content-length"); it != req.headers.end())
            length = std::stoul(it->second);
        req.body = c.body(length);
        {
            std::lock_guard lock(m_targetsMutex);
            m_targets.push_back(req.method == "GET" ? req.target : req.method + " " + req.target);
        }
        ++m_requests;
        Response r;
        if (m_concurrent) {
            r = handler(req);
        } else {
            std::lock_guard one(m_handlerMutex);
            r = handler(req);
        }
        if (r.hangUp || (r.delayMs > 0 && !c.wait(std::chrono::milliseconds(r.delayMs)))) return;
        std::string head =
            "HTTP/1.1 " + std::to_string(r.status) + (r.status < 400 ? " OK" : " Error") +
            "\r\nContent-Type: " + (r.contentType.empty() ? m_defaultType : r.contentType) +
            "\r\nConnection: close\r\n";
        for (const auto& [name, value] : r.headers)
            head += name + ": " + value + "\r\n";
        if (!r.chunked) {
            head += "Content-Length: " + std::to_string(r.body.size()) + "\r\n\r\n";
            if (c.send(head)) c.send(r.body);
            return;
        }
        bool ok = c.send(head + "Transfer-Encoding: chunked\r\n\r\n");
        for (std::size_t at = 0; ok && at < r.body.size(); at += 777) {
            const std::string_view piece = std::string_view(r.body).substr(at, 777);
            char size[32];
            std::snprintf(size, sizeof size, "%zx\r\n", piece.size());
            ok = c.send(size) && c.send(piece) && c.send("\r\n");
        }
        if (ok) c.send("0\r\n\r\n");
    }

    bool m_concurrent = false;
    std::string m_defaultType = "application/json";
    std::mutex m_handlerMutex;
    mutable std::mutex m_targetsMutex;
    std::vector<std::string> m_targets;
    std::atomic<int> m_requests{0};
};

} // namespace ft::testing
