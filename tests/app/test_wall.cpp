// Links into a running twin and one wall of many screens, on the real binary: windows under
// the suite's X display (Xvfb in CI), talking over a local socket and UDP on 127.0.0.1. The
// processes' XDG folders are the suite's own, so nothing is registered for the person running
// it.
#include "support/floortwin_run.h"
#include "support/requirement.h"
#include "support/test_paths.h"

#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUdpSocket>
#include <memory>
#include <unistd.h>

using ft::testing::floortwin;
using ft::testing::Run;

namespace {

// A floortwin that runs until stopped, its output gathered as it comes.
class Twin {
public:
    Twin(const QStringList& args, const QProcessEnvironment& env) {
        m_p.setProgram(FT_BINARY_PATH("/bin/floortwin"));
        m_p.setArguments(args);
        m_p.setProcessEnvironment(env);
        m_p.setProcessChannelMode(QProcess::MergedChannels);
        m_p.start();
    }
    ~Twin() { stop(); }
    Twin(const Twin&) = delete;
    Twin& operator=(const Twin&) = delete;
    // Waits until the output holds `pattern` (a regular expression); false after `ms`.
    bool waitFor(const QString& pattern, int ms = 60000) {
        const QRegularExpression re(pattern);
        QElapsedTimer t;
        t.start();
        while (!re.match(QString::fromUtf8(m_out)).hasMatch()) {
            if (t.elapsed() > ms || m_p.state() == QProcess::NotRunning) {
                m_out += m_p.readAll();
                return re.match(QString::fromUtf8(m_out)).hasMatch();
            }
            m_p.waitForReadyRead(100);
            m_out += m_p.readAll();
        }
        return true;
    }
    QByteArray output() {
        m_out += m_p.readAll();
        return m_out;
    }
    void kill() {
        m_p.kill();
        m_p.waitForFinished(10000);
    }
    void stop() {
        if (m_p.state() == QProcess::NotRunning) return;
        m_p.terminate();
        if (!m_p.waitForFinished(10000)) kill();
    }

private:
    QProcess m_p;
    QByteArray m_out;
};

Run run(const QStringList& args, const QProcessEnvironment& env) {
    QProcess p;
    p.setProgram(FT_BINARY_PATH("/bin/floortwin"));
    p.setArguments(args);
    p.setProcessEnvironment(env);
    p.start();
    if (!p.waitForFinished(ft::testing::kRunLimitMs)) {
        p.kill();
        p.waitForFinished();
        return {-1, {}, "did not finish"};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

// The largest difference of any channel over the whole picture, and the fraction of pixels
// that differ by more than 48 (of 255) in some channel.
std::pair<int, double> difference(const QImage& a, const QImage& b) {
    if (a.size() != b.size()) return {255, 1.0};
    int worst = 0;
    long long off = 0;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x) {
            const QRgb p = a.pixel(x, y), q = b.pixel(x, y);
            const int d = std::max({std::abs(qRed(p) - qRed(q)), std::abs(qGreen(p) - qGreen(q)),
                                    std::abs(qBlue(p) - qBlue(q))});
            worst = std::max(worst, d);
            off += d > 48 ? 1 : 0;
        }
    return {worst, static_cast<double>(off) / (static_cast<double>(a.width()) * a.height())};
}

} // namespace

class TestWall : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_recording;
    QProcessEnvironment m_env;
    // A group name of this run: two runs of the suite on one machine do not meet.
    QString group(const char* name) const { return QString("%1-%2").arg(name).arg(getpid()); }
    QString link(const QString& parts) const {
        return "floortwin://open?replay=" + m_recording + (parts.isEmpty() ? "" : "&" + parts);
    }

private slots:
    void initTestCase() {
        FT_REQUIRE_DISPLAY();
        QVERIFY(m_dir.isValid());
        m_recording = m_dir.filePath("pump.ftrec");
        const Run r = floortwin(
            {"--headless", "--scenario", "pump-failure", "--for", "5m", "--record", m_recording});
        QVERIFY2(r.code == 0, r.err.constData());
        m_env = QProcessEnvironment::systemEnvironment();
        m_env.insert("XDG_DATA_HOME", m_dir.filePath("data"));
        m_env.insert("XDG_CONFIG_HOME", m_dir.filePath("config"));
        m_env.insert("HOME", m_dir.path());
        m_env.insert("FLOORTWIN_WALL_STATS", "1");
    }

