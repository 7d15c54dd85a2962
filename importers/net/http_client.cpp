#include "http_client.h"

#include "importers/net/wall_clock.h"
#include "secrets.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QThread>
#include <QTimer>
#include <QUrl>
#if QT_CONFIG(ssl)
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslSocket>
#endif

#include <algorithm>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <mutex>
#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace ft::importers {

namespace {

using SteadyClock = std::chrono::steady_clock;
constexpr int kMaxRedirects = 8;

// What a request carries between its signals.
struct Pending {
    HttpResult result;
    HttpClient::Done done;
    std::size_t cap = 0;
    std::chrono::milliseconds timeout{0};
    SteadyClock::time_point started;
    bool timedOut = false;
    std::vector<std::string> secrets; // kept out of error texts (see HttpResult::error)
};

// Reads what has arrived, up to the cap; past it, the reply is aborted and the body flagged.
void drain(QNetworkReply* reply, Pending& p) {
    const qint64 available = reply->bytesAvailable();
    if (available <= 0) return;
    const std::size_t room = p.cap - std::min(p.cap, p.result.body.size());
    const std::size_t take = std::min<std::size_t>(room, static_cast<std::size_t>(available));
    if (take > 0) {
        const std::size_t at = p.result.body.size();
        p.result.body.resize(at + take);
        const qint64 got = reply->read(p.result.body.data() + at, static_cast<qint64>(take));
        p.result.body.resize(at + static_cast<std::size_t>(std::max<qint64>(got, 0)));
    }
    if (static_cast<std::size_t>(available) > take && !p.result.truncated) {
        p.result.truncated = true;
        reply->abort();
    }
}

} // namespace

namespace {

// What an error page says, in a line: a plain-text body's first line ("404 page not found"),
// an HTML page's <title> (a proxy's "502 Bad Gateway") or else its text without tags; empty
// for binary or nothing.
std::string bodyInWords(std::string_view body) {
    constexpr std::size_t kMax = 160;
    body = body.substr(0, 64u << 10);
    if (body.empty() || body.find('\0') != std::string_view::npos) return {};
    const auto lower = [](std::string_view t) {
        std::string out(t);
        for (char& c : out)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return out;
    };
    std::string text;
    const std::string head = lower(body.substr(0, 512));
    if (head.find("<html") != std::string::npos || head.find("<!doctype") != std::string::npos) {
        const std::string all = lower(body);
        const std::size_t open = all.find("<title>"), close = all.find("</title>");
        if (open != std::string::npos && close != std::string::npos && close > open)
            text = std::string(body.substr(open + 7, close - open - 7));
        else {
            bool inTag = false;
            for (char c : body) {
                if (c == '<')
                    inTag = true;
                else if (c == '>')
                    inTag = false, text += ' ';
                else if (!inTag)
                    text += c;
            }
        }
    } else {
        text = std::string(body.substr(0, body.find('\n')));
    }
    // One line, blanks collapsed.
    std::string out;
    for (char c : text) {
        const bool blank = std::isspace(static_cast<unsigned char>(c)) != 0;
        if (blank && (out.empty() || out.back() == ' ')) continue;
        out += blank ? ' ' : c;
    }
    while (!out.empty() && out.back() == ' ')
        out.pop_back();
    if (out.size() > kMax) out = out.substr(0, kMax) + "...";
    return out;
}

} // namespace

std::string HttpResult::describeFailure() const {
    if (!error.empty()) return error;
    if (status == 0) return "no answer";
    if (status < 200 || status >= 300) {
        std::string s = "HTTP " + std::to_string(status);
        const std::string said = bodyInWords(body);
        if (!said.empty()) s += ": " + said;
        return s;
    }
    return {};
}

std::string HttpResult::header(std::string_view name) const {
    for (const auto& [n, v] : headers)
        if (n.size() == name.size() &&
            std::equal(n.begin(), n.end(), name.begin(), [](char a, char b) {
                return std::tolower(static_cast<unsigned char>(a)) ==
                       std::tolower(static_cast<unsigned char>(b));
            }))
            return v;
    return {};
}

