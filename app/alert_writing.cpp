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
    writer->silence = [configs,
                       user = writer->user](const std::string& source,
                                            const std::vector<model::SilenceMatcher>& matchers,
                                            model::TimeNs duration, const std::string& comment,
                                            views::AlertWriter::Done done) {
        // The alert's own Alertmanager, or ("" : a rack's silence) every writable one.
        std::vector<importers::AlertmanagerConfig> targets;
        for (const auto& [name, config] : *configs)
            if (source.empty() || name == source) targets.push_back(config);
        if (targets.empty()) return done("no writable source named " + source);
        importers::NewSilence s;
        s.matchers = matchers;
        s.startsAt = std::chrono::duration_cast<std::chrono::nanoseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
        s.endsAt = s.startsAt + duration;
        s.createdBy = user;
        s.comment = comment.empty() ? "silenced from floortwin" : comment;
        offThread(
            [targets = std::move(targets), s] {
                std::string errors;
                for (const auto& config : targets)
                    if (const auto id = importers::createSilence(config, s); !id)
                        errors += (errors.empty() ? "" : "; ") + id.error();
                return errors;
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