    // A link opens the view it holds: the same picture as the flags that say the same.
    void aLinkOpensTheViewItHolds() {
        const QString a = m_dir.filePath("link.png"), b = m_dir.filePath("flags.png");
        Run r = run({link("at=2m&select=rack:A03&layers=racks,thermal&metric=gpu.power"), "--size",
                     "640x360", "--screenshot", a},
                    m_env);
        QVERIFY2(r.code == 0, r.err.constData());
        r = run({"--replay", m_recording, "--at", "2m", "--select", "rack:A03", "--frame",
                 "--layers", "racks,thermal", "--metric", "gpu.power", "--size", "640x360",
                 "--screenshot", b},
                m_env);
        QVERIFY2(r.code == 0, r.err.constData());
        const auto [worst, off] = difference(QImage(a), QImage(b));
        QVERIFY2(worst <= 8, qPrintable(QString("differ by up to %1").arg(worst)));
        Q_UNUSED(off);
    }

    // A part that cannot be followed is said; the rest opens. A malformed part is refused.
    void aLinkSaysWhatItCouldNotFollow() {
        const QString png = m_dir.filePath("missing.png");
        Run r = run({"floortwin://open?replay=" + m_dir.filePath("gone.ftrec") +
                         "&select=rack:Z99&layers=racks",
                     "--size", "320x180", "--screenshot", png},
                    m_env);
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY2(r.err.contains("gone.ftrec: cannot open the recording"), r.err.constData());
        QVERIFY2(r.err.contains("opened the demo floor instead"), r.err.constData());
        QVERIFY2(r.err.contains("no rack 'Z99'"), r.err.constData());
        QVERIFY(QImage(png).width() == 320);
        r = run({link("at=2030-01-01T00:00:00Z"), "--size", "320x180", "--screenshot", png}, m_env);
        QVERIFY2(r.code == 0 && r.err.contains("outside the recording"), r.err.constData());
        r = run({link("zoom=2"), "--screenshot", png}, m_env);
        QCOMPARE(r.code, 2);
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY2(r.err.contains("link part 'zoom' is unknown"), r.err.constData());
    }

    // The check of the issue: a link copied during a replay, opened with xdg-open, moves the
    // twin that runs (no second window); the twin registered the scheme on its first run.
    void xdgOpenMovesTheRunningTwin() {
        FT_REQUIRE_PROGRAM("xdg-open", "xdg-utils");
        Twin twin({"--replay", m_recording, "--size", "800x450"}, m_env);
        QVERIFY2(twin.waitFor("links opened on this display come to this window"),
                 twin.output().constData());
        QVERIFY(QFile::exists(m_dir.filePath("data/applications/floortwin.desktop")));
        QFile list(m_dir.filePath("config/mimeapps.list"));
        QVERIFY(list.open(QIODevice::ReadOnly));
        QVERIFY(list.readAll().contains("x-scheme-handler/floortwin=floortwin.desktop"));

        QProcess open;
        open.setProcessEnvironment(m_env);
        open.start("xdg-open", {link("at=3m&select=rack:B02&layers=racks")});
        QVERIFY(open.waitForFinished(60000));
        QCOMPARE(open.exitCode(), 0);
        QVERIFY2(twin.waitFor("link opened: at 2026-09-21 14:16:20.000 UTC, selection rack:B02"),
                 twin.output().constData());
        // A second launch with a link that names what is not there: the twin says so, and the
        // launch prints what it could not follow.
        const Run r = run({"floortwin://open?select=rack:Q77&at=9h"}, m_env);
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY2(r.out.contains("the running twin opened the link"), r.out.constData());
        QVERIFY2(r.err.contains("no rack 'Q77'") && r.err.contains("outside the recording"),
                 r.err.constData());
        QVERIFY2(twin.waitFor("2 part\\(s\\) not followed"), twin.output().constData());
        // A link that names a server this twin was not started with gets none of its
        // credentials.
        const Run live = run({"floortwin://open?source=prometheus=http://127.0.0.1:9"}, m_env);
        QVERIFY2(live.code == 0 && live.err.contains("credentials not sent to 127.0.0.1:9"),
                 live.err.constData());
    }

