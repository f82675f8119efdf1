// Internal to server/: webhook deliveries, kept from receipt to apply.
//
// A delivery is written to the spool (an SQLite file beside the corpus,
// `<corpus>.hooks`) before it is acknowledged, and leaves it only once
// applied and searchable, so a server killed in between applies it after
// restart. Its id is remembered for a day: a replayed delivery is refused.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "umwelt/status.h"
#include "umwelt/thread_annotations.h"

namespace umwelt::server_internal {

struct Delivery {
  std::string id;      // X-GitHub-Delivery
  std::string source;  // "github"
  std::string event;   // X-GitHub-Event
  std::string repo;    // owner/name
  std::string thread;  // the thread it concerns, or ""
  std::string body;
  int attempts = 0;
  int64_t received_ms = 0;
};

// Thread-safe (one connection, one lock: receipts are small writes).
class HookSpool {
 public:
  // A delivery that failed this many times is given up and shown in status.
  static constexpr int kMaxAttempts = 5;
  // How long a delivery id is remembered.
  static constexpr int64_t kRememberMs = 24 * 3600 * 1000;

  static Result<std::unique_ptr<HookSpool>> Open(const std::string& path);
  ~HookSpool();
  HookSpool(const HookSpool&) = delete;
  HookSpool& operator=(const HookSpool&) = delete;

  // Keeps `d` to apply (`queued`), or only its id (a delivery acknowledged
  // and ignored). Precondition (FailedPrecondition) when its id was seen
  // within the last day: a replay.
  Status Receive(const Delivery& d, bool queued) EXCLUDES(mu_);
  // Up to `limit` deliveries waiting and due (a failed one waits out its
  // backoff), oldest first.
  Result<std::vector<Delivery>> Due(int64_t now_ms, int limit) EXCLUDES(mu_);
  // Applied and searchable at `now_ms`: the body is dropped, the id kept.
  Status Applied(const std::vector<std::string>& ids, int64_t now_ms) EXCLUDES(mu_);
  // Failed: tried again after 2^attempts seconds, given up after
  // kMaxAttempts, or at once when `permanent` (a body that can never apply).
  Status Failed(const std::string& id, const std::string& error, int64_t now_ms, bool permanent = false)
      EXCLUDES(mu_);
  // Forgets ids older than a day.
  Status Prune(int64_t now_ms) EXCLUDES(mu_);
  // Per source: {received, applied, ignored, pending, failed, last_received,
  // last_applied, last_lag_ms, lag_seconds (how long the oldest waiting
  // delivery has waited), failures: [{delivery, event, error, attempts}]}.
  Result<nlohmann::json> StateValue(int64_t now_ms) EXCLUDES(mu_);

 private:
  HookSpool() = default;
  Mutex mu_;
  sqlite3* db_ GUARDED_BY(mu_) = nullptr;
  std::string path_;
};

// "sha256=<hex>" as X-Hub-Signature-256 carries it, checked in constant
// time against `body` under `secret`.
bool ValidGithubSignature(const std::string& secret, const std::string& header, const std::string& body);

// A delivery id as GitHub writes them (a GUID): 1 to 64 of [A-Za-z0-9-].
bool ValidDeliveryId(const std::string& id);

}  // namespace umwelt::server_internal
