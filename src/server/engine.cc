#include "engine.h"

#include <algorithm>

namespace umwelt::server_internal {

SearchPool::SearchPool(int threads, std::chrono::milliseconds max_wait, size_t max_queued_per_client)
    : max_wait_(max_wait), max_queued_per_client_(std::max<size_t>(1, max_queued_per_client)) {
  for (int i = 0; i < std::max(1, threads); ++i) threads_.emplace_back([this] { Work(); });
}

SearchPool::~SearchPool() {
  {
    MutexLock lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void SearchPool::Work() {
  MutexLock lock(mu_);
  while (true) {
    while (!stop_ && turns_.empty()) cv_.wait(lock.native());
    if (turns_.empty()) return;  // stopping, nothing left
    std::string client = std::move(turns_.front());
    turns_.pop_front();
    auto& mine = queues_[client];
    Task* t = mine.front();
    mine.pop_front();
    if (mine.empty()) {
      queues_.erase(client);
    } else {
      turns_.push_back(std::move(client));  // its next task waits for everyone else's turn
    }
    t->started = true;
    t->progress->notify_one();  // only its caller waits on it
    lock.unlock();
    (*t->fn)();
    lock.lock();
    t->done = true;
    t->progress->notify_one();
  }
}

size_t SearchPool::queued() {
  MutexLock lock(mu_);
  size_t n = 0;
  for (const auto& [client, waiting] : queues_) n += waiting.size();
  return n;
}

Status SearchPool::RunAll(const std::vector<std::function<void()>>& fns, const std::string& client) {
  // Each call waits on a condition of its own, so a task's start or end
  // wakes its caller alone, not every connection waiting on the pool.
  std::condition_variable progress;
  std::vector<Task> tasks(fns.size());
  for (size_t i = 0; i < fns.size(); ++i) tasks[i] = {&fns[i], &progress};
  MutexLock lock(mu_);
  if (stop_) return Status::Unavailable("the server is shutting down");
  if (tasks.empty()) return Status::Ok();
  auto& mine = queues_[client];
  if (!mine.empty() && mine.size() + tasks.size() > max_queued_per_client_) {
    return Status::Unavailable("the server is busy with this address's searches (" + std::to_string(mine.size()) +
                               " waiting); retry shortly");
  }
  if (mine.empty()) turns_.push_back(client);
  for (auto& t : tasks) mine.push_back(&t);
  if (tasks.size() == 1) {
    cv_.notify_one();
  } else {
    cv_.notify_all();
  }
  // The tasks' flags are written under mu_ (Work), so reading them here, with
  // mu_ held, is safe; the lambdas below only run inside the waits.
  auto deadline = std::chrono::steady_clock::now() + max_wait_;
  bool all_started = progress.wait_until(lock.native(), deadline, [&] {
    return std::all_of(tasks.begin(), tasks.end(), [](const Task& t) { return t.started; });
  });
  if (!all_started) {  // drop those not started; the started ones finish before their stack goes
    auto it = queues_.find(client);
    if (it != queues_.end()) {
      std::erase_if(it->second, [&](Task* q) { return q >= tasks.data() && q < tasks.data() + tasks.size(); });
      if (it->second.empty()) {
        queues_.erase(it);
        std::erase(turns_, client);
      }
    }
  }
  progress.wait(lock.native(), [&] {
    return std::all_of(tasks.begin(), tasks.end(), [](const Task& t) { return t.done || !t.started; });
  });
  if (!all_started) {
    return Status::Unavailable("the server is busy: this search could not start within " +
                               std::to_string(max_wait_.count()) + " ms; retry shortly");
  }
  return Status::Ok();
}

Result<SearchResponse> Engine::Search(const SearchRequest& r, const std::string& client) {
  Result<SearchResponse> result = Status::Unavailable("the search did not run");
  UMWELT_RETURN_IF_ERROR(pool_.RunAll({[&] { result = searcher_.Search(r); }}, client));
  return result;
}

Result<MultiSearchResponse> Engine::SearchMulti(const std::vector<std::string>& queries, const SearchRequest& base,
                                                int total, const std::string& client) {
  return searcher_.SearchMulti(queries, base, total, [this, &client](const std::vector<std::function<void()>>& tasks) {
    return pool_.RunAll(tasks, client);
  });
}

}  // namespace umwelt::server_internal