    // Four screens of a 2x2 wall draw one picture: their slices, stitched, are the single
    // screen's picture of the same moment and camera.
    void theSlicesStitchIntoOnePicture() {
        const QString wall = m_dir.filePath("wall.json"), one = m_dir.filePath("one.json");
        const QString name = group("stitch");
        {
            QFile f(wall);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QString("{\"group\": \"%1\", \"grid\": [2, 2], \"screen_mm\": [1210, 680],"
                            " \"screens\": [{\"at\": [0, 0], \"hud\": false}, {\"at\": [1, 0], "
                            "\"hud\": false}, {\"at\": [0, 1], \"hud\": false}, {\"at\": [1, 1], "
                            "\"hud\": false}]}")
                        .arg(name)
                        .toUtf8());
            QFile g(one);
            QVERIFY(g.open(QIODevice::WriteOnly));
            g.write(QString("{\"group\": \"%1-one\", \"grid\": [1, 1], \"screens\": [{\"at\": "
                            "[0, 0], \"hud\": false}]}")
                        .arg(name)
                        .toUtf8());
        }
        const QString view = link("at=150s&camera=3,2.5,1,16,-30,32&layers=racks,thermal");
        Twin leader({view, "--new-window", "--wall-file", wall, "--wall-screen", "0,0", "--size",
                     "640x360"},
                    m_env);
        QVERIFY2(leader.waitFor("screen 0,0 leads"), leader.output().constData());
        // Each screen's picture, drawn by a process that follows the leader.
        std::vector<std::unique_ptr<QProcess>> shots;
        shots.reserve(4);
        for (int i = 0; i < 4; ++i) {
            auto p = std::make_unique<QProcess>();
            p->setProcessEnvironment(m_env);
            p->start(FT_BINARY_PATH("/bin/floortwin"),
                     {"--replay", m_recording, "--wall-file", wall, "--wall-screen",
                      QString("%1,%2").arg(i % 2).arg(i / 2), "--size", "480x270", "--screenshot",
                      m_dir.filePath(QString("slice-%1.png").arg(i))});
            shots.push_back(std::move(p));
        }
        for (auto& p : shots) {
            QVERIFY(p->waitForFinished(120000));
            const QByteArray out = p->readAllStandardOutput();
            QVERIFY2(p->exitCode() == 0 && out.contains("follows screen 0,0 at 2026-09-21 "
                                                        "14:15:50.000 UTC"),
                     (out + p->readAllStandardError()).constData());
        }
        const QString whole = m_dir.filePath("whole.png");
        const Run r =
            run({view, "--wall-file", one, "--size", "960x540", "--screenshot", whole}, m_env);
        QVERIFY2(r.code == 0, r.err.constData());
        QImage stitched(960, 540, QImage::Format_RGB32);
        for (int i = 0; i < 4; ++i) {
            const QImage slice(m_dir.filePath(QString("slice-%1.png").arg(i)));
            QCOMPARE(slice.size(), QSize(480, 270));
            for (int y = 0; y < 270; ++y)
                for (int x = 0; x < 480; ++x)
                    stitched.setPixel(x + (i % 2) * 480, y + (i / 2) * 270, slice.pixel(x, y));
        }
        stitched.save(m_dir.filePath("stitched.png"));
        const QImage reference(whole);
        const auto [worst, off] = difference(stitched, reference);
        qInfo("stitched 2x2 vs one screen: %.4f %% of pixels differ by more than 48, worst %d",
              off * 100, worst);
        // Rasterising at the seams may move an edge by a pixel: a few pixels, no more.
        QVERIFY2(off < 0.002, qPrintable(QString::number(off)));
        // And the picture is of the floor, not of nothing.
        const auto [emptyWorst, emptyOff] =
            difference(reference, QImage(QSize(960, 540), QImage::Format_RGB32));
        Q_UNUSED(emptyWorst);
        QVERIFY(emptyOff > 0.05);
    }

    // A wall touring a replay: the leader is killed mid-tour; the next screen leads, takes up
    // the tour where it was, and the last screen follows it.
    void aKilledLeaderHandsOver() {
        const QString name = group("handover");
        std::vector<std::unique_ptr<Twin>> screens;
        screens.reserve(3);
        // The first screen up leads; the others are started once it does (started together,
        // whichever claims the first term first leads, and on a loaded machine that need not be
        // screen 0,0).
        for (int c = 0; c < 3; ++c) {
            screens.push_back(std::make_unique<Twin>(
                QStringList{link("speed=20"), "--new-window", "--tour", "noc", "--wall-group", name,
                            "--wall-grid", "3x1", "--wall-screen", QString("%1,0").arg(c), "--size",
                            "480x270"},
                m_env));
            if (c == 0)
                QVERIFY2(screens[0]->waitFor("screen 0,0 leads \\(term 1\\)"),
                         screens[0]->output().constData());
        }
        QVERIFY2(screens[1]->waitFor("screen 1,0 follows 0,0"), screens[1]->output().constData());
        QVERIFY2(screens[2]->waitFor("screen 2,0 follows 0,0"), screens[2]->output().constData());
        // Followers see the moments the leader shows (their skew is measured per moment).
        QVERIFY2(
            screens[1]->waitFor("wall_stats screen=1,0 leading=0 leader=0 term=1 samples=[1-9]"),
            screens[1]->output().constData());
        QTest::qWait(2000);
        screens[0]->kill();
        QVERIFY2(screens[1]->waitFor("screen 1,0 leads \\(term 2\\)", 10000),
                 screens[1]->output().constData());
        QVERIFY2(screens[1]->waitFor("screen 1,0 takes up the tour at [0-9.]+ s", 5000),
                 screens[1]->output().constData());
        QVERIFY2(screens[2]->waitFor("screen 2,0 follows 1,0 \\(term 2\\)", 10000),
                 screens[2]->output().constData());
        // Nobody heard a foreign or malformed message.
        QVERIFY2(screens[2]->waitFor("wall_stats screen=2,0 leading=0 leader=1 term=2 "
                                     "samples=[0-9]+ .* foreign=0 malformed=0"),
                 screens[2]->output().constData());
    }

    // A wall with a key: its screens sign what they send and follow each other; a message
    // without the signature, of another group or version, or not JSON is ignored and counted.
    void strangersAreIgnoredAndCounted() {
        const auto port = static_cast<quint16>(45000 + getpid() % 4000);
        const QString wall = m_dir.filePath("signed.json"), key = m_dir.filePath("wall.key");
        {
            QFile k(key);
            QVERIFY(k.open(QIODevice::WriteOnly));
            k.write("a-secret-of-the-noc-wall\n");
            QFile f(wall);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QString("{\"group\": \"%1\", \"grid\": [2, 1], \"port\": %2, "
                            "\"key_file\": \"%3\"}")
                        .arg(group("signed"))
                        .arg(port)
                        .arg(key)
                        .toUtf8());
        }
        Twin leader({link(""), "--new-window", "--wall-file", wall, "--wall-screen", "0,0",
                     "--size", "320x180"},
                    m_env);
        Twin follower({link(""), "--new-window", "--wall-file", wall, "--wall-screen", "1,0",
                       "--size", "320x180"},
                      m_env);
        QVERIFY2(follower.waitFor("screen 1,0 follows 0,0"), follower.output().constData());
        QUdpSocket stranger;
        // A hello as a screen would send it, but unsigned (built as JSON: moc reads this file).
        QJsonObject forged{{"ft", "wall"},    {"v", 1},      {"g", group("signed")},
                           {"kind", "hello"}, {"screen", 0}, {"pid", 1},
                           {"lead", true},    {"term", 7},   {"want", true}};
        const QByteArray hello = QJsonDocument(forged).toJson(QJsonDocument::Compact);
        for (const QByteArray& d : {hello, hello + "\nffff", QByteArray("not json\nab")})
            stranger.writeDatagram(d, QHostAddress::LocalHost, port + 1);
        QVERIFY2(follower.waitFor("wall_stats screen=1,0 leading=0 leader=0 term=1 .* foreign=3 "
                                  "malformed=0"),
                 follower.output().constData());
        // The leader was not unseated by the forged claim.
        QVERIFY(!leader.output().contains("follows"));
    }

    // A link opened on a screen that follows moves the whole wall: it goes to every screen, the
    // leader opens it, and what the leader shows then is what every screen shows.
    void aLinkOnAnyScreenMovesTheWall() {
        const QString name = group("linked");
        // Screen 1,0 starts first and takes this display's links; 0,0 then leads (--wall-lead).
        Twin follower({link(""), "--new-window", "--wall-group", name, "--wall-grid", "2x1",
                       "--wall-screen", "1,0", "--size", "480x270"},
                      m_env);
        QVERIFY2(follower.waitFor("links opened on this display come to this window"),
                 follower.output().constData());
        Twin leader({link(""), "--new-window", "--wall-group", name, "--wall-grid", "2x1",
                     "--wall-screen", "0,0", "--wall-lead", "--size", "480x270"},
                    m_env);
        QVERIFY2(leader.waitFor("screen 0,0 leads"), leader.output().constData());
        QVERIFY2(follower.waitFor("screen 1,0 follows 0,0"), follower.output().constData());
        const Run r = run({"floortwin://open?at=4m&select=rack:B05&layers=racks"}, m_env);
        QVERIFY2(r.code == 0 && r.out.contains("the running twin opened the link"),
                 (r.out + r.err).constData());
        QVERIFY2(leader.waitFor("link opened \\(from the wall\\): at 2026-09-21 14:17:20.000 "
                                "UTC, selection rack:B05"),
                 leader.output().constData());
        // A picture of the follower's screen shows the leader's moment and selection.
        const Run shot = run({"--replay", m_recording, "--wall-group", name, "--wall-grid", "2x1",
                              "--wall-screen", "1,0", "--size", "320x180", "--screenshot",
                              m_dir.filePath("linked.png")},
                             m_env);
        QVERIFY2(shot.code == 0, shot.err.constData());
        QVERIFY2(shot.out.contains("follows screen 0,0 at 2026-09-21 14:17:20.000 UTC, "
                                   "selection rack:"),
                 shot.out.constData());
    }
};

QTEST_GUILESS_MAIN(TestWall)
#include "test_wall.moc"
