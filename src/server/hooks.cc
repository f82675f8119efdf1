#include "hooks.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "../corpus/sqlite_util.h"
#include "server_impl.h"
#include "umwelt/clock.h"
#include "umwelt/discord.h"
#include "umwelt/file.h"
#include "umwelt/github.h"
#include "umwelt/http.h"
#include "umwelt/redact.h"
#include "umwelt/search.h"
#include "umwelt/text.h"
#include "umwelt/vector.h"

namespace umwelt::server_internal {

using corpus_internal::Exec;
using corpus_internal::Stmt;

// --- the spool ------------------------------------------------------------------

Result<std::unique_ptr<HookSpool>> HookSpool::Open(const std::string& path) {
  std::unique_ptr<HookSpool> s(new HookSpool());
  s->path_ = path;
  MutexLock lock(s->mu_);
  int rc = sqlite3_open_v2(path.c_str(), &s->db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                           nullptr);
  if (rc != SQLITE_OK) return corpus_internal::SqliteError(s->db_, rc, path + ": opening the webhook spool");
  sqlite3_busy_timeout(s->db_, 5000);
  UMWELT_RETURN_IF_ERROR(Exec(s->db_,
                              "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                              "CREATE TABLE IF NOT EXISTS deliveries("
                              "  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,"
                              "  source TEXT NOT NULL, event TEXT NOT NULL, repo TEXT NOT NULL, thread TEXT NOT NULL,"
                              "  body BLOB, state TEXT NOT NULL,"  // pending, applied, ignored, failed
                              "  received INTEGER NOT NULL, applied INTEGER, attempts INTEGER NOT NULL DEFAULT 0,"
                              "  next_try INTEGER NOT NULL DEFAULT 0, error TEXT NOT NULL DEFAULT '');"
                              "CREATE INDEX IF NOT EXISTS deliveries_state ON deliveries(state, seq);",
                              path + ": the webhook spool"));
  return s;
}

HookSpool::~HookSpool() {
  MutexLock lock(mu_);
  sqlite3_close_v2(db_);
}

Status HookSpool::Receive(const Delivery& d, bool queued) {
  MutexLock lock(mu_);
  Stmt q(db_,
         "INSERT INTO deliveries(id, source, event, repo, thread, body, state, received) "
         "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT(id) DO NOTHING");
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
  q.Bind(1, d.id).Bind(2, d.source).Bind(3, d.event).Bind(4, d.repo).Bind(5, d.thread);
  if (queued) sqlite3_bind_blob64(q.get(), 6, d.body.data(), d.body.size(), SQLITE_TRANSIENT);
  q.Bind(7, std::string_view(queued ? "pending" : "ignored")).Bind(8, d.received_ms);
  UMWELT_RETURN_IF_ERROR(q.Run(path_ + ": keeping delivery " + d.id));
  if (sqlite3_changes(db_) == 0) {
    return Status::Precondition("delivery " + d.id + " was received before (a replay); it is not applied twice");
  }
  return Status::Ok();
}

Result<std::vector<Delivery>> HookSpool::Due(int64_t now_ms, int limit) {
  MutexLock lock(mu_);
  Stmt q(db_,
         "SELECT id, source, event, repo, thread, body, attempts, received FROM deliveries "
         "WHERE state='pending' AND next_try<=?1 ORDER BY seq LIMIT ?2");
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
  q.Bind(1, now_ms).Bind(2, limit);
  std::vector<Delivery> out;
  while (q.Step() == SQLITE_ROW) {
    Delivery d;
    d.id = q.Text(0);
    d.source = q.Text(1);
    d.event = q.Text(2);
    d.repo = q.Text(3);
    d.thread = q.Text(4);
    d.body = q.Text(5);
    d.attempts = static_cast<int>(q.Int(6));
    d.received_ms = q.Int(7);
    out.push_back(std::move(d));
  }
  UMWELT_RETURN_IF_ERROR(q.Finished(path_ + ": reading the waiting deliveries"));
  return out;
}

Status HookSpool::Applied(const std::vector<std::string>& ids, int64_t now_ms) {
  MutexLock lock(mu_);
  UMWELT_RETURN_IF_ERROR(Exec(db_, "BEGIN IMMEDIATE", path_));
  for (const auto& id : ids) {
    Stmt q(db_, "UPDATE deliveries SET state='applied', body=NULL, applied=?2, error='' WHERE id=?1");
    UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
    q.Bind(1, id).Bind(2, now_ms);
    if (Status s = q.Run(path_ + ": marking " + id + " applied"); !s.ok()) {
      (void)Exec(db_, "ROLLBACK", path_);
      return s;
    }
  }
  return Exec(db_, "COMMIT", path_);
}

Status HookSpool::Failed(const std::string& id, const std::string& error, int64_t now_ms, bool permanent) {
  MutexLock lock(mu_);
  Stmt q(db_,
         "UPDATE deliveries SET attempts=attempts+1, error=?2, "
         "  state=CASE WHEN attempts+1>=?3 THEN 'failed' ELSE state END, "
         "  next_try=?4 + (1000 << MIN(attempts, 10)) WHERE id=?1");
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
  q.Bind(1, id).Bind(2, std::string(TruncateUtf8(error, 500))).Bind(3, permanent ? 0 : kMaxAttempts).Bind(4, now_ms);
  return q.Run(path_ + ": recording the failure of " + id);
}

Status HookSpool::Prune(int64_t now_ms) {
  MutexLock lock(mu_);
  Stmt q(db_, "DELETE FROM deliveries WHERE state IN ('applied', 'ignored', 'failed') AND received<?1");
  UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
  q.Bind(1, now_ms - kRememberMs);
  return q.Run(path_ + ": forgetting old deliveries");
}

Result<nlohmann::json> HookSpool::StateValue(int64_t now_ms) {
  MutexLock lock(mu_);
  nlohmann::json out = nlohmann::json::object();
  auto iso = [](int64_t ms) { return ms > 0 ? FormatIsoTime(ms / 1000) : std::string(); };
  {
    Stmt q(db_,
           "SELECT source, COUNT(*), SUM(state='applied'), SUM(state='ignored'), SUM(state='pending'),"
           " SUM(state='failed'), MAX(received), MAX(applied),"
           " MIN(CASE WHEN state='pending' THEN received END) FROM deliveries GROUP BY source");
    UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
    while (q.Step() == SQLITE_ROW) {
      int64_t oldest_waiting = q.Int(8);
      out[q.Text(0)] = {{"received", q.Int(1)},
                        {"applied", q.Int(2)},
                        {"ignored", q.Int(3)},
                        {"pending", q.Int(4)},
                        {"failed", q.Int(5)},
                        {"last_received", iso(q.Int(6))},
                        {"last_applied", iso(q.Int(7))},
                        {"lag_seconds", oldest_waiting > 0 ? (now_ms - oldest_waiting) / 1000.0 : 0.0},
                        {"failures", nlohmann::json::array()}};
    }
    UMWELT_RETURN_IF_ERROR(q.Finished(path_ + ": counting deliveries"));
  }
  {
    Stmt q(db_,
           "SELECT source, applied - received FROM deliveries WHERE state='applied' "
           "AND seq=(SELECT MAX(seq) FROM deliveries d WHERE d.source=deliveries.source AND d.state='applied')");
    UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
    while (q.Step() == SQLITE_ROW) out[q.Text(0)]["last_lag_ms"] = q.Int(1);
    UMWELT_RETURN_IF_ERROR(q.Finished(path_ + ": the last delivery's lag"));
  }
  {
    Stmt q(db_,
           "SELECT source, id, event, error, attempts, state FROM deliveries WHERE error<>'' "
           "ORDER BY seq DESC LIMIT 20");
    UMWELT_RETURN_IF_ERROR(q.PrepareStatus(path_));
    while (q.Step() == SQLITE_ROW) {
      if (q.Text(5) == "applied") continue;  // failed once, applied since
      out[q.Text(0)]["failures"].push_back({{"delivery", q.Text(1)},
                                            {"event", q.Text(2)},
                                            {"error", q.Text(3)},
                                            {"attempts", q.Int(4)},
                                            {"given_up", q.Text(5) == "failed"}});
    }
    UMWELT_RETURN_IF_ERROR(q.Finished(path_ + ": reading failures"));
  }
  return out;
}

bool ValidGithubSignature(const std::string& secret, const std::string& header, const std::string& body) {
  if (secret.empty() || header.size() != 7 + 64 || header.rfind("sha256=", 0) != 0) return false;
  std::string want = HmacSha256Hex(secret, body);
  return !want.empty() && ConstantTimeEquals(ToLower(header.substr(7)), want);
}

bool ValidDeliveryId(const std::string& id) {
  return !id.empty() && id.size() <= 64 && std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
  });
}

