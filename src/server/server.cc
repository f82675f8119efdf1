// `umwelt serve` (see server.h): start and stop, the auth gate, request
// checks, the snapshot, ask jobs, the scheduler, signals. The routes are in
// routes_api.cc and routes_ui.cc.
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>

#include "server_impl.h"
#include "umwelt/pattern.h"
#include "ui.h"
#include "umwelt/digest.h"
#include "umwelt/github.h"
#include "umwelt/file.h"
#include "umwelt/llm.h"
#include "umwelt/publish.h"
#include "umwelt/redact.h"
#include "umwelt/research.h"
#include "umwelt/source_traits.h"
#include "umwelt/sources.h"
#include "umwelt/text.h"
#include "umwelt/vector.h"

namespace umwelt::server_internal {

using Clock = std::chrono::steady_clock;

// Scripts: the served files, and the one inline script of a published page
// (report, summary), pinned by its hash. No other inline script runs.
const std::string& Csp() {
  static const std::string csp = [] {
    std::string hex = Sha256Hex(PageScript()), raw;
    for (size_t i = 0; i + 1 < hex.size(); i += 2) raw += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    return "default-src 'none'; style-src 'unsafe-inline'; script-src 'self' 'sha256-" + Base64(raw) +
           "'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
  }();
  return csp;
}

// JSON with <, > and & written as \u escapes (valid JSON, inert if a
// browser ever sniffs it as HTML).
void SetJson(Response& res, std::string body) {
  size_t at = body.find_first_of("<>&");
  if (at == std::string::npos) return res.SetContent(std::move(body), "application/json");
  std::string out;
  out.reserve(body.size() + 64);
  size_t from = 0;
  for (; at != std::string::npos; from = at + 1, at = body.find_first_of("<>&", from)) {
    out.append(body, from, at - from);
    out += body[at] == '<' ? "\\u003c" : body[at] == '>' ? "\\u003e" : "\\u0026";
  }
  out.append(body, from);
  res.SetContent(std::move(out), "application/json");
}

std::string SessionId(const Request& req) {
  std::string header = req.Header("Cookie");
  std::string_view cookie = header;
  // "name=value; name=value": the first umwelt_session whose value is a
  // session id's shape.
  for (size_t i = 0; i < cookie.size();) {
    size_t semi = cookie.find(';', i);
    std::string_view pair = cookie.substr(i, semi == std::string_view::npos ? std::string_view::npos : semi - i);
    while (!pair.empty() && (pair.front() == ' ' || pair.front() == '\t')) pair.remove_prefix(1);
    constexpr std::string_view kName = "umwelt_session=";
    if (pair.substr(0, kName.size()) == kName) {
      std::string_view id = pair.substr(kName.size(), 32);
      if (id.size() == 32 && std::all_of(id.begin(), id.end(), [](char c) {
            return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
          })) {
        return std::string(id);
      }
    }
    if (semi == std::string_view::npos) break;
    i = semi + 1;
  }
  return "";
}

std::string Random128() {
  std::random_device rd;
  char buf[33];
  std::snprintf(buf, sizeof buf, "%08x%08x%08x%08x", rd(), rd(), rd(), rd());
  return buf;
}

bool Loopback(const std::string& bind) { return bind == "127.0.0.1" || bind == "::1" || bind == "localhost"; }

// A file name that cannot leave its folder.
bool SafeName(const std::string& name) {
  if (name.empty() || name.size() > 201 || !std::isalnum(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
         }) &&
         name.find("..") == std::string::npos;
}

std::string MimeOf(const std::string& name) {
  auto ends = [&](const char* ext) {
    size_t n = std::strlen(ext);
    return name.size() >= n && name.compare(name.size() - n, n, ext) == 0;
  };
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".xml")) return "application/atom+xml; charset=utf-8";
  if (ends(".json")) return "application/json";
  if (ends(".md")) return "text/markdown; charset=utf-8";
  if (ends(".svg")) return "image/svg+xml";
  return "application/octet-stream";
}