struct HttpClient::Pool {
    std::unique_ptr<QNetworkAccessManager> nam;
    int inFlight = 0;
};

HttpClient::HttpClient() : m_context(std::make_unique<QObject>()) {}

HttpClient::~HttpClient() {
    abortAll();
    m_own.clear();
    m_retired.clear();
    m_shared.reset();
}

std::shared_ptr<HttpClient::Pool> HttpClient::poolFor(const std::string& host) {
    const auto make = [] {
        auto pool = std::make_shared<Pool>();
        pool->nam = std::make_unique<QNetworkAccessManager>();
        // Telemetry endpoints answer fast or not at all; redirects are followed (Thanos and
        // Mimir front ends redirect, up to kMaxRedirects hops), but no cookie jar or cache.
        pool->nam->setAutoDeleteReplies(false);
        return pool;
    };
    if (const auto own = m_own.find(host); own != m_own.end()) {
        if (!own->second) own->second = make();
        return own->second;
    }
    if (!m_shared) m_shared = make();
    return m_shared;
}

void HttpClient::abortedMidBody(const std::shared_ptr<Pool>& pool, const std::string& host) {
    auto& own = m_own[host]; // from now on the host has a pool of its own
    if (own == pool) {
        m_retired.push_back(pool);
        own.reset(); // a fresh one at the next request
    }
}

// Deletes retired pools with nothing in flight, except `busy` (whose reply is being handled:
// deleting its manager would delete that reply under Qt's feet); it goes at a later call or
// with the client.
void HttpClient::collectRetired(const Pool* busy) {
    std::erase_if(m_retired, [busy](const std::shared_ptr<Pool>& r) {
        return r.get() != busy && r->inFlight == 0;
    });
}

void HttpClient::abortAll() {
    // Disconnect first: abort() emits finished(), whose handler must not run for a request
    // nobody waits for any more.
    auto replies = std::exchange(m_replies, {});
    for (auto& [reply, at] : replies) {
        QObject::disconnect(reply, nullptr, nullptr, nullptr);
        reply->abort();
        delete reply;
        --at.pool->inFlight;
        // Cut off mid-answer (a Redfish logout follows on this client): a fresh pool for it.
        abortedMidBody(at.pool, at.host);
    }
}