// --- the route -------------------------------------------------------------------

void ServerImpl::HookRoutes() {
  if (!hooks_ || o_.github_webhook_secret.empty()) return;
  // Outside the sign-in gate (Gate lets the path through), behind the
  // signature: nothing is parsed before the body's HMAC checks out.
  http_.Post("/hooks/github", [this](const Request& req, Response& res) {
    if (!ValidGithubSignature(o_.github_webhook_secret, req.Header("X-Hub-Signature-256"), req.body)) {
      Detail(res, 401, "X-Hub-Signature-256 is missing or does not sign this body with the webhook secret");
      return;
    }
    Delivery d;
    d.source = "github";
    d.id = req.Header("X-GitHub-Delivery");
    d.event = req.Header("X-GitHub-Event");
    if (!ValidDeliveryId(d.id)) return Fail(res, Status::Invalid("X-GitHub-Delivery is missing or not a delivery id"));
    // An event name as GitHub writes them (`pull_request_review`): it reaches
    // the log and status, so nothing else is let through.
    if (d.event.empty() || d.event.size() > 64 || !std::all_of(d.event.begin(), d.event.end(), [](char c) {
          return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
        })) {
      return Fail(res, Status::Invalid("X-GitHub-Event is missing or not an event name"));
    }
    auto change = github::ParseWebhook(d.event, req.body);
    if (!change.ok()) return Fail(res, change.status());
    d.repo = change->repo;
    d.thread = change->thread;
    d.body = req.body;
    d.received_ms = NowEpochMs();
    // Only the repositories this corpus mirrors: a GitHub sync of it, or for
    // a push, a git sync of its clone.
    bool mirrored = false;
    std::string why = "event `" + std::string(TruncateUtf8(d.event, 64)) + "` changes nothing this corpus keeps";
    if (!change->ping && github::WebhookEventMirrored(d.event)) {
      auto corpus = engine_->Connection();
      if (!corpus.ok()) return Fail(res, corpus.status());
      std::string recorded = (d.event == "push" ? "git:" : "github:") + d.repo;
      auto state = (*corpus)->GetSyncState(recorded);
      if (!state.ok()) return Fail(res, state.status());
      mirrored = state->has_value() && (d.event != "push" || !change->pushed_branch.empty());
      why = "this corpus does not mirror " + d.repo + (d.event == "push" ? " with `sync git`" : "");
      if (d.event == "push" && state->has_value() && change->pushed_branch.empty()) why = "a tag, not a branch";
    }
    if (Status s = hooks_->Receive(d, mirrored); !s.ok()) return Fail(res, s);
    json out = {{"delivery", d.id}, {"event", d.event}};
    if (change->ping) {
      out["ok"] = true;
    } else if (mirrored) {
      out["queued"] = true;
      res.status = 202;
      WakeHookLoop();
    } else {
      out["ignored"] = why;
    }
    SetJson(res, out.dump());
  });
}

