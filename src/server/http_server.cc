#include "http_server.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "umwelt/dynlib.h"
#include "umwelt/text.h"

namespace umwelt::server_internal {

namespace {

// libmicrohttpd is loaded when a server starts listening: only `serve` needs
// it, and it brings GnuTLS with it.
#define UMWELT_MHD_API(X)                                                                   \
  X(MHD_, start_daemon) X(MHD_, stop_daemon) X(MHD_, quiesce_daemon) X(MHD_, get_daemon_info) \
  X(MHD_, get_connection_info) X(MHD_, get_connection_values) X(MHD_, queue_response)       \
  X(MHD_, create_response_from_fd_at_offset64) X(MHD_, create_response_from_callback)       \
  X(MHD_, create_response_from_buffer) X(MHD_, add_response_header) X(MHD_, destroy_response)
UMWELT_DYNLIB_TABLE(MhdApi, UMWELT_MHD_API)

const Result<const MhdApi*>& LoadMhd() {
  static const Result<const MhdApi*> api = LoadTable<MhdApi>(UMWELT_SONAME_MHD, "umwelt serve");
  return api;
}

// Only called once Listen has loaded the library.
const MhdApi& Mhd() { return **LoadMhd(); }

}  // namespace

using Clock = std::chrono::steady_clock;

namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// %XX decoding; `plus` turns '+' into a space (query strings and forms).
std::string Decode(std::string_view s, bool plus) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && HexValue(s[i + 1]) >= 0 && HexValue(s[i + 2]) >= 0) {
      out += static_cast<char>(HexValue(s[i + 1]) * 16 + HexValue(s[i + 2]));
      i += 2;
    } else {
      out += plus && s[i] == '+' ? ' ' : s[i];
    }
  }
  return out;
}

void ParseForm(std::string_view s, std::multimap<std::string, std::string>* out) {
  size_t i = 0;
  while (i <= s.size()) {
    size_t amp = s.find('&', i);
    std::string_view pair = s.substr(i, amp == std::string_view::npos ? std::string_view::npos : amp - i);
    if (!pair.empty()) {
      size_t eq = pair.find('=');
      out->emplace(Decode(pair.substr(0, eq), true),
                   eq == std::string_view::npos ? std::string() : Decode(pair.substr(eq + 1), true));
    }
    if (amp == std::string_view::npos) break;
    i = amp + 1;
  }
}

bool SameName(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// Why a request's framing is ambiguous, or "": Content-Length beside
// Transfer-Encoding, Content-Lengths that differ or are not numbers, more
// than one Host, a control character in the path.
std::string FramingError(const Request& r) {
  std::string length;
  int hosts = 0;
  bool chunked = false;
  for (const auto& [k, v] : r.headers) {
    if (SameName(k, "Content-Length")) {
      if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos) return "Content-Length is not a number";
      if (!length.empty() && length != v) return "two different Content-Lengths";
      length = v;
    } else if (SameName(k, "Transfer-Encoding")) {
      chunked = true;
    } else if (SameName(k, "Host")) {
      ++hosts;
    }
  }
  if (chunked && !length.empty()) return "Content-Length and Transfer-Encoding together";
  if (hosts > 1) return "more than one Host header";
  for (unsigned char c : r.raw_path) {
    if (c < 0x20 || c == 0x7f) return "a control character in the request line";
  }
  return "";
}

const char* Reason(int status) {
  switch (status) {
    case 413: return "the request body is too large";
    case 431: return "the request headers are too large";
    default: return "";
  }
}

}  // namespace

// --- Request and Response ------------------------------------------------------

std::string Request::Header(const std::string& name) const {
  for (const auto& [k, v] : headers) {
    if (SameName(k, name)) return v;
  }
  return "";
}

std::string Request::Param(const std::string& key, size_t i) const {
  auto [lo, hi] = params.equal_range(key);
  for (; lo != hi; ++lo, --i) {
    if (i == 0) return lo->second;
  }
  return "";
}

void Response::SetHeader(const std::string& name, const std::string& value) {
  for (auto& [k, v] : headers) {
    if (SameName(k, name)) {
      v = value;
      return;
    }
  }
  headers.emplace_back(name, value);
}