void HttpClient::request(const std::string& url, const HttpOptions& options, Done done,
                         const std::string& body, const std::string& contentType) {
    const QUrl qurl(QString::fromStdString(url));
    QNetworkRequest request(qurl);
    request.setHeader(QNetworkRequest::UserAgentHeader, QStringLiteral("floortwin/0.1"));
    if (!options.bearerToken.empty())
        request.setRawHeader("Authorization",
                             QByteArray::fromStdString("Bearer " + options.bearerToken));
    else if (!options.basicUser.empty())
        request.setRawHeader(
            "Authorization",
            "Basic " + QByteArray::fromStdString(options.basicUser + ":" + options.basicPassword)
                           .toBase64());
    for (const auto& [name, value] : options.headers)
        request.setRawHeader(QByteArray::fromStdString(name), QByteArray::fromStdString(value));
    // Our own deadline covers the whole request; Qt's transfer timeout is only about silence.
    request.setTransferTimeout(0);
    // Front ends redirect once or twice; a loop is told after a few hops, well inside the
    // deadline even on a slow machine (Qt's default of 50 hops was not, under ASan).
    request.setMaximumRedirectsAllowed(kMaxRedirects);

    std::string host =
        qurl.scheme().toStdString() + "://" + qurl.host().toStdString() + ":" +
        std::to_string(qurl.port(qurl.scheme() == QLatin1String("https") ? 443 : 80));
    const std::shared_ptr<Pool> pool = poolFor(host);
    QNetworkAccessManager* const nam = pool->nam.get();
    auto p = std::make_shared<Pending>();
    p->done = std::move(done);
    p->cap = std::max<std::size_t>(options.maxBodyBytes, 1);
    p->timeout = options.timeout;
    p->started = SteadyClock::now();
    // Every form a credential may come back in: as sent, without its scheme word, and for
    // Basic, its base64 decoded (user:password) and the password alone.
    const auto secret = [&p](const std::string& value) {
        if (value.empty()) return;
        p->secrets.push_back(value);
        const std::size_t space = value.find(' ');
        if (space == std::string::npos) return;
        const std::string credential = value.substr(space + 1);
        p->secrets.push_back(credential);
        if (QByteArray::fromStdString(value.substr(0, space))
                .compare("Basic", Qt::CaseInsensitive) == 0) {
            const std::string decoded =
                QByteArray::fromBase64(QByteArray::fromStdString(credential)).toStdString();
            p->secrets.push_back(decoded);
            if (const std::size_t colon = decoded.find(':'); colon != std::string::npos)
                p->secrets.push_back(decoded.substr(colon + 1));
        }
    };
    secret(options.bearerToken);
    secret(options.basicPassword);
    if (!options.basicUser.empty())
        secret("Basic " + QByteArray::fromStdString(options.basicUser + ":" + options.basicPassword)
                              .toBase64()
                              .toStdString());
    for (const auto& [name, value] : options.headers)
        if (QByteArray::fromStdString(name).compare("Authorization", Qt::CaseInsensitive) == 0 ||
            QByteArray::fromStdString(name).compare("X-Auth-Token", Qt::CaseInsensitive) == 0 ||
            QByteArray::fromStdString(name).compare("Cookie", Qt::CaseInsensitive) == 0)
            secret(value);
    if (!qurl.password().isEmpty()) secret(qurl.password().toStdString());

    if (qurl.scheme() == QLatin1String("https")) {
#if QT_CONFIG(ssl)
        QSslConfiguration ssl = QSslConfiguration::defaultConfiguration();
        if (!options.caFile.empty()) {
            const auto certs =
                QSslCertificate::fromPath(QString::fromStdString(options.caFile), QSsl::Pem);
            if (certs.isEmpty()) {
                p->result.error = "no certificates in CA file " + options.caFile;
                p->result.receivedAt = wallNow();
                QTimer::singleShot(0, m_context.get(), [p] { p->done(std::move(p->result)); });
                return;
            }
            ssl.addCaCertificates(certs);
        }
        if (options.insecureSkipVerify) ssl.setPeerVerifyMode(QSslSocket::VerifyNone);
        request.setSslConfiguration(ssl);
#else
        p->result.error = "https is not available in this build (Qt without TLS)";
        QTimer::singleShot(0, m_context.get(), [p] { p->done(std::move(p->result)); });
        return;
#endif
    }

    QNetworkReply* reply = nullptr;
    if (!options.method.empty()) {
        if (!body.empty())
            request.setHeader(QNetworkRequest::ContentTypeHeader,
                              QString::fromStdString(contentType));
        reply = nam->sendCustomRequest(request, QByteArray::fromStdString(options.method),
                                       QByteArray::fromStdString(body));
    } else if (body.empty()) {
        reply = nam->get(request);
    } else {
        request.setHeader(QNetworkRequest::ContentTypeHeader, QString::fromStdString(contentType));
        reply = nam->post(request, QByteArray::fromStdString(body));
    }
    // Keeps what Qt buffers ahead of us bounded while we keep draining it.
    reply->setReadBufferSize(std::min<qint64>(static_cast<qint64>(p->cap), 4 << 20));
    m_replies.emplace(reply, InFlight{pool, std::move(host)});

    QObject::connect(reply, &QNetworkReply::readyRead, reply, [reply, p] { drain(reply, *p); });
    auto* deadline = new QTimer(reply); // owned by the reply: dies with it
    deadline->setSingleShot(true);
    QObject::connect(deadline, &QTimer::timeout, reply, [reply, p] {
        p->timedOut = true;
        reply->abort();
    });
    deadline->start(std::max<std::chrono::milliseconds>(p->timeout, std::chrono::milliseconds(1)));

    ++pool->inFlight;
    QObject::connect(reply, &QNetworkReply::finished, m_context.get(), [this, reply, deadline, p] {
        deadline->stop();
        if (!p->result.truncated && !p->timedOut) drain(reply, *p);
        HttpResult& r = p->result;
        r.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        r.contentType = reply->header(QNetworkRequest::ContentTypeHeader).toString().toStdString();
        for (const auto& [name, value] : reply->rawHeaderPairs())
            r.headers.emplace_back(name.toStdString(), value.toStdString());
        if (p->timedOut) {
            r.error = "timed out after " + std::to_string(p->timeout.count()) + " ms";
        } else if (reply->error() != QNetworkReply::NoError && !r.truncated &&
                   (r.status == 0 || (r.status >= 200 && r.status < 400))) {
            // An HTTP error status is an answer (its body may explain it). A missing answer is
            // a transport error, and so is a success whose body broke off (the connection
            // closed inside a chunk, a body that would not inflate): its bytes are not whole.
            const std::string why = reply->errorString().toStdString();
            if (r.status == 0)
                r.error = why;
            else if (r.status >= 300)
                r.error = "HTTP " + std::to_string(r.status) + ", redirect not followed: " + why;
            else if (why.starts_with("Decompression failed"))
                r.error = "the " + reply->rawHeader("Content-Encoding").toStdString() +
                          "-encoded answer would not inflate (too far for its size: a "
                          "decompression bomb?); not used";
            else
                r.error = "the answer broke off after " + std::to_string(r.body.size()) +
                          " bytes (" + why + "); not used";
        }
        // Qt names the URL in its errors, and a server may echo the credentials it refused.
        if (!r.error.empty()) r.error = scrubSecrets(std::move(r.error), p->secrets);
        // (Only the first 64 KiB of a failed answer is kept: all that describeFailure reads.)
        if ((r.status < 200 || r.status >= 300) && !r.body.empty()) {
            if (r.body.size() > 65536) r.body.resize(65536);
            r.body = scrubSecrets(std::move(r.body), p->secrets);
        }
        r.receivedAt = wallNow();
        r.latencyMs =
            std::chrono::duration<double, std::milli>(SteadyClock::now() - p->started).count();
        if (const auto it = m_replies.find(reply); it != m_replies.end()) {
            const InFlight at = std::move(it->second);
            m_replies.erase(it);
            --at.pool->inFlight;
            if (r.truncated || p->timedOut) abortedMidBody(at.pool, at.host);
            collectRetired(at.pool.get());
        }
        reply->disconnect();
        reply->deleteLater();
        auto done = std::move(p->done);
        done(std::move(r));
    });
}

