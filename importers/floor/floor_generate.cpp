// Generated floors: generate:racks=N[,per_row=M] (floor_file.h), laid out in pods of rows.
#include "floor_file.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

namespace ft::importers {

model::FloorSpec generateFloor(int racks, int racksPerRow) {
    model::FloorSpec spec;
    spec.name = "Generated floor, " + std::to_string(racks) + " NVL72 racks";
    // Rows of up to 24 racks, balanced; 8 rows make a pod; pods sit on a near-square grid.
    if (racksPerRow <= 0) racksPerRow = racks <= 16 ? std::max(1, (racks + 1) / 2) : 24;
    const int rows = (racks + racksPerRow - 1) / racksPerRow;
    constexpr int kRowsPerPod = 8;
    constexpr double kRowPitch = 3.0;
    constexpr double kPodGap = 7.0;
    const double podWidth = racksPerRow * spec.rack.widthM + kPodGap;
    const double podDepth = kRowsPerPod * kRowPitch + kPodGap * 0.6;
    const int pods = (rows + kRowsPerPod - 1) / kRowsPerPod;
    const int podCols =
        std::max(1, static_cast<int>(std::ceil(std::sqrt(pods * podDepth / podWidth))));
    int placed = 0;
    for (int r = 0; r < rows; ++r) {
        const int pod = r / kRowsPerPod;
        const int inPod = r % kRowsPerPod;
        const int n = racks / rows + (r < racks % rows ? 1 : 0);
        spec.rows.push_back({rowName(r), (pod % podCols) * podWidth,
                             (pod / podCols) * podDepth + inPod * kRowPitch, n});
        placed += n;
    }
    (void)placed;
    return spec;
}

std::expected<model::FloorSpec, Error> parseGenerateSpec(std::string_view spec) {
    constexpr std::string_view kPrefix = "generate:";
    auto bad = [&](const std::string& why) {
        return std::unexpected(
            Error{why + " (expected generate:racks=N[,racks_per_row=M] with 1 <= N <= " +
                      std::to_string(kMaxGeneratedRacks) + ")",
                  std::string(spec),
                  0,
                  0,
                  {}});
    };
    if (!spec.starts_with(kPrefix)) return bad("not a generate spec");
    std::string_view rest = spec.substr(kPrefix.size());
    int racks = 0, perRow = 0;
    while (!rest.empty()) {
        const std::size_t comma = rest.find(',');
        const std::string_view item = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        const std::size_t eq = item.find('=');
        if (eq == std::string_view::npos)
            return bad("'" + std::string(item) + "' is not key=value");
        const std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
        int n = 0;
        auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
        if (ec != std::errc() || p != value.data() + value.size())
            return bad("'" + std::string(value) + "' is not an integer");
        if (key == "racks")
            racks = n;
        else if (key == "racks_per_row")
            perRow = n;
        else
            return bad("unknown key '" + std::string(key) + "'");
    }
    if (racks < 1 || racks > kMaxGeneratedRacks)
        return bad("racks=" + std::to_string(racks) + " is out of range");
    if (perRow < 0 || perRow > 1000) return bad("racks_per_row out of range");
    return generateFloor(racks, perRow);
}

} // namespace ft::importers
