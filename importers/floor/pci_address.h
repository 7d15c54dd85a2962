#pragma once
// PCI addresses as hosts print them: "00000008:01:00.0" (nvidia-smi, dcgm-exporter's
// pci_bus_id), "0008:01:00.0" (lspci -D), "0008:01" (a floor file's table), "01:00.0" (lspci,
// domain 0). Only the domain and the bus name a GPU module: its device and function are 00.0.
#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ft::importers {

struct PciBus {
    std::uint32_t domain = 0;
    std::uint32_t bus = 0;
    bool operator==(const PciBus&) const = default;
};

inline std::optional<PciBus> parsePciAddress(std::string_view text) {
    auto hex = [](std::string_view part, std::size_t maxDigits) -> std::optional<std::uint32_t> {
        if (part.empty() || part.size() > maxDigits) return std::nullopt;
        std::uint32_t v = 0;
        const auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), v, 16);
        if (ec != std::errc() || p != part.data() + part.size()) return std::nullopt;
        return v;
    };
    // Split off ".function" and ":device" when there are three parts.
    std::string_view rest = text;
    if (const auto dot = rest.find('.'); dot != std::string_view::npos) {
        if (!hex(rest.substr(dot + 1), 1)) return std::nullopt;
        rest = rest.substr(0, dot);
    }
    const auto first = rest.find(':');
    if (first == std::string_view::npos) return std::nullopt;
    const auto second = rest.find(':', first + 1);
    const bool hasDevice = text.find('.') != std::string_view::npos;
    std::string_view domain, bus;
    if (second != std::string_view::npos) { // domain:bus:device
        domain = rest.substr(0, first);
        bus = rest.substr(first + 1, second - first - 1);
        if (!hex(rest.substr(second + 1), 2)) return std::nullopt;
    } else if (hasDevice) { // bus:device.function
        bus = rest.substr(0, first);
        if (!hex(rest.substr(first + 1), 2)) return std::nullopt;
    } else { // domain:bus
        domain = rest.substr(0, first);
        bus = rest.substr(first + 1);
    }
    PciBus out;
    if (!domain.empty()) {
        const auto d = hex(domain, 8);
        if (!d) return std::nullopt;
        out.domain = *d;
    }
    const auto b = hex(bus, 2);
    if (!b) return std::nullopt;
    out.bus = *b;
    return out;
}

} // namespace ft::importers