void ServerImpl::Detail(Response& res, int status, const std::string& detail) {
  res.status = status;
  // Upstream errors may echo credentials; internal ones name this machine's
  // paths (a 404 of the corpus names the corpus's file).
  std::string safe = status >= 500 ? StripLocalPaths(RedactSecrets(detail)) : HideServedPaths(RedactSecrets(detail));
  if ((status == 503 || status == 429) && res.Header("Retry-After").empty()) res.SetHeader("Retry-After", "1");
  SetJson(res, json{{"detail", safe}}.dump(-1, ' ', false, json::error_handler_t::replace));
}

std::string ServerImpl::HideServedPaths(std::string text) const {
  auto erase = [&](const std::string& what) {
    for (size_t p; (p = text.find(what)) != std::string::npos;) text.erase(p, what.size());
  };
  for (const std::string& file : {o_.corpus_path, o_.summaries_dir, o_.reports_dir, o_.auth_file}) {
    if (file.empty()) continue;
    std::error_code ec;
    std::filesystem::path absolute = std::filesystem::absolute(file, ec);
    std::string dir = absolute.parent_path().string();
    if (!ec && dir.size() > 1) erase(dir + "/");  // never "/" alone: urls hold "//"
    // A relative name as it was given: the file itself becomes its name.
    std::string name = std::filesystem::path(file).filename().string();
    if (name != file && !name.empty()) {
      for (size_t p = 0; (p = text.find(file, p)) != std::string::npos; p += name.size()) text.replace(p, file.size(), name);
    }
  }
  return text;
}

std::string ServerImpl::Identify(const Request& req, si::AuthVerdict* v) {
  if (!auth_) return "";
  if (std::string id = SessionId(req); !id.empty()) {
    std::string token = sign_ins_.TokenOf(id, NowEpoch());
    if (!token.empty()) {
      // Revoked, expired or no longer allowed: the session ends with its token.
      *v = auth_->CheckToken(token, req.remote_addr);
      if (v->status == 200) return v->login;
      sign_ins_.Remove(id);
      return "";
    }
  }
  *v = auth_->CheckHeader(req.Header("Authorization"), req.remote_addr);
  return v->status == 200 ? v->login : "";
}

