// `umwelt serve` (see server.h): routes, auth gate, snapshot distribution,
// ask jobs with server-sent events, the scheduler, graceful shutdown.
#include "umwelt/server.h"

#include <httplib.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <regex>
#include <thread>

#include <nlohmann/json.hpp>

#include "auth.h"
#include "engine.h"
#include "ui.h"
#include "umwelt/digest.h"
#include "umwelt/file.h"
#include "umwelt/llm.h"
#include "umwelt/publish.h"
#include "umwelt/research.h"
#include "umwelt/text.h"
#include "umwelt/vector.h"

namespace umwelt {
namespace si = server_internal;
using json = nlohmann::json;

namespace {

using Clock = std::chrono::steady_clock;

const char* kAskJs = R"js(
(function () {
  var form = document.getElementById('ask'), progress = document.getElementById('progress'),
      answer = document.getElementById('answer');
  function line(t) { var d = document.createElement('div'); d.textContent = t; progress.appendChild(d); }
  function follow(id) {
    var es = new EventSource('/api/jobs/' + encodeURIComponent(id) + '/events');
    es.addEventListener('progress', function (e) { var d = JSON.parse(e.data); line(d.stage + ': ' + d.detail); });
    es.addEventListener('done', function (e) {
      var d = JSON.parse(e.data);
      es.close();
      if (d.state === 'done') {
        var a = document.createElement('a');
        a.href = '/jobs/' + encodeURIComponent(id) + '/report';
        a.textContent = 'Open the report';
        answer.appendChild(a);
      } else { line('failed: ' + d.error); }
    });
  }
  if (form) form.addEventListener('submit', function (e) {
    e.preventDefault();
    progress.textContent = ''; answer.textContent = '';
    fetch('/api/ask', {method: 'POST', credentials: 'same-origin', headers: {'Content-Type': 'application/json'},
                       body: JSON.stringify({question: document.getElementById('question').value})})
      .then(function (r) { return r.json().then(function (j) { if (!r.ok) throw new Error(j.detail || r.status); return j; }); })
      .then(function (j) { line('job ' + j.id + ' started'); follow(j.id); })
      .catch(function (err) { line(String(err.message)); });
  });
  if (progress && progress.dataset.job) follow(progress.dataset.job);
})();
)js";

const char* kCsp =
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

// JSON with <, > and & written as \u escapes (valid JSON, inert if a
// browser ever sniffs it as HTML).
void SetJson(httplib::Response& res, const std::string& body) {
  std::string out;
  out.reserve(body.size());
  for (char c : body) {
    if (c == '<') out += "\\u003c";
    else if (c == '>') out += "\\u003e";
    else if (c == '&') out += "\\u0026";
    else out += c;
  }
  res.set_content(out, "application/json");
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
  static const std::regex ok(R"(^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$)");
  return std::regex_match(name, ok) && name.find("..") == std::string::npos;
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

// --- ask jobs ----------------------------------------------------------------

struct Job {
  std::string id, question, state = "queued", error, markdown, html;
  std::thread worker;
  std::atomic<bool> finished{false};
  std::vector<json> events;
  std::vector<std::string> removed;
  double seconds = 0;
  std::mutex mu;
  std::condition_variable cv;
};

// --- the server ----------------------------------------------------------------

class ServerImpl final : public Server {
 public:
  explicit ServerImpl(const ServeOptions& o)
      : o_(o) {}
  ~ServerImpl() override {
    Stop();
    StopBackground();
  }

  Status Init();
  int port() const override { return port_; }
  Status Run() override;
  void Stop() override;
  Status SyncNow() override { return Round(); }

 private:
  void Routes();
  bool Gate(const httplib::Request& req, httplib::Response& res);
  std::string Identify(const httplib::Request& req, si::AuthVerdict* v);
  void Detail(httplib::Response& res, int status, const std::string& detail);
  void Html(httplib::Response& res, int status, const std::string& title, const std::string& body,
            const httplib::Request& req, const std::string& script = "");
  bool ValidParams(const httplib::Request& req, httplib::Response& res);
  Result<si::SearchRequest> ParseSearch(const httplib::Request& req);
  void ServeDir(const std::string& dir, const std::string& name, httplib::Response& res);
  Result<std::string> StatusJson();
  Result<json> SourceHealth(Corpus& corpus);
  Status EnsureSnapshot();
  std::shared_ptr<Job> FindJob(const std::string& id);
  void RunJob(std::shared_ptr<Job> job);
  Status Round();
  void SchedulerLoop();
  void StopBackground();

  ServeOptions o_;
  httplib::Server http_;
  int port_ = 0;
  std::unique_ptr<si::Auth> auth_;
  std::unique_ptr<si::Engine> engine_;
  std::atomic<bool> stopping_{false};

  std::mutex sessions_mu_;
  struct Session {
    std::string login;
    int64_t expires;
  };
  std::map<std::string, Session> sessions_;

  std::mutex jobs_mu_;
  std::map<std::string, std::shared_ptr<Job>> jobs_;
  std::deque<std::string> job_order_;  // ids, oldest first
  std::atomic<int> jobs_running_{0};

  std::mutex snapshot_mu_;
  std::string snapshot_path_, snapshot_key_, snapshot_sha_;
  int64_t snapshot_bytes_ = 0, snapshot_at_ = 0;

  std::mutex sched_mu_;
  std::condition_variable sched_cv_;
  std::thread scheduler_;
  struct SchedulerState {
    int64_t last_run = 0, last_ok = 0, error_since = 0;
    std::string last_error;
    int runs = 0;
    bool running = false;
  } sched_;
};

void ServerImpl::Detail(httplib::Response& res, int status, const std::string& detail) {
  res.status = status;
  SetJson(res, json{{"detail", detail}}.dump(-1, ' ', false, json::error_handler_t::replace));
}

std::string ServerImpl::Identify(const httplib::Request& req, si::AuthVerdict* v) {
  if (!auth_) return "";
  std::string cookie = req.get_header_value("Cookie");
  static const std::regex session(R"((?:^|;\s*)umwelt_session=([0-9a-f]{32}))");
  std::smatch m;
  if (std::regex_search(cookie, m, session)) {
    std::lock_guard<std::mutex> lock(sessions_mu_);
    auto it = sessions_.find(m[1].str());
    if (it != sessions_.end() && it->second.expires > NowEpoch()) {
      *v = {200, it->second.login, ""};
      return it->second.login;
    }
  }
  *v = auth_->CheckHeader(req.get_header_value("Authorization"));
  return v->status == 200 ? v->login : "";
}

void ServerImpl::Html(httplib::Response& res, int status, const std::string& title, const std::string& body,
                      const httplib::Request& req, const std::string& script) {
  si::AuthVerdict v;
  std::string user = auth_ ? Identify(req, &v) : "";
  res.status = status;
  res.set_header("Content-Security-Policy", kCsp);
  res.set_content(si::UiPage(title, body, user, script), "text/html; charset=utf-8");
}

// Open: summaries, sign-in, health. Everything else needs a bearer token or
// a session when an auth file is configured.
bool ServerImpl::Gate(const httplib::Request& req, httplib::Response& res) {
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Referrer-Policy", "same-origin");
  if (!auth_) return true;
  const std::string& p = req.path;
  if (p == "/healthz" || p == "/login" || p == "/logout" || p == "/summaries" || p.rfind("/summaries/", 0) == 0 ||
      p == "/api/summaries" || p.rfind("/api/summaries/", 0) == 0) {
    return true;
  }
  si::AuthVerdict v;
  if (!Identify(req, &v).empty()) return true;
  bool page = req.method == "GET" && p.rfind("/api/", 0) != 0 && p != "/manifest.json" && p != "/corpus-index.db";
  if (page && v.status == 401 && req.get_header_value("Authorization").empty()) {
    res.status = 303;
    res.set_header("Location", "/login?next=" + UrlEncode(p));
    return false;
  }
  if (v.status == 401) res.set_header("WWW-Authenticate", "Bearer realm=\"umwelt\"");
  Detail(res, v.status, v.detail);
  return false;
}

bool ServerImpl::ValidParams(const httplib::Request& req, httplib::Response& res) {
  if (!IsValidUtf8(req.path)) {
    Detail(res, 400, "the path is not valid UTF-8");
    return false;
  }
  for (const auto& [k, v] : req.params) {
    if (!IsValidUtf8(k) || !IsValidUtf8(v)) {
      Detail(res, 400, "the query string is not valid UTF-8");
      return false;
    }
    if (v.size() > 8192) {
      Detail(res, 400, "the parameter " + k.substr(0, 40) + " is longer than 8,192 bytes");
      return false;
    }
  }
  return true;
}

bool Truthy(const std::string& v) { return v == "1" || v == "true" || v == "yes" || v == "on"; }

Result<si::SearchRequest> ServerImpl::ParseSearch(const httplib::Request& req) {
  si::SearchRequest r;
  r.search.query = CollapseWhitespace(req.get_param_value("q"));
  if (r.search.query.empty()) return Status::Invalid("q is required: what to search for");
  if (req.has_param("k")) {
    const std::string& k = req.get_param_value("k");
    char* end = nullptr;
    long v = std::strtol(k.c_str(), &end, 10);
    if (k.empty() || *end || v < 1 || v > 1000) return Status::Invalid("k must be a whole number from 1 to 1000");
    r.search.k = static_cast<int>(v);
  }
  r.search.sources = SplitList(req.get_param_value("source"));
  r.search.kinds = SplitList(req.get_param_value("kind"));
  r.search.since = req.get_param_value("since");
  r.search.until = req.get_param_value("until");
  r.search.author = req.get_param_value("author");
  r.fts_only = Truthy(req.get_param_value("fts_only"));
  r.vec_only = Truthy(req.get_param_value("vec_only"));
  if (r.fts_only && r.vec_only) return Status::Invalid("fts_only and vec_only exclude each other");
  for (size_t i = 0; i < req.get_param_value_count("vec_text"); ++i) r.vec_texts.push_back(req.get_param_value("vec_text", i));
  if (req.has_param("vec_weight")) {
    char* end = nullptr;
    const std::string& w = req.get_param_value("vec_weight");
    r.vec_weight = std::strtod(w.c_str(), &end);
    if (w.empty() || *end || !(r.vec_weight >= 0 && r.vec_weight <= 10)) return Status::Invalid("vec_weight must be a number from 0 to 10");
  }
  return r;
}

int HttpStatusOf(const Status& s) {
  switch (s.code()) {
    case Code::kInvalidArgument: return 400;
    case Code::kNotFound: return 404;
    case Code::kUnavailable: return 503;
    default: return 500;
  }
}

void ServerImpl::ServeDir(const std::string& dir, const std::string& name_in, httplib::Response& res) {
  std::string name = name_in.empty() ? "index.html" : name_in;
  if (dir.empty()) return Detail(res, 404, "nothing is published here");
  if (!SafeName(name)) return Detail(res, 404, "no such page");
  std::filesystem::path path = std::filesystem::path(dir) / name;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec) || std::filesystem::is_symlink(path, ec)) {
    return Detail(res, 404, "no such page");
  }
  auto text = ReadWholeFile(path.string());
  if (!text.ok()) return Detail(res, 404, "no such page");
  if (MimeOf(name).rfind("text/html", 0) == 0) res.set_header("Content-Security-Policy", kCsp);
  res.set_content(*text, MimeOf(name));
}

