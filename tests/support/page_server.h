#pragma once
// PageServer: a tiny HTTP/1.1 server on 127.0.0.1 for tests that serve recorded API pages
// (NetBox, Redfish). It runs on its own thread (a test blocked in a QProcess or a blocking
// request still gets answers); each request goes to a handler that sees the method, the
// target (path and query), the headers and the body, and returns a status, a content type, a
// body and any other headers. One request per connection (Connection: close); with
// `concurrent`, each connection on a thread of its own, so one slow answer does not hold up
// the rest (the handler must then be thread-safe).
#include <arpa/inet.h>
#include <atomic>
#include <cctype>
#include <functional>
#include <map>
#include <mutex>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace ft::testing {

class PageServer {
public:
    struct Request {
        std::string method, target;
        std::map<std::string, std::string> headers; // names lower-cased
        std::string body;
    };
    struct Response {
        int status = 200;
        std::string body;
        std::string contentType = "application/json";
        std::vector<std::pair<std::string, std::string>> headers;
    };
    using Handler = std::function<Response(const Request&)>;

    explicit PageServer(Handler handler, bool concurrent = false)
        : m_handler(std::move(handler)), m_concurrent(concurrent) {
        m_fd = ::socket(AF_INET, SOCK_STREAM, 0);
        int one = 1;
        ::setsockopt(m_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::bind(m_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return;
        socklen_t len = sizeof addr;
        ::getsockname(m_fd, reinterpret_cast<sockaddr*>(&addr), &len);
        m_port = ntohs(addr.sin_port);
        ::listen(m_fd, 16);
        m_thread = std::thread([this] { serve(); });
    }
    ~PageServer() {
        m_stop = true;
        ::shutdown(m_fd, SHUT_RDWR);
        ::close(m_fd);
        if (m_thread.joinable()) m_thread.join();
        for (auto& t : m_workers)
            t.join();
    }
    PageServer(const PageServer&) = delete;
    PageServer& operator=(const PageServer&) = delete;

    int port() const { return m_port; }
    std::string base() const { return "http://127.0.0.1:" + std::to_string(m_port); }
    // Every request target served so far, in order (methods other than GET in front: "POST /x").
    std::vector<std::string> targets() const {
        std::lock_guard lock(m_mutex);
        return m_targets;
    }

private:
    void serve() {
        while (!m_stop) {
            const int c = ::accept(m_fd, nullptr, nullptr);
            if (c < 0) break;
            if (m_concurrent)
                m_workers.emplace_back([this, c] { answer(c); });
            else
                answer(c);
        }
    }

    void answer(int c) {
        std::string raw;
        char buf[4096];
        while (raw.find("\r\n\r\n") == std::string::npos) {
            const auto n = ::recv(c, buf, sizeof buf, 0);
            if (n <= 0) break;
            raw.append(buf, static_cast<std::size_t>(n));
        }
        Request req;
        const auto lineEnd = raw.find("\r\n");
        const std::string line = raw.substr(0, lineEnd);
        const auto sp1 = line.find(' '), sp2 = line.rfind(' ');
        if (sp1 != std::string::npos && sp2 > sp1) {
            req.method = line.substr(0, sp1);
            req.target = line.substr(sp1 + 1, sp2 - sp1 - 1);
        }
        for (std::size_t at = lineEnd + 2; at < raw.size();) {
            const auto end = raw.find("\r\n", at);
            if (end == std::string::npos || end == at) break;
            const std::string h = raw.substr(at, end - at);
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
        if (const auto headEnd = raw.find("\r\n\r\n"); headEnd != std::string::npos) {
            req.body = raw.substr(headEnd + 4);
            std::size_t length = 0;
            if (auto it = req.headers.find("content-length"); it != req.headers.end())
                length = std::stoul(it->second);
            while (req.body.size() < length) {
                const auto n = ::recv(c, buf, sizeof buf, 0);
                if (n <= 0) break;
                req.body.append(buf, static_cast<std::size_t>(n));
            }
        }
        {
            std::lock_guard lock(m_mutex);
            m_targets.push_back(req.method == "GET" ? req.target : req.method + " " + req.target);
        }
        const Response r = m_handler(req);
        std::string reply =
            "HTTP/1.1 " + std::to_string(r.status) + " X\r\nContent-Type: " + r.contentType +
            "\r\nConnection: close\r\nContent-Length: " + std::to_string(r.body.size()) + "\r\n";
        for (const auto& [name, value] : r.headers)
            reply += name + ": " + value + "\r\n";
        reply += "\r\n" + r.body;
        std::size_t sent = 0;
        while (sent < reply.size()) {
            const auto n = ::send(c, reply.data() + sent, reply.size() - sent, MSG_NOSIGNAL);
            if (n <= 0) break;
            sent += static_cast<std::size_t>(n);
        }
        ::close(c);
    }

    Handler m_handler;
    bool m_concurrent = false;
    std::vector<std::thread> m_workers;
    int m_fd = -1;
    int m_port = 0;
    std::atomic<bool> m_stop{false};
    mutable std::mutex m_mutex;
    std::vector<std::string> m_targets;
    std::thread m_thread;
};

} // namespace ft::testing
