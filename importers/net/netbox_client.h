#pragma once
// fetchNetbox: reads an inventory's objects from a NetBox server's REST API — sites,
// locations, racks, devices and (when the plugin is there) floor plans — following each
// endpoint's `next` links, with `Authorization: Token ...`. All or nothing: a refused token, an
// HTTP error or a page that is not JSON half-way stops the read with the URL and what went
// wrong, and a read whose object count differs from the server's `count` is refused, so a
// partial inventory is never taken for the floor. Blocking, on the calling thread (it runs a
// local event loop); a QCoreApplication must exist.
#include "http_client.h"
#include "importers/floor/netbox_inventory.h"
#include "importers/formats/error.h"

#include <atomic>
#include <expected>
#include <functional>
#include <string>

namespace ft::importers {

struct NetboxFetchOptions {
    std::string token;                    // the API token ("Token" scheme)
    HttpOptions http;                     // timeouts, CA file; the token header is added
    std::size_t pageSize = 1000;          // ?limit= (NetBox caps it at MAX_PAGE_SIZE)
    std::function<void(double)> progress; // 0..1, after each page
    const std::atomic<bool>* cancel = nullptr;
};

std::expected<NetboxObjects, Error> fetchNetbox(const std::string& baseUrl,
                                                const NetboxFetchOptions& options);

} // namespace ft::importers