Result<json> ServerImpl::SourceHealth(Corpus& corpus) {
  UMWELT_ASSIGN_OR_RETURN(auto states, corpus.SyncStates());
  json out = json::object();
  int64_t now = NowEpoch();
  for (const auto& s : states) {
    json h = {{"last_success", s.last_success}, {"last_error", s.last_error}, {"error_since", s.error_since}};
    if (auto t = ParseIsoTime(s.last_success)) h["age_seconds"] = now - *t;
    h["ok"] = s.last_error.empty();
    out[s.source] = h;
  }
  return out;
}

Result<std::string> ServerImpl::StatusJson() {
  UMWELT_ASSIGN_OR_RETURN(Corpus * corpus, engine_->Connection());
  UMWELT_ASSIGN_OR_RETURN(CorpusStats st, corpus->Stats());
  json counts = json::array();
  for (const auto& c : st.counts) counts.push_back({{"source", c.source}, {"kind", c.kind}, {"chunks", c.chunks}});
  UMWELT_ASSIGN_OR_RETURN(json health, SourceHealth(*corpus));
  json sched;
  {
    std::lock_guard<std::mutex> lock(sched_mu_);
    sched = {{"every_seconds", o_.sync_every_seconds}, {"runs", sched_.runs}, {"running", sched_.running},
             {"last_run", sched_.last_run ? FormatIsoTime(sched_.last_run) : ""},
             {"last_ok", sched_.last_ok ? FormatIsoTime(sched_.last_ok) : ""}, {"last_error", sched_.last_error},
             {"error_since", sched_.error_since ? FormatIsoTime(sched_.error_since) : ""}};
    if (sched_.error_since) sched["error_age_seconds"] = NowEpoch() - sched_.error_since;
  }
  json out = {{"corpus", {{"chunks", st.total_chunks}, {"threads", st.threads}, {"links", st.links},
                          {"built_at", st.built_at}, {"schema_version", st.schema_version}, {"counts", counts}}},
              {"sources", health}, {"scheduler", sched}, {"auth", auth_ != nullptr},
              {"jobs_running", jobs_running_.load()}};
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

// A consistent copy of the corpus for clients, rebuilt when the corpus changed.
Status ServerImpl::EnsureSnapshot() {
  std::lock_guard<std::mutex> lock(snapshot_mu_);
  UMWELT_ASSIGN_OR_RETURN(auto corpus, Corpus::Open(o_.corpus_path, Corpus::Mode::kReadOnly));
  UMWELT_ASSIGN_OR_RETURN(std::string key, corpus->ContentKey());
  UMWELT_ASSIGN_OR_RETURN(auto spaces, CorpusSpaces(*corpus));
  for (const auto& [space, model] : spaces) {
    UMWELT_ASSIGN_OR_RETURN(std::string v, corpus->VectorKey(space));
    key += "|" + space + ":" + v;
  }
  if (key == snapshot_key_ && std::filesystem::exists(snapshot_path_)) return Status::Ok();
  UMWELT_RETURN_IF_ERROR(corpus->Snapshot(snapshot_path_));
  UMWELT_ASSIGN_OR_RETURN(snapshot_sha_, Sha256File(snapshot_path_));
  std::error_code ec;
  snapshot_bytes_ = static_cast<int64_t>(std::filesystem::file_size(snapshot_path_, ec));
  snapshot_key_ = key;
  snapshot_at_ = NowEpoch();
  return Status::Ok();
}

std::shared_ptr<Job> ServerImpl::FindJob(const std::string& id) {
  std::lock_guard<std::mutex> lock(jobs_mu_);
  auto it = jobs_.find(id);
  return it == jobs_.end() ? nullptr : it->second;
}

void ServerImpl::RunJob(std::shared_ptr<Job> job) {
  auto push = [&](const std::string& stage, const std::string& detail) {
    std::lock_guard<std::mutex> lock(job->mu);
    job->events.push_back({{"stage", stage}, {"detail", detail}});
    job->cv.notify_all();
  };
  {
    std::lock_guard<std::mutex> lock(job->mu);
    job->state = "running";
  }
  push("start", "researching");
  AskOptions ao;
  ao.corpus_path = o_.corpus_path;
  ao.question = job->question;
  ao.llm = o_.llm;
  ao.progress = push;
  auto r = Ask(ao);
  std::string html, error;
  if (r.ok()) {
    auto corpus = Corpus::Open(o_.corpus_path, Corpus::Mode::kReadOnly);
    PublishOptions po;
    po.question = job->question;
    po.system = r->extractive ? "umwelt ask (extractive)" : "umwelt ask with " + o_.llm->model();
    auto page = corpus.ok() ? Publish(r->markdown, po, corpus->get()) : Result<PublishResult>(corpus.status());
    if (page.ok() && !page->has_errors()) html = page->html;
    else error = "the report failed the citation check";
  } else {
    error = r.status().message();
  }
  {
    std::lock_guard<std::mutex> lock(job->mu);
    job->state = error.empty() ? "done" : "failed";
    job->error = error;
    if (r.ok()) {
      job->markdown = r->markdown;
      job->removed = r->removed;
      job->seconds = r->seconds;
    }
    job->html = html;
    job->cv.notify_all();
  }
  --jobs_running_;
  job->finished = true;
}

// One scheduler round: sync, reload, and the digest of a week that closed.
Status ServerImpl::Round() {
  {
    std::lock_guard<std::mutex> lock(sched_mu_);
    sched_.running = true;
    sched_.last_run = NowEpoch();
  }
  Status s = Status::Ok();
  if (o_.sync) s = o_.sync();
  Status reload = engine_->Refresh();
  if (s.ok()) s = reload;
  if (s.ok()) {
    // The last complete week's digest, once.
    Period week = LastCompleteWeek(NowEpoch());
    auto corpus = Corpus::Open(o_.corpus_path, Corpus::Mode::kReadWrite);
    if (!corpus.ok()) {
      s = corpus.status();
    } else if ((*corpus)->native()) {
      auto have = (*corpus)->GetThread("narrative:" + week.id());
      if (have.ok() && !*have) {
        DigestOptions d;
        d.corpus_path = o_.corpus_path;
        d.period = week;
        d.llm = o_.llm;
        auto digest = BuildDigest(d);
        if (!digest.ok()) {
          s = digest.status().WithContext("weekly digest");
        } else {
          std::string page_url = "/summaries/summary-" + week.id() + ".html";
          if (!o_.summaries_dir.empty()) {
            auto site = WriteDigestSite(*digest, {o_.summaries_dir, "", 0}, corpus->get());
            if (!site.ok()) s = site.status().WithContext("weekly digest");
          }
          if (s.ok()) s = StoreDigest(**corpus, *digest, page_url);
          if (s.ok()) s = engine_->Refresh();
        }
      }
    }
  }
  std::lock_guard<std::mutex> lock(sched_mu_);
  sched_.running = false;
  ++sched_.runs;
  if (s.ok()) {
    sched_.last_ok = NowEpoch();
    sched_.last_error.clear();
    sched_.error_since = 0;
  } else {
    sched_.last_error = s.message();
    if (!sched_.error_since) sched_.error_since = NowEpoch();
  }
  return s;
}

void ServerImpl::SchedulerLoop() {
  // Syncs and index rebuilds yield the cores to the readers.
  setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 10);
  std::unique_lock<std::mutex> lock(sched_mu_);
  while (!stopping_) {
    if (sched_cv_.wait_for(lock, std::chrono::seconds(o_.sync_every_seconds), [&] { return stopping_.load(); })) break;
    lock.unlock();
    auto t0 = Clock::now();
    Status s = Round();
    double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    if (o_.log) {
      char took[32];
      std::snprintf(took, sizeof took, "%.2f s", seconds);
      o_.log("scheduler: " + (s.ok() ? std::string("round ok") : s.message()) + " in " + took);
    }
    lock.lock();
  }
}