// --- applying ---------------------------------------------------------------------

void ServerImpl::WakeHookLoop() {
  {
    MutexLock lock(hooks_mu_);
    hooks_wake_ = true;
  }
  hooks_cv_.notify_all();
}

void ServerImpl::HookLoop() {
  // Applying and re-indexing yield the cores to the readers.
  setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 5);
  int64_t last_prune = 0;
  auto last_batch = std::chrono::steady_clock::time_point{};
  while (!stopping_) {
    {
      MutexLock lock(hooks_mu_);
      // Woken by a delivery, or once a second for the retries that fall due.
      if (!hooks_wake_ && !stopping_) hooks_cv_.wait_for(lock.native(), std::chrono::seconds(1));
      // Then no sooner than the batch gap after the last batch began.
      const auto next = last_batch + std::chrono::milliseconds(kHookBatchGapMs);
      while (!stopping_ && std::chrono::steady_clock::now() < next) hooks_cv_.wait_until(lock.native(), next);
      hooks_wake_ = false;
    }
    if (stopping_) break;
    const auto began = std::chrono::steady_clock::now();
    bool applied = false;
    Status s = ApplyDueHooks(&applied);
    if (applied) last_batch = began;
    if (!s.ok() && o_.log) o_.log("hooks: " + StripLocalPaths(RedactSecrets(s.message())));
    if (int64_t now = NowEpochMs(); now - last_prune > 3600 * 1000) {
      (void)hooks_->Prune(now);
      last_prune = now;
    }
  }
}

