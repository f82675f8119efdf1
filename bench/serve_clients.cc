// Many clients against `umwelt serve` on loopback: CONNECTIONS keep-alive
// connections spread over CLIENTS source addresses (127.0.0.2, .3, ...), as a
// team's machines are, each sending GET PATH again as soon as it is answered,
// for SECONDS. wrk's connections all come from one address, which the
// server's per-client fairness rightly treats as one client flooding; this
// measures what the server answers a team. Prints one RESULT line: answered
// (2xx) per second, latency percentiles of the answered, and other statuses.
//
//   serve_clients --port P [--path /api/search?q=...] [--connections 64]
//                 [--clients 8] [--seconds 15]
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Args {
  int port = 0;
  std::string path = "/api/search?q=MFU%20GB200&fts_only=1&k=50";
  int connections = 64;
  int clients = 8;
  int seconds = 15;
};

int Connect(int port, int client) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in from{};
  from.sin_family = AF_INET;
  from.sin_addr.s_addr = htonl(0x7f000002u + static_cast<uint32_t>(client));  // 127.0.0.2 + client
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0 ||
      ::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Reads one response: its status, or -1 when the connection broke.
int ReadResponse(int fd, std::string& buf) {
  buf.clear();
  size_t head_end = std::string::npos;
  char tmp[65536];
  while (head_end == std::string::npos) {
    ssize_t n = ::recv(fd, tmp, sizeof tmp, 0);
    if (n <= 0) return -1;
    buf.append(tmp, static_cast<size_t>(n));
    head_end = buf.find("\r\n\r\n");
  }
  int status = std::atoi(buf.c_str() + 9);
  size_t length = 0;
  std::string head = buf.substr(0, head_end);
  for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  size_t cl = head.find("content-length:");
  if (cl != std::string::npos) length = std::strtoull(head.c_str() + cl + 15, nullptr, 10);
  while (buf.size() < head_end + 4 + length) {
    ssize_t n = ::recv(fd, tmp, sizeof tmp, 0);
    if (n <= 0) return -1;
    buf.append(tmp, static_cast<size_t>(n));
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (k == "--port") a.port = std::atoi(next().c_str());
    else if (k == "--path") a.path = next();
    else if (k == "--connections") a.connections = std::atoi(next().c_str());
    else if (k == "--clients") a.clients = std::atoi(next().c_str());
    else if (k == "--seconds") a.seconds = std::atoi(next().c_str());
    else {
      std::fprintf(stderr, "usage: serve_clients --port P [--path PATH] [--connections N] [--clients N] [--seconds N]\n");
      return 2;
    }
  }
  if (a.port <= 0 || a.connections < 1 || a.clients < 1 || a.clients > 250 || a.seconds < 1) {
    std::fprintf(stderr, "serve_clients: --port is required; connections >= 1, clients 1 to 250, seconds >= 1\n");
    return 2;
  }
  const std::string request = "GET " + a.path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  std::atomic<long> ok{0}, other{0}, broken{0};
  std::mutex mu;
  std::vector<double> latencies;
  auto end = Clock::now() + std::chrono::seconds(a.seconds);
  std::vector<std::thread> threads;
  for (int c = 0; c < a.connections; ++c) {
    threads.emplace_back([&, c] {
      std::vector<double> mine;
      std::string buf;
      int fd = Connect(a.port, c % a.clients);
      while (Clock::now() < end) {
        if (fd < 0) {
          ++broken;
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
          fd = Connect(a.port, c % a.clients);
          continue;
        }
        auto t0 = Clock::now();
        int status = ::send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size())
                         ? ReadResponse(fd, buf)
                         : -1;
        if (status < 0) {
          ::close(fd);
          fd = -1;
          continue;
        }
        if (status >= 200 && status < 300) {
          ++ok;
          mine.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        } else {
          ++other;
        }
      }
      if (fd >= 0) ::close(fd);
      std::lock_guard<std::mutex> lock(mu);
      latencies.insert(latencies.end(), mine.begin(), mine.end());
    });
  }
  for (auto& t : threads) t.join();
  std::sort(latencies.begin(), latencies.end());
  auto pct = [&](double p) {
    return latencies.empty() ? 0.0 : latencies[std::min(latencies.size() - 1, static_cast<size_t>(p * latencies.size()))];
  };
  std::printf("RESULT connections=%d clients=%d answered_per_s=%.0f p50_ms=%.2f p99_ms=%.2f max_ms=%.2f non2xx=%ld broken=%ld\n",
              a.connections, a.clients, static_cast<double>(ok.load()) / a.seconds, pct(0.5), pct(0.99),
              latencies.empty() ? 0.0 : latencies.back(), other.load(), broken.load());
  return 0;
}