std::string Response::Header(const std::string& name) const {
  for (const auto& [k, v] : headers) {
    if (SameName(k, name)) return v;
  }
  return "";
}

void Response::SetContent(std::string content, const std::string& type) {
  body = std::move(content);
  SetHeader("Content-Type", type);
}

void Response::SetStream(const std::string& type, std::function<bool(size_t, DataSink&)> p) {
  provider = std::move(p);
  SetHeader("Content-Type", type);
}

void Response::SetFile(int fd, int64_t offset, int64_t length, const std::string& type) {
  file_fd = fd;
  file_offset = offset;
  file_length = length;
  SetHeader("Content-Type", type);
}

// --- the server ------------------------------------------------------------------

// One request, from its headers to its completion.
struct HttpServer::Exchange {
  Request req;
  size_t received = 0;
  bool too_large = false;
  bool large = false;  // holds a large_bodies slot
  std::string malformed;  // why the request's framing is refused (400), or ""
  bool answered = false;
};

// One connection: when it began waiting for the request it is receiving.
struct HttpServer::Conn {
  Clock::time_point receiving_since = Clock::now();
  bool receiving = true;
  bool cut = false;
  std::string client;  // its ClientKey
};

namespace {

std::string AddressText(const sockaddr* a) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (!a) return "";
  if (a->sa_family == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(a)->sin_addr, buf, sizeof buf);
  } else if (a->sa_family == AF_INET6) {
    ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(a)->sin6_addr, buf, sizeof buf);
  }
  return buf;
}

}  // namespace

// A streamed response's state.
struct Stream {
  std::function<bool(size_t, DataSink&)> provider;
  std::string pending;
  size_t offset = 0, sent = 0;
  bool done = false;
};

struct HttpCallbacks {
  static size_t Unescape(void*, MHD_Connection*, char* s) { return std::strlen(s); }  // raw; decoded by us

  // Before a connection is accepted: refused when its client (an address,
  // a /64) already holds its share.
  static MHD_Result Admit(void* cls, const sockaddr* addr, socklen_t) {
    auto* self = static_cast<HttpServer*>(cls);
    std::string key = ClientKey(AddressText(addr));
    MutexLock lock(self->mu_);
    auto it = self->per_client_.find(key);
    return it != self->per_client_.end() && it->second >= self->limits_.max_connections_per_client ? MHD_NO : MHD_YES;
  }

