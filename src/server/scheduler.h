// Internal to server/: the server's background rounds (sync, reload, the
// weekly digest), one at a time, on one thread, and their record.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "umwelt/status.h"
#include "umwelt/thread_annotations.h"

namespace umwelt::server_internal {

// Runs `round` every `every_seconds` (counted from the end of the last one)
// on its own thread, at a lower priority than the readers, and keeps what
// /api/status and the manifest say of it: when it last ran and succeeded,
// the error a failing round left (no secrets, no local paths) and since when.
// A round can also be run at once (`RunNow`: `serve --sync-now`, tests); two
// never overlap. Thread-safe.
class Scheduler {
 public:
  using Round = std::function<Status()>;
  using Log = std::function<void(const std::string&)>;
  Scheduler(int every_seconds, Round round, Log log = nullptr);
  ~Scheduler() { Stop(); }
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Starts the thread; none when every_seconds <= 0 (rounds only on RunNow).
  void Start() EXCLUDES(mu_);
  // One round on the caller's thread, recorded like a scheduled one.
  Status RunNow() EXCLUDES(mu_, round_mu_);
  // Brings the next scheduled round forward: it starts `min_gap_seconds`
  // after the end of the last one (now, when that is past or there was
  // none), or at its time if that is sooner. For work that should not wait the whole period (a
  // webhook delivery's follow-up fetches); a burst of requests makes one
  // round. Nothing without the thread.
  void Soon(int min_gap_seconds) EXCLUDES(mu_);
  // No round starts after it; returns at once.
  void RequestStop() EXCLUDES(mu_);
  // RequestStop, then waits for the thread (a round in progress finishes
  // first). Idempotent.
  void Stop() EXCLUDES(mu_);
  // {every_seconds, runs, running, last_run, last_ok, last_error,
  // error_since[, error_age_seconds]}: times as ISO strings, "" for never.
  nlohmann::json StateValue() const EXCLUDES(mu_);

 private:
  void Loop() EXCLUDES(mu_);

  const int every_seconds_;
  const Round round_;
  const Log log_;
  Mutex round_mu_;  // one round at a time
  mutable Mutex mu_;
  std::condition_variable cv_;
  bool stopping_ GUARDED_BY(mu_) = false;
  int64_t last_run_ GUARDED_BY(mu_) = 0, last_ok_ GUARDED_BY(mu_) = 0, error_since_ GUARDED_BY(mu_) = 0;
  std::string last_error_ GUARDED_BY(mu_);
  int runs_ GUARDED_BY(mu_) = 0;
  bool running_ GUARDED_BY(mu_) = false;
  int soon_gap_ GUARDED_BY(mu_) = -1;  // Soon's gap, -1 when not asked
  std::thread thread_;
};

}  // namespace umwelt::server_internal
