#include "alert_writing.h"

#include "importers/sources/alertmanager_source.h"
#include "live_sources.h"
#include "source_kinds.h"
#include "views/layers/alerts/alert_writer.h"

#include <QCoreApplication>
#include <QMetaObject>
#include <QUrl>
#include <map>
#include <pwd.h>
#include <thread>
#include <unistd.h>

namespace ft::app {

namespace {

std::string osUser() {
    if (const passwd* pw = getpwuid(getuid()); pw && pw->pw_name) return pw->pw_name;
    if (const char* u = std::getenv("USER")) return u;
    return "floortwin";
}

// Runs `work` off the UI thread and hands its error ("" = done) to `done` on the UI thread.
void offThread(std::function<std::string()> work, views::AlertWriter::Done done) {
    std::thread([work = std::move(work), done = std::move(done)] {
        std::string error = work();
        QMetaObject::invokeMethod(
            QCoreApplication::instance(), [done, error] { done(error); }, Qt::QueuedConnection);
    }).detach();
}

} // namespace

void installAlertWriter(const Options& o) {
    if (!o.alertmanagerWrite) {
        views::setAlertWriter(nullptr);
        return;
    }
    // Each alerting source by the name its alerts carry ("alertmanager host:9093").
    auto configs = std::make_shared<std::map<std::string, importers::AlertmanagerConfig>>();
    const auto http = sourceHttpOptions(o);
    for (const auto& text : o.sources) {
        const auto spec = parseSourceSpec(text);
        if (!spec || !findSourceKind(spec->kind)->alerting) continue;
        auto config = importers::parseAlertmanagerSpec(spec->target);
        if (!config) continue; // the source itself reported it
        if (http) config->http = *http;
        configs->emplace(importers::alertmanagerName(*config), std::move(*config));
    }
    auto writer = std::make_shared<views::AlertWriter>();
    writer->user = osUser();
    auto configFor = [configs](const std::string& source) -> const importers::AlertmanagerConfig* {
        const auto it = configs->find(source);
        return it == configs->end() ? nullptr : &it->second;
    };
    writer->silence =
        [configFor, user = writer->user](const std::string& source, const model::Labels& matchers,
                                         model::TimeNs duration, const std::string& comment,
                                         views::AlertWriter::Done done) {
            const auto* config = configFor(source);
            if (!config) return done("no writable source named " + source);
            importers::NewSilence s;
            s.matchers = matchers;
            s.startsAt = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
            s.endsAt = s.startsAt + duration;
            s.createdBy = user;
            s.comment = comment.empty() ? "silenced from floortwin" : comment;
            offThread(
                [config = *config, s] {
                    const auto id = importers::createSilence(config, s);
                    return id ? std::string() : id.error();
                },
                std::move(done));
        };
    writer->expire = [configFor](const std::string& source, const std::string& id,
                                 views::AlertWriter::Done done) {
        const auto* config = configFor(source);
        if (!config) return done("no writable source named " + source);
        offThread(
            [config = *config, id] {
                const auto ok = importers::expireSilence(config, id);
                return ok ? std::string() : ok.error();
            },
            std::move(done));
    };
    views::setAlertWriter(std::move(writer));
}

} // namespace ft::app