// A path as the access log shows it: percent-encoded outside printable
// ASCII (and '%' itself), so no byte of it forges a line, truncates one or
// reaches the operator's terminal as a control; secrets redacted; at most
// 200 bytes of it.
std::string LoggedPath(std::string_view path) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path.substr(0, 200)) {
    if (c <= 0x20 || c >= 0x7f || c == '%') {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (path.size() > 200) out += "...";
  return RedactSecrets(out);
}

std::string SafeNext(const std::string& next) {
  if (next.empty() || next[0] != '/' || next.size() > 2048) return "/";
  if (next.size() > 1 && (next[1] == '/' || next[1] == '\\')) return "/";
  for (unsigned char c : next) {
    if (c <= 0x20 || c >= 0x7f || c == '\\') return "/";
  }
  return next;
}

bool LoopbackHost(const std::string& host_port) {
  std::string host;
  if (!SplitHostPort(host_port, &host, nullptr)) return false;
  host = ToLower(host);
  if (host == "localhost" || host == "[::1]") return true;
  static const Pattern v4(R"(127\.\d{1,3}\.\d{1,3}\.\d{1,3})");
  return v4.Matches(host);
}

// Without auth the corpus is open to whoever reaches the port, so only
// requests addressed to this machine by name are served (a DNS-rebound
// name is refused), and a state-changing request must come from a page of
// this origin (or from a client that sends no Origin at all).
bool ServerImpl::SameOrigin(const Request& req, Response& res) {
  std::string host = ToLower(req.Header("Host"));
  if (!auth_ && !LoopbackHost(host) && (public_host_.empty() || host != public_host_)) {
    Detail(res, 421, "this server answers to localhost" +
                         (public_host_.empty() ? std::string() : " and " + public_host_) +
                         ", not to the host this request names (set --public-url to serve another name)");
    return false;
  }
  if (req.method == "GET" || req.method == "HEAD" || req.method == "OPTIONS") return true;
  std::string origin = ToLower(req.Header("Origin"));
  std::string fetch_site = ToLower(req.Header("Sec-Fetch-Site"));
  bool same = origin.empty() || origin == "null" ? fetch_site.empty() || fetch_site == "same-origin" || fetch_site == "none"
                                                 : origin == "http://" + host || origin == "https://" + host ||
                                                       (!public_origin_.empty() && origin == public_origin_);
  if (origin == "null") same = false;
  if (!same) {
    Detail(res, 403, "cross-origin " + req.method + " refused: this request must come from a page of this server");
    return false;
  }
  return true;
}

void ServerImpl::Html(Response& res, int status, const std::string& title, const std::string& body,
                      const Request& req, const std::string& script) {
  res.status = status;
  res.SetHeader("Content-Security-Policy", Csp());
  // An error page says what went wrong, never where this server keeps its files.
  res.SetContent(si::UiPage(Chrome(req), title, status >= 400 ? HideServedPaths(body) : body, script),
                 "text/html; charset=utf-8");
}

si::Chrome ServerImpl::Chrome(const Request& req) {
  si::Chrome c;
  si::AuthVerdict v;
  c.user = auth_ ? Identify(req, &v) : "";
  c.auth = auth_ != nullptr;
  c.summaries = !o_.summaries_dir.empty();
  return c;
}

si::View ServerImpl::View(Corpus* corpus) const {
  si::View v;
  v.corpus = corpus;
  v.now = NowEpoch();
  v.summaries = !o_.summaries_dir.empty();
  return v;
}

// Open: summaries, sign-in, health. Everything else needs a bearer token or
// a session when an auth file is configured.
bool ServerImpl::Gate(Request& req, Response& res) {
  res.SetHeader("X-Content-Type-Options", "nosniff");
  res.SetHeader("Referrer-Policy", "same-origin");
  if (!SameOrigin(req, res)) return false;
  if (!auth_) return true;
  const std::string& p = req.path;
  // The webhook route: its deliveries are signed instead.
  if (p == "/hooks/github" && hooks_ && !o_.github_webhook_secret.empty()) return true;
  if (p == "/healthz" || p == "/login" || p == "/ui.js" || p == "/ask.js" || p == "/logout" || p == "/summaries" || p.rfind("/summaries/", 0) == 0 ||
      p == "/api/summaries" || p.rfind("/api/summaries/", 0) == 0) {
    return true;
  }
  si::AuthVerdict v;
  req.login = Identify(req, &v);
  if (!req.login.empty()) return true;
  bool page = req.method == "GET" && p.rfind("/api/", 0) != 0 && p.rfind("/wandb/", 0) != 0 && p != "/manifest.json" &&
              p != "/corpus-index.db";
  if (page && v.status == 401 && req.Header("Authorization").empty()) {
    res.status = 303;
    res.SetHeader("Location", "/login?next=" + UrlEncode(p));
    return false;
  }
  if (v.status == 401) res.SetHeader("WWW-Authenticate", "Bearer realm=\"umwelt\"");
  if (v.retry_after > 0) res.SetHeader("Retry-After", std::to_string(v.retry_after));
  Detail(res, v.status, v.detail);
  return false;
}

bool ServerImpl::ValidParams(const Request& req, Response& res) {
  if (!IsValidUtf8(req.path)) {
    Fail(res, Status::Invalid("the path is not valid UTF-8"));
    return false;
  }
  for (const auto& [k, v] : req.params) {
    if (!IsValidUtf8(k) || !IsValidUtf8(v)) {
      Fail(res, Status::Invalid("the query string is not valid UTF-8"));
      return false;
    }
    if (v.size() > 8192) {
      Fail(res, Status::Invalid("the parameter " + k.substr(0, 40) + " is longer than 8,192 bytes"));
      return false;
    }
  }
  return true;
}

bool Truthy(const std::string& v) { return v == "1" || v == "true" || v == "yes" || v == "on"; }

int PageParam(const Request& req, int max, int fallback) {
  std::string p = req.Param("page");
  if (p.empty() || p.size() > 9 || p.find_first_not_of("0123456789") != std::string::npos) return fallback;
  return std::clamp(std::stoi(p), 1, max);
}

ParamLookup QueryTexts(const Request& req) {
  return [&req](const ParamSpec& s) {
    std::string name = s.HttpName();
    std::vector<std::string> out;
    for (size_t i = 0, n = req.ParamCount(name); i < n; ++i) out.push_back(req.Param(name, i));
    return out;
  };
}

Result<SearchRequest> ServerImpl::ParseSearch(const Request& req) { return SearchParams().FromTexts(QueryTexts(req)); }

int HttpStatusOf(const Status& s) { return CodeInfoOf(s.code()).http_status; }

void ServerImpl::Fail(Response& res, const Status& s) { Detail(res, HttpStatusOf(s), s.message()); }

void ServerImpl::ServeDir(const std::string& dir, const std::string& name_in, Response& res, const si::Chrome* nav) {
  std::string name = name_in.empty() ? "index.html" : name_in;
  if (dir.empty()) return Fail(res, Status::NotFound("nothing is published here"));
  if (!SafeName(name)) return Fail(res, Status::NotFound("no such page"));
  std::filesystem::path path = std::filesystem::path(dir) / name;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec) || std::filesystem::is_symlink(path, ec)) {
    return Fail(res, Status::NotFound("no such page"));
  }
  auto text = ReadWholeFile(path.string());
  if (!text.ok()) return Fail(res, Status::NotFound("no such page"));
  if (MimeOf(name).rfind("text/html", 0) == 0) {
    res.SetHeader("Content-Security-Policy", Csp());
    // A page of a site made elsewhere (the summaries) gets this server's
    // navigation, so it leads back to search.
    if (nav) {
      if (size_t main = text->find("<main>\n"); main != std::string::npos) text->insert(main + 7, si::NavHtml(*nav) + "\n");
    }
  }
  res.SetContent(*text, MimeOf(name));
}