void ServerImpl::StopBackground() {
  stopping_ = true;
  sched_cv_.notify_all();
  if (scheduler_.joinable()) scheduler_.join();
  std::vector<std::shared_ptr<Job>> jobs;
  {
    std::lock_guard<std::mutex> lock(jobs_mu_);
    for (auto& [id, job] : jobs_) {
      job->cv.notify_all();
      jobs.push_back(job);
    }
  }
  for (auto& job : jobs) {
    if (job->worker.joinable()) job->worker.join();
  }
}

Status ServerImpl::Init() {
  if (!o_.auth_file.empty()) {
    UMWELT_ASSIGN_OR_RETURN(auth_, si::Auth::Load(o_.auth_file));
  } else if (!Loopback(o_.bind) && !o_.open_network) {
    return Status::Invalid("serving " + o_.bind + " without --auth would open the corpus to the network; "
                           "pass --auth FILE (or --open-network to mean it)");
  }
  UMWELT_ASSIGN_OR_RETURN(auto configs, ParseSpaceConfigs(o_.embedders));
  int cores = static_cast<int>(std::thread::hardware_concurrency());
  engine_ = std::make_unique<si::Engine>(o_.corpus_path, configs,
                                         o_.search_concurrency > 0 ? o_.search_concurrency : std::max(4, 2 * cores));
  {
    UMWELT_ASSIGN_OR_RETURN(auto probe, Corpus::Open(o_.corpus_path, Corpus::Mode::kReadOnly));
  }
  UMWELT_RETURN_IF_ERROR(engine_->Refresh());
  std::string dir = o_.snapshot_dir.empty() ? std::filesystem::path(o_.corpus_path).parent_path().string() : o_.snapshot_dir;
  if (dir.empty()) dir = ".";
  snapshot_path_ = dir + "/" + std::filesystem::path(o_.corpus_path).filename().string() + ".snapshot";
  http_.new_task_queue = [n = o_.threads] { return new httplib::ThreadPool(static_cast<size_t>(std::max(4, n))); };
  http_.set_payload_max_length(o_.max_body_bytes);
  http_.set_read_timeout(o_.read_timeout_seconds, 0);
  http_.set_write_timeout(30, 0);
  http_.set_keep_alive_max_count(100000);
  http_.set_keep_alive_timeout(30);  // idle clients keep their connection (a proxy pools them)
  Routes();
  port_ = o_.port == 0 ? http_.bind_to_any_port(o_.bind) : (http_.bind_to_port(o_.bind, o_.port) ? o_.port : -1);
  if (port_ <= 0) return Status::Unavailable("cannot listen on " + o_.bind + ":" + std::to_string(o_.port));
  if (o_.sync_every_seconds > 0) scheduler_ = std::thread([this] { SchedulerLoop(); });
  return Status::Ok();
}

