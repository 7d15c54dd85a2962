// The command-line reference as Markdown, from the option table and the source registry: what
// `floortwin --help-reference` prints and docs/command-line.md holds between its markers
// (test_docs fails when the two differ, so the page cannot drift from the program).
#include "command_line.h"
#include "option_table.h"
#include "source_kinds.h"

#include <string>
#include <string_view>

namespace ft::app {

namespace {

// A help text as one Markdown table cell: continuation lines joined, pipes escaped.
std::string cell(std::string_view text) {
    std::string out;
    for (const char c : text) {
        if (c == '\n') {
            if (!out.empty() && out.back() != ' ') out += ' ';
        } else if (c == '|') {
            out += "\\|";
        } else {
            out += c;
        }
    }
    return out;
}

std::string code(std::string_view text) {
    return "`" + cell(text) + "`";
}

std::string interval(std::chrono::milliseconds ms) {
    if (ms.count() == 0) return "pushed";
    if (ms.count() % 1000 == 0) return std::to_string(ms.count() / 1000) + " s";
    return std::to_string(ms.count()) + " ms";
}

std::string sourceTable() {
    std::string out = "| `--source` | reads | polls | mapping presets | also |\n"
                      "| --- | --- | --- | --- | --- |\n";
    for (const auto& kind : sourceKinds()) {
        std::string also;
        auto add = [&](std::string_view what) { also += (also.empty() ? "" : ", ") + code(what); };
        if (kind.check) add("--check-source");
        if (kind.importsWindows) add("--import-window");
        if (kind.schedules) add("--follow-scheduler");
        if (kind.alerting) add("--alertmanager-write");
        if (!kind.layer.empty())
            also += (also.empty() ? "" : "; ") + std::string("shows the ") + code(kind.layer) +
                    " layer";
        out += "| " + code(kind.syntax) + " | " + cell(kind.help) + " | " +
               interval(kind.interval) + " | " +
               (kind.rules.empty() ? std::string("—") : code(kind.rules)) + " | " +
               (also.empty() ? std::string("—") : also) + " |\n";
    }
    return out;
}

} // namespace

std::string commandLineReference(const std::vector<std::string>& layerIds) {
    std::string out;
    std::string_view section = "?";
    for (const auto& spec : optionTable()) {
        if (spec.help.empty()) continue; // an alias
        if (spec.section != section) {
            section = spec.section;
            out += "\n### " + std::string(section.empty() ? "Other" : section) + "\n\n";
            out += "| option | what it does |\n| --- | --- |\n";
        }
        const std::string flag =
            std::string(spec.flag) + (spec.value.empty() ? "" : " " + std::string(spec.value));
        if (spec.help == kSourceRows) {
            out += "| " + code(flag) +
                   " | a live source, one of the kinds below; repeat it for "
                   "several |\n";
            continue;
        }
        out += "| " + code(flag) + " | " + cell(filledHelp(spec.help, layerIds)) + " |\n";
    }
    out += "\n### Source kinds\n\n" + sourceTable();
    return out.substr(1); // the first section's leading blank line
}

} // namespace ft::app
