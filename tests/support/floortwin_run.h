#pragma once
// The floortwin binary of this build, run to the end with its output kept: for the suites that
// check the command line (test_cli, test_check_source).
#include "test_paths.h"

#include <QByteArray>
#include <QProcess>
#include <QStringList>

namespace ft::testing {

struct Run {
    int code = -1;
    QByteArray out, err;
};

// A run that has not finished in this long is stopped and fails its test, saying so. Long
// enough for the AddressSanitizer build (-O1, every allocation checked) sharing two cores with
// another suite: rendering the demo's video takes tens of seconds there.
inline constexpr int kRunLimitMs = 600000;

inline Run floortwin(const QStringList& args) {
    QProcess p;
    p.setProgram(FT_BINARY_PATH("/bin/floortwin"));
    p.setArguments(args);
    p.start();
    if (!p.waitForFinished(kRunLimitMs)) {
        p.kill();
        p.waitForFinished();
        return {-1,
                {},
                QByteArray("floortwin ") + args.join(' ').toUtf8() + " did not finish within " +
                    QByteArray::number(kRunLimitMs / 1000) + " s (stopped)"};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

} // namespace ft::testing