Status ServerImpl::ApplyDueHooks(bool* applied) {
  UMWELT_ASSIGN_OR_RETURN(auto due, hooks_->Due(NowEpochMs(), 1000));
  *applied = !due.empty();
  if (due.empty()) return Status::Ok();
  MutexLock one_writer(write_mu_);
  UMWELT_ASSIGN_OR_RETURN(auto corpus, Corpus::Open(o_.corpus_path, Corpus::Mode::kReadWrite));
  std::vector<std::string> done;
  bool changed = false;
  bool follow_ups = false;  // a thread joined the sync's per-thread lists
  for (const Delivery& d : due) {
    Status s = Status::Ok();
    if (d.source == "discord") {
      int64_t n = 0;
      if (d.event == kDiscordCatchUp) {
        s = DiscordCatchUp(*corpus, d.repo, &n);
      } else {
        s = discord::ApplyEvent(*corpus, d.body, d.repo, "", &n);
      }
      if (s.code() == Code::kCorrupt || s.code() == Code::kInvalidArgument) {  // no better on a retry
        UMWELT_RETURN_IF_ERROR(hooks_->Failed(d.id, s.message(), NowEpochMs(), /*permanent=*/true));
        continue;
      }
      changed = changed || n > 0;
    } else if (auto change = github::ParseWebhook(d.event, d.body); !change.ok()) {
      // It parsed at receipt; a spool that no longer holds it whole will
      // not do better on a retry.
      UMWELT_RETURN_IF_ERROR(hooks_->Failed(d.id, change.status().message(), NowEpochMs(), /*permanent=*/true));
      continue;
    } else if (d.event == "push") {
      // The clone is synced as `sync git` would; the source's own cursor
      // says what is new.
      bool moved = false;
      s = o_.sync_source ? o_.sync_source("git:" + d.repo, &moved)
                         : Status::Unsupported("this server cannot sync git sources");
      changed = changed || moved;
    } else {  // a GitHub event
      int64_t n = 0;
      s = github::ApplyWebhook(*corpus, *change, &n);
      changed = changed || n > 0;
      follow_ups = follow_ups || (s.ok() && !change->follow_ups.empty());
    }
    if (s.ok()) {
      done.push_back(d.id);
    } else {
      std::string why = StripLocalPaths(RedactSecrets(s.message()));
      if (o_.log) o_.log("hooks: delivery " + d.id + " (" + d.event + "): " + why);
      UMWELT_RETURN_IF_ERROR(hooks_->Failed(d.id, why, NowEpochMs()));
    }
  }
  // Applied means searchable: the indexes take the new records first.
  auto t0 = std::chrono::steady_clock::now();
  if (changed) UMWELT_RETURN_IF_ERROR(IndexWrites(*corpus));
  if (o_.log && !done.empty()) {
    char line[160];
    std::snprintf(line, sizeof line, "hooks: %zu deliveries applied, searchable after %.0f ms of indexing",
                  done.size(), std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    o_.log(line);
  }
  // The next sync round, brought forward, fetches what the payloads lacked
  // (a merged pull request's commits); rounds stay a minute apart.
  if (follow_ups) scheduler_.Soon(kFollowUpGapSeconds);
  return hooks_->Applied(done, NowEpochMs());
}

// --- the Discord gateway -------------------------------------------------------------

namespace {

// A spool id for an event: its session and sequence number (a replay after
// a resume is the same delivery, kept once).
std::string DiscordDeliveryId(const std::string& session, int64_t seq) {
  std::string id = "discord-";
  for (char c : session.substr(0, 40)) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) id += c;
  }
  return id + "-" + std::to_string(seq);
}

}  // namespace

