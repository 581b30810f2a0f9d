// Network probe over plain TCP, for machines without MPI: `hetperf probe --serve PORT` on one machine
// echoes, `hetperf probe --connect HOST:PORT` on the other measures the same ping-pong points as the
// MPI probe (transport "tcp"). TCP_NODELAY on both ends; a 0-byte message travels as 1 byte, since
// TCP has no empty messages.
//
// Wire protocol (little-endian uint64): the client sends {size, round_trips}; then, round_trips times,
// size bytes to the server, which sends size bytes back. size = UINT64_MAX ends the session.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hetperf/model/measurement.hpp"
#include "hetperf/probes/repeat.hpp"

namespace hetperf::probes {

struct TcpProbeOptions {
  std::string host;  // server address (name or IP)
  std::uint16_t port = 0;
  std::vector<std::uint64_t> sizes_bytes = {0, 32, 1024, 32768, 1u << 20};
  double connect_timeout_s = 10;
  RepeatOptions repeat;
};

// Client side. EnvironmentError when the server cannot be reached or the connection breaks.
NetMeasurement probe_tcp(const TcpProbeOptions& options);

// Parses "HOST:PORT" into the options; InputError naming `option` when malformed.
void parse_host_port(const std::string& text, const std::string& option, TcpProbeOptions& options);

// Server side: listens on `bind_address`:`port` and echoes for one client after another, until
// SIGINT (returns false) or, with `once`, after the first session (returns true). `log` gets one
// line per session.
bool serve_tcp(std::uint16_t port, const std::string& bind_address, bool once,
               const std::function<void(const std::string&)>& log);

}  // namespace hetperf::probes
