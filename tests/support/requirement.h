#pragma once
// What a test needs from the machine (a daemon, an X display, the shared corpus) and what to do
// when it is not there. On a developer's machine a missing part skips the test with one line
// that says what is missing and how to get it. In CI (the environment has CI=true, as .ci/run
// is run) the same miss fails the test: a broken install step must not turn live tests into
// silent skips while CI stays green.
//
//     FT_REQUIRE(!QStandardPaths::findExecutable("mosquitto").isEmpty(),
//                "mosquitto (the MQTT broker)", "scripts/install-deps.sh installs `mosquitto`");
#include "test_paths.h"

#include <QByteArray>
#include <QStandardPaths>
#include <QString>
#include <QTest>
#include <QtGlobal>

namespace ft::testing {

// True when the run is CI's: a skip there is a failure.
inline bool skipsFail() {
    const QByteArray ci = qgetenv("CI").toLower();
    return !ci.isEmpty() && ci != "0" && ci != "false";
}

// The line a skip or failure prints: what is missing and which step provides it.
inline QByteArray missingLine(const char* what, const char* provider) {
    return QStringLiteral("%1 is not available (%2)%3")
        .arg(QString::fromUtf8(what), QString::fromUtf8(provider),
             skipsFail() ? QStringLiteral(": CI=true, so this test fails instead of skipping")
                         : QString())
        .toUtf8();
}

// The shared corpus beside the project (../shared), read only by tests labelled `corpus`.
inline QString corpusDir() {
    const QByteArray over = qgetenv("FT_CORPUS_DIR");
    return over.isEmpty() ? QString::fromUtf8(FT_SOURCE_PATH("/../shared"))
                          : QString::fromUtf8(over);
}

} // namespace ft::testing

// Skips the test (fails it under CI=true) unless `cond` holds.
#define FT_REQUIRE(cond, what, provider)                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            if (::ft::testing::skipsFail())                                                        \
                QFAIL(::ft::testing::missingLine(what, provider).constData());                     \
            QSKIP(::ft::testing::missingLine(what, provider).constData());                         \
        }                                                                                          \
    } while (false)

// X display for tests that render: `make test` runs ctest under xvfb-run when there is none.
#define FT_REQUIRE_DISPLAY()                                                                       \
    FT_REQUIRE(!qEnvironmentVariableIsEmpty("DISPLAY"), "an X display",                            \
               "`make test` runs the suites under xvfb-run; scripts/install-deps.sh installs "     \
               "`xvfb`")

// A program on PATH, installed by the named Debian package.
#define FT_REQUIRE_PROGRAM(program, package)                                                       \
    FT_REQUIRE(!QStandardPaths::findExecutable(QStringLiteral(program)).isEmpty(),                 \
               "the program `" program "`",                                                        \
               "scripts/install-deps.sh installs the Debian package `" package "`")
