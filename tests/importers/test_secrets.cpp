// Secrets (tokens, passwords) stay out of what the app shows and writes: URLs shown masked,
// error texts scrubbed, secret files read with a warning when others can read them, and an
// HTTP server that echoes the credentials it refused does not get them into the health.
#include "importers/net/http_client.h"
#include "importers/net/secrets.h"
#include "support/loopback_server.h"

#include <QTemporaryDir>
#include <QtTest>
#include <fstream>
#include <sys/stat.h>

using namespace ft::importers;

namespace {
std::string writeFile(const QTemporaryDir& dir, const char* name, const std::string& text,
                      mode_t mode) {
    std::string path = dir.filePath(name).toStdString();
    std::ofstream(path, std::ios::binary) << text;
    ::chmod(path.c_str(), mode);
    return path;
}
bool has(const std::string& text, const std::string& what) {
    return text.find(what) != std::string::npos;
}
} // namespace

class TestSecrets : public QObject {
    Q_OBJECT
private slots:
    void urlsAreShownMasked() {
        QCOMPARE(redactUrl("https://ops:pa55word@prom:9090/api/v1/query?query=up&token=abc&"
                           "step=15#frag"),
                 std::string("https://ops:***@prom:9090/api/v1/query?query=up&token=***&step=15#"
                             "frag"));
        QCOMPARE(redactUrl("http://h:9400/metrics?Access_Token=z&x=1&API_KEY=k"),
                 std::string("http://h:9400/metrics?Access_Token=***&x=1&API_KEY=***"));
        // Nothing secret: as it was.
        for (const char* plain : {"http://127.0.0.1:9400/metrics", "https://ops@prom:9090/",
                                  "prom:9090", "http://h/?query=a%40b&keyword=x", ""})
            QCOMPARE(redactUrl(plain), std::string(plain));
        // '@' in the path or query is not user info.
        QCOMPARE(redactUrl("http://h/a:b@c"), std::string("http://h/a:b@c"));
        QVERIFY(urlHasUserInfo("https://ops:pw@prom:9090/"));
        QVERIFY(urlHasUserInfo("mqtt://ops:pw@broker:1883"));
        QVERIFY(urlHasUserInfo("https://ops@prom:9090/"));
        QVERIFY(!urlHasUserInfo("http://h/a:b@c"));
        QVERIFY(!urlHasUserInfo("prom:9090"));
        // Without a scheme too (a --source entry may have none).
        QVERIFY(urlHasUserInfo("ops:pw@h:9400"));
        QCOMPARE(redactUrl("ops:pw@h:9400/metrics"), std::string("ops:***@h:9400/metrics"));
        QVERIFY(!urlHasUserInfo("h:9400/a@b"));
    }

    void errorTextsAreScrubbed() {
        const std::string qtError =
            "Error transferring http://ops:PW-8c2e5@127.0.0.1:9/metrics?token=T-77aa - server "
            "replied: Unauthorized (token 'TOKEN-4d1f' refused)";
        const std::string clean =
            scrubSecrets(qtError, std::array<std::string, 2>{"TOKEN-4d1f", "PW-8c2e5"});
        QVERIFY2(!has(clean, "TOKEN-4d1f") && !has(clean, "PW-8c2e5") && !has(clean, "T-77aa"),
                 clean.c_str());
        QVERIFY2(has(clean, "http://ops:***@127.0.0.1:9/metrics?token=***") &&
                     has(clean, "server replied: Unauthorized"),
                 clean.c_str());
        // Every occurrence; secrets too short to mask safely are left alone.
        QCOMPARE(scrubSecrets("a abcd b abcd", std::array<std::string, 2>{"abcd", "a"}),
                 std::string("a *** b ***"));
        QCOMPARE(scrubSecrets("nothing here", std::array<std::string, 1>{"zzzz"}),
                 std::string("nothing here"));
    }

    void secretFilesWarnWhenOthersCanRead() {
        QTemporaryDir dir;
        const std::string open = writeFile(dir, "open", "s3cret-value\n", 0644);
        auto read = readSecretFile(open, "--token-file");
        QVERIFY(read.has_value());
        QCOMPARE(read->value, std::string("s3cret-value"));
        QVERIFY2(has(read->warning, "--token-file") && has(read->warning, "every user") &&
                     has(read->warning, "0644") && has(read->warning, "chmod 600"),
                 read->warning.c_str());
        QVERIFY(!has(read->warning, "s3cret-value"));

        const std::string closed = writeFile(dir, "closed", "s3cret-value\r\n  ", 0600);
        read = readSecretFile(closed, "--password-file");
        QVERIFY(read.has_value());
        QCOMPARE(read->value, std::string("s3cret-value"));
        QVERIFY(read->warning.empty());

        const std::string empty = writeFile(dir, "empty", "\n", 0600);
        auto bad = readSecretFile(empty, "--password-file");
        QVERIFY(!bad.has_value() && has(bad.error(), "is empty"));
        bad = readSecretFile(dir.filePath("missing").toStdString(), "--token-file");
        QVERIFY(!bad.has_value() && has(bad.error(), "--token-file: cannot read"));
    }