HttpResult requestBlocking(HttpClient& client, const std::string& url, const HttpOptions& options,
                           const std::atomic<bool>* cancel, const std::string& body,
                           const std::string& contentType) {
    // Shared with the callback, which outlives this call only if the request is never aborted
    // (it always is, below, when we stop waiting for it).
    auto state = std::make_shared<std::pair<HttpResult, bool>>();
    QEventLoop loop;
    client.request(
        url, options,
        [state, &loop](HttpResult r) {
            state->first = std::move(r);
            state->second = true;
            loop.quit();
        },
        body, contentType);
    QTimer watch;
    if (cancel) {
        QObject::connect(&watch, &QTimer::timeout, &loop, [&] {
            if (cancel->load()) loop.quit();
        });
        watch.start(20);
    }
    if (!state->second) loop.exec();
    if (!state->second) {
        client.abortAll(); // cancelled: its callback must not run against this frame
        HttpResult out;
        out.error = "cancelled";
        out.receivedAt = wallNow();
        return out;
    }
    return std::move(state->first);
}

HttpResult requestBlocking(const std::string& url, const HttpOptions& options,
                           const std::atomic<bool>* cancel, const std::string& body,
                           const std::string& contentType) {
    HttpClient client;
    return requestBlocking(client, url, options, cancel, body, contentType);
}

} // namespace ft::importers