Result<std::string> ServerImpl::StatusJson() {
  UMWELT_ASSIGN_OR_RETURN(Corpus * corpus, engine_->Connection());
  UMWELT_ASSIGN_OR_RETURN(CorpusStats st, corpus->Stats());
  json out = CorpusStatusValue(st, NowEpoch());
  out["scheduler"] = scheduler_.StateValue();
  out["auth"] = auth_ != nullptr;
  out["auth_reload_error"] = auth_ ? StripLocalPaths(auth_->ReloadError()) : "";
  out["jobs_running"] = jobs_.running();
  if (hooks_) {
    auto hooks = hooks_->StateValue(NowEpochMs());
    if (!hooks.ok()) return hooks.status();
    out["hooks"] = std::move(*hooks);
  }
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

void ServerImpl::RunJob(Job& job) {
  auto push = [&](const std::string& stage, const std::string& detail) {
    MutexLock lock(job.mu);
    job.events.push_back({{"stage", stage}, {"detail", detail}});
    job.cv.notify_all();
  };
  {
    MutexLock lock(job.mu);
    job.state = "running";
  }
  push("start", "researching");
  AskOptions ao;
  ao.corpus_path = o_.corpus_path;
  ao.question = job.question;
  ao.llm = o_.llm;
  ao.searcher = &engine_->searcher();  // the indexes and embedders /api/search uses
  ao.progress = push;
  auto r = AskAndPublish(ao);
  MutexLock lock(job.mu);
  job.state = r.ok() ? "done" : "failed";
  job.error = r.ok() ? "" : r.status().code() == Code::kCitationFailed ? "the report failed the citation check"
                                                                       : r.status().message();
  if (r.ok()) {
    job.markdown = r->report.markdown;
    job.removed = r->report.removed;
    job.seconds = r->report.seconds;
    job.html = std::move(r->html);
  }
  job.cv.notify_all();
}

// The last complete week's digest, once. Whether it exists is read through
// the scheduler's reading connection: a connection opened to write changes
// the file, and every reader would drop its page cache each round.
Status ServerImpl::DigestClosedWeek() {
  Period week = LastCompleteWeek(NowEpoch());
  UMWELT_ASSIGN_OR_RETURN(Corpus * reader, engine_->Connection());
  if (!reader->native()) return Status::Ok();
  UMWELT_ASSIGN_OR_RETURN(auto have, reader->GetThread(NarrativeRef(week.id())));
  if (have) return Status::Ok();
  WriteDigestOptions w;
  w.digest.corpus_path = o_.corpus_path;
  w.digest.period = week;
  w.digest.llm = o_.llm;
  w.site.out_dir = o_.summaries_dir;
  w.page_url = "/summaries/" + SitePagePath(week.id());
  UMWELT_RETURN_IF_ERROR(WriteDigest(w).status());
  return engine_->Refresh();
}

Status ServerImpl::Round() {
  MutexLock one_writer(write_mu_);
  Status s = Status::Ok();
  if (o_.sync) s = o_.sync();
  Status reload = engine_->Refresh();
  if (s.ok()) s = reload;
  if (s.ok()) s = DigestClosedWeek().WithContext("weekly digest");
  return s;
}

void ServerImpl::StopBackground() {
  stopping_ = true;
  WakeHookLoop();
  if (hooks_thread_.joinable()) hooks_thread_.join();
  if (discord_thread_.joinable()) discord_thread_.join();
  scheduler_.Stop();
  jobs_.Stop();
}

Status ServerImpl::Init() {
  if (!o_.auth_file.empty()) {
    UMWELT_ASSIGN_OR_RETURN(auth_, si::Auth::Load(o_.auth_file));
    if (o_.log) auth_->set_log(o_.log);
  } else if (!Loopback(o_.bind) && !o_.open_network) {
    return Status::Invalid("serving " + o_.bind + " without --auth would open the corpus to the network; "
                           "pass --auth FILE (or --open-network to mean it)");
  }
  if (!o_.public_url.empty()) {
    static const Pattern url(R"((https?)://([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?/?)");
    Groups m;
    if (!url.Matches(o_.public_url, &m)) {
      return Status::Invalid("--public-url must be an http(s) origin such as https://umwelt.example.org, not " +
                             o_.public_url.substr(0, 200));
    }
    public_host_ = ToLower(std::string(m[2]) + std::string(m[3]));
    public_origin_ = ToLower(std::string(m[1]) + "://" + public_host_);
  }
  UMWELT_ASSIGN_OR_RETURN(auto configs, ParseSpaceConfigs(o_.embedders));
  std::shared_ptr<Reranker> reranker;
  if (!o_.rerank.empty()) {
    UMWELT_ASSIGN_OR_RETURN(RerankOptions ro, ParseRerankSpec(o_.rerank));
    reranker = std::make_shared<Reranker>(std::move(ro));
  }
  int cores = static_cast<int>(std::thread::hardware_concurrency());
  engine_ = std::make_unique<si::Engine>(o_.corpus_path, configs,
                                         o_.search_concurrency > 0 ? o_.search_concurrency : std::max(4, 2 * cores));
  {
    UMWELT_ASSIGN_OR_RETURN(auto probe, Corpus::Open(o_.corpus_path, Corpus::Mode::kReadOnly));
  }
  engine_->searcher().SetReranker(std::move(reranker));
  UMWELT_RETURN_IF_ERROR(engine_->Refresh());
  std::string dir = o_.snapshot_dir.empty() ? std::filesystem::path(o_.corpus_path).parent_path().string() : o_.snapshot_dir;
  if (dir.empty()) dir = ".";
  snapshot_ = std::make_unique<SnapshotCache>(dir + "/" + std::filesystem::path(o_.corpus_path).filename().string() +
                                              ".snapshot");
  if (!o_.discord_follow.empty()) {
    if (o_.discord_token.empty()) return Status::Invalid("--discord-follow: no bot token (set DISCORD_TOKEN)");
    if (o_.discord_follow.size() > 24 || o_.discord_follow.find_first_not_of("0123456789") != std::string::npos) {
      return Status::Invalid("--discord-follow: `" + o_.discord_follow + "` is not a guild id (a number)");
    }
  }
  if (!o_.github_webhook_secret.empty() || !o_.discord_follow.empty()) {
    UMWELT_ASSIGN_OR_RETURN(hooks_, HookSpool::Open(o_.corpus_path + ".hooks"));
  }
  Routes();
  HttpLimits limits;
  limits.bind = o_.bind;
  limits.port = o_.port;
  limits.max_connections = std::max(4, o_.threads);
  limits.max_connections_per_client = std::max(1, o_.max_connections_per_client);
  limits.max_body_bytes = o_.max_body_bytes;
  if (hooks_) limits.large_bodies["/hooks/github"] = github::kMaxWebhookBytes;
  limits.request_seconds = o_.read_timeout_seconds;
  limits.idle_seconds = 30;  // a stalled transfer; the next request on a connection has request_seconds
  UMWELT_RETURN_IF_ERROR(http_.Listen(limits));
  port_ = http_.port();
  scheduler_.Start();
  jobs_.Start();
  // Deliveries left waiting by a server that stopped (or was killed) are
  // applied first.
  if (hooks_) hooks_thread_ = std::thread([this] { HookLoop(); });
  if (!o_.discord_follow.empty()) discord_thread_ = std::thread([this] { DiscordLoop(); });
  return Status::Ok();
}

Status ServerImpl::Run() {
  http_.Wait();
  return Status::Ok();
}

void ServerImpl::Stop() {
  stopping_ = true;
  scheduler_.RequestStop();
  jobs_.WakeFollowers();
  http_.Stop();
}

void ServerImpl::Routes() {
  http_.SetPreRouting([this](Request& req, Response& res) {
    res.SetHeader("X-Content-Type-Options", "nosniff");
    if (ValidParams(req, res)) return Gate(req, res);
    res.SetHeader("Connection", "close");  // a malformed request ends its connection
    return false;
  });
  http_.SetErrorHandler([this](const Request& req, Response& res) {
    if (!res.body.empty()) return;
    std::string why = res.status == 404 ? "no such route: " + req.method + " " + req.path.substr(0, 200)
                      : res.status == 413 ? "the request body is larger than " +
                                                std::to_string(req.path == "/hooks/github" ? github::kMaxWebhookBytes
                                                                                          : o_.max_body_bytes) +
                                                " bytes"
                      : res.status == 405 ? "method not allowed"
                      : res.status == 500 ? "internal error"
                                          : "HTTP " + std::to_string(res.status);
    int status = res.status;
    Detail(res, status, why);
  });
  if (o_.log) {
    http_.SetLogger([this](const Request& req, const Response& res) {
      // The path only: query strings may carry what users searched for, and
      // headers carry tokens.
      o_.log(req.method + " " + LoggedPath(req.path) + " " + std::to_string(res.status));
    });
  }

  http_.Get("/healthz", [](const Request&, Response& res) { res.SetContent("ok\n", "text/plain"); });

  ApiRoutes();
  SnapshotRoutes();
  UiRoutes();
  McpRoutes();
  HookRoutes();
}

}  // namespace umwelt::server_internal

