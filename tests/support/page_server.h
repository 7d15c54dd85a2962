#pragma once
// The HTTP test server is PageServer in loopback_server.h, the one server of the suites.
#include "loopback_server.h"
