#pragma once
// A real Slurm on loopback for the live suites: Debian's slurm-wlm (slurmctld and slurmd) with
// munge, each with its own ports, state, spool, socket and logs under a temporary folder and a
// slurm.conf the fixture writes. The machine's own host name is the node that runs; the other
// nodes named in the constructor are listed in slurm.conf on a port nobody answers, so the
// controller has them (and they can be drained, downed or resumed) without a slurmd. SLURM_CONF
// is set in this process's environment, so `sinfo`, `squeue`, `sbatch` and `scontrol` run here
// (and by anything this process starts) talk to this cluster. Everything stops with the fixture.
#include "server_process.h"

#include <QDir>
#include <QFile>
#include <QHostInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <chrono>
#include <optional>
#include <thread>

namespace ft::testing {

class SlurmFixture {
public:
    explicit SlurmFixture(QStringList otherNodes) : m_others(std::move(otherNodes)) {}
    ~SlurmFixture() { stop(); }
    SlurmFixture(const SlurmFixture&) = delete;
    SlurmFixture& operator=(const SlurmFixture&) = delete;

    // The node slurmd runs as: this machine's short host name.
    static QString localNode() { return QHostInfo::localHostName().section('.', 0, 0); }

    // Starts munged, slurmctld and slurmd and waits until the local node answers idle. False
    // (with error()) when a daemon would not start.
    bool start() {
        if (!m_dir.isValid()) return fail("no temporary folder");
        const QString d = m_dir.path();
        for (const char* sub : {"state", "spool", "log"})
            QDir(d).mkpath(QString::fromLatin1(sub));
        // munge: its own key and socket (munged wants the key private to its user).
        QFile key(d + "/munge.key");
        if (!key.open(QIODevice::WriteOnly)) return fail("cannot write the munge key");
        QByteArray bytes(1024, '\0');
        for (int i = 0; i < bytes.size(); ++i)
            bytes[i] = static_cast<char>((i * 7919 + 13) ^ (i >> 3));
        key.write(bytes);
        key.close();
        key.setPermissions(QFileDevice::ReadOwner);
        m_munge.emplace(
            QStringLiteral("/usr/sbin/munged"),
            QStringList{"-F", "-f", "--socket=" + d + "/munge.sock",
                        "--key-file=" + d + "/munge.key", "--pid-file=" + d + "/munged.pid",
                        "--seed-file=" + d + "/munged.seed", "--log-file=" + d + "/log/munged.log"},
            d + "/log/munged.out");
        if (!m_munge->start()) return fail("munged did not start");
        for (int i = 0; i < 100 && !QFile::exists(d + "/munge.sock"); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        if (!QFile::exists(d + "/munge.sock")) return fail("munged: " + m_munge->log());

        const int ctlPort = freePort(), dPort = freePort(), deadPort = freePort();
        QString conf;
        auto line = [&](const QString& l) { conf += l + "\n"; };
        line("ClusterName=floortwin-test");
        line("SlurmctldHost=" + localNode() + "(127.0.0.1)");
        line("SlurmctldPort=" + QString::number(ctlPort));
        line("SlurmdPort=" + QString::number(dPort));
        line("SlurmUser=root");
        line("SlurmdUser=root");
        line("AuthType=auth/munge");
        line("AuthInfo=socket=" + d + "/munge.sock");
        line("CredType=cred/munge");
        line("StateSaveLocation=" + d + "/state");
        line("SlurmdSpoolDir=" + d + "/spool");
        line("SlurmctldPidFile=" + d + "/slurmctld.pid");
        line("SlurmdPidFile=" + d + "/slurmd.pid");
        line("SlurmctldLogFile=" + d + "/log/slurmctld.log");
        line("SlurmdLogFile=" + d + "/log/slurmd.log");
        line("ProctrackType=proctrack/linuxproc");
        line("TaskPlugin=task/none");
        line("SelectType=select/cons_tres");
        line("SelectTypeParameters=CR_Core");
        line("SchedulerType=sched/backfill");
        line("MpiDefault=none");
        line("ReturnToService=2");
        line("AccountingStorageType=accounting_storage/none");
        line("JobCompType=jobcomp/none");
        line("JobAcctGatherType=jobacct_gather/none");
        line("SwitchType=switch/none");
        line("MessageTimeout=5");
        line("NodeName=" + localNode() + " NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN");
        if (!m_others.isEmpty())
            line("NodeName=" + m_others.join(',') +
                 " NodeAddr=127.0.0.1 Port=" + QString::number(deadPort) + " CPUs=2 State=UNKNOWN");
        line("PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP");
        QFile f(d + "/slurm.conf");
        if (!f.open(QIODevice::WriteOnly)) return fail("cannot write slurm.conf");
        f.write(conf.toUtf8());
        f.close();
        m_previousConf = qgetenv("SLURM_CONF");
        qputenv("SLURM_CONF", (d + "/slurm.conf").toUtf8());

        m_ctld.emplace(QStringLiteral("/usr/sbin/slurmctld"), QStringList{"-D", "-c"},
                       d + "/log/slurmctld.out");
        if (!m_ctld->start()) return fail("slurmctld did not start");
        m_slurmd.emplace(QStringLiteral("/usr/sbin/slurmd"), QStringList{"-D"},
                         d + "/log/slurmd.out");
        if (!m_slurmd->start()) return fail("slurmd did not start");
        // Ready when the controller answers and the local node has registered.
        for (int i = 0; i < 300; ++i) {
            const auto out = run("sinfo", {"-h", "-n", localNode(), "-o", "%T"});
            if (out && (out->startsWith("idle") || out->startsWith("mixed"))) return true;
            if (!m_ctld->running()) return fail("slurmctld stopped: " + logTail("slurmctld.log"));
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        return fail("the local node never came up: " + logTail("slurmctld.log") + " / " +
                    logTail("slurmd.log"));
    }

    void stop() {
        if (m_ctld && m_ctld->running()) {
            run("scancel", {"--user", qEnvironmentVariable("USER", "root"), "--full"});
            run("scancel", {"--state", "RUNNING", "--full"});
        }
        m_slurmd.reset(); // SIGKILL each, newest first
        m_ctld.reset();
        m_munge.reset();
        if (!m_previousConf.isNull()) {
            qputenv("SLURM_CONF", m_previousConf);
            m_previousConf = {};
        }
    }

    // A Slurm command run here to the end: its stdout, or nothing (the error in error()).
    std::optional<QString> run(const QString& program, const QStringList& args) {
        QProcess p;
        p.start(program, args);
        if (!p.waitForFinished(20000) || p.exitCode() != 0) {
            m_error = program + " " + args.join(' ') + ": " +
                      QString::fromUtf8(p.readAllStandardError()).trimmed();
            return std::nullopt;
        }
        return QString::fromUtf8(p.readAllStandardOutput());
    }

    QString confPath() const { return m_dir.path() + "/slurm.conf"; }
    QString folder() const { return m_dir.path(); }
    const QString& error() const { return m_error; }
    QString logTail(const QString& name) const {
        QFile f(m_dir.path() + "/log/" + name);
        if (!f.open(QIODevice::ReadOnly)) return {};
        return QString::fromUtf8(f.readAll().right(1500));
    }

private:
    bool fail(const QString& why) {
        m_error = why;
        return false;
    }

    QStringList m_others;
    QTemporaryDir m_dir;
    std::optional<ServerProcess> m_munge, m_ctld, m_slurmd;
    QByteArray m_previousConf;
    QString m_error;
};

} // namespace ft::testing
