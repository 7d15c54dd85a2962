#pragma once
// HttpClient: the HTTP requests the live sources share (exporter scrapes, the PromQL API), over
// QtNetwork, so chunked transfer, gzip, redirects and TLS (Qt's OpenSSL backend) come with it.
// Every request has a total deadline, and a body over the size cap is cut at the cap and
// flagged, so one flooding or stalling target costs bounded memory and time. An HttpClient
// lives on the thread that creates it, which must run a Qt event loop (a LoopThread, or the
// local loop of requestBlocking); a QCoreApplication must exist.
//
// LoopThread: a thread running a Qt event loop, for a source's client and timers; the owner
// starts and stops it, post() works from any thread.
#include "importers/formats/url_text.h" // urlEncode, for the sources' queries
#include "model/timestamp.h"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

class QNetworkAccessManager;
class QNetworkReply;
class QObject;
class QThread;

namespace ft::importers {

struct HttpOptions {
    std::chrono::milliseconds timeout{5000}; // request to last byte
    std::size_t maxBodyBytes = 64u << 20;
    std::string bearerToken;              // sent as "Authorization: Bearer ..."
    std::string basicUser, basicPassword; // sent as "Authorization: Basic ..." (no token set)
    std::string caFile;                   // PEM bundle trusted for https, added to the system's
    bool insecureSkipVerify = false;      // https without checking the peer (test rigs only)
    std::vector<std::pair<std::string, std::string>> headers;
    std::string method; // "DELETE", ...; empty: GET, or POST when there is a body
};

struct HttpResult {
    int status = 0;   // HTTP status; 0 when no answer came
    std::string body; // for a cut body: the bytes up to the cap
    std::string contentType;
    bool truncated = false; // the body was cut at maxBodyBytes
    // Why no complete answer came (refused, timed out, TLS); empty otherwise. Scrubbed of the
    // request's token and passwords, as is the body of an answer that is not a success.
    std::string error;
    double latencyMs = 0;                                     // request to last byte
    model::TimeNs receivedAt = 0;                             // wall clock at the last byte
    std::vector<std::pair<std::string, std::string>> headers; // as received
    // A response header by name, ignoring case; empty when absent.
    std::string header(std::string_view name) const;
    bool ok() const { return error.empty() && status >= 200 && status < 300; }
    // The failure in words for health displays: the transport error or the HTTP status.
    std::string describeFailure() const;
};

class HttpClient {
public:
    using Done = std::function<void(HttpResult)>;
    HttpClient();
    // Aborts what is in flight; the callbacks of those requests are not called.
    ~HttpClient();
    HttpClient(const HttpClient&) = delete;
    HttpClient& operator=(const HttpClient&) = delete;

    // GET when `body` is empty, else POST with `contentType`. `done` runs on this client's
    // thread, exactly once, unless the client is destroyed first.
    void request(const std::string& url, const HttpOptions& options, Done done,
                 const std::string& body = {}, const std::string& contentType = {});
    std::size_t inFlight() const { return m_replies.size(); }
    // Aborts every request in flight without calling their callbacks.
    void abortAll();

    // Connection pools (a QNetworkAccessManager each). A reply aborted in the middle of its
    // body (cut at the cap, past its deadline, abortAll) leaves Qt's channel to that host busy
    // with the rest of the stream; after six such (Qt's channels per host) every request to it
    // would wait for ever. Every host shares one pool until that happens to it; from then on
    // it has a pool of its own, replaced by a fresh one after each such abort, the old one
    // deleted (its connections closed) once nothing is in flight on it. Other hosts'
    // connections are never touched, and only misbehaving hosts cost a pool (and Qt's HTTP
    // thread that comes with it).
    struct Pool;

private:
    std::shared_ptr<Pool> poolFor(const std::string& host);
    void abortedMidBody(const std::shared_ptr<Pool>& pool, const std::string& host);
    void collectRetired(const Pool* busy);

    std::unique_ptr<QObject> m_context; // for callbacks that belong to no reply
    std::shared_ptr<Pool> m_shared;
    std::unordered_map<std::string, std::shared_ptr<Pool>> m_own; // by scheme://host:port
    std::vector<std::shared_ptr<Pool>> m_retired;
    struct InFlight {
        std::shared_ptr<Pool> pool;
        std::string host;
    };
    std::unordered_map<QNetworkReply*, InFlight> m_replies;
};

// Runs one request to completion on the calling thread with a local event loop (headless
// imports, tests). `cancel` is checked every few milliseconds; a cancelled request reports
// error "cancelled" (and aborts whatever else `client` has in flight). With a client of its
// own, connections are kept alive from one request to the next.
HttpResult requestBlocking(HttpClient& client, const std::string& url, const HttpOptions& options,
                           const std::atomic<bool>* cancel = nullptr, const std::string& body = {},
                           const std::string& contentType = {});
HttpResult requestBlocking(const std::string& url, const HttpOptions& options,
                           const std::atomic<bool>* cancel = nullptr, const std::string& body = {},
                           const std::string& contentType = {});

// Lowers the calling thread's CPU priority (nice 10 on Linux; what it starts inherits it), once
// per thread. Sources' threads call it: on a two-core wall PC a server that sends a gzip bomb
// or a 1 GiB page must not take the cores from the window's frames, and they still get every
// cycle the window leaves.
void runBehindTheWindow();

class LoopThread {
public:
    explicit LoopThread(std::string name);
    ~LoopThread();
    LoopThread(const LoopThread&) = delete;
    LoopThread& operator=(const LoopThread&) = delete;

    // Starts the thread; `setup` is its first event.
    void start(std::function<void()> setup);
    // Runs `teardown` on the thread (delete what lives there), ends its loop and joins it.
    void stop(std::function<void()> teardown);
    bool running() const { return m_thread != nullptr; }
    // Queues `fn` to run on the thread; dropped when the thread is not running. From the owner's
    // thread or the loop's own.
    void post(std::function<void()> fn);
    // An object living on the thread, to parent or give context to timers and connections.
    QObject* context() const { return m_context.get(); }

private:
    std::string m_name;
    std::unique_ptr<QThread> m_thread;
    std::unique_ptr<QObject> m_context;
};

} // namespace ft::importers
