// umwelt/clock.h — the process's one clock: what time it is, and waiting.
//
// Everything that reads the wall clock (NowEpoch) or waits (SleepSeconds:
// retry backoffs, rate-limit resets) goes through here, so a test can move
// time instead of waiting for it:
//
//   ManualClock clock(ParseIsoTime("2026-11-30T12:00:00Z").value());
//   ... a sync that waits 30 s for a rate limit returns at once ...
//   EXPECT_EQ(clock.slept(), 30);
#pragma once

#include <atomic>
#include <cstdint>

namespace umwelt {

// Seconds since the epoch, now (UTC).
int64_t NowEpoch();
// Milliseconds since the epoch, now: for lags measured in them.
int64_t NowEpochMs();
// Waits `seconds` (a ManualClock: advances it instead).
void SleepSeconds(double seconds);

// While one is alive, it is the process's clock: NowEpoch() reads it and
// SleepSeconds() moves it forward at once. One at a time; test-only.
class ManualClock {
 public:
  explicit ManualClock(int64_t start_epoch);
  ~ManualClock();
  ManualClock(const ManualClock&) = delete;
  ManualClock& operator=(const ManualClock&) = delete;

  void Advance(double seconds);
  int64_t now() const;
  double slept() const { return slept_.load(); }  // seconds slept through it in all

 private:
  friend void SleepSeconds(double);
  std::atomic<double> now_;
  std::atomic<double> slept_{0};
};

}  // namespace umwelt