    // A server that refuses the credentials and echoes them in its answer: they are sent, and
    // the failure the health shows does not carry them.
    void refusedCredentialsAreNotEchoed() {
        std::mutex seenMutex;
        std::vector<std::string> seen;
        ft::testing::PageServer server([&](const ft::testing::PageServer::Request& r) {
            const auto auth = r.headers.find("authorization");
            const std::string value = auth == r.headers.end() ? "" : auth->second;
            {
                std::lock_guard lock(seenMutex);
                seen.push_back(value);
            }
            std::string echoed = value;
            if (value.starts_with("Basic "))
                echoed += " = " + QByteArray::fromBase64(QByteArray::fromStdString(value.substr(6)))
                                      .toStdString();
            return ft::testing::PageServer::Response{
                401, "credentials refused: " + echoed, "text/plain", {}};
        });
        HttpClient client;
        HttpOptions bearer;
        bearer.bearerToken = "TOKEN-0b7e2c";
        HttpResult r = requestBlocking(client, server.base() + "/metrics", bearer);
        QCOMPARE(r.status, 401);
        QVERIFY2(!has(r.describeFailure(), "TOKEN-0b7e2c") && has(r.describeFailure(), "***"),
                 r.describeFailure().c_str());

        HttpOptions basic;
        basic.basicUser = "ops";
        basic.basicPassword = "PASS-93ad11";
        r = requestBlocking(client, server.base() + "/metrics", basic);
        QCOMPARE(r.status, 401);
        QVERIFY2(
            !has(r.describeFailure(), "PASS-93ad11") &&
                !has(r.describeFailure(), QByteArray("ops:PASS-93ad11").toBase64().toStdString()),
            r.describeFailure().c_str());

        // A long error page that echoes the token past its first lines: still scrubbed.
        HttpOptions longPage;
        longPage.bearerToken = "TOKEN-long-77f1";
        ft::testing::PageServer padded([](const ft::testing::PageServer::Request& req) {
            const auto auth = req.headers.find("authorization");
            return ft::testing::PageServer::Response{
                403,
                "refused " + (auth == req.headers.end() ? "" : auth->second) + "\n" +
                    std::string(200000, 'x'),
                "text/plain",
                {}};
        });
        r = requestBlocking(client, padded.base() + "/metrics", longPage);
        QCOMPARE(r.status, 403);
        QVERIFY2(!has(r.describeFailure(), "TOKEN-long-77f1") && !has(r.body, "TOKEN-long-77f1"),
                 r.describeFailure().c_str());

        HttpOptions header;
        header.headers.emplace_back("X-Auth-Token", "SESSION-5e5e5e");
        header.headers.emplace_back("Authorization", "Token NETBOX-1c1c1c");
        r = requestBlocking(client, server.base() + "/metrics", header);
        QVERIFY2(!has(r.describeFailure(), "NETBOX-1c1c1c"), r.describeFailure().c_str());

        std::lock_guard lock(seenMutex);
        QCOMPARE(seen.size(), 3u);
        QCOMPARE(seen[0], std::string("Bearer TOKEN-0b7e2c"));
        QCOMPARE(seen[1], "Basic " + QByteArray("ops:PASS-93ad11").toBase64().toStdString());
        QCOMPARE(seen[2], std::string("Token NETBOX-1c1c1c"));
    }

    // A dead target named with a password: Qt's error text names the URL; the password is not
    // in it.
    void transportErrorsDoNotNameThePassword() {
        HttpClient client;
        HttpOptions o;
        o.timeout = std::chrono::milliseconds(3000);
        const HttpResult r =
            requestBlocking(client, "http://ops:PW-dead77@127.0.0.1:9/metrics?token=T-dead88", o);
        QVERIFY(!r.ok());
        const std::string why = r.describeFailure();
        QVERIFY2(!why.empty() && !has(why, "PW-dead77") && !has(why, "T-dead88"), why.c_str());
    }
};

QTEST_GUILESS_MAIN(TestSecrets)
#include "test_secrets.moc"
