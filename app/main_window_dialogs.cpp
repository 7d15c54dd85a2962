// MainWindow's long-running dialogs: telemetry, inventory and incident-window imports on a
// worker thread behind a progress dialog; exports of the view and of a replay's frames.
#include "floor_loading.h"
#include "importers/floor/floor_file.h"
#include "importers/formats/telemetry_loader.h"
#include "importers/recording/recording_incidents.h"
#include "incident_report.h"
#include "live_sources.h"
#include "main_window.h"
#include "source_kinds.h"
#include "story_player.h"
#include "views/floor_view.h"
#include "views/incidents_panel.h"
#include "views/inspector_panel.h"
#include "views/layer_registry.h"
#include "views/layers_panel.h"
#include "views/sources_panel.h"
#include "views/timeline_panel.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDateTime>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QEventLoop>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLineEdit>
#include <QMessageBox>
#include <QProcess>
#include <QProgressDialog>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QThread>
#include <fstream>

namespace ft::app {

bool MainWindow::runWithProgress(
    const QString& label,
    const std::function<void(const std::function<void(double)>&, const std::atomic<bool>*)>& work) {
    std::atomic<bool> cancel{false};
    std::atomic<double> progress{0.0};
    std::atomic<bool> finished{false};
    QThread* worker = QThread::create([&] {
        work([&](double p) { progress = p; }, &cancel);
        finished = true;
    });
    QProgressDialog dialog(label, tr("Cancel"), 0, 1000, this);
    dialog.setWindowModality(Qt::WindowModal);
    dialog.setMinimumDuration(0);
    connect(&dialog, &QProgressDialog::canceled, this, [&] { cancel = true; });
    worker->start();
    while (!finished) {
        dialog.setValue(static_cast<int>(progress.load() * 1000));
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        QThread::msleep(20);
    }
    worker->wait();
    delete worker;
    dialog.close();
    return !cancel;
}

void MainWindow::runImport(const QString& what,
                           const std::function<std::expected<nlohmann::json, std::string>(
                               const std::function<void(double)>&, const std::atomic<bool>*)>& work,
                           const QString& outPath) {
    std::expected<nlohmann::json, std::string> result = std::unexpected(std::string("not run"));
    const bool done =
        runWithProgress(tr("Importing %1…").arg(what),
                        [&](const std::function<void(double)>& progress,
                            const std::atomic<bool>* cancel) { result = work(progress, cancel); });
    if (!result) {
        if (done) QMessageBox::warning(this, tr("Import"), QString::fromStdString(result.error()));
        return;
    }
    statusBar()->showMessage(
        tr("Imported %1 samples into %2")
            .arg(QString::number((*result)["recorded_samples"].get<double>(), 'f', 0), outPath),
        10000);
    emit openRecordingRequested(outPath);
}

void MainWindow::importFileDialog() {
    const QString file = QFileDialog::getOpenFileName(
        this, tr("Import telemetry"), QString(),
        tr("Telemetry (%1);;All files (*)")
            .arg(QString::fromStdString(importers::telemetryFilePatterns())));
    if (file.isEmpty()) return;
    const QString out = QFileDialog::getSaveFileName(this, tr("Save the recording as"),
                                                     QFileInfo(file).completeBaseName() + ".ftrec",
                                                     tr("floortwin recordings (*.ftrec)"));
    if (out.isEmpty()) return;
    auto topology = m_session.topology;
    runImport(
        QFileInfo(file).fileName(),
        [=](const std::function<void(double)>& progress, const std::atomic<bool>* cancel) {
            return importFileToRecording(Options{}, topology, file.toStdString(), out.toStdString(),
                                         progress, cancel);
        },
        out);
}

void MainWindow::importInventoryDialog() {
    QDialog ask(this);
    ask.setWindowTitle(tr("Import inventory"));
    auto* form = new QFormLayout(&ask);
    auto* kind = new QComboBox(&ask);
    kind->addItems({tr("CSV or TSV export"), tr("NetBox server (REST API)"),
                    tr("NetBox dump (a folder of API pages)")});
    QSettings settings;
    kind->setCurrentIndex(settings.value("inventory/kind", 0).toInt());
    auto* where = new QLineEdit(settings.value("inventory/where").toString(), &ask);
    auto* browse = new QPushButton(tr("Browse…"), &ask);
    auto* whereRow = new QHBoxLayout;
    whereRow->addWidget(where, 1);
    whereRow->addWidget(browse);
    auto* token = new QLineEdit(settings.value("inventory/token_file").toString(), &ask);
    token->setPlaceholderText(tr("a file holding the API token"));
    auto* out = new QLineEdit(settings.value("inventory/floor", "floor.json").toString(), &ask);
    form->addRow(tr("Inventory"), kind);
    form->addRow(tr("File, URL or folder"), whereRow);
    form->addRow(tr("Token file"), token);
    form->addRow(tr("Write the floor to"), out);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &ask);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, &ask, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &ask, &QDialog::reject);
    auto update = [=] {
        token->setEnabled(kind->currentIndex() == 1);
        browse->setEnabled(kind->currentIndex() != 1);
        where->setPlaceholderText(kind->currentIndex() == 1 ? "https://netbox.example" : QString());
    };
    connect(kind, &QComboBox::currentIndexChanged, &ask, update);
    update();
    connect(browse, &QPushButton::clicked, &ask, [=, &ask] {
        const QString picked =
            kind->currentIndex() == 0
                ? QFileDialog::getOpenFileName(&ask, tr("Inventory export"), where->text(),
                                               tr("Inventories (*.csv *.tsv *.txt);;All files (*)"))
                : QFileDialog::getExistingDirectory(&ask, tr("NetBox dump folder"), where->text());
        if (!picked.isEmpty()) where->setText(picked);
    });
    if (ask.exec() != QDialog::Accepted || where->text().isEmpty() || out->text().isEmpty()) return;
    settings.setValue("inventory/kind", kind->currentIndex());
    settings.setValue("inventory/where", where->text());
    settings.setValue("inventory/token_file", token->text());
    settings.setValue("inventory/floor", out->text());
    const std::string inventory = (kind->currentIndex() == 1   ? "netbox="
                                   : kind->currentIndex() == 2 ? "netbox-dump="
                                                               : "") +
                                  where->text().toStdString();
    const std::string tokenFile = token->text().toStdString(), outPath = out->text().toStdString();

    std::expected<nlohmann::ordered_json, std::string> result =
        std::unexpected(std::string("not run"));
    const bool done = runWithProgress(
        tr("Reading %1…").arg(where->text()),
        [&](const std::function<void(double)>& progress, const std::atomic<bool>* cancel) {
            nlohmann::ordered_json summary;
            InventoryAccess access{tokenFile, {}, false, progress, cancel};
            auto spec = loadInventory(inventory, {}, &summary, access);
            if (!spec) {
                result = std::unexpected(spec.error());
            } else if (auto t = model::Topology::build(*spec); !t) {
                result = std::unexpected(inventory + ": " + t.error());
            } else {
                std::ofstream file(outPath, std::ios::binary);
                file << importers::floorSpecToJson(*spec) << "\n";
                result = file ? std::expected<nlohmann::ordered_json, std::string>(summary)
                              : std::unexpected("cannot write " + outPath);
            }
        });
    if (!result) {
        if (done)
            QMessageBox::warning(this, tr("Import inventory"),
                                 QString::fromStdString(result.error()));
        return;
    }
    statusBar()->showMessage(tr("Inventory: %1 hosts in %2 racks, %3 rows; floor written to %4")
                                 .arg((*result)["hosts"].get<int>())
                                 .arg((*result)["racks"].get<int>())
                                 .arg((*result)["rows"].get<int>())
                                 .arg(out->text()),
                             15000);
    emit openFloorRequested(out->text());
}

