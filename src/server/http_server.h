// Internal to server/: HTTP/1.1 for hostile traffic, over libmicrohttpd.
//
// One thread per connection (libmicrohttpd's), so a slow client holds its
// own thread and no one else's; what bounds them:
//   - connections in all and per client (an address, an IPv6 /64; over:
//     refused at accept); near the limit, the connection that has waited
//     longest for an unfinished request is shut to make room, so slow
//     clients cannot keep out one that sends its request at once;
//   - the memory of one connection's request line and headers (over: 431);
//   - the request body, counted as it arrives, chunked or not (over: 413,
//     answered before the rest is read; a declared Content-Length over the
//     limit is refused before any of it is read); a route may take larger
//     bodies (webhooks), a few at a time;
//   - the time to receive a whole request, counted from the connection's
//     start or the previous answer on it (a kept-alive connection idle that
//     long is closed too) to its last byte (over: the connection is shut);
//   - the listen backlog (the system's maximum, so bursts of clients queue
//     in the kernel instead of retrying SYNs).
// Routes are (method, path pattern) matched segment by segment over the
// decoded path (no regular expression, time linear in the path); handlers
// run on the
// connection's thread and may block (a streamed response is produced by
// its provider on that thread). Thread-safe after Listen().
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "umwelt/thread_annotations.h"
#include "umwelt/status.h"

struct MHD_Daemon;
struct MHD_Connection;

namespace umwelt::server_internal {

struct Request {
  std::string method;       // GET for HEAD too (the body is not sent)
  std::string path;         // percent-decoded, without the query
  std::string raw_path;     // as sent
  std::string query;        // raw
  std::string body;
  std::string remote_addr;  // the client's address, no port
  std::multimap<std::string, std::string> params;  // query, and a form body
  std::vector<std::pair<std::string, std::string>> headers;
  std::vector<std::string> matches;  // the route's capture groups, [0] the path
  std::string login;                 // who the pre-routing handler let in ("" for anyone)

  // The first value of the header (case-insensitive), or "".
  std::string Header(const std::string& name) const;
  bool HasParam(const std::string& key) const { return params.count(key) > 0; }
  size_t ParamCount(const std::string& key) const { return params.count(key); }
  std::string Param(const std::string& key, size_t i = 0) const;
};

// Where a streamed response writes; `done` ends it.
class DataSink {
 public:
  bool Write(const char* data, size_t n) {
    out_.append(data, n);
    return true;
  }
  void Done() { done_ = true; }

 private:
  friend struct HttpCallbacks;
  std::string out_;
  bool done_ = false;
};

struct Response {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // Streamed: called until it calls sink.Done() (or returns false, which
  // ends the response as failed).
  std::function<bool(size_t offset, DataSink& sink)> provider;
  // A file range sent as it is (sendfile); the fd is owned from here on.
  int file_fd = -1;
  int64_t file_offset = 0, file_length = 0;

