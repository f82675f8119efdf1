// The ask job queue alone: its slots, its owners, its workers, its stop.
#include "jobs.h"

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace umwelt::server_internal {
namespace {

// A runner that holds each job until released, and counts what it ran.
class Gate {
 public:
  void Run(Job& job) {
    std::unique_lock<std::mutex> lock(mu_);
    ++started_;
    cv_.notify_all();
    cv_.wait(lock, [&] { return open_; });
    MutexLock jl(job.mu);
    job.state = "done";
    job.markdown = "answer to " + job.question;
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  void WaitStarted(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return started_ >= n; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int started_ = 0;
  bool open_ = false;
};

std::string StateOf(Job& job) {
  MutexLock lock(job.mu);
  return job.state;
}

void WaitFinished(Job& job) {
  MutexLock lock(job.mu);
  while (!job.finished) job.cv.wait(lock.native());
}

TEST(JobQueue, SlotsBoundWhatIsQueuedRunningOrHeld) {
  Gate gate;
  JobQueue q(2, [&](Job& j) { gate.Run(j); });
  q.Start();
  auto a = q.Submit("first?", "ann");
  ASSERT_NE(a, nullptr);
  auto held = q.Reserve();  // MCP's ask takes the other slot
  ASSERT_NE(held, nullptr);
  EXPECT_EQ(q.Submit("second?", "ann"), nullptr);
  EXPECT_EQ(q.Reserve(), nullptr);
  EXPECT_EQ(q.running(), 2);
  held.reset();
  auto b = q.Submit("second?", "bob");
  ASSERT_NE(b, nullptr);
  gate.WaitStarted(2);
  gate.Open();
  WaitFinished(*a);
  WaitFinished(*b);
  EXPECT_EQ(StateOf(*a), "done");
  EXPECT_EQ(q.running(), 0);
  // Each job is its owner's alone.
  EXPECT_EQ(q.Find(a->id, "ann"), a);
  EXPECT_EQ(q.Find(a->id, "bob"), nullptr);
  EXPECT_EQ(q.Find(b->id, "bob"), b);
}

TEST(JobQueue, StopWaitsForTheJobsRunning) {
  Gate gate;
  JobQueue q(1, [&](Job& j) { gate.Run(j); });
  q.Start();
  auto running = q.Submit("runs", "ann");
  gate.WaitStarted(1);
  std::thread stopper([&] { q.Stop(); });
  gate.Open();
  stopper.join();
  EXPECT_EQ(StateOf(*running), "done");
  EXPECT_TRUE(running->finished);
  EXPECT_EQ(q.running(), 0);
}

TEST(JobQueue, AJobStillQueuedWhenItStopsEndsAsFailed) {
  JobQueue q(2, [](Job&) { ADD_FAILURE() << "no job runs after Stop"; });
  auto a = q.Submit("never taken up", "ann");
  auto b = q.Submit("nor this", "bob");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  q.Stop();   // before any worker looked: both still queued
  q.Start();  // the workers find the queue stopped
  q.Stop();
  for (const auto& job : {a, b}) {
    WaitFinished(*job);
    MutexLock lock(job->mu);
    EXPECT_EQ(job->state, "failed");
    EXPECT_NE(job->error.find("stopped before the question was taken up"), std::string::npos);
  }
  EXPECT_EQ(q.running(), 0);
}

TEST(JobQueue, OnlyTheNewestFinishedJobsAreKept) {
  JobQueue q(1, [](Job& j) {
    MutexLock lock(j.mu);
    j.state = "done";
  }, /*keep=*/3);
  q.Start();
  std::vector<std::shared_ptr<Job>> jobs;
  for (int i = 0; i < 5; ++i) {
    auto j = q.Submit("q" + std::to_string(i), "ann");
    ASSERT_NE(j, nullptr);
    WaitFinished(*j);
    jobs.push_back(j);
  }
  EXPECT_EQ(q.Find(jobs[0]->id, "ann"), nullptr);
  EXPECT_EQ(q.Find(jobs[1]->id, "ann"), nullptr);
  EXPECT_EQ(q.Find(jobs[4]->id, "ann"), jobs[4]);
}

}  // namespace
}  // namespace umwelt::server_internal
