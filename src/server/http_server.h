// Internal to server/: HTTP/1.1 for hostile traffic, over libmicrohttpd.
//
// One thread per connection (libmicrohttpd's), so a slow client holds its
// own thread and no one else's; what bounds them:
//   - connections in all and per client address (over: refused at accept);
//   - the memory of one connection's request line and headers (over: 431);
//   - the request body, counted as it arrives, chunked or not (over: 413,
//     answered before the rest is read; a declared Content-Length over the
//     limit is refused before any of it is read);
//   - the time to receive a whole request, counted from the connection's
//     start or the previous answer on it (a kept-alive connection idle that
//     long is closed too) to its last byte (over: the connection is shut);
//   - the listen backlog (the system's maximum, so bursts of clients queue
//     in the kernel instead of retrying SYNs).
// Routes are (method, regex over the decoded path); handlers run on the
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
#include <regex>
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
  std::string query;        // raw
  std::string body;
  std::string remote_addr;  // the client's address, no port
  std::multimap<std::string, std::string> params;  // query, and a form body
  std::vector<std::pair<std::string, std::string>> headers;
  std::vector<std::string> matches;  // the route's capture groups, [0] the path

  // The first value of the header (case-insensitive), or "".
  std::string get_header_value(const std::string& name) const;
  bool has_param(const std::string& key) const { return params.count(key) > 0; }
  size_t get_param_value_count(const std::string& key) const { return params.count(key); }
  std::string get_param_value(const std::string& key, size_t i = 0) const;
};

// Where a streamed response writes; `done` ends it.
class DataSink {
 public:
  bool write(const char* data, size_t n) {
    out_.append(data, n);
    return true;
  }
  void done() { done_ = true; }

 private:
  friend struct HttpCallbacks;
  std::string out_;
  bool done_ = false;
};

struct Response {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // Streamed: called until it calls sink.done() (or returns false, which
  // ends the response as failed).
  std::function<bool(size_t offset, DataSink& sink)> provider;
  // A file range sent as it is (sendfile); the fd is owned from here on.
  int file_fd = -1;
  int64_t file_offset = 0, file_length = 0;

  void set_header(const std::string& name, const std::string& value);
  std::string get_header_value(const std::string& name) const;
  void set_content(std::string content, const std::string& type);
  void set_chunked_content_provider(const std::string& type, std::function<bool(size_t, DataSink&)> p);
  void set_file(int fd, int64_t offset, int64_t length, const std::string& type);
};

using Handler = std::function<void(const Request&, Response&)>;

struct HttpLimits {
  std::string bind = "127.0.0.1";
  int port = 0;                       // 0: any free port
  int max_connections = 512;          // each holds a thread
  int max_connections_per_client = 64;
  size_t max_header_bytes = 64 << 10;  // request line and headers of one request
  size_t max_body_bytes = 1 << 20;
  int request_seconds = 30;           // to receive a whole request
  int idle_seconds = 30;              // no byte in either direction: closed (libmicrohttpd's timeout)
};

class HttpServer {
 public:
  HttpServer() = default;
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Register before Listen().
  void Get(const std::string& pattern, Handler h) { Route("GET", pattern, std::move(h)); }
  void Post(const std::string& pattern, Handler h) { Route("POST", pattern, std::move(h)); }
  void Delete(const std::string& pattern, Handler h) { Route("DELETE", pattern, std::move(h)); }
  // Runs before routing; false when it answered the request itself.
  void set_pre_routing_handler(std::function<bool(const Request&, Response&)> f) { pre_ = std::move(f); }
  // Fills the body of an error status a handler left empty (404, 405, 413, 500, ...).
  void set_error_handler(Handler f) { error_ = std::move(f); }
  void set_logger(std::function<void(const Request&, const Response&)> f) { logger_ = std::move(f); }

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
    std::regex pattern;
    Handler handler;
  };
  void Route(const std::string& method, const std::string& pattern, Handler h);
  void Dispatch(Request& req, Response& res);
  int Queue(MHD_Connection* c, Exchange& x);
  void Watchdog() EXCLUDES(mu_);

  friend struct HttpCallbacks;  // libmicrohttpd's callbacks (http_server.cc)

  std::vector<RouteEntry> routes_;
  std::function<bool(const Request&, Response&)> pre_;
  Handler error_;
  std::function<void(const Request&, const Response&)> logger_;
  HttpLimits limits_;
  MHD_Daemon* daemon_ = nullptr;
  int port_ = 0;

  Mutex mu_;
  std::condition_variable cv_;
  std::map<Conn*, int> conns_ GUARDED_BY(mu_);  // each open connection, its fd
  int in_flight_ GUARDED_BY(mu_) = 0;
  bool stopping_ GUARDED_BY(mu_) = false;
  bool watchdog_stop_ GUARDED_BY(mu_) = false;
  std::thread watchdog_;
};

}  // namespace umwelt::server_internal