void MainWindow::importWindowDialog() {
    bool ok = false;
    const QString url = QInputDialog::getText(
        this, tr("Import incident window"),
        tr("Prometheus URL (or Thanos, Mimir, VictoriaMetrics):"), QLineEdit::Normal,
        QSettings().value("import/prometheus", "http://127.0.0.1:9090").toString(), &ok);
    if (!ok || url.isEmpty()) return;
    const QString to = QDateTime::currentDateTimeUtc().toString(Qt::ISODate);
    const QString from = QDateTime::currentDateTimeUtc().addSecs(-3600).toString(Qt::ISODate);
    const QString window =
        QInputDialog::getText(this, tr("Import incident window"), tr("From,To (UTC, RFC 3339):"),
                              QLineEdit::Normal, from + "," + to, &ok);
    if (!ok || window.isEmpty()) return;
    const QString out = QFileDialog::getSaveFileName(
        this, tr("Save the recording as"), "incident.ftrec", tr("floortwin recordings (*.ftrec)"));
    if (out.isEmpty()) return;
    QSettings().setValue("import/prometheus", url);
    Options o;
    o.sources = {std::string(windowSourceKind().scheme) + "=" + url.toStdString()};
    auto topology = m_session.topology;
    runImport(
        window,
        [=](const std::function<void(double)>& progress, const std::atomic<bool>* cancel) {
            return importWindowToRecording(o, topology, window.toStdString(), out.toStdString(),
                                           progress, cancel);
        },
        out);
}

