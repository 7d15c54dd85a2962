#pragma once
// A real Alertmanager on loopback for the live suites: Debian's prometheus-alertmanager, started
// on a free 127.0.0.1 port with clustering off, its storage in a temporary folder and a config
// the fixture writes (every alert to a receiver that sends nothing, grouped at once). Stopped
// when the fixture goes.
#include "server_process.h"

#include <QByteArray>
#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <memory>
#include <string>

namespace ft::testing {

class AlertmanagerFixture {
public:
    // False (with the log) when it did not come up. The test asks for the program first:
    // FT_REQUIRE_PROGRAM("prometheus-alertmanager", "prometheus-alertmanager").
    bool start() {
        const QString program = QStandardPaths::findExecutable("prometheus-alertmanager");
        if (program.isEmpty()) return false;
        m_port = freePort();
        QFile config(m_dir.filePath("alertmanager.yml"));
        if (!config.open(QIODevice::WriteOnly)) return false;
        config.write("route:\n  receiver: quiet\n  group_wait: 0s\n  group_interval: 1s\n"
                     "receivers:\n  - name: quiet\n");
        config.close();
        m_server = std::make_unique<ServerProcess>(
            program,
            QStringList{"--config.file=" + config.fileName(),
                        "--storage.path=" + m_dir.filePath("data"),
                        QString("--web.listen-address=127.0.0.1:%1").arg(m_port),
                        "--cluster.listen-address=", "--log.level=warn"},
            m_dir.filePath("alertmanager.log"));
        if (!m_server->start()) return false;
        for (int waited = 0; waited < 20000; waited += 50) {
            if (portAccepts(m_port)) return true;
            if (!m_server->running()) return false;
            QTest::qWait(50);
        }
        return false;
    }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }
    QByteArray log() const { return m_server ? m_server->log().toUtf8() : QByteArray(); }

private:
    QTemporaryDir m_dir;
    int m_port = 0;
    std::unique_ptr<ServerProcess> m_server;
};

} // namespace ft::testing
