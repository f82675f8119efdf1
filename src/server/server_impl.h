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
#include "hooks.h"
#include "jobs.h"
#include "scheduler.h"
#include "snapshot.h"
#include "ui.h"
#include "sessions.h"
#include "umwelt/thread_annotations.h"
#include "umwelt/mcp.h"
#include "umwelt/server.h"

namespace umwelt::server_internal {

using json = nlohmann::json;
namespace si = server_internal;

const std::string& Csp();           // the Content-Security-Policy of HTML pages
extern const char* const kAskJs;    // the ask page's script

// JSON with <, > and & written as \u escapes.
void SetJson(Response& res, std::string body);
std::string Random128();
// The sign-in session named by the request's cookie, or "".
std::string SessionId(const Request& req);
bool SafeName(const std::string& name);
std::string MimeOf(const std::string& name);
bool Truthy(const std::string& v);
// The request's `page` (1 to `max`); `fallback` when absent or not a number.
int PageParam(const Request& req, int max, int fallback = 1);
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

// --- the server ----------------------------------------------------------------

class ServerImpl final : public Server {
 public:
  explicit ServerImpl(const ServeOptions& o)
      : o_(o),
        mcp_sessions_(kMaxMcpSessions, o.auth_file.empty() ? kMaxMcpSessions : kMaxMcpSessions / 4),
        jobs_(o.max_jobs, [this](Job& job) { RunJob(job); }),
        scheduler_(o.sync_every_seconds, [this] { return Round(); }, o.log) {}
  static constexpr size_t kMaxMcpSessions = 1000;
  // The least time between the end of a sync round and one a webhook's
  // follow-up brings forward.
  static constexpr int kFollowUpGapSeconds = 60;
  // The least time from the start of one batch of deliveries to the next:
  // a burst is applied in fewer, larger batches, each one index update and
  // one reload of the searcher, so readers are not disturbed at every
  // delivery. A delivery after a quiet spell is applied at once.
  static constexpr int kHookBatchGapMs = 1000;
  ~ServerImpl() override {
    Stop();
    StopBackground();
  }

  Status Init();
  int port() const override { return port_; }
  Status Run() override;
  void Stop() override;
  Status SyncNow() override { return scheduler_.RunNow(); }

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
  void SignInRoutes();    // routes_ui.cc, from UiRoutes
  void SiteRoutes();      // routes_ui.cc, from UiRoutes
  void McpRoutes();       // routes_mcp.cc
  void HookRoutes();      // hooks.cc: POST /hooks/github
  // The webhook writer: applies the spool's due deliveries in the order
  // they came, then makes them searchable (IndexWrites).
  void HookLoop();
  // Wakes HookLoop now: a delivery was kept, or the server stops.
  void WakeHookLoop() EXCLUDES(hooks_mu_);
  // Sets *applied when there were deliveries to apply.
  Status ApplyDueHooks(bool* applied) EXCLUDES(write_mu_);
  // After a write: the keyword index and the vector spaces take the new
  // chunks, and searches see them.
  Status IndexWrites(Corpus& corpus);
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
  // `nav`: put this server's navigation at the top of an HTML page.
  void ServeDir(const std::string& dir, const std::string& name, Response& res, const si::Chrome* nav = nullptr);
  // What the navigation offers `req`'s reader, and what page bodies render with.
  si::Chrome Chrome(const Request& req);
  si::View View(Corpus* corpus) const;
  Result<std::string> StatusJson();
  // Researches a job's question and publishes its report (on a job worker).
  void RunJob(Job& job);
  // One scheduler round: sync, reload, and the digest of a week that closed.
  Status Round();
  Status DigestClosedWeek();
  void StopBackground();

  ServeOptions o_;
  std::string public_host_, public_origin_;  // from --public-url, lower case
  HttpServer http_;
  int port_ = 0;
  std::unique_ptr<si::Auth> auth_;
  std::unique_ptr<si::Engine> engine_;
  std::atomic<bool> stopping_{false};

  // Sign-in sessions (12 hours; 64 a login, 10,000 in all), and MCP
  // sessions (1,000; with auth a login holds at most a quarter).
  SignIns sign_ins_{10000, 64, 12 * 3600};
  McpSessions mcp_sessions_;

  // Ask jobs: /api/ask's queue and workers, and the slots MCP's ask shares.
  JobQueue jobs_;

  // The snapshot clients download (made in Init, beside the corpus or in
  // --snapshot-dir).
  std::unique_ptr<SnapshotCache> snapshot_;
  // Sync rounds every --sync-every seconds.
  Scheduler scheduler_;
  // The one writer: a scheduler round, or the webhook writer.
  Mutex write_mu_;
  // Webhook deliveries (with --github-webhook-secret-file): their spool,
  // and the writer thread, woken when one arrives.
  std::unique_ptr<HookSpool> hooks_;
  Mutex hooks_mu_;
  std::condition_variable hooks_cv_;
  bool hooks_wake_ GUARDED_BY(hooks_mu_) = false;
  std::thread hooks_thread_;
  // hooks.cc: keeps the Discord gateway connection (--discord-follow) and
  // spools its events for HookLoop.
  void DiscordLoop();
  // The incremental REST sync of the followed guild, as a spooled delivery
  // of this event name.
  static constexpr const char* kDiscordCatchUp = "CATCH_UP";
  Status DiscordCatchUp(Corpus& corpus, const std::string& guild, int64_t* changed);
  std::thread discord_thread_;
};


}  // namespace umwelt::server_internal
