#pragma once
// Processes and ports the live suites own: a free loopback port, whether something accepts on
// one, and ServerProcess, a daemon (or tool) the test starts and is sure to stop.
#include <QFile>
#include <QString>
#include <QStringList>
#include <arpa/inet.h>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <netinet/in.h>
#include <spawn.h>
#include <string>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace ft::testing {

inline int freePort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
        qFatal("cannot bind a loopback port");
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    ::close(fd);
    return ntohs(addr.sin_port);
}

inline bool portAccepts(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    ::close(fd);
    return ok;
}

// A process the test owns (a server, a tool); killed when the guard goes, whatever happened.
// posix_spawn rather than QProcess: it never runs code between fork and exec, so it also works
// in the ThreadSanitizer build (which cannot follow a multi-threaded fork).
class ServerProcess {
public:
    ServerProcess(QString program, QStringList args, QString logFile)
        : m_program(std::move(program)), m_args(std::move(args)), m_log(std::move(logFile)) {}
    ~ServerProcess() { kill(); }
    bool start() {
        kill();
        // setpriv (util-linux) execs the server with "kill me when my parent dies" set, so a
        // crashed or killed test never leaves a server behind; the pid stays the server's.
        std::vector<std::string> args;
        if (::access("/usr/bin/setpriv", X_OK) == 0)
            args = {"/usr/bin/setpriv", "--pdeathsig", "KILL", "--"};
        args.push_back(m_program.toStdString());
        for (const QString& a : m_args)
            args.push_back(a.toStdString());
        std::vector<char*> argv;
        argv.reserve(args.size());
        for (auto& a : args)
            argv.push_back(a.data());
        argv.push_back(nullptr);
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        const std::string log = m_log.toStdString();
        posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND,
                                         0644);
        posix_spawn_file_actions_adddup2(&actions, 1, 2);
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
        const int rc =
            posix_spawn(&m_pid, args[0].c_str(), &actions, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        if (rc != 0) m_pid = -1;
        return rc == 0;
    }
    void kill() {
        if (m_pid <= 0) return;
        ::kill(m_pid, SIGKILL); // a crash, not a goodbye
        ::waitpid(m_pid, nullptr, 0);
        m_pid = -1;
    }
    bool running() {
        if (m_pid <= 0) return false;
        int status = 0;
        if (::waitpid(m_pid, &status, WNOHANG) == 0) return true;
        m_pid = -1;
        m_exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        return false;
    }
    // Runs to the end (tools): true when it exited with 0 in time.
    bool finish(int timeoutMs) {
        for (int waited = 0; running() && waited < timeoutMs; waited += 20)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        if (running()) return false;
        return m_exitCode == 0;
    }
    QString log() const {
        QFile f(m_log);
        if (!f.open(QIODevice::ReadOnly)) return {};
        return QString::fromUtf8(f.readAll().right(3000));
    }

private:
    QString m_program;
    QStringList m_args;
    QString m_log;
    pid_t m_pid = -1;
    int m_exitCode = -1;
};

} // namespace ft::testing