namespace umwelt {

using server_internal::ServerImpl;

Result<std::unique_ptr<Server>> Server::Start(const ServeOptions& options) {
  UMWELT_RETURN_IF_ERROR(CryptoAvailable());  // token digests and the pages' script hash
  auto s = std::make_unique<ServerImpl>(options);
  UMWELT_RETURN_IF_ERROR(s->Init());
  return std::unique_ptr<Server>(std::move(s));
}

Status Serve(const ServeOptions& options) {
  // SIGTERM and SIGINT go to one waiting thread, which stops the server;
  // every other thread (workers too) starts with them blocked.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  UMWELT_ASSIGN_OR_RETURN(auto server, Server::Start(options));
  if (options.log) options.log("listening on " + options.bind + ":" + std::to_string(server->port()));
  std::atomic<bool> done{false};
  std::thread waiter([&] {
    int sig = 0;
    while (!done) {
      struct timespec ts = {0, 200 * 1000 * 1000};
      siginfo_t info;
      sig = sigtimedwait(&set, &info, &ts);
      if (sig == SIGTERM || sig == SIGINT) {
        if (options.log) options.log("shutting down: finishing the requests in flight");
        server->Stop();
        break;
      }
    }
  });
  Status s = server->Run();
  done = true;
  waiter.join();
  server.reset();
  return s;
}

}  // namespace umwelt