void ServerImpl::DiscordLoop() {
  auto http = NewCurlHttpClient();
  discord::FollowOptions f;
  f.guild = o_.discord_follow;
  f.token = o_.discord_token;
  f.api_base = o_.discord_api_base;
  f.allow_loopback = o_.discord_allow_loopback;
  f.stopping = [this] { return stopping_.load(); };
  auto keep = [this](const Delivery& d) -> Status {
    Status s = hooks_->Receive(d, true);
    if (s.code() == Code::kFailedPrecondition) return Status::Ok();  // kept before
    if (!s.ok()) return s;
    WakeHookLoop();
    return Status::Ok();
  };
  auto delivery = [this](std::string id, std::string event) {
    Delivery d;
    d.source = "discord";
    d.id = std::move(id);
    d.event = std::move(event);
    d.repo = o_.discord_follow;
    d.received_ms = NowEpochMs();
    return d;
  };
  f.on_event = [&](const discord::GatewayEvent& e) {
    Delivery d = delivery(DiscordDeliveryId(e.session, e.seq), e.type);
    d.thread = e.channel;
    d.body = e.body;
    return keep(d);
  };
  // What happened before this session is the REST sync's: queued behind
  // the events already kept, ahead of the session's own.
  f.on_new_session = [&] {
    Delivery d = delivery("discord-catchup-" + std::to_string(NowEpochMs()), kDiscordCatchUp);
    d.body = "{}";
    if (Status s = keep(d); !s.ok() && o_.log) o_.log("discord: the catch-up was not queued: " + s.message());
  };
  f.log = [this](const std::string& line) {
    if (o_.log) o_.log("discord: " + line);
  };
  discord::FollowReport report;
  Status s = discord::Follow(*http, f, &report);
  if (s.ok()) return;
  // Shown by status with the source's failures.
  std::string why = "following the gateway stopped: " + StripLocalPaths(RedactSecrets(s.message()));
  if (o_.log) o_.log("discord: " + why);
  Delivery d = delivery("discord-stopped-" + std::to_string(NowEpochMs()), "FOLLOW");
  if (hooks_->Receive(d, false).ok()) (void)hooks_->Failed(d.id, why, NowEpochMs(), /*permanent=*/true);
}

Status ServerImpl::DiscordCatchUp(Corpus& corpus, const std::string& guild, int64_t* changed) {
  *changed = 0;
  if (guild != o_.discord_follow) {
    return Status::Invalid("a catch-up of guild " + guild + ", which this server no longer follows");
  }
  auto http = NewCurlHttpClient();
  discord::SyncOptions o;
  o.guild = guild;
  o.token = o_.discord_token;
  o.api_base = o_.discord_api_base;
  discord::SyncReport r;
  Status s = discord::Sync(corpus, *http, o, &r);
  *changed = r.messages + r.deleted;
  if (o_.log) {
    o_.log("discord: caught up with " + std::to_string(r.channels) + " channels and threads, " +
           std::to_string(r.messages) + " messages new or changed, " + std::to_string(r.deleted) + " deleted");
  }
  return s;
}

Status ServerImpl::IndexWrites(Corpus& corpus) {
  auto t0 = std::chrono::steady_clock::now();
  auto since = [&t0] {
    auto now = std::chrono::steady_clock::now();
    double ms = std::chrono::duration<double, std::milli>(now - t0).count();
    t0 = now;
    return std::to_string(static_cast<int64_t>(ms)) + " ms";
  };
  UMWELT_RETURN_IF_ERROR(KeywordIndex::Open(corpus).status());
  std::string took = "keyword index " + since();
  // The vector spaces this server can embed for: its --embed spaces, and
  // the builtin ones (their model lives beside the corpus).
  UMWELT_ASSIGN_OR_RETURN(auto spaces, CorpusSpaces(corpus));
  std::vector<std::string> specs;
  for (const auto& [name, model] : spaces) {
    const std::string prefix = name + "=";
    auto configured = std::find_if(o_.embedders.begin(), o_.embedders.end(),
                                   [&prefix](const std::string& e) { return e.rfind(prefix, 0) == 0; });
    if (configured != o_.embedders.end()) specs.push_back(*configured);
    else if (model.rfind("builtin:", 0) == 0) specs.push_back(name + "=builtin");
  }
  if (!specs.empty()) {
    UMWELT_ASSIGN_OR_RETURN(auto configs, ParseSpaceConfigs(specs));
    IndexReport report;
    UMWELT_RETURN_IF_ERROR(IndexSpaces(corpus, configs, IndexOptions(), &report));
  }
  took += ", vectors " + since();
  UMWELT_RETURN_IF_ERROR(engine_->Refresh());
  took += ", reload " + since();
  if (o_.log) o_.log("hooks: indexed (" + took + ")");
  return Status::Ok();
}

}  // namespace umwelt::server_internal

namespace umwelt {

Result<nlohmann::json> WebhookStatus(const std::string& corpus_path) {
  std::string path = corpus_path + ".hooks";
  if (!std::filesystem::exists(path)) return nlohmann::json();
  UMWELT_ASSIGN_OR_RETURN(auto spool, server_internal::HookSpool::Open(path));
  return spool->StateValue(NowEpochMs());
}

}  // namespace umwelt