  void SetHeader(const std::string& name, const std::string& value);
  std::string Header(const std::string& name) const;
  void SetContent(std::string content, const std::string& type);
  void SetStream(const std::string& type, std::function<bool(size_t, DataSink&)> p);
  void SetFile(int fd, int64_t offset, int64_t length, const std::string& type);
};

using Handler = std::function<void(const Request&, Response&)>;

struct HttpLimits {
  std::string bind = "127.0.0.1";
  int port = 0;                       // 0: any free port
  int max_connections = 512;          // each holds a thread
  int max_connections_per_client = 64;  // per ClientKey
  size_t max_header_bytes = 64 << 10;  // request line and headers of one request
  size_t max_body_bytes = 1 << 20;
  // Paths (exact) whose requests may carry more, up to their own limit:
  // at most max_large_bodies such bodies are received at once, and a request
  // over max_body_bytes that finds none free is refused (413) like any other.
  std::map<std::string, size_t> large_bodies;
  int max_large_bodies = 4;
  int request_seconds = 30;           // to receive a whole request
  int idle_seconds = 30;              // no byte in either direction: closed (libmicrohttpd's timeout)
};

// The unit of fairness for a client address: an IPv4 address itself, an
// IPv6 address's /64 (one host is commonly given a whole /64), an IPv4
// address mapped into IPv6 as IPv4. Connection limits and the search pool's
// shares count by it.
std::string ClientKey(const std::string& address);

// Whether `path` matches the route pattern `segments` (see HttpServer::Get);
// the captures appended to `captures`.
bool MatchRoute(const std::vector<std::string>& segments, std::string_view path, std::vector<std::string>* captures);
std::vector<std::string> RouteSegments(std::string_view pattern);

// A Host header's value read exactly: "name", "name:port", "[v6]" or
// "[v6]:port", where a name is letters, digits, '.' and '-', a v6 literal
// hex digits, ':' and '.', and a port 1 to 5 digits. False for anything
// else ("[::1].evil.example", "localhost:80@evil"). `host` keeps the
// brackets of a v6 literal; either out-parameter may be null.
bool SplitHostPort(std::string_view value, std::string* host, std::string* port);

class HttpServer {
 public:
  HttpServer() = default;
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Register before Listen(). A pattern is the path's segments, each a
  // literal or a capture: `{}` one non-empty segment, `{?}` one segment that
  // may be empty, `{hex32}` 32 lowercase hex digits, and `{*}` (last only)
  // the rest of the path, slashes and all, non-empty. Captures go to
  // Request::matches[1..] in order. "/api/threads/{*}", "/jobs/{hex32}/report".
  void Get(const std::string& pattern, Handler h) { Route("GET", pattern, std::move(h)); }
  void Post(const std::string& pattern, Handler h) { Route("POST", pattern, std::move(h)); }
  void Delete(const std::string& pattern, Handler h) { Route("DELETE", pattern, std::move(h)); }
  // Runs before routing (and may say who is asking in Request::login);
  // false when it answered the request itself.
  void SetPreRouting(std::function<bool(Request&, Response&)> f) { pre_ = std::move(f); }
  // Fills the body of an error status a handler left empty (404, 405, 413, 500, ...).
  void SetErrorHandler(Handler f) { error_ = std::move(f); }
  void SetLogger(std::function<void(const Request&, const Response&)> f) { logger_ = std::move(f); }

  // Binds and starts serving.
  Status Listen(const HttpLimits& limits);
  int port() const { return port_; }
  // Stops accepting; requests in flight go on.
  void Stop();
  // Returns once stopped and the requests in flight are answered (or after
  // `drain_seconds`), with every connection closed.
  void Wait(int drain_seconds = 60);

 private:
  struct Exchange;
  struct Conn;
  struct RouteEntry {
    std::string method;
    std::vector<std::string> segments;
    Handler handler;
  };
  void Route(const std::string& method, const std::string& pattern, Handler h);
  void Dispatch(Request& req, Response& res);
  int Queue(MHD_Connection* c, Exchange& x);
  void Watchdog() EXCLUDES(mu_);
  void ShedIfFull(Conn* arrived) REQUIRES(mu_);
  // Whether `x` may receive a body of `bytes`: within max_body_bytes, or
  // within its path's large_bodies limit with a slot (taken here, once).
  bool BodyFits(Exchange& x, uint64_t bytes) EXCLUDES(mu_);

  friend struct HttpCallbacks;  // libmicrohttpd's callbacks (http_server.cc)

  std::vector<RouteEntry> routes_;
  std::function<bool(Request&, Response&)> pre_;
  Handler error_;
  std::function<void(const Request&, const Response&)> logger_;
  HttpLimits limits_;
  MHD_Daemon* daemon_ = nullptr;
  int port_ = 0;

  Mutex mu_;
  std::condition_variable cv_;
  std::map<Conn*, int> conns_ GUARDED_BY(mu_);  // each open connection, its fd
  std::map<std::string, int> per_client_ GUARDED_BY(mu_);  // open connections by ClientKey
  int64_t shed_ GUARDED_BY(mu_) = 0;  // connections shut to make room
  int in_flight_ GUARDED_BY(mu_) = 0;
  int large_in_flight_ GUARDED_BY(mu_) = 0;  // requests holding a large_bodies slot
  bool stopping_ GUARDED_BY(mu_) = false;
  bool watchdog_stop_ GUARDED_BY(mu_) = false;
  std::thread watchdog_;
};

}  // namespace umwelt::server_internal
