#include "jobs.h"

#include <pthread.h>

#include "server_impl.h"

namespace umwelt::server_internal {

JobQueue::JobQueue(int slots, std::function<void(Job&)> run, size_t keep)
    : slots_(slots), keep_(keep), run_(std::move(run)) {}

JobQueue::~JobQueue() { Stop(); }

void JobQueue::Start() {
  for (int i = 0; i < slots_; ++i) workers_.emplace_back([this] { Work(); });
}

bool JobQueue::TakeSlot() {
  // Count first: checking, then counting, would let two callers that come
  // together both take the last slot.
  if (running_.fetch_add(1) < slots_) return true;
  --running_;
  return false;
}

std::shared_ptr<void> JobQueue::Reserve() {
  if (!TakeSlot()) return nullptr;
  return std::shared_ptr<void>(static_cast<void*>(this), [this](void*) { --running_; });
}

std::shared_ptr<Job> JobQueue::Submit(std::string question, std::string owner) {
  if (!TakeSlot()) return nullptr;
  auto job = std::make_shared<Job>();
  job->id = Random128();
  job->question = std::move(question);
  job->owner = std::move(owner);
  {
    MutexLock lock(jobs_mu_);
    while (order_.size() >= keep_) {
      auto old = jobs_.find(order_.front());
      if (old != jobs_.end() && !old->second->finished) break;
      if (old != jobs_.end()) jobs_.erase(old);
      order_.pop_front();
    }
    jobs_[job->id] = job;
    order_.push_back(job->id);
  }
  {
    MutexLock lock(queue_mu_);
    queue_.push_back(job);
  }
  queue_cv_.notify_one();
  return job;
}

std::shared_ptr<Job> JobQueue::Find(const std::string& id, const std::string& owner) {
  MutexLock lock(jobs_mu_);
  auto it = jobs_.find(id);
  return it == jobs_.end() || it->second->owner != owner ? nullptr : it->second;
}

void JobQueue::WakeFollowers() {
  MutexLock lock(jobs_mu_);
  for (auto& [id, job] : jobs_) job->cv.notify_all();
}

void JobQueue::Stop() {
  {
    MutexLock lock(queue_mu_);  // a worker between its check and its wait still hears this
    stop_ = true;
  }
  queue_cv_.notify_all();
  for (auto& t : workers_) {
    if (t.joinable()) t.join();
  }
  workers_.clear();
  WakeFollowers();
}

void JobQueue::Finish(Job& job) {
  --running_;
  MutexLock lock(job.mu);
  job.finished = true;
  job.cv.notify_all();
}

// One worker: takes the oldest queued job until stopped; a job still queued
// then ends as failed, so whoever follows its events hears the end.
void JobQueue::Work() {
  pthread_setname_np(pthread_self(), "umwelt-ask");  // as ps -T and /proc/PID/task show it
  MutexLock lock(queue_mu_);
  while (true) {
    while (!stop_ && queue_.empty()) queue_cv_.wait(lock.native());
    if (queue_.empty()) return;
    std::shared_ptr<Job> job = std::move(queue_.front());
    queue_.pop_front();
    bool stopping = stop_;
    lock.unlock();
    if (stopping) {
      MutexLock jl(job->mu);
      job->state = "failed";
      job->error = "the server stopped before the question was taken up";
      job->cv.notify_all();
    } else {
      run_(*job);
    }
    Finish(*job);
    lock.lock();
  }
}

}  // namespace umwelt::server_internal
