// umwelt/server.h — `umwelt serve`: the corpus as a service.
//
// One process serves, over HTTP/1.1 with keep-alive (libmicrohttpd, a
// thread per connection, with limits per connection and per client):
//   - a JSON API: /api/status, /api/search, /api/search-multi, /api/show,
//     /api/threads/{ref}, /api/summaries[/{period}], /api/ask (a job) and
//     /api/jobs/{id} (its state; /events streams progress as server-sent
//     events). Errors are {"detail": "..."} with the right status;
//   - a web UI rendered on the server (search, thread, ask, sign-in) with a
//     little plain JavaScript, the weekly summaries site and report pages;
//   - snapshot distribution for clients: /manifest.json and /corpus-index.db
//     (a consistent copy, with Content-Length and Range);
//   - bearer-token auth (auth.h) in front of the API, the snapshot and the
//     corpus pages; summaries, the sign-in page and /healthz stay open;
//   - a scheduler: incremental syncs every --sync-every (one writer; readers
//     serve the last committed state), the week's digest once a week closes.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "umwelt/corpus.h"
#include "umwelt/status.h"

namespace umwelt {

class ChatModel;

struct ServeOptions {
  std::string corpus_path;
  std::string bind = "127.0.0.1";
  int port = 8080;                 // 0: any free port (tests)
  int threads = 512;               // connections at once (each holds a thread)
  int max_connections_per_client = 64;  // connections at once from one address (an IPv6 /64)
  int search_concurrency = 0;      // searches at once, queued in order beyond (0 = twice the cores)
  std::string auth_file;           // "" = no auth (loopback only unless open_network)
  bool open_network = false;       // serve a non-loopback address without auth
  // The url users reach the server by (behind a proxy). Without auth, Host
  // headers must name loopback or this url's host (no DNS rebinding).
  std::string public_url;
  std::string summaries_dir;       // the digest site ("" = none)
  std::string reports_dir;         // published report pages ("" = none)
  std::vector<std::string> embedders;  // SPACE=PROVIDER, as for search
  std::string rerank;                  // openai-compatible:<base-url>#<model> (umwelt/rerank.h), or "" for none
  int64_t sync_every_seconds = 0;  // 0 = no scheduler
  // The scheduler's sync of the recorded sources (the CLI's refresh); the
  // server reloads its indexes after it.
  std::function<Status()> sync;
  // Syncs one recorded source now ("git:owner/repo", after a webhook's
  // push); *changed when anything stored changed. Null: pushes are not synced.
  std::function<Status(const std::string& recorded, bool* changed)> sync_source;
  // The GitHub webhook secret (`--github-webhook-secret-file`); non-empty
  // enables POST /hooks/github.
  std::string github_webhook_secret;
  // Follows this Discord guild's gateway (`--discord-follow GUILD`, with
  // DISCORD_TOKEN): its events are kept in the delivery spool and applied
  // as webhook deliveries are; a new gateway session (the first, or one
  // after a session that could not be resumed) brings an incremental
  // `sync discord` of the guild, which fetches what happened in between.
  std::string discord_follow;  // guild id, "" = none
  std::string discord_token;
  std::string discord_api_base = "https://discord.com/api/v10";
  bool discord_allow_loopback = false;  // ws:// to a loopback gateway (tests)
  ChatModel* llm = nullptr;        // for /api/ask and MCP's ask (null: extractive)
  std::string version;             // the server's version, in MCP's serverInfo
  size_t max_body_bytes = 1 << 20;
  int read_timeout_seconds = 10;   // to send a whole request; a slower client is cut off
  int max_jobs = 2;                // ask jobs running at once
  std::string snapshot_dir;        // where the snapshot file lives ("" = beside the corpus)
  // Logs one line per request (method, path without query, status, ms);
  // tokens and query strings never reach it.
  std::function<void(const std::string& line)> log;
};

class Server {
 public:
  // Validates the options (an auth file that does not parse, a non-loopback
  // bind without auth, a corpus that does not open) and binds the port.
  static Result<std::unique_ptr<Server>> Start(const ServeOptions& options);
  virtual ~Server() = default;
  virtual int port() const = 0;
  // Serves until Stop(); in-flight requests finish first.
  virtual Status Run() = 0;
  // Stops accepting; Run() returns once the requests in flight are answered.
  virtual void Stop() = 0;
  // Runs one scheduler round now (sync, reload, digest) and returns its status.
  virtual Status SyncNow() = 0;
};

// The webhook deliveries a server kept for `corpus_path` (its spool,
// `<corpus>.hooks`), per source as /api/status's `hooks` shows them; null
// when the corpus never had webhooks.
Result<nlohmann::json> WebhookStatus(const std::string& corpus_path);

// Serves until SIGTERM or SIGINT, then shuts down gracefully.
Status Serve(const ServeOptions& options);

// `umwelt refresh --from URL`: reads URL/manifest.json (at most 1 MiB), and
// when its sha256 differs from the local corpus's, downloads
// URL/corpus-index.db to `<corpus>.part` (resuming a partial one with Range),
// verifies the sha256, checks that the file is a corpus of this umwelt's
// schema (CheckForeignCorpus) and swaps it in, the old file kept as
// `<corpus>.bak` until the new one has answered a search. The client sets
// every limit itself: never more than the manifest's bytes nor
// RefreshLimits::max_bytes, and only with that much free disk; an error
// body read to 64 KiB; a transfer slower than min_bytes_per_second for
// stall_seconds fails and keeps the part; the whole download has a deadline
// of 2 minutes plus its size at that minimum rate. `token` is sent as a
// bearer token when non-empty.
struct RefreshReport {
  bool updated = false;
  int64_t bytes = 0, resumed_from = 0;
  std::string sha256;
};
// The snapshot a manifest.json announces: its corpus file's sha256 (64 hex
// digits) and size. `where` names the manifest in errors.
struct SnapshotManifest {
  std::string sha256;
  int64_t bytes = 0;
};
Result<SnapshotManifest> ParseManifest(std::string_view body, const std::string& where);

struct RefreshLimits {
  int64_t max_bytes = int64_t{32} << 30;  // `refresh --max-bytes`
  int64_t min_bytes_per_second = 16 << 10;
  int stall_seconds = 30;
  std::chrono::seconds check_budget{600};  // for each statement of the corpus check
};
Result<RefreshReport> RefreshFrom(const std::string& base_url, const std::string& corpus_path,
                                  const std::string& token, bool allow_private, const RefreshLimits& limits = {});

}  // namespace umwelt
