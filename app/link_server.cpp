#include "link_server.h"

#include <QFileInfo>
#include <QLocalServer>
#include <QLocalSocket>
#include <QRegularExpression>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace ft::app {

namespace {
constexpr qint64 kMaxLink = qint64{64} * 1024; // a link is a line; anything longer is not one
}

LinkServer::LinkServer(std::function<std::vector<std::string>(const std::string&)> open,
                       QObject* parent)
    : QObject(parent), m_open(std::move(open)) {}

LinkServer::~LinkServer() = default;

QString LinkServer::socketName() {
    QString display = qEnvironmentVariable("DISPLAY");
    if (display.isEmpty()) display = qEnvironmentVariable("WAYLAND_DISPLAY");
    display.replace(QRegularExpression("[^A-Za-z0-9._-]"), "_");
    QString name = QString("floortwin-links-%1-%2").arg(getuid()).arg(display);
    // In the user's own runtime folder where there is one (no other user can take the name);
    // else Qt's temporary folder, made readable by this user alone (UserAccessOption).
    const QString runtime = qEnvironmentVariable("XDG_RUNTIME_DIR");
    if (!runtime.isEmpty() && QFileInfo(runtime).isDir() && QFileInfo(runtime).isWritable())
        return runtime + "/" + name;
    return name;
}

bool LinkServer::listen() {
    // A twin that answers holds the name. (Asked first: with socket options set, Qt makes the
    // socket beside and renames it over the name, so listen() alone would take it away.)
    {
        QLocalSocket probe;
        probe.connectToServer(socketName());
        if (probe.waitForConnected(200)) return false;
    }
    // Nobody answers: a socket left by a twin that is gone is taken over.
    QLocalServer::removeServer(socketName());
    m_server = std::make_unique<QLocalServer>();
    m_server->setSocketOptions(QLocalServer::UserAccessOption);
    if (!m_server->listen(socketName())) return false;
    connect(m_server.get(), &QLocalServer::newConnection, this, [this] {
        while (QLocalSocket* socket = m_server->nextPendingConnection()) {
            connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
            connect(socket, &QLocalSocket::readyRead, socket, [this, socket] {
                if (!socket->canReadLine()) {
                    if (socket->bytesAvailable() > kMaxLink) socket->abort();
                    return;
                }
                const std::string link = socket->readLine(kMaxLink).trimmed().toStdString();
                const auto notes = m_open(link);
                socket->write(QByteArray::fromStdString(nlohmann::json(notes).dump()) + "\n");
                socket->flush();
                socket->disconnectFromServer();
            });
        }
    });
    return true;
}

std::optional<std::vector<std::string>> LinkServer::send(const std::string& link, int timeoutMs) {
    QLocalSocket socket;
    socket.connectToServer(socketName());
    if (!socket.waitForConnected(timeoutMs)) return std::nullopt;
    socket.write(QByteArray::fromStdString(link) + "\n");
    socket.flush();
    QByteArray answer;
    // Opening a recording takes the twin a moment: wait for its answer, not just the write.
    while (!answer.contains('\n') && socket.waitForReadyRead(30000))
        answer += socket.readAll();
    auto notes = nlohmann::json::parse(answer.toStdString(), nullptr, false);
    if (!notes.is_array()) return std::vector<std::string>{"the running twin did not answer"};
    std::vector<std::string> out;
    for (const auto& n : notes)
        if (n.is_string()) out.push_back(n.get<std::string>());
    return out;
}

} // namespace ft::app
