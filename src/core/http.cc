#include "umwelt/http.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "umwelt/dynlib.h"
#include "umwelt/text.h"

namespace umwelt {

std::string HttpResponse::Header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

namespace {

struct Sink {
  std::string* body;
  size_t max;
  const HttpResponse* response;
  const std::function<bool(std::string_view)>* on_body;
  bool overflow = false;
  bool aborted = false;
};

size_t WriteBody(char* data, size_t size, size_t nmemb, void* user) {
  auto* sink = static_cast<Sink*>(user);
  size_t n = size * nmemb;
  if (*sink->on_body && sink->response->status >= 200 && sink->response->status < 300) {
    if ((*sink->on_body)(std::string_view(data, n))) return n;
    sink->aborted = true;
    return 0;
  }
  if (sink->body->size() + n > sink->max) {
    sink->overflow = true;
    return 0;  // aborts the transfer
  }
  sink->body->append(data, n);
  return n;
}

size_t WriteHeader(char* data, size_t size, size_t nmemb, void* user) {
  auto* response = static_cast<HttpResponse*>(user);
  size_t n = size * nmemb;
  std::string_view line(data, n);
  if (line.substr(0, 5) == "HTTP/") {
    response->headers.clear();  // a new response (after 100-continue or a redirect)
    size_t sp = line.find(' ');
    if (sp != std::string_view::npos) response->status = std::atol(std::string(line.substr(sp + 1, 3)).c_str());
    return n;
  }
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) return n;
  std::string name = ToLower(line.substr(0, colon));
  std::string value = CollapseWhitespace(line.substr(colon + 1));
  response->headers[name] = value;
  return n;
}

// libcurl is loaded when the first client is made: most verbs never fetch, and
// it brings Kerberos, LDAP, SSH and two TLS stacks with it.
#define UMWELT_CURL_API(X)                                                            \
  X(curl_, global_init) X(curl_, easy_init) X(curl_, easy_cleanup) X(curl_, easy_reset) \
  X(curl_, easy_setopt) X(curl_, easy_perform) X(curl_, easy_getinfo)                 \
  X(curl_, easy_strerror) X(curl_, slist_append) X(curl_, slist_free_all)
UMWELT_DYNLIB_TABLE(CurlApi, UMWELT_CURL_API)

const Result<const CurlApi*>& Curl() {
  static const auto api = LoadTable<CurlApi>(UMWELT_SONAME_CURL, "HTTP requests",
                                             [](const CurlApi& c) { c.global_init(CURL_GLOBAL_DEFAULT); });
  return api;
}

// libcurl is loaded at the first request, not when the client is made: a
// search makes its embedder's client while it opens the corpus, and sends
// the query on a thread of its own, beside the keyword legs.
class CurlHttpClient final : public HttpClient {
 public:
  CurlHttpClient() = default;
  ~CurlHttpClient() override {
    if (curl_) (*Curl())->easy_cleanup(curl_);
  }
  CurlHttpClient(const CurlHttpClient&) = delete;
  CurlHttpClient& operator=(const CurlHttpClient&) = delete;

  Result<HttpResponse> Send(const HttpRequest& req) override {
    if (!Curl().ok()) return Curl().status();
    if (curl_ == nullptr) curl_ = (*Curl())->easy_init();
    if (curl_ == nullptr) return Status::Unavailable("libcurl failed to initialise");
    const CurlApi& api = **Curl();
    api.easy_reset(curl_);
    HttpResponse response;
    Sink sink{&response.body, req.max_body_bytes, &response, &req.on_body};
    api.easy_setopt(curl_, CURLOPT_URL, req.url.c_str());
    api.easy_setopt(curl_, CURLOPT_CUSTOMREQUEST, req.method.c_str());
    api.easy_setopt(curl_, CURLOPT_WRITEFUNCTION, WriteBody);
    api.easy_setopt(curl_, CURLOPT_WRITEDATA, &sink);
    api.easy_setopt(curl_, CURLOPT_HEADERFUNCTION, WriteHeader);
    api.easy_setopt(curl_, CURLOPT_HEADERDATA, &response);
    api.easy_setopt(curl_, CURLOPT_TIMEOUT, req.timeout_seconds);
    api.easy_setopt(curl_, CURLOPT_LOW_SPEED_LIMIT, req.stall_seconds > 0 ? std::max(1L, req.min_bytes_per_second) : 0L);
    api.easy_setopt(curl_, CURLOPT_LOW_SPEED_TIME, req.stall_seconds);
    api.easy_setopt(curl_, CURLOPT_CONNECTTIMEOUT, 20L);
    api.easy_setopt(curl_, CURLOPT_NOSIGNAL, 1L);
    api.easy_setopt(curl_, CURLOPT_ACCEPT_ENCODING, "");  // gzip, deflate, br as built
    api.easy_setopt(curl_, CURLOPT_PROTOCOLS_STR, "http,https");
    if (!req.body.empty() || req.method == "POST" || req.method == "PUT") {
      api.easy_setopt(curl_, CURLOPT_POSTFIELDS, req.body.data());
      api.easy_setopt(curl_, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size()));
    }
    struct curl_slist* headers = nullptr;
    for (const auto& [k, v] : req.headers) headers = api.slist_append(headers, (k + ": " + v).c_str());
    api.easy_setopt(curl_, CURLOPT_HTTPHEADER, headers);
    struct curl_slist* resolve = nullptr;
    for (const auto& r : req.resolve) resolve = api.slist_append(resolve, r.c_str());
    if (resolve) {
      api.easy_setopt(curl_, CURLOPT_RESOLVE, resolve);
      api.easy_setopt(curl_, CURLOPT_NOPROXY, "*");  // a proxy would resolve the name again
    }
    CURLcode rc = api.easy_perform(curl_);
    api.slist_free_all(headers);
    api.slist_free_all(resolve);
    if (sink.aborted) return Status::Io(req.url + ": the body could not be stored");
    if (sink.overflow) {
      return Status::Unavailable(req.url + ": response larger than " +
                                 std::to_string(req.max_body_bytes) + " bytes");
    }
    if (rc != CURLE_OK) {
      return Status::Unavailable(req.url + ": " + api.easy_strerror(rc));
    }
    api.easy_getinfo(curl_, CURLINFO_RESPONSE_CODE, &response.status);
    return response;
  }