  static void OnConnection(void* cls, MHD_Connection* c, void** socket_context, MHD_ConnectionNotificationCode toe) {
    auto* self = static_cast<HttpServer*>(cls);
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
      auto* conn = new HttpServer::Conn();
      *socket_context = conn;
      const MHD_ConnectionInfo* fd = Mhd().get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
      conn->client = ClientKey(ClientAddress(c));
      MutexLock lock(self->mu_);
      self->conns_[conn] = fd ? fd->connect_fd : -1;
      ++self->per_client_[conn->client];
      self->ShedIfFull(conn);
    } else if (auto* conn = static_cast<HttpServer::Conn*>(*socket_context)) {
      MutexLock lock(self->mu_);
      self->conns_.erase(conn);
      if (auto it = self->per_client_.find(conn->client); it != self->per_client_.end() && --it->second <= 0) {
        self->per_client_.erase(it);
      }
      delete conn;
      *socket_context = nullptr;
    }
  }

  static HttpServer::Conn* ConnOf(MHD_Connection* c) {
    const MHD_ConnectionInfo* i = Mhd().get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return i ? static_cast<HttpServer::Conn*>(i->socket_context) : nullptr;
  }

  static MHD_Result Collect(void* cls, MHD_ValueKind, const char* key, const char* value) {
    static_cast<Request*>(cls)->headers.emplace_back(key ? key : "", value ? value : "");
    return MHD_YES;
  }

  static MHD_Result Arg(void* cls, MHD_ValueKind, const char* key, const char* value) {
    static_cast<Request*>(cls)->params.emplace(Decode(key ? key : "", true), Decode(value ? value : "", true));
    return MHD_YES;
  }

  static std::string ClientAddress(MHD_Connection* c) {
    const MHD_ConnectionInfo* i = Mhd().get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return i ? AddressText(i->client_addr) : "";
  }

  // The first call: the request line and headers are in.
  static HttpServer::Exchange* Begin(HttpServer* self, MHD_Connection* c, const char* url, const char* method) {
    auto* x = new HttpServer::Exchange();
    Request& r = x->req;
    r.method = std::strcmp(method, "HEAD") == 0 ? "GET" : method;
    r.raw_path = url;
    r.path = Decode(url, false);
    Mhd().get_connection_values(c, MHD_HEADER_KIND, &Collect, &r);
    Mhd().get_connection_values(c, MHD_GET_ARGUMENT_KIND, &Arg, &r);
    r.remote_addr = ClientAddress(c);
    MutexLock lock(self->mu_);
    ++self->in_flight_;
    return x;
  }

  static ssize_t Read(void* cls, uint64_t, char* buf, size_t max) {
    auto* s = static_cast<Stream*>(cls);
    while (s->pending.size() == s->sent) {
      if (s->done) return MHD_CONTENT_READER_END_OF_STREAM;
      s->pending.clear();
      s->sent = 0;
      DataSink sink;
      if (!s->provider(s->offset, sink)) return MHD_CONTENT_READER_END_WITH_ERROR;
      s->pending = std::move(sink.out_);
      s->offset += s->pending.size();
      s->done = sink.done_;
    }
    size_t n = std::min(max, s->pending.size() - s->sent);
    std::copy_n(s->pending.data() + s->sent, n, buf);
    s->sent += n;
    return static_cast<ssize_t>(n);
  }
  static void FreeStream(void* cls) { delete static_cast<Stream*>(cls); }

  static MHD_Result OnAccess(void* cls, MHD_Connection* c, const char* url, const char* method, const char*,
                             const char* upload, size_t* upload_size, void** con_cls) {
    auto* self = static_cast<HttpServer*>(cls);
    auto* x = static_cast<HttpServer::Exchange*>(*con_cls);
    if (!x) {
      x = Begin(self, c, url, method);
      *con_cls = x;
      // Framing two parsers could read two ways (request smuggling) is
      // refused before anything else, and the connection closed.
      x->malformed = FramingError(x->req);
      if (!x->malformed.empty()) return self->Queue(c, *x) == MHD_YES ? MHD_YES : MHD_NO;
      // A declared body over the limit is refused before any of it is read.
      std::string length = x->req.Header("Content-Length");
      if (!length.empty() && (length.size() > 18 || !self->BodyFits(*x, std::strtoull(length.c_str(), nullptr, 10)))) {
        x->too_large = true;
        return self->Queue(c, *x) == MHD_YES ? MHD_YES : MHD_NO;
      }
      return MHD_YES;
    }
    if (*upload_size > 0) {
      x->received += *upload_size;
      if (!self->BodyFits(*x, x->received)) x->too_large = true;
      if (!x->too_large && !x->answered) x->req.body.append(upload, *upload_size);
      *upload_size = 0;
      // A chunked body over the limit: answer now, read no further.
      if (x->too_large && !x->answered) return self->Queue(c, *x) == MHD_YES ? MHD_YES : MHD_NO;
      return MHD_YES;
    }
    if (x->answered) return MHD_YES;
    if (HttpServer::Conn* conn = ConnOf(c)) {
      MutexLock lock(self->mu_);
      conn->receiving = false;
    }
    return self->Queue(c, *x) == MHD_YES ? MHD_YES : MHD_NO;
  }

  static void OnCompleted(void* cls, MHD_Connection* c, void** con_cls, MHD_RequestTerminationCode) {
    auto* self = static_cast<HttpServer*>(cls);
    auto* x = static_cast<HttpServer::Exchange*>(*con_cls);
    *con_cls = nullptr;
    if (!x) return;
    bool large = x->large;
    delete x;
    MutexLock lock(self->mu_);
    --self->in_flight_;
    if (large) --self->large_in_flight_;
    if (HttpServer::Conn* conn = ConnOf(c)) {
      conn->receiving = true;  // the next request's time starts now
      conn->receiving_since = Clock::now();
    }
    self->cv_.notify_all();
  }
};

