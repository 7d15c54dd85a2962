#pragma once
// LinkServer: one running twin per user and display takes the floortwin:// links that later
// launches are given, through a local socket, so that a link moves the window already on the
// wall instead of opening a second one. The launch that finds a twin sends its link, prints the
// twin's answer (the parts it could not follow) and exits. UI thread only.
#include <QObject>
#include <QString>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

class QLocalServer;

namespace ft::app {

class LinkServer : public QObject {
    Q_OBJECT
public:
    // `open`: opens a link here and returns what it could not follow (empty: all of it).
    explicit LinkServer(std::function<std::vector<std::string>(const std::string&)> open,
                        QObject* parent = nullptr);
    ~LinkServer() override;
    // False when another twin on this display holds the name (or the socket cannot be made).
    bool listen();
    // The socket's name: the user and the display, so that each display has its own twin.
    static QString socketName();
    // A later launch: hands `link` to the twin that listens and returns its answer (the parts
    // it could not follow), or nothing when no twin listens.
    static std::optional<std::vector<std::string>> send(const std::string& link, int timeoutMs);

private:
    std::function<std::vector<std::string>(const std::string&)> m_open;
    std::unique_ptr<QLocalServer> m_server;
};

} // namespace ft::app
