#include "wall_bench.h"

#include "app/link_server.h"
#include "support/test_paths.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <algorithm>
#include <cstdio>
#include <memory>
#include <vector>

namespace ft {

namespace {

double median(std::vector<double> v) {
    std::ranges::sort(v);
    return v.empty() ? 0 : v[v.size() / 2];
}

// A floortwin run to the end (a recording made headless).
bool runToEnd(const QStringList& args) {
    QProcess p;
    p.start(FT_BINARY_PATH("/bin/floortwin"), args);
    return p.waitForFinished(-1) && p.exitCode() == 0;
}

QProcessEnvironment benchEnv(const QTemporaryDir& dir) {
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("XDG_DATA_HOME", dir.filePath("data"));
    env.insert("XDG_CONFIG_HOME", dir.filePath("config"));
    return env;
}

// Waits until a process's output holds `needle`.
bool waitFor(QProcess& p, QByteArray& out, const QByteArray& needle, int ms) {
    QElapsedTimer t;
    t.start();
    while (!out.contains(needle) && t.elapsed() < ms && p.state() != QProcess::NotRunning) {
        p.waitForReadyRead(100);
        out += p.readAll();
    }
    return out.contains(needle);
}

} // namespace

void benchLinkOpen(const Figure& figure) {
    QTemporaryDir dir;
    const QString recording = dir.filePath("big.ftrec");
    if (!runToEnd({"--headless", "--floor", "generate:racks=1778", "--for", "20s", "--record",
                   recording})) {
        std::fprintf(stderr, "link.open_ms: could not record the 1,778-rack floor\n");
        return;
    }
    QProcess twin;
    twin.setProcessEnvironment(benchEnv(dir));
    twin.setProcessChannelMode(QProcess::MergedChannels);
    twin.start(FT_BINARY_PATH("/bin/floortwin"), {"--replay", recording, "--size", "1280x720"});
    QByteArray out;
    if (!waitFor(twin, out, "links opened on this display come to this window", 120000)) {
        std::fprintf(stderr, "link.open_ms: the twin did not start: %s\n", out.constData());
        twin.kill();
        twin.waitForFinished();
        return;
    }
    std::vector<double> full, empty;
    for (int i = 0; i < 16; ++i) {
        const std::string link = "floortwin://open?at=" + std::to_string(2 + i % 16) +
                                 "s&select=rack:" + std::to_string(97 * i % 1778);
        QElapsedTimer t;
        t.start();
        const auto notes = app::LinkServer::send(link, 5000);
        full.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
        if (!notes || !notes->empty())
            std::fprintf(stderr, "link.open_ms: %s: %s\n", link.c_str(),
                         notes ? notes->front().c_str() : "no answer");
        t.restart();
        (void)app::LinkServer::send("floortwin://open", 5000);
        empty.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
    }
    twin.terminate();
    twin.waitForFinished(10000);
    figure("link.open_ms.racks1778", median(full), "ms");
    figure("link.open_ms.empty", median(empty), "ms");
    figure("link.open_ratio.racks1778_vs_empty", median(full) / std::max(1e-3, median(empty)), "x");
}

void benchWall(const Figure& figure) {
    QTemporaryDir dir;
    const int seconds = qEnvironmentVariableIsSet("FT_WALL_SECONDS")
                            ? std::max(5, qEnvironmentVariableIntValue("FT_WALL_SECONDS"))
                            : 20;
    // At 100x the recording must outlast the run: seconds x 100 of the demo floor, and a bit.
    const QString recording = dir.filePath("tour.ftrec");
    if (!runToEnd({"--headless", "--for", QString("%1s").arg(seconds * 100 + 120), "--record",
                   recording})) {
        std::fprintf(stderr, "wall: could not record the demo floor\n");
        return;
    }
    auto env = benchEnv(dir);
    env.insert("FLOORTWIN_WALL_STATS", "2");
    const QString group = QString("bench-%1").arg(QCoreApplication::applicationPid());
    std::vector<std::unique_ptr<QProcess>> screens;
    screens.reserve(4);
    for (int i = 0; i < 4; ++i) {
        auto p = std::make_unique<QProcess>();
        p->setProcessEnvironment(env);
        p->setProcessChannelMode(QProcess::MergedChannels);
        p->start(FT_BINARY_PATH("/bin/floortwin"),
                 {"floortwin://open?replay=" + recording + "&speed=100", "--new-window", "--tour",
                  "noc", "--wall-group", group, "--wall-grid", "2x2", "--wall-screen",
                  QString("%1,%2").arg(i % 2).arg(i / 2), "--size", "640x360"});
        screens.push_back(std::move(p));
    }
    QElapsedTimer t;
    t.start();
    std::vector<QByteArray> out(4);
    while (t.elapsed() < seconds * 1000LL)
        for (int i = 0; i < 4; ++i) {
            screens[static_cast<std::size_t>(i)]->waitForReadyRead(50);
            out[static_cast<std::size_t>(i)] += screens[static_cast<std::size_t>(i)]->readAll();
        }
    double p99 = 0, p50 = 0, bytes = 0;
    int followers = 0;
    const QRegularExpression stats(
        "wall_stats screen=\\S+ leading=(\\d) .*skew_ms_p50=(\\S+) skew_ms_p99=(\\S+) "
        "sent_Bps=(\\S+) received_Bps=(\\S+)");
    for (std::size_t i = 0; i < 4; ++i) {
        screens[i]->terminate();
        screens[i]->waitForFinished(10000);
        out[i] += screens[i]->readAll();
        QRegularExpressionMatch last;
        for (auto it = stats.globalMatch(QString::fromUtf8(out[i])); it.hasNext();)
            last = it.next();
        if (!last.hasMatch()) continue;
        bytes = std::max(bytes, last.captured(4).toDouble() + last.captured(5).toDouble());
        if (last.captured(1) == "1") continue; // the leader has no skew of its own
        ++followers;
        p50 = std::max(p50, std::abs(last.captured(2).toDouble()));
        p99 = std::max(p99, std::abs(last.captured(3).toDouble()));
    }
    if (followers != 3) std::fprintf(stderr, "wall: %d of 3 followers reported\n", followers);
    figure("wall.skew_ms.p99", p99, "ms");
    figure("wall.skew_ms.p50", p50, "ms");
    figure("wall.bytes_per_s_per_screen", bytes, "B/s");
}

} // namespace ft