bool HttpServer::BodyFits(Exchange& x, uint64_t bytes) {
  if (bytes <= limits_.max_body_bytes) return true;
  auto it = limits_.large_bodies.find(x.req.path);
  if (it == limits_.large_bodies.end() || bytes > it->second) return false;
  if (x.large) return true;
  MutexLock lock(mu_);
  if (large_in_flight_ >= limits_.max_large_bodies) return false;
  ++large_in_flight_;
  x.large = true;
  return true;
}

HttpServer::~HttpServer() {
  Stop();
  Wait(0);
}

std::string ClientKey(const std::string& address) {
  in6_addr v6{};
  if (address.find(':') == std::string::npos || ::inet_pton(AF_INET6, address.c_str(), &v6) != 1) return address;
  if (IN6_IS_ADDR_V4MAPPED(&v6)) {
    char v4[INET_ADDRSTRLEN] = {};
    ::inet_ntop(AF_INET, &v6.s6_addr[12], v4, sizeof v4);
    return v4;
  }
  std::fill(std::begin(v6.s6_addr) + 8, std::end(v6.s6_addr), 0);
  char out[INET6_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET6, &v6, out, sizeof out);
  return std::string(out) + "/64";
}

std::vector<std::string> RouteSegments(std::string_view pattern) {
  std::vector<std::string> out;
  if (!pattern.empty() && pattern[0] == '/') pattern.remove_prefix(1);
  for (size_t i = 0;;) {
    size_t slash = pattern.find('/', i);
    out.emplace_back(pattern.substr(i, slash == std::string_view::npos ? std::string_view::npos : slash - i));
    if (slash == std::string_view::npos) break;
    i = slash + 1;
  }
  return out;
}

