#include "scheduler.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "umwelt/clock.h"
#include "umwelt/redact.h"
#include "umwelt/text.h"

namespace umwelt::server_internal {

Scheduler::Scheduler(int every_seconds, Round round, Log log)
    : every_seconds_(every_seconds), round_(std::move(round)), log_(std::move(log)) {}

void Scheduler::Start() {
  if (every_seconds_ <= 0 || thread_.joinable()) return;
  thread_ = std::thread([this] { Loop(); });
}

Status Scheduler::RunNow() {
  MutexLock one(round_mu_);
  {
    MutexLock lock(mu_);
    running_ = true;
    last_run_ = NowEpoch();
  }
  Status s = round_();
  MutexLock lock(mu_);
  running_ = false;
  ++runs_;
  if (s.ok()) {
    last_ok_ = NowEpoch();
    last_error_.clear();
    error_since_ = 0;
  } else {
    last_error_ = StripLocalPaths(RedactSecrets(s.message()));
    if (!error_since_) error_since_ = NowEpoch();
  }
  return s;
}

void Scheduler::Soon(int min_gap_seconds) {
  {
    MutexLock lock(mu_);
    soon_gap_ = soon_gap_ < 0 ? min_gap_seconds : std::min(soon_gap_, min_gap_seconds);
  }
  cv_.notify_all();
}

void Scheduler::RequestStop() {
  {
    MutexLock lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
}

void Scheduler::Stop() {
  RequestStop();
  if (thread_.joinable()) thread_.join();
}

nlohmann::json Scheduler::StateValue() const {
  MutexLock lock(mu_);
  auto iso = [](int64_t t) { return t ? FormatIsoTime(t) : std::string(); };
  nlohmann::json out = {{"every_seconds", every_seconds_}, {"runs", runs_},          {"running", running_},
                        {"last_run", iso(last_run_)},      {"last_ok", iso(last_ok_)}, {"last_error", last_error_},
                        {"error_since", iso(error_since_)}};
  if (error_since_) out["error_age_seconds"] = NowEpoch() - error_since_;
  return out;
}

void Scheduler::Loop() {
  // Syncs and index rebuilds yield the cores to the readers.
  setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 10);
  MutexLock lock(mu_);
  bool first = true;  // no round yet: one brought forward starts at once
  while (!stopping_) {
    const auto last = std::chrono::steady_clock::now();
    const auto scheduled = last + std::chrono::seconds(every_seconds_);
    while (!stopping_) {
      auto soon = first ? last : last + std::chrono::seconds(soon_gap_);
      auto due = soon_gap_ < 0 ? scheduled : std::min(scheduled, soon);
      if (std::chrono::steady_clock::now() >= due) break;
      cv_.wait_until(lock.native(), due);
    }
    if (stopping_) break;
    soon_gap_ = -1;
    first = false;
    lock.unlock();
    auto t0 = std::chrono::steady_clock::now();
    Status s = RunNow();
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (log_) {
      char took[32];
      std::snprintf(took, sizeof took, "%.2f s", seconds);
      log_("scheduler: " + (s.ok() ? std::string("round ok") : s.message()) + " in " + took);
    }
    lock.lock();
  }
}

}  // namespace umwelt::server_internal
