// The scheduler alone: what a round's outcome leaves in its state, rounds
// one at a time, and a stop that waits for the round in progress.
#include "scheduler.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "umwelt/clock.h"
#include "umwelt/text.h"

namespace umwelt::server_internal {
namespace {

TEST(Scheduler, RecordsFailuresSinceWhenAndClearsThemOnSuccess) {
  ManualClock clock(ParseIsoTime("2026-11-30T12:00:00Z").value());
  bool fail = true;
  Scheduler s(0, [&] {
    return fail ? Status::Io("github: HTTP 502 (token ghp_abcdefghijklmnopqrstuvwxyz0123456789 at /home/ann/x.db)")
                : Status::Ok();
  });
  EXPECT_EQ(s.StateValue()["runs"], 0);
  EXPECT_EQ(s.StateValue()["last_run"], "");
  EXPECT_FALSE(s.RunNow().ok());
  clock.Advance(90);
  EXPECT_FALSE(s.RunNow().ok());
  auto failing = s.StateValue();
  EXPECT_EQ(failing["runs"], 2);
  EXPECT_EQ(failing["last_ok"], "");
  EXPECT_EQ(failing["error_since"], "2026-11-30T12:00:00Z");  // the first failure, not the latest
  EXPECT_EQ(failing["error_age_seconds"], 90);
  std::string error = failing["last_error"];
  EXPECT_NE(error.find("github: HTTP 502"), std::string::npos) << error;
  EXPECT_EQ(error.find("ghp_"), std::string::npos) << error;
  EXPECT_EQ(error.find("/home/ann"), std::string::npos) << error;
  fail = false;
  clock.Advance(30);
  ASSERT_TRUE(s.RunNow().ok());
  auto ok = s.StateValue();
  EXPECT_EQ(ok["last_ok"], "2026-11-30T12:02:00Z");
  EXPECT_EQ(ok["last_error"], "");
  EXPECT_EQ(ok["error_since"], "");
  EXPECT_FALSE(ok.contains("error_age_seconds"));
  EXPECT_EQ(ok["running"], false);
}

TEST(Scheduler, RoundsNeverOverlapAndStopWaitsForTheOneRunning) {
  std::mutex mu;
  std::condition_variable cv;
  int inside = 0, most = 0, started = 0;
  bool release = false;
  Scheduler s(0, [&] {
    std::unique_lock<std::mutex> lock(mu);
    ++started;
    most = std::max(most, ++inside);
    cv.notify_all();
    cv.wait(lock, [&] { return release; });
    --inside;
    return Status::Ok();
  });
  std::thread a([&] { (void)s.RunNow(); });
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return started == 1; });
  }
  EXPECT_EQ(s.StateValue()["running"], true);
  std::thread b([&] { (void)s.RunNow(); });  // waits for the first round
  {
    std::lock_guard<std::mutex> lock(mu);
    release = true;
    cv.notify_all();
  }
  a.join();
  b.join();
  EXPECT_EQ(most, 1);
  EXPECT_EQ(started, 2);
  EXPECT_EQ(s.StateValue()["runs"], 2);
}

TEST(Scheduler, ItsThreadRunsRoundsUntilStopped) {
  std::mutex mu;
  std::condition_variable cv;
  int rounds = 0;
  Scheduler s(1, [&] {
    std::lock_guard<std::mutex> lock(mu);
    ++rounds;
    cv.notify_all();
    return Status::Ok();
  });
  s.Start();
  {
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return rounds >= 1; }));
  }
  s.Stop();
  int after_stop = rounds;
  s.Stop();  // idempotent
  EXPECT_EQ(rounds, after_stop);
  EXPECT_GE(s.StateValue()["runs"], 1);
}

// A webhook's follow-up asks for the next round early: at once when the
// last round is long past, else a gap after it; a burst of asks is one round.
TEST(Scheduler, SoonBringsTheNextRoundForwardAndKeepsItsGap) {
  std::mutex mu;
  std::vector<std::chrono::steady_clock::time_point> starts;
  Scheduler s(3600, [&] {
    std::lock_guard<std::mutex> lock(mu);
    starts.push_back(std::chrono::steady_clock::now());
    return Status::Ok();
  });
  auto rounds = [&] {
    std::lock_guard<std::mutex> lock(mu);
    return starts.size();
  };
  auto wait_for = [&](size_t n) {
    for (int i = 0; i < 500 && rounds() < n; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return rounds();
  };
  s.Start();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(rounds(), 0u) << "the first round waits its period";
  s.Soon(0);
  ASSERT_EQ(wait_for(1), 1u);
  for (int i = 0; i < 5; ++i) s.Soon(1);
  ASSERT_EQ(wait_for(2), 2u);
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  EXPECT_EQ(rounds(), 2u) << "five asks, one round";
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_GE(std::chrono::duration<double>(starts[1] - starts[0]).count(), 0.99) << "a second after the last round";
}

}  // namespace
}  // namespace umwelt::server_internal