 private:
  CURL* curl_ = nullptr;
};

}  // namespace

std::unique_ptr<HttpClient> NewCurlHttpClient() { return std::make_unique<CurlHttpClient>(); }

double RetryAfterInBody(const HttpResponse& r) {
  if (r.status != 429) return -1;
  auto j = nlohmann::json::parse(r.body, nullptr, false);
  if (!j.is_object() || !j.contains("retry_after") || !j["retry_after"].is_number()) return -1;
  double wait = j["retry_after"].get<double>();
  return std::isfinite(wait) && wait >= 0 ? wait : -1;
}

Result<HttpResponse> SendWithRetry(HttpClient& http, const HttpRequest& request, const RetryPolicy& p, int* attempts) {
  double backoff = p.backoff_seconds;
  for (int attempt = 0;; ++attempt) {
    Result<HttpResponse> r = http.Send(request);
    if (attempts) *attempts = attempt + 1;
    bool retry = !r.ok() ? p.retry_transport
                         : (p.retry_on ? p.retry_on(*r) : r->status == 429 || r->status == 529 || r->status >= 500);
    if (!retry || attempt >= p.max_retries) return r;
    double wait = backoff;
    double asked = r.ok() && p.wait_of ? p.wait_of(*r) : -1;
    if (asked >= 0) {
      wait = asked;
    } else if (r.ok() && !r->Header("retry-after").empty()) {
      char* end = nullptr;
      double after = std::strtod(r->Header("retry-after").c_str(), &end);
      if (end && *end == '\0' && after >= 0) wait = after;  // an HTTP date is not a number: the backoff stands
    }
    wait = std::min(wait, p.max_wait_seconds);
    if (p.on_retry) p.on_retry(r, wait);
    if (p.sleep) p.sleep(wait);
    else SleepSeconds(wait);
    backoff *= 2;
  }
}

std::vector<LinkRelation> ParseLinkHeader(std::string_view h) {
  std::vector<LinkRelation> out;
  size_t i = 0;
  while (i < h.size()) {
    size_t lt = h.find('<', i);
    if (lt == std::string_view::npos) break;
    size_t gt = h.find('>', lt + 1);
    if (gt == std::string_view::npos) break;
    LinkRelation link{std::string(h.substr(lt + 1, gt - lt - 1)), ""};
    size_t next = h.find('<', gt + 1);
    std::string_view params = h.substr(gt + 1, next == std::string_view::npos ? h.npos : next - gt - 1);
    size_t r = params.find("rel=");
    if (r != std::string_view::npos) {
      std::string_view v = params.substr(r + 4);
      if (!v.empty() && v[0] == '"') {
        size_t q = v.find('"', 1);
        link.rel = std::string(v.substr(1, q == std::string_view::npos ? v.npos : q - 1));
      } else {
        size_t e = v.find_first_of(",; ");
        link.rel = std::string(v.substr(0, e));
      }
    }
    if (!link.url.empty() && !link.rel.empty()) out.push_back(std::move(link));
    i = next == std::string_view::npos ? h.size() : next;
  }
  return out;
}

std::string FindLinkRel(std::string_view header, std::string_view rel) {
  for (auto& l : ParseLinkHeader(header)) {
    // rel may hold several space-separated names.
    std::string_view names = l.rel;
    size_t p = 0;
    while (p <= names.size()) {
      size_t e = names.find(' ', p);
      if (names.substr(p, e == std::string_view::npos ? names.npos : e - p) == rel) return l.url;
      if (e == std::string_view::npos) break;
      p = e + 1;
    }
  }
  return "";
}

std::string Base64(std::string_view s) {
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((s.size() + 2) / 3 * 4);
  for (size_t i = 0; i < s.size(); i += 3) {
    uint32_t n = static_cast<uint32_t>(static_cast<unsigned char>(s[i])) << 16;
    if (i + 1 < s.size()) n |= static_cast<uint32_t>(static_cast<unsigned char>(s[i + 1])) << 8;
    if (i + 2 < s.size()) n |= static_cast<unsigned char>(s[i + 2]);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += i + 1 < s.size() ? kAlphabet[(n >> 6) & 63] : '=';
    out += i + 2 < s.size() ? kAlphabet[n & 63] : '=';
  }
  return out;
}

std::string UrlEncode(std::string_view s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::string Redact(std::string s, const std::vector<std::string>& secrets) {
  for (const auto& secret : secrets) {
    if (secret.size() < 4) continue;
    size_t p;
    while ((p = s.find(secret)) != std::string::npos) s.replace(p, secret.size(), "***");
  }
  return s;
}

}  // namespace umwelt
