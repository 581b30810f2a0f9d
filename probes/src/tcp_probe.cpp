// TCP ping-pong client and echo server.
#include "hetperf/probes/tcp_probe.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>

#include "hetperf/model/error.hpp"
#include "hetperf/probes/cleanup.hpp"
#include "hetperf/probes/net_probe.hpp"

namespace hetperf::probes {
namespace {

constexpr std::uint64_t kEnd = std::numeric_limits<std::uint64_t>::max();

struct Socket {
  int fd = -1;
  explicit Socket(int f) : fd(f) {}
  ~Socket() {
    if (fd >= 0) ::close(fd);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
};

// Waits until `fd` is ready for `events`, checking for SIGINT every 200 ms.
void wait_ready(int fd, short events) {
  for (;;) {
    throw_if_interrupted();
    pollfd p{fd, events, 0};
    int r = ::poll(&p, 1, 200);
    if (r > 0) return;
    if (r < 0 && errno != EINTR) throw EnvironmentError(std::string("poll: ") + std::strerror(errno));
  }
}

void send_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && (errno == EINTR || errno == EAGAIN)) {
      wait_ready(fd, POLLOUT);
      continue;
    }
    if (w <= 0) throw EnvironmentError(std::string("TCP send failed: ") + std::strerror(errno));
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

// False on a clean end of stream before the first byte.
bool recv_all(int fd, char* p, std::size_t n) {
  const std::size_t total = n;
  while (n > 0) {
    ssize_t r = ::recv(fd, p, n, 0);
    if (r < 0 && (errno == EINTR || errno == EAGAIN)) {
      wait_ready(fd, POLLIN);
      continue;
    }
    if (r == 0 && n == total) return false;
    if (r <= 0) throw EnvironmentError(std::string("TCP connection broken: ") + std::strerror(errno));
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

void no_delay(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

void send_header(int fd, std::uint64_t size, std::uint64_t count) {
  std::uint64_t h[2] = {htole64(size), htole64(count)};
  send_all(fd, reinterpret_cast<const char*>(h), sizeof h);
}

}  // namespace

void parse_host_port(const std::string& text, const std::string& option, TcpProbeOptions& o) {
  auto colon = text.rfind(':');
  char* end = nullptr;
  unsigned long port = colon == std::string::npos ? 0 : std::strtoul(text.c_str() + colon + 1, &end, 10);
  if (colon == std::string::npos || colon == 0 || !end || *end != '\0' || port == 0 || port > 65535) {
    throw InputError(option + " " + text + ": expected HOST:PORT with a port in 1..65535");
  }
  o.host = text.substr(0, colon);
  if (o.host.size() > 2 && o.host.front() == '[' && o.host.back() == ']') o.host = o.host.substr(1, o.host.size() - 2);
  o.port = static_cast<std::uint16_t>(port);
}

NetMeasurement probe_tcp(const TcpProbeOptions& o) {
  if (auto e = o.repeat.validate(); !e.empty()) throw InputError("tcp probe: " + e);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string where = o.host + ":" + std::to_string(o.port);
  if (int rc = ::getaddrinfo(o.host.c_str(), std::to_string(o.port).c_str(), &hints, &found); rc != 0) {
    throw EnvironmentError("cannot resolve " + o.host + ": " + ::gai_strerror(rc));
  }
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> addresses(found, &::freeaddrinfo);
  Socket s(-1);
  std::string why = "no address";
  const double deadline = monotonic_seconds() + o.connect_timeout_s;
  // The server may still be starting: retry refused connections until the timeout.
  while (s.fd < 0) {
    for (addrinfo* a = found; a && s.fd < 0; a = a->ai_next) {
      int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
      if (fd < 0) continue;
      if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
        s.fd = fd;
      } else {
        why = std::strerror(errno);
        ::close(fd);
      }
    }
    if (s.fd >= 0) break;
    throw_if_interrupted();
    if (monotonic_seconds() > deadline) throw EnvironmentError("cannot connect to " + where + ": " + why);
    ::usleep(100000);
  }
  no_delay(s.fd);

  std::uint64_t max_size = 1;
  for (auto b : o.sizes_bytes) max_size = std::max(max_size, b);
  std::vector<char> buf(max_size, 1);
  auto round_trips = [&](std::uint64_t size, std::uint64_t n) {
    const std::size_t wire = static_cast<std::size_t>(std::max<std::uint64_t>(size, 1));
    send_header(s.fd, size, n);
    for (std::uint64_t k = 0; k < n; ++k) {
      send_all(s.fd, buf.data(), wire);
      if (!recv_all(s.fd, buf.data(), wire)) throw EnvironmentError("TCP server " + where + " closed the connection");
    }
  };
  NetMeasurement m;
  m.transport = "tcp";
  char local[256] = {};
  ::gethostname(local, sizeof local - 1);
  m.hosts = {local, o.host};
  m.settings = {{"sizes_bytes", o.sizes_bytes},
                {"server", where},
                {"zero_byte_messages_sent_as_bytes", 1},
                {"min_samples", o.repeat.min_samples},
                {"target_relative_half_width", o.repeat.target_relative_half_width},
                {"time_cap_s", o.repeat.time_cap_s}};
  for (std::uint64_t size : o.sizes_bytes) {
    round_trips(size, 3);  // warm-up: slow start, buffer first-touch
    double t0 = monotonic_seconds();
    round_trips(size, 5);
    double one = (monotonic_seconds() - t0) / 5;
    std::uint64_t batch = one > 0 ? std::clamp<std::uint64_t>(static_cast<std::uint64_t>(1e-3 / one), 1, 100000) : 1000;
    SampleSummary summary = repeat_until_precise(o.repeat, [&] {
      double t = monotonic_seconds();
      round_trips(size, batch);
      return (monotonic_seconds() - t) / (2.0 * static_cast<double>(batch));
    });
    m.pingpong.push_back({size, summary});
  }
  send_header(s.fd, kEnd, 0);
  m.bandwidth_bytes_per_s = bandwidth_from_pingpong(m.pingpong);
  return m;
}

bool serve_tcp(std::uint16_t port, const std::string& bind_address, bool once,
               const std::function<void(const std::string&)>& log) {
  install_cleanup_handlers();
  Socket listener(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (listener.fd < 0) throw EnvironmentError(std::string("socket: ") + std::strerror(errno));
  int one = 1;
  ::setsockopt(listener.fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  if (::inet_pton(AF_INET, bind_address.c_str(), &addr.sin_addr) != 1) {
    throw InputError("--bind " + bind_address + ": expected an IPv4 address");
  }
  if (::bind(listener.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listener.fd, 4) != 0) {
    throw EnvironmentError("cannot listen on " + bind_address + ":" + std::to_string(port) + ": " +
                           std::strerror(errno));
  }
  log("listening on " + bind_address + ":" + std::to_string(port));
  std::vector<char> buf;
  for (;;) {
    try {
      wait_ready(listener.fd, POLLIN);
    } catch (const Interrupted&) {
      return false;
    }
    sockaddr_in peer{};
    socklen_t len = sizeof peer;
    Socket c(::accept4(listener.fd, reinterpret_cast<sockaddr*>(&peer), &len, SOCK_CLOEXEC));
    if (c.fd < 0) continue;
    no_delay(c.fd);
    char who[INET_ADDRSTRLEN] = {};
    ::inet_ntop(AF_INET, &peer.sin_addr, who, sizeof who);
    log(std::string("session with ") + who);
    try {
      for (;;) {
        std::uint64_t h[2];
        if (!recv_all(c.fd, reinterpret_cast<char*>(h), sizeof h)) break;
        std::uint64_t size = le64toh(h[0]), n = le64toh(h[1]);
        if (size == kEnd) break;
        if (size > (1ull << 30)) throw EnvironmentError("client asked for a message larger than 1 GiB");
        const std::size_t wire = static_cast<std::size_t>(std::max<std::uint64_t>(size, 1));
        if (buf.size() < wire) buf.resize(wire);
        for (std::uint64_t k = 0; k < n; ++k) {
          if (!recv_all(c.fd, buf.data(), wire)) throw EnvironmentError("client closed mid-session");
          send_all(c.fd, buf.data(), wire);
        }
      }
      log(std::string("session with ") + who + " ended");
    } catch (const Interrupted&) {
      return false;
    } catch (const EnvironmentError& e) {
      log(std::string("session with ") + who + " failed: " + e.what());
    }
    if (once) return true;
  }
}

}  // namespace hetperf::probes
