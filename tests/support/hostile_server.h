#pragma once
// HostileServer: a LoopbackServer whose connections are handed, raw, to a behaviour that
// misbehaves on purpose: hangs after the headers, streams a body of a gigabyte, drips one byte
// a second, breaks the chunked encoding, sends a gzip bomb, answers 500 with an HTML page,
// redirects to itself, or speaks no TLS on an https URL. Each connection runs on a thread of
// its own until the behaviour returns or the client hangs up; stop() (and the destructor) shut
// every socket so blocked sends and sleeps end. For tests and benchmarks of the live sources.
#include "loopback_server.h"

#include <fstream>
#include <zlib.h>

namespace ft::testing {

class HostileServer : public LoopbackServer {
public:
    using LoopbackServer::LoopbackServer;

    // --- Behaviours -------------------------------------------------------------------------
    static std::string head(int status, const std::string& reason, const std::string& headers) {
        return "HTTP/1.1 " + std::to_string(status) + " " + reason + "\r\n" + headers +
               "Connection: close\r\n\r\n";
    }
    // The headers of a 200 with a body it never sends.
    static Behaviour hangAfterHeaders() {
        return [](const Connection& c) {
            if (c.send(head(200, "OK", "Content-Type: text/plain\r\nContent-Length: 100000\r\n")))
                c.wait(std::chrono::hours(1));
        };
    }
    // `bytes` of valid exposition lines, as fast as the client reads them.
    static Behaviour hugeBody(std::uint64_t bytes) {
        return [bytes](const Connection& c) {
            std::string line = "flood_metric{i=\"0000000\"} 1\n";
            std::string block;
            while (block.size() < (64u << 10))
                block += line;
            if (!c.send(head(200, "OK",
                             "Content-Type: text/plain; version=0.0.4\r\nContent-Length: " +
                                 std::to_string(bytes) + "\r\n")))
                return;
            for (std::uint64_t sent = 0; sent < bytes;) {
                const auto n =
                    static_cast<std::size_t>(std::min<std::uint64_t>(block.size(), bytes - sent));
                if (!c.send(std::string_view(block).substr(0, n))) return;
                sent += n;
            }
        };
    }
    // A valid page, one byte every `every`.
    static Behaviour drip(std::chrono::milliseconds every) {
        return [every](const Connection& c) {
            const std::string body = "drip_metric 1\n";
            const std::string all =
                head(200, "OK",
                     "Content-Type: text/plain\r\nContent-Length: " + std::to_string(body.size()) +
                         "\r\n") +
                body;
            for (char ch : all)
                if (!c.send(std::string_view(&ch, 1)) || !c.wait(every)) return;
        };
    }
    // Chunked transfer whose second chunk announces more bytes than come before the connection
    // closes. (A chunk size that is not hexadecimal Qt reads as 0, the last chunk: the answer
    // looks whole to any client on QtNetwork.)
    static Behaviour badChunked() {
        return [](const Connection& c) {
            c.send(head(200, "OK", "Content-Type: text/plain\r\nTransfer-Encoding: chunked\r\n") +
                   "f\r\nchunk_metric 1\n\r\nffff\r\nonly a few bytes of it");
        };
    }
    // Content-Encoding: gzip over `inflated` bytes of zeros (a ~1 MB body per GiB).
    static Behaviour gzipBomb(std::uint64_t inflated) {
        auto body = std::make_shared<std::string>(gzipZeros(inflated));
        return [body](const Connection& c) {
            c.send(head(200, "OK",
                        "Content-Type: text/plain\r\nContent-Encoding: gzip\r\nContent-Length: " +
                            std::to_string(body->size()) + "\r\n") +
                   *body);
        };
    }
    static Behaviour html500() {
        return [](const Connection& c) {
            const std::string page =
                "<!DOCTYPE html>\n<html><head><title>500 Internal Server Error</title></head>"
                "<body><h1>Internal Server Error</h1><p>The proxy could not reach the exporter."
                "</p></body></html>\n";
            c.send(head(500, "Internal Server Error",
                        "Content-Type: text/html\r\nContent-Length: " +
                            std::to_string(page.size()) + "\r\n") +
                   page);
        };
    }
    // 302 to the same URL, for ever.
    static Behaviour redirectLoop() {
        return [](const Connection& c) {
            const std::size_t sp = c.request.find(' '), sp2 = c.request.find(' ', sp + 1);
            const std::string target = c.request.substr(sp + 1, sp2 - sp - 1);
            c.send(head(302, "Found", "Location: " + target + "\r\nContent-Length: 0\r\n"));
        };
    }
    // A good dcgm-exporter beside the hostile ones: four GPU temperatures of host a01-n01.
    static Behaviour dcgmExporter() {
        return [](const Connection& c) {
            std::string body = "# TYPE DCGM_FI_DEV_GPU_TEMP gauge\n";
            for (int g = 0; g < 4; ++g)
                body += "DCGM_FI_DEV_GPU_TEMP{gpu=\"" + std::to_string(g) +
                        // NOLINTNEXTLINE(modernize-raw-string-literal): moc misreads raw strings
                        "\",Hostname=\"a01-n01\"} " + std::to_string(60 + g) + "\n";
            c.send(head(200, "OK",
                        "Content-Type: text/plain; version=0.0.4\r\nContent-Length: " +
                            std::to_string(body.size()) + "\r\n") +
                   body);
        };
    }
    // 200 with `body` as `type`, whatever was asked (a service root, a page that is no JSON).
    static Behaviour page(std::string body, std::string type = "application/json") {
        return [body = std::move(body), type = std::move(type)](const Connection& c) {
            c.send(head(200, "OK",
                        "Content-Type: " + type +
                            "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n") +
                   body);
        };
    }
    // JSON nested `depth` arrays deep: a parser that recurses runs out of stack.
    static Behaviour jsonDepthBomb(std::size_t depth) {
        return page(std::string(depth, '[') + std::string(depth, ']'));
    }
    // Plain HTTP where the client expects TLS: its handshake gets an HTTP answer.
    static Behaviour notTls() {
        return
            [](const Connection& c) { c.send(head(400, "Bad Request", "Content-Length: 0\r\n")); };
    }