namespace {

bool IsHex32(std::string_view s) {
  return s.size() == 32 && std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace

bool MatchRoute(const std::vector<std::string>& segments, std::string_view path, std::vector<std::string>* captures) {
  if (path.empty() || path[0] != '/') return false;
  path.remove_prefix(1);
  size_t at = 0;
  for (size_t i = 0; i < segments.size(); ++i) {
    const std::string& want = segments[i];
    if (want == "{*}") {  // the rest, non-empty
      if (at >= path.size()) return false;
      captures->emplace_back(path.substr(at));
      return true;
    }
    if (at > path.size()) return false;
    size_t slash = path.find('/', at);
    std::string_view seg = path.substr(at, slash == std::string_view::npos ? std::string_view::npos : slash - at);
    bool last = i + 1 == segments.size();
    if (last != (slash == std::string_view::npos)) return false;
    if (want == "{}" || want == "{?}" || want == "{hex32}") {
      if (want == "{}" && seg.empty()) return false;
      if (want == "{hex32}" && !IsHex32(seg)) return false;
      captures->emplace_back(seg);
    } else if (seg != want) {
      return false;
    }
    at = slash == std::string_view::npos ? path.size() + 1 : slash + 1;
  }
  return true;
}

bool SplitHostPort(std::string_view value, std::string* host, std::string* port) {
  auto all = [](std::string_view s, auto ok) { return std::all_of(s.begin(), s.end(), ok); };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  std::string_view name, rest;
  if (!value.empty() && value[0] == '[') {
    size_t close = value.find(']');
    if (close == std::string_view::npos || close < 3) return false;
    name = value.substr(0, close + 1);
    if (!all(name.substr(1, name.size() - 2), [&](char c) { return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.'; })) return false;
    rest = value.substr(close + 1);
  } else {
    size_t colon = value.find(':');
    name = value.substr(0, colon);
    rest = colon == std::string_view::npos ? std::string_view() : value.substr(colon);
    if (name.empty() || name.size() > 253 ||
        !all(name, [&](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-'; })) {
      return false;
    }
  }
  if (!rest.empty() && (rest[0] != ':' || rest.size() < 2 || rest.size() > 6 || !all(rest.substr(1), digit))) return false;
  if (host) *host = std::string(name);
  if (port) *port = rest.empty() ? "" : std::string(rest.substr(1));
  return true;
}

void HttpServer::Route(const std::string& method, const std::string& pattern, Handler h) {
  routes_.push_back({method, RouteSegments(pattern), std::move(h)});
}

void HttpServer::Dispatch(Request& req, Response& res) {
  if (pre_ && !pre_(req, res)) return;
  bool path_known = false;
  for (const auto& r : routes_) {
    std::vector<std::string> captures{req.path};
    if (!MatchRoute(r.segments, req.path, &captures)) continue;
    path_known = true;
    if (r.method != req.method) continue;
    req.matches = std::move(captures);
    r.handler(req, res);
    return;
  }
  res.status = path_known ? 405 : 404;
}

// Builds the answer to `x` and queues it. Every status >= 400 with no body
// gets the error handler's; an exception in a handler is a 500.
int HttpServer::Queue(MHD_Connection* c, Exchange& x) {
  x.answered = true;
  Request& req = x.req;
  Response res;
  if (!x.malformed.empty()) {
    res.status = 400;
    res.SetHeader("Connection", "close");
    res.SetContent(x.malformed + "\n", "text/plain");
  } else if (x.too_large) {
    res.status = 413;
    res.SetHeader("Connection", "close");
  } else {
    std::string type = req.Header("Content-Type");
    if (req.method == "POST" && type.rfind("application/x-www-form-urlencoded", 0) == 0) ParseForm(req.body, &req.params);
    try {
      Dispatch(req, res);
    } catch (...) {
      res = Response();
      res.status = 500;
    }
  }
  if (res.status >= 400 && res.body.empty() && !res.provider && res.file_fd < 0 && error_) {
    try {
      error_(req, res);
    } catch (...) {
    }
    if (res.body.empty()) res.SetContent(Reason(res.status), "text/plain");
  }
  MHD_Response* r = nullptr;
  if (res.file_fd >= 0) {
    r = Mhd().create_response_from_fd_at_offset64(static_cast<uint64_t>(res.file_length), res.file_fd,
                                                static_cast<uint64_t>(res.file_offset));
    if (!r) ::close(res.file_fd);
  } else if (res.provider) {
    auto* s = new Stream;
    s->provider = std::move(res.provider);
    r = Mhd().create_response_from_callback(MHD_SIZE_UNKNOWN, 16 << 10, &HttpCallbacks::Read, s, &HttpCallbacks::FreeStream);
    if (!r) delete s;
  } else {
    r = Mhd().create_response_from_buffer(res.body.size(), res.body.data(), MHD_RESPMEM_MUST_COPY);
  }
  if (!r) return MHD_NO;
  for (const auto& [k, v] : res.headers) Mhd().add_response_header(r, k.c_str(), v.c_str());
  MHD_Result ok = Mhd().queue_response(c, static_cast<unsigned>(res.status), r);
  Mhd().destroy_response(r);
  if (logger_) logger_(req, res);
  return ok;
}

Status HttpServer::Listen(const HttpLimits& limits) {
  limits_ = limits;
  if (!LoadMhd().ok()) return LoadMhd().status();
  sockaddr_in v4{};
  sockaddr_in6 v6{};
  sockaddr* addr = nullptr;
  unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ITC;
  std::string host = limits.bind == "localhost" ? "127.0.0.1" : limits.bind;
  if (::inet_pton(AF_INET, host.c_str(), &v4.sin_addr) == 1) {
    v4.sin_family = AF_INET;
    v4.sin_port = htons(static_cast<uint16_t>(limits.port));
    addr = reinterpret_cast<sockaddr*>(&v4);
  } else if (::inet_pton(AF_INET6, host.c_str(), &v6.sin6_addr) == 1) {
    v6.sin6_family = AF_INET6;
    v6.sin6_port = htons(static_cast<uint16_t>(limits.port));
    addr = reinterpret_cast<sockaddr*>(&v6);
    flags |= MHD_USE_IPv6;
  } else {
    return Status::Invalid("--bind must be an IP address, not " + limits.bind);
  }
  unsigned backlog = 4096;
  if (FILE* f = std::fopen("/proc/sys/net/core/somaxconn", "r")) {
    if (std::fscanf(f, "%u", &backlog) != 1) backlog = 4096;
    std::fclose(f);
  }
  daemon_ = Mhd().start_daemon(
      flags, static_cast<uint16_t>(limits.port), &HttpCallbacks::Admit, this, &HttpCallbacks::OnAccess, this,
      MHD_OPTION_SOCK_ADDR, addr,
      MHD_OPTION_CONNECTION_LIMIT, static_cast<unsigned>(limits.max_connections),
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, limits.max_header_bytes,
      MHD_OPTION_CONNECTION_TIMEOUT, static_cast<unsigned>(limits.idle_seconds),
      MHD_OPTION_LISTEN_BACKLOG_SIZE, backlog,
      MHD_OPTION_UNESCAPE_CALLBACK, &HttpCallbacks::Unescape, nullptr,
      MHD_OPTION_NOTIFY_COMPLETED, &HttpCallbacks::OnCompleted, this,
      MHD_OPTION_NOTIFY_CONNECTION, &HttpCallbacks::OnConnection, this,
      MHD_OPTION_END);
  if (!daemon_) return Status::Unavailable("cannot listen on " + limits.bind + ":" + std::to_string(limits.port));
  const MHD_DaemonInfo* info = Mhd().get_daemon_info(daemon_, MHD_DAEMON_INFO_BIND_PORT);
  port_ = info ? info->port : limits.port;
  watchdog_ = std::thread([this] { Watchdog(); });
  return Status::Ok();
}

// Near the connection limit, the connection that has waited longest for a
// request it has not finished sending (a slow or idle client) is shut, so a
// client that sends its request at once is always let in.
void HttpServer::ShedIfFull(Conn* arrived) {
  int reserve = std::max(4, limits_.max_connections / 8);
  if (static_cast<int>(conns_.size()) < limits_.max_connections - reserve) return;
  std::pair<Conn*, int> oldest{nullptr, -1};
  for (const auto& [conn, fd] : conns_) {
    if (conn == arrived || !conn->receiving || conn->cut || fd < 0) continue;
    if (!oldest.first || conn->receiving_since < oldest.first->receiving_since) oldest = {conn, fd};
  }
  if (!oldest.first) return;
  ::shutdown(oldest.second, SHUT_RDWR);
  oldest.first->cut = true;
  ++shed_;
}

// Shuts the connections that took longer than the limit to send a request.
void HttpServer::Watchdog() {
  MutexLock lock(mu_);
  auto next = Clock::now() + std::chrono::milliseconds(250);
  while (!watchdog_stop_) {
    if (cv_.wait_until(lock.native(), next) != std::cv_status::timeout) continue;  // a request ended, or stopping
    next = Clock::now() + std::chrono::milliseconds(250);
    auto now = Clock::now();
    for (auto& [conn, fd] : conns_) {
      if (conn->receiving && !conn->cut && fd >= 0 && now - conn->receiving_since > std::chrono::seconds(limits_.request_seconds)) {
        ::shutdown(fd, SHUT_RDWR);  // the connection's thread sees the end and closes it
        conn->cut = true;
      }
    }
  }
}

void HttpServer::Stop() {
  MutexLock lock(mu_);
  if (stopping_ || !daemon_) {
    stopping_ = true;
    cv_.notify_all();
    return;
  }
  stopping_ = true;
  MHD_socket listen = Mhd().quiesce_daemon(daemon_);
  if (listen != MHD_INVALID_SOCKET) ::close(listen);
  cv_.notify_all();
}

void HttpServer::Wait(int drain_seconds) {
  {
    MutexLock lock(mu_);
    while (!stopping_) cv_.wait(lock.native());
    auto deadline = Clock::now() + std::chrono::seconds(drain_seconds);
    while (in_flight_ != 0 && cv_.wait_until(lock.native(), deadline) != std::cv_status::timeout) {
    }
  }
  if (watchdog_.joinable()) {
    {
      MutexLock lock(mu_);
      watchdog_stop_ = true;
    }
    cv_.notify_all();
    watchdog_.join();
  }
  if (daemon_) {
    Mhd().stop_daemon(daemon_);
    daemon_ = nullptr;
  }
}

}  // namespace umwelt::server_internal
