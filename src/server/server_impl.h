// Internal to server/: the server's state and what its files share.
#pragma once

#include "http_server.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "auth.h"
#include "engine.h"
#include "umwelt/thread_annotations.h"
#include "umwelt/mcp.h"
#include "umwelt/server.h"

namespace umwelt::server_internal {

using json = nlohmann::json;
namespace si = server_internal;

const std::string& Csp();           // the Content-Security-Policy of HTML pages
extern const char* const kAskJs;    // the ask page's script

// JSON with <, > and & written as \u escapes.
void SetJson(Response& res, const std::string& body);
std::string Random128();
// The sign-in session named by the request's cookie, or "".
std::string SessionId(const Request& req);
bool SafeName(const std::string& name);
std::string MimeOf(const std::string& name);
bool Truthy(const std::string& v);
// Where to go after signing in: a same-origin absolute path of printable
// ASCII (no scheme, no `//` or `\\`, no control characters), else "/".
std::string SafeNext(const std::string& next);
// A request path for the access log: percent-encoded outside printable
// ASCII and '%', secrets redacted, at most 200 bytes.
std::string LoggedPath(std::string_view path);
// Whether a Host header names this machine (localhost, 127.0.0.0/8, [::1]),
// read exactly (SplitHostPort).
bool LoopbackHost(const std::string& host);
// The HTTP status of a failure (umwelt/status.h's one map).
int HttpStatusOf(const Status& s);
// A request's query values by each parameter's HTTP name, for
// ParamTable::FromTexts. The request must outlive it.
using ParamLookup = std::function<std::vector<std::string>(const ParamSpec&)>;
ParamLookup QueryTexts(const Request& req);
// The snapshot's Range: the one range to send (the whole file for none, a
// list or a malformed one); false when it answered 416 itself.
bool SingleRange(const Request& req, int64_t size, Response& res, int64_t* offset, int64_t* length);

// --- ask jobs ----------------------------------------------------------------

struct Job {
  std::string id, question, owner;  // set before the job is shared; owner: the login that asked
  std::atomic<bool> finished{false};
  Mutex mu;
  std::condition_variable cv;  // an event, or the end
  std::string state GUARDED_BY(mu) = "queued";
  std::string error GUARDED_BY(mu), markdown GUARDED_BY(mu), html GUARDED_BY(mu);
  std::vector<json> events GUARDED_BY(mu);
  std::vector<std::string> removed GUARDED_BY(mu);
  double seconds GUARDED_BY(mu) = 0;
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
  void ApiRoutes();       // routes_api.cc
  void SearchApiRoutes();
  void ThreadApiRoutes();
  void SummaryApiRoutes();
  void RunApiRoutes();
  void AskApiRoutes();
  void SnapshotRoutes();  // routes_api.cc
  void UiRoutes();        // routes_ui.cc
  void McpRoutes();       // routes_mcp.cc
  bool Gate(Request& req, Response& res);
  bool SameOrigin(const Request& req, Response& res);
  std::string Identify(const Request& req, si::AuthVerdict* v);
  // {"detail": ...} with `status`: for what the HTTP layer itself refuses
  // (421, 401, 405); a route's failure goes through Fail.
  void Detail(Response& res, int status, const std::string& detail);
  // A failed call's answer: the status its code maps to, its message.
  void Fail(Response& res, const Status& s);
  // `text` without the folders of the files this server serves from.
  std::string HideServedPaths(std::string text) const;
  void Html(Response& res, int status, const std::string& title, const std::string& body,
            const Request& req, const std::string& script = "");
  bool ValidParams(const Request& req, Response& res);
  Result<SearchRequest> ParseSearch(const Request& req);
  void ServeDir(const std::string& dir, const std::string& name, Response& res);
  Result<std::string> StatusJson();
  Result<json> SourceHealth(Corpus& corpus);
  Status EnsureSnapshot();
  // The job `id` if `login` asked it (another login's job is not found).
  std::shared_ptr<Job> FindJob(const std::string& id, const std::string& login);
  void RunJob(std::shared_ptr<Job> job);
  void JobWorker();
  void Enqueue(std::shared_ptr<Job> job);
  Status Round();
  Status DigestClosedWeek();
  void SchedulerLoop();
  void StopBackground();

  ServeOptions o_;
  std::string public_host_, public_origin_;  // from --public-url, lower case
  HttpServer http_;
  int port_ = 0;
  std::unique_ptr<si::Auth> auth_;
  std::unique_ptr<si::Engine> engine_;
  std::atomic<bool> stopping_{false};

  Mutex sessions_mu_;
  // A sign-in session lives no longer than the token it came from: every
  // request re-checks the token (in memory only, never logged or written)
  // against the current auth file and verdict cache.
  struct Session {
    std::string login, token;
    int64_t expires;
    uint64_t seq;  // the order of sign-in
  };
  uint64_t next_session_seq_ GUARDED_BY(sessions_mu_) = 0;
  std::map<std::string, Session> sessions_ GUARDED_BY(sessions_mu_);
  static constexpr size_t kMaxSignIns = 10000, kMaxSignInsPerLogin = 64;
  // Drops the oldest sign-in sessions of `login` (of everyone for "") until
  // at most `keep` are left.
  void DropOldestSessions(const std::string& login, size_t keep) REQUIRES(sessions_mu_);

  // MCP over HTTP: one protocol session per Mcp-Session-Id, the oldest
  // dropped past a bound (its client re-initializes on the 404).
  Mutex mcp_mu_;
  struct McpEntry {
    std::shared_ptr<mcp::Session> session;
    std::string owner;  // the login that initialized it; no one else may use it
  };
  std::map<std::string, McpEntry> mcp_sessions_ GUARDED_BY(mcp_mu_);
  std::deque<std::string> mcp_order_ GUARDED_BY(mcp_mu_);  // oldest first

  Mutex jobs_mu_;
  std::map<std::string, std::shared_ptr<Job>> jobs_ GUARDED_BY(jobs_mu_);
  std::deque<std::string> job_order_ GUARDED_BY(jobs_mu_);  // ids, oldest first
  // Reserved with fetch_add before a job starts (so two requests cannot both
  // take the last slot) and given back when it ends.
  std::atomic<int> jobs_running_{0};
  // Ask jobs run on max_jobs long-lived workers fed by one queue; admission
  // above bounds the queue to max_jobs, so no request makes a thread.
  Mutex queue_mu_;
  std::condition_variable queue_cv_;
  std::deque<std::shared_ptr<Job>> job_queue_ GUARDED_BY(queue_mu_);
  std::vector<std::thread> job_workers_;

  Mutex snapshot_mu_;
  std::string snapshot_path_ GUARDED_BY(snapshot_mu_), snapshot_key_ GUARDED_BY(snapshot_mu_),
      snapshot_sha_ GUARDED_BY(snapshot_mu_);
  int64_t snapshot_bytes_ GUARDED_BY(snapshot_mu_) = 0, snapshot_at_ GUARDED_BY(snapshot_mu_) = 0;
  // The spaces it carries; those left out, and why.
  nlohmann::json snapshot_spaces_ GUARDED_BY(snapshot_mu_), snapshot_left_out_ GUARDED_BY(snapshot_mu_);

  Mutex sched_mu_;
  std::condition_variable sched_cv_;
  std::thread scheduler_;
  struct SchedulerState {
    int64_t last_run = 0, last_ok = 0, error_since = 0;
    std::string last_error;
    int runs = 0;
    bool running = false;
  } sched_ GUARDED_BY(sched_mu_);
};


}  // namespace umwelt::server_internal