    static std::string gzipZeros(std::uint64_t inflated) {
        z_stream z{};
        deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY);
        const std::vector<unsigned char> zeros(1u << 20, 0);
        std::string out;
        std::vector<unsigned char> buf(1u << 16);
        for (std::uint64_t done = 0; done < inflated;) {
            const auto n =
                static_cast<uInt>(std::min<std::uint64_t>(zeros.size(), inflated - done));
            done += n;
            z.next_in = const_cast<unsigned char*>(zeros.data());
            z.avail_in = n;
            const int flush = done == inflated ? Z_FINISH : Z_NO_FLUSH;
            do {
                z.next_out = buf.data();
                z.avail_out = static_cast<uInt>(buf.size());
                deflate(&z, flush);
                out.append(reinterpret_cast<char*>(buf.data()), buf.size() - z.avail_out);
            } while (z.avail_out == 0);
        }
        deflateEnd(&z);
        return out;
    }
};

// Resident and peak resident memory of this process, in MiB (/proc/self/status): what a
// misbehaving server costs. The peak is reset first (Linux: "5" to clear_refs), so a test's
// figure is its own, not an earlier test's in the same process.
inline void resetPeakResident() {
    std::ofstream("/proc/self/clear_refs") << "5";
}
inline std::pair<double, double> residentMiB() {
    std::ifstream in("/proc/self/status");
    std::string line;
    double rss = 0, hwm = 0;
    while (std::getline(in, line)) {
        if (line.starts_with("VmRSS:")) rss = std::stod(line.substr(6)) / 1024.0;
        if (line.starts_with("VmHWM:")) hwm = std::stod(line.substr(6)) / 1024.0;
    }
    return {rss, hwm};
}

} // namespace ft::testing