Status ServerImpl::Run() {
  if (!http_.listen_after_bind()) {
    if (stopping_) return Status::Ok();
    return Status::Unavailable("the server stopped listening on " + o_.bind + ":" + std::to_string(port_));
  }
  return Status::Ok();
}

void ServerImpl::Stop() {
  stopping_ = true;
  sched_cv_.notify_all();
  {
    std::lock_guard<std::mutex> lock(jobs_mu_);
    for (auto& [id, job] : jobs_) job->cv.notify_all();
  }
  http_.stop();
}

void ServerImpl::Routes() {
  http_.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (!ValidParams(req, res)) return httplib::Server::HandlerResponse::Handled;
    return Gate(req, res) ? httplib::Server::HandlerResponse::Unhandled : httplib::Server::HandlerResponse::Handled;
  });
  http_.set_error_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    std::string why = res.status == 404 ? "no such route: " + req.method + " " + req.path.substr(0, 200)
                      : res.status == 413 ? "the request body is larger than " + std::to_string(o_.max_body_bytes) + " bytes"
                      : res.status == 405 ? "method not allowed"
                                          : "HTTP " + std::to_string(res.status);
    int status = res.status;
    Detail(res, status, why);
  });
  http_.set_exception_handler([this](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    Detail(res, 500, "internal error");
  });
  if (o_.log) {
    http_.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
      // The path only: query strings may carry what users searched for, and
      // headers carry tokens.
      o_.log(req.method + " " + req.path.substr(0, 200) + " " + std::to_string(res.status));
    });
  }

  http_.Get("/healthz", [](const httplib::Request&, httplib::Response& res) { res.set_content("ok\n", "text/plain"); });

  // --- API ---
  http_.Get("/api/status", [this](const httplib::Request&, httplib::Response& res) {
    auto s = StatusJson();
    if (!s.ok()) return Detail(res, 500, s.status().message());
    SetJson(res, *s);
  });
  http_.Get("/api/search", [this](const httplib::Request& req, httplib::Response& res) {
    auto r = ParseSearch(req);
    if (!r.ok()) return Detail(res, 400, r.status().message());
    bool hybrid = false;
    auto out = engine_->Search(*r, &hybrid);
    if (!out.ok()) return Detail(res, HttpStatusOf(out.status()), out.status().message());
    SetJson(res, SearchJson(r->search.query, r->search.k, hybrid, *out));
  });
  http_.Get("/api/search-multi", [this](const httplib::Request& req, httplib::Response& res) {
    size_t n = req.get_param_value_count("q");
    if (n == 0 || n > 20) return Detail(res, 400, "give 1 to 20 q parameters");
    int total = 60;
    if (req.has_param("total")) {
      total = std::atoi(req.get_param_value("total").c_str());
      if (total < 1 || total > 1000) return Detail(res, 400, "total must be a whole number from 1 to 1000");
    }
    auto base = ParseSearch(req);  // filters; q is the first sub-query
    if (!base.ok()) return Detail(res, 400, base.status().message());
    std::vector<std::string> queries;
    std::vector<HybridResult> results;
    for (size_t i = 0; i < n; ++i) {
      si::SearchRequest r = *base;
      r.search.query = CollapseWhitespace(req.get_param_value("q", i));
      if (r.search.query.empty()) return Detail(res, 400, "an empty q");
      bool hybrid = false;
      auto out = engine_->Search(r, &hybrid);
      if (!out.ok()) return Detail(res, HttpStatusOf(out.status()), "sub-query \"" + r.search.query + "\": " + out.status().message());
      queries.push_back(r.search.query);
      results.push_back(std::move(*out));
    }
    std::vector<std::string> notes;
    auto merged = MergeMulti(queries, results, static_cast<size_t>(total), &notes);
    SetJson(res, SearchMultiJson(queries, total, merged, notes));
  });
  auto show = [this](const std::string& target, const httplib::Request& req, httplib::Response& res) {
    if (target.empty()) return Detail(res, 400, "target is required: a permalink or a ref");
    auto corpus = engine_->Connection();
    if (!corpus.ok()) return Detail(res, 500, corpus.status().message());
    int around = req.has_param("around") ? std::atoi(req.get_param_value("around").c_str()) : 10;
    auto v = ViewThread(**corpus, target, std::clamp(around, 0, 200));
    if (!v.ok()) return Detail(res, HttpStatusOf(v.status()), v.status().message());
    size_t first = 0;
    int tail = req.has_param("tail") ? std::atoi(req.get_param_value("tail").c_str()) : 0;
    if (tail > 0 && static_cast<size_t>(tail) < v->chunks.size()) first = v->chunks.size() - tail;
    SetJson(res, ThreadViewJson(*v, first, Truthy(req.get_param_value("toc"))));
  };
  http_.Get("/api/show", [show](const httplib::Request& req, httplib::Response& res) {
    show(req.get_param_value("target"), req, res);
  });
  http_.Get(R"(/api/threads/(.+))", [this](const httplib::Request& req, httplib::Response& res) {
    auto corpus = engine_->Connection();
    if (!corpus.ok()) return Detail(res, 500, corpus.status().message());
    std::string ref = req.matches[1];
    auto t = (*corpus)->GetThread(ref);
    if (!t.ok()) return Detail(res, 500, t.status().message());
    if (!*t) return Detail(res, 404, "no thread " + ref + " in the corpus");
    const Thread& th = **t;
    auto linked = (*corpus)->LinkedFrom(ref, 20);
    json out = {{"ref", th.ref},     {"source", th.source},       {"kind", th.kind},   {"state", th.state},
                {"title", th.title}, {"author", th.author},       {"url", th.url},     {"labels", th.labels},
                {"assignees", th.assignees}, {"created", th.created}, {"closed", th.closed}, {"merged", th.merged},
                {"description", th.description}, {"parent", th.parent}, {"children", th.children}};
    out["linked_from"] = json::array();
    if (linked.ok()) {
      for (const auto& l : *linked) out["linked_from"].push_back({{"url", l.url}, {"title", l.title}, {"source", l.source}});
    }
    SetJson(res, out.dump(-1, ' ', false, json::error_handler_t::replace));
  });
  http_.Get("/api/summaries", [this](const httplib::Request&, httplib::Response& res) {
    auto corpus = engine_->Connection();
    if (!corpus.ok()) return Detail(res, 500, corpus.status().message());
    auto all = ListSummaries(**corpus);
    if (!all.ok()) return Detail(res, 500, all.status().message());
    json out = json::array();
    for (const auto& s : *all) out.push_back({{"period", s.period}, {"title", s.title}, {"xs", s.xs}, {"url", s.url}});
    SetJson(res, out.dump(-1, ' ', false, json::error_handler_t::replace));
  });
  http_.Get(R"(/api/summaries/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
    auto corpus = engine_->Connection();
    if (!corpus.ok()) return Detail(res, 500, corpus.status().message());
    std::string period = req.matches[1];
    auto text = SummaryText(**corpus, period);
    if (!text.ok()) return Detail(res, HttpStatusOf(text.status()), text.status().message());
    auto links = SummaryLinks(**corpus, period);
    json out = {{"period", period}, {"text", *text}, {"links", links.ok() ? *links : std::vector<std::string>{}}};
    SetJson(res, out.dump(-1, ' ', false, json::error_handler_t::replace));
  });
  http_.Post("/api/ask", [this](const httplib::Request& req, httplib::Response& res) {
    std::string question;
    json body = json::parse(req.body, nullptr, false);
    if (body.is_object() && body.contains("question") && body["question"].is_string()) {
      question = body["question"].get<std::string>();
    } else if (req.has_param("question")) {
      question = req.get_param_value("question");
    }
    question = CollapseWhitespace(question);
    if (question.empty()) return Detail(res, 400, "question is required (JSON {\"question\": \"...\"})");
    if (!IsValidUtf8(question)) return Detail(res, 400, "the question is not valid UTF-8");
    if (question.size() > 4000) return Detail(res, 400, "the question is longer than 4,000 bytes");
    if (stopping_) return Detail(res, 503, "the server is shutting down");
    if (jobs_running_.load() >= o_.max_jobs) {
      res.set_header("Retry-After", "10");
      return Detail(res, 429, "too many questions in progress; try again shortly");
    }
    auto job = std::make_shared<Job>();
    job->id = Random128();
    job->question = question;
    ++jobs_running_;
    {
      std::lock_guard<std::mutex> lock(jobs_mu_);
      // Finished jobs beyond the newest 200 are forgotten.
      while (job_order_.size() >= 200) {
        auto old = jobs_.find(job_order_.front());
        if (old != jobs_.end() && !old->second->finished) break;
        if (old != jobs_.end()) {
          if (old->second->worker.joinable()) old->second->worker.join();
          jobs_.erase(old);
        }
        job_order_.pop_front();
      }
      jobs_[job->id] = job;
      job_order_.push_back(job->id);
      job->worker = std::thread([this, job] { RunJob(job); });
    }
    res.status = 202;
    res.set_header("Location", "/api/jobs/" + job->id);
    res.set_content(json{{"id", job->id}, {"state", "queued"}, {"events", "/api/jobs/" + job->id + "/events"}}.dump(),
                    "application/json");
  });
  http_.Get(R"(/api/jobs/([0-9a-f]{32}))", [this](const httplib::Request& req, httplib::Response& res) {
    auto job = FindJob(req.matches[1]);
    if (!job) return Detail(res, 404, "no such job");
    std::lock_guard<std::mutex> lock(job->mu);
    json out = {{"id", job->id},       {"question", job->question}, {"state", job->state},
                {"events", job->events}, {"error", job->error},     {"removed", job->removed},
                {"seconds", job->seconds}};
    if (job->state == "done") {
      out["markdown"] = job->markdown;
      out["report_url"] = "/jobs/" + job->id + "/report";
    }
    SetJson(res, out.dump(-1, ' ', false, json::error_handler_t::replace));
  });
  http_.Get(R"(/api/jobs/([0-9a-f]{32})/events)", [this](const httplib::Request& req, httplib::Response& res) {
    auto job = FindJob(req.matches[1]);
    if (!job) return Detail(res, 404, "no such job");
    res.set_header("Cache-Control", "no-store");
    res.set_chunked_content_provider("text/event-stream", [this, job, sent = size_t{0}](size_t, httplib::DataSink& sink) mutable {
      std::unique_lock<std::mutex> lock(job->mu);
      job->cv.wait_for(lock, std::chrono::seconds(15), [&] {
        return sent < job->events.size() || job->state == "done" || job->state == "failed" || stopping_.load();
      });
      std::string out;
      for (; sent < job->events.size(); ++sent) out += "event: progress\ndata: " + job->events[sent].dump() + "\n\n";
      bool finished = job->state == "done" || job->state == "failed";
      if (finished) {
        out += "event: done\ndata: " + json{{"state", job->state}, {"error", job->error}}.dump() + "\n\n";
      }
      if (out.empty()) out = ": keep-alive\n\n";
      lock.unlock();
      if (!sink.write(out.data(), out.size())) return false;
      if (finished || stopping_) sink.done();
      return true;
    });
  });

  // --- snapshot distribution ---
  http_.Get("/manifest.json", [this](const httplib::Request&, httplib::Response& res) {
    Status s = EnsureSnapshot();
    if (!s.ok()) return Detail(res, 500, s.message());
    auto corpus = Corpus::Open(o_.corpus_path, Corpus::Mode::kReadOnly);
    if (!corpus.ok()) return Detail(res, 500, corpus.status().message());
    auto health = SourceHealth(**corpus);
    auto spaces = CorpusSpaces(**corpus);
    auto built = (*corpus)->GetMeta("built_at_epoch");
    std::lock_guard<std::mutex> lock(snapshot_mu_);
    json out = {{"built_at_epoch", built.ok() && !built->empty() ? std::atoll(built->c_str()) : snapshot_at_},
                {"snapshot_at_epoch", snapshot_at_},
                {"corpus_index", {{"sha256", snapshot_sha_}, {"bytes", snapshot_bytes_}, {"url", "/corpus-index.db"}}},
                {"sources", health.ok() ? *health : json::object()},
                {"embed_spaces", spaces.ok() ? json(*spaces) : json::object()}};
    {
      std::lock_guard<std::mutex> s2(sched_mu_);
      out["scheduler"] = {{"last_ok", sched_.last_ok ? FormatIsoTime(sched_.last_ok) : ""}, {"last_error", sched_.last_error},
                          {"error_since", sched_.error_since ? FormatIsoTime(sched_.error_since) : ""}};
    }
    SetJson(res, out.dump(1, ' ', false, json::error_handler_t::replace));
  });
  http_.Get("/corpus-index.db", [this](const httplib::Request&, httplib::Response& res) {
    Status s = EnsureSnapshot();
    if (!s.ok()) return Detail(res, 500, s.message());
    std::string sha;
    std::shared_ptr<FILE> file;
    int64_t size = 0;
    {
      std::lock_guard<std::mutex> lock(snapshot_mu_);
      // An open file keeps its bytes even when a newer snapshot replaces the name.
      file.reset(std::fopen(snapshot_path_.c_str(), "rb"), [](FILE* f) { if (f) std::fclose(f); });
      sha = snapshot_sha_;
      size = snapshot_bytes_;
    }
    if (!file) return Detail(res, 500, "the snapshot cannot be read");
    res.set_header("ETag", "\"" + sha + "\"");
    res.set_header("X-Umwelt-Sha256", sha);
    res.set_content_provider(static_cast<size_t>(size), "application/octet-stream",
                             [file](size_t offset, size_t length, httplib::DataSink& sink) {
                               std::vector<char> buf(std::min<size_t>(length, 1 << 20));
                               if (std::fseek(file.get(), static_cast<long>(offset), SEEK_SET) != 0) return false;
                               size_t got = std::fread(buf.data(), 1, buf.size(), file.get());
                               return got > 0 && sink.write(buf.data(), got);
                             });
  });

  // --- web UI ---
  http_.Get("/", [this](const httplib::Request& req, httplib::Response& res) {
    si::SearchForm f;
    f.q = req.get_param_value("q");
    f.source = req.get_param_value("source");
    f.kind = req.get_param_value("kind");
    f.since = req.get_param_value("since");
    f.until = req.get_param_value("until");
    f.fts_only = Truthy(req.get_param_value("fts_only"));
    if (CollapseWhitespace(f.q).empty()) return Html(res, 200, "Search", si::SearchBody(f, nullptr, false, "", nullptr), req);
    auto r = ParseSearch(req);
    if (!r.ok()) return Html(res, 400, "Search", si::SearchBody(f, nullptr, false, r.status().message(), nullptr), req);
    bool hybrid = false;
    auto out = engine_->Search(*r, &hybrid);
    auto corpus = engine_->Connection();
    if (!out.ok()) {
      return Html(res, HttpStatusOf(out.status()), "Search", si::SearchBody(f, nullptr, false, out.status().message(), nullptr), req);
    }
    Html(res, 200, f.q, si::SearchBody(f, &*out, hybrid, "", corpus.ok() ? *corpus : nullptr), req);
  });
  http_.Get("/thread", [this](const httplib::Request& req, httplib::Response& res) {
    std::string ref = req.get_param_value("ref");
    if (ref.empty()) ref = req.get_param_value("url");
    auto corpus = engine_->Connection();
    if (!corpus.ok()) return Html(res, 500, "Error", si::ErrorBody(500, corpus.status().message()), req);
    auto v = ViewThread(**corpus, ref, 10);
    if (!v.ok()) return Html(res, HttpStatusOf(v.status()), "Not found", si::ErrorBody(HttpStatusOf(v.status()), v.status().message()), req);
    std::string title = v->thread && !v->thread->title.empty() ? v->thread->title : v->thread_ref;
    Html(res, 200, title, si::ThreadBody(*v, *corpus), req);
  });
  http_.Get("/ask", [this](const httplib::Request& req, httplib::Response& res) {
    Html(res, 200, "Ask", si::AskBody(), req, kAskJs);
  });
  http_.Get(R"(/jobs/([0-9a-f]{32}))", [this](const httplib::Request& req, httplib::Response& res) {
    auto job = FindJob(req.matches[1]);
    if (!job) return Html(res, 404, "Not found", si::ErrorBody(404, "no such job"), req);
    Html(res, 200, "Ask", si::JobBody(job->id), req, kAskJs);
  });
  http_.Get(R"(/jobs/([0-9a-f]{32})/report)", [this](const httplib::Request& req, httplib::Response& res) {
    auto job = FindJob(req.matches[1]);
    if (!job) return Html(res, 404, "Not found", si::ErrorBody(404, "no such job"), req);
    std::lock_guard<std::mutex> lock(job->mu);
    if (job->state != "done") return Html(res, 409, "Not ready", si::ErrorBody(409, "the report is " + job->state), req);
    res.set_header("Content-Security-Policy", kCsp);
    res.set_content(job->html, "text/html; charset=utf-8");
  });
  http_.Get("/login", [this](const httplib::Request& req, httplib::Response& res) {
    Html(res, 200, "Sign in", si::LoginBody("", req.get_param_value("next")), req);
  });
  http_.Post("/login", [this](const httplib::Request& req, httplib::Response& res) {
    if (!auth_) {
      res.status = 303;
      res.set_header("Location", "/");
      return;
    }
    std::string token = req.get_param_value("token");
    std::string next = req.get_param_value("next");
    if (next.empty() || next[0] != '/' || next.rfind("//", 0) == 0 || next.find('\\') != std::string::npos) next = "/";
    si::AuthVerdict v = token.empty() ? si::AuthVerdict{401, "", "no token given"} : auth_->CheckToken(token);
    if (v.status != 200) return Html(res, v.status, "Sign in", si::LoginBody(v.detail, next), req);
    std::string id = Random128();
    {
      std::lock_guard<std::mutex> lock(sessions_mu_);
      sessions_[id] = {v.login, NowEpoch() + 12 * 3600};
    }
    bool https = req.get_header_value("X-Forwarded-Proto") == "https";
    res.set_header("Set-Cookie", "umwelt_session=" + id + "; Path=/; HttpOnly; SameSite=Strict; Max-Age=43200" +
                                     std::string(https ? "; Secure" : ""));
    res.status = 303;
    res.set_header("Location", next);
  });
  http_.Get("/logout", [this](const httplib::Request& req, httplib::Response& res) {
    std::string cookie = req.get_header_value("Cookie");
    static const std::regex session(R"((?:^|;\s*)umwelt_session=([0-9a-f]{32}))");
    std::smatch m;
    if (std::regex_search(cookie, m, session)) {
      std::lock_guard<std::mutex> lock(sessions_mu_);
      sessions_.erase(m[1].str());
    }
    res.set_header("Set-Cookie", "umwelt_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0");
    res.status = 303;
    res.set_header("Location", "/");
  });
  http_.Get("/summaries", [](const httplib::Request&, httplib::Response& res) {
    res.status = 301;
    res.set_header("Location", "/summaries/");
  });
  http_.Get(R"(/summaries/([^/]*))", [this](const httplib::Request& req, httplib::Response& res) {
    ServeDir(o_.summaries_dir, req.matches[1], res);
  });
  http_.Get(R"(/reports/([^/]*))", [this](const httplib::Request& req, httplib::Response& res) {
    ServeDir(o_.reports_dir, req.matches[1], res);
  });
}

}  // namespace

Result<std::unique_ptr<Server>> Server::Start(const ServeOptions& options) {
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
