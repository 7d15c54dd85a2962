#include "name_suggest.h"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace ft::importers {

std::string normalizeHostName(std::string_view name) {
    if (const auto colon = name.rfind(':'); colon != std::string_view::npos)
        name = name.substr(0, colon);
    // A domain follows the first dot, unless the whole name is an IPv4 address.
    const bool ipv4 = !name.empty() && std::ranges::all_of(name, [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) || c == '.';
    });
    if (const auto dot = name.find('.'); dot != std::string_view::npos && !ipv4)
        name = name.substr(0, dot);
    auto isDigit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
    std::string out;
    out.reserve(name.size());
    for (std::size_t i = 0; i < name.size();) {
        if (!isDigit(name[i])) {
            out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(name[i]))));
            ++i;
            continue;
        }
        // A digit run, as its number: leading zeros dropped, one digit at least.
        std::size_t end = i;
        while (end < name.size() && isDigit(name[end]))
            ++end;
        while (i + 1 < end && name[i] == '0')
            ++i;
        out.append(name.substr(i, end - i));
        i = end;
    }
    return out;
}

std::size_t boundedEditDistance(std::string_view a, std::string_view b, std::size_t limit) {
    const std::size_t diff = a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
    if (diff > limit) return limit + 1;
    std::vector<std::size_t> row(b.size() + 1);
    std::iota(row.begin(), row.end(), std::size_t{0});
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        std::size_t best = row[0];
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] =
                std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = up;
            best = std::min(best, row[j]);
        }
        if (best > limit) return limit + 1;
    }
    return std::min(row[b.size()], limit + 1);
}

const std::vector<std::string>& HostSuggester::suggest(std::string_view host, std::size_t count) {
    const std::string key(host);
    if (auto it = m_cache.find(key); it != m_cache.end()) return it->second;
    if (m_names.empty()) {
        const auto trays =
            static_cast<model::EntityId>(m_topology.count(model::EntityKind::ComputeTray));
        for (model::EntityId tray = 0; tray < trays; ++tray) {
            std::string name = m_topology.hostName(tray);
            if (name.empty()) continue;
            m_normalized.push_back(normalizeHostName(name));
            m_names.push_back(std::move(name));
        }
    }
    const std::string wanted = normalizeHostName(host);
    // A plausible slip: at most a third of the name (and 1 for very short names).
    const std::size_t limit = std::max<std::size_t>(1, wanted.size() / 3);
    std::vector<std::pair<std::size_t, std::size_t>> scored; // (distance, name index)
    for (std::size_t i = 0; i < m_names.size(); ++i) {
        const std::size_t d = boundedEditDistance(wanted, m_normalized[i], limit);
        if (d <= limit) scored.emplace_back(d, i);
    }
    // Only the closest: an exact match after normalizing needs no runners-up.
    std::size_t best = limit;
    for (const auto& [d, i] : scored)
        best = std::min(best, d);
    std::erase_if(scored, [best](const auto& e) { return e.first > best; });
    const std::size_t n = std::min(count, scored.size());
    std::partial_sort(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(n), scored.end(),
                      [&](const auto& a, const auto& b) {
                          return a.first != b.first ? a.first < b.first
                                                    : m_names[a.second] < m_names[b.second];
                      });
    std::vector<std::string> out;
    for (std::size_t i = 0; i < n; ++i)
        out.push_back(m_names[scored[i].second]);
    return m_cache.emplace(key, std::move(out)).first->second;
}

} // namespace ft::importers