void MainWindow::exportViewDialog() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export view"), "floortwin.png",
                                                      tr("PNG images (*.png)"));
    if (path.isEmpty()) return;
    if (!m_view->grabFramebuffer().save(path))
        QMessageBox::warning(this, tr("Export view"), tr("Cannot write %1").arg(path));
}

std::expected<int, std::string> MainWindow::exportFrames(const QString& folder, model::TimeNs from,
                                                         model::TimeNs to, model::TimeNs step) {
    if (!m_session.replay) return std::unexpected("frames are exported from a replay");
    if (!QDir().mkpath(folder)) return std::unexpected("cannot create " + folder.toStdString());
    auto& replay = *m_session.replay;
    const bool wasPaused = replay.paused();
    replay.setPaused(true);
    const int total = static_cast<int>((to - from) / step) + 1;
    QProgressDialog progress(tr("Exporting frames…"), tr("Cancel"), 0, total, this);
    progress.setWindowModality(Qt::WindowModal);
    progress.setMinimumDuration(300);
    m_view->setAnimated(false);
    int written = 0;
    for (model::TimeNs t = from; t <= to && !progress.wasCanceled(); t += step) {
        replay.seek(t);
        replay.renderNow();
        m_view->refreshSnapshot();
        const QString name =
            QString("%1/frame_%2.png").arg(folder).arg(written + 1, 5, 10, QChar('0'));
        if (!m_view->grabFramebuffer().save(name))
            return std::unexpected("cannot write " + name.toStdString());
        progress.setValue(++written);
        QCoreApplication::processEvents();
    }
    m_view->setAnimated(true);
    replay.setPaused(wasPaused);
    // A video too, when ffmpeg is there.
    const QString ffmpeg = QStandardPaths::findExecutable("ffmpeg");
    if (!ffmpeg.isEmpty() && written > 1) {
        QProcess encode;
        encode.start(ffmpeg, {"-y", "-loglevel", "error", "-framerate", "30", "-i",
                              folder + "/frame_%05d.png", "-pix_fmt", "yuv420p", "-vf",
                              "scale=trunc(iw/2)*2:trunc(ih/2)*2", folder + "/floortwin.mp4"});
        encode.waitForFinished(600000);
    }
    return written;
}

void MainWindow::exportFramesDialog() {
    if (!m_session.replay) return;
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Export frames into"));
    if (folder.isEmpty()) return;
    auto& replay = *m_session.replay;
    // The loop range when there is one, else the whole recording.
    const auto range = replay.loop().value_or(std::pair{replay.beginTime(), replay.endTime()});
    bool ok = false;
    const double seconds =
        QInputDialog::getDouble(this, tr("Export frames"), tr("Recording seconds per frame:"),
                                std::max(model::toSeconds(replay.tickLength()),
                                         model::toSeconds(range.second - range.first) / 600.0),
                                model::toSeconds(replay.tickLength()), 3600, 2, &ok);
    if (!ok) return;
    const auto result = exportFrames(folder, range.first, range.second,
                                     std::max(replay.tickLength(), model::fromSeconds(seconds)));
    if (!result)
        QMessageBox::warning(this, tr("Export frames"), QString::fromStdString(result.error()));
    else
        statusBar()->showMessage(tr("Wrote %1 frames to %2").arg(*result).arg(folder), 10000);
}

} // namespace ft::app
