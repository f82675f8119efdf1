// Internal to server/: ask jobs, their queue and their workers.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "umwelt/thread_annotations.h"

namespace umwelt::server_internal {

struct Job {
  std::string id, question, owner;  // set before the job is shared; owner: the login that asked
  std::atomic<bool> finished{false};
  Mutex mu;
  std::condition_variable cv;  // an event, or the end
  std::string state GUARDED_BY(mu) = "queued";
  std::string error GUARDED_BY(mu), markdown GUARDED_BY(mu), html GUARDED_BY(mu);
  std::vector<nlohmann::json> events GUARDED_BY(mu);
  std::vector<std::string> removed GUARDED_BY(mu);
  double seconds GUARDED_BY(mu) = 0;
};

// Ask jobs: at most `slots` queued or running at once, each slot reserved
// with one fetch_add (so two requests arriving together cannot both take the
// last), run by `slots` long-lived workers (`umwelt-ask` in `ps -T`) fed by
// one queue that the reservation bounds: no request starts a worker. A job
// is kept by id for the login that asked it; past `keep` jobs the oldest
// finished ones are forgotten. Thread-safe.
class JobQueue {
 public:
  // `run` takes a job to its end (its state, events and result); it is
  // called on a worker.
  JobQueue(int slots, std::function<void(Job&)> run, size_t keep = 200);
  ~JobQueue();
  JobQueue(const JobQueue&) = delete;
  JobQueue& operator=(const JobQueue&) = delete;

  void Start();
  // A slot for work that is not queued here (MCP's ask): null when none is
  // free; the slot is free again when the holder goes.
  std::shared_ptr<void> Reserve();
  // A new job for `owner`, queued; null when every slot is taken.
  std::shared_ptr<Job> Submit(std::string question, std::string owner) EXCLUDES(jobs_mu_, queue_mu_);
  // Job `id` if `owner` asked it (another login's job is not found).
  std::shared_ptr<Job> Find(const std::string& id, const std::string& owner) EXCLUDES(jobs_mu_);
  int running() const { return running_.load(); }
  // Wakes whoever follows a job's events (the server is stopping).
  void WakeFollowers() EXCLUDES(jobs_mu_);
  // Stops the workers once the jobs running end; a job still queued ends as
  // failed, so its followers hear the end. Idempotent.
  void Stop() EXCLUDES(queue_mu_);

 private:
  bool TakeSlot();  // one slot reserved, or none free
  void Work() EXCLUDES(queue_mu_);
  void Finish(Job& job);

  const int slots_;
  const size_t keep_;
  std::function<void(Job&)> run_;
  std::atomic<int> running_{0};  // reserved slots: queued, running, or held
  Mutex jobs_mu_;
  std::map<std::string, std::shared_ptr<Job>> jobs_ GUARDED_BY(jobs_mu_);
  std::deque<std::string> order_ GUARDED_BY(jobs_mu_);  // ids, oldest first
  Mutex queue_mu_;
  std::condition_variable queue_cv_;
  std::deque<std::shared_ptr<Job>> queue_ GUARDED_BY(queue_mu_);
  bool stop_ GUARDED_BY(queue_mu_) = false;
  std::vector<std::thread> workers_;
};

}  // namespace umwelt::server_internal
