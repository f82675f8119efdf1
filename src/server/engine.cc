#include "engine.h"

#include <algorithm>

namespace umwelt::server_internal {

SearchPool::SearchPool(int threads, std::chrono::milliseconds max_wait) : max_wait_(max_wait) {
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
    while (!stop_ && queue_.empty()) cv_.wait(lock.native());
    if (queue_.empty()) return;  // stopping, nothing left
    Task* t = queue_.front();
    queue_.pop_front();
    t->started = true;
    progress_.notify_all();
    lock.unlock();
    (*t->fn)();
    lock.lock();
    t->done = true;
    progress_.notify_all();
  }
}

Status SearchPool::RunAll(const std::vector<std::function<void()>>& fns) {
  std::vector<Task> tasks(fns.size());
  for (size_t i = 0; i < fns.size(); ++i) tasks[i].fn = &fns[i];
  MutexLock lock(mu_);
  if (stop_) return Status::Unavailable("the server is shutting down");
  for (auto& t : tasks) queue_.push_back(&t);
  cv_.notify_all();
  // The tasks' flags are written under mu_ (Work), so reading them here, with
  // mu_ held, is safe; the lambdas below only run inside the waits.
  auto deadline = std::chrono::steady_clock::now() + max_wait_;
  bool all_started = progress_.wait_until(lock.native(), deadline, [&] {
    return std::all_of(tasks.begin(), tasks.end(), [](const Task& t) { return t.started; });
  });
  if (!all_started) {  // drop those not started; the started ones finish before their stack goes
    std::erase_if(queue_, [&](Task* q) { return q >= tasks.data() && q < tasks.data() + tasks.size(); });
  }
  progress_.wait(lock.native(), [&] {
    return std::all_of(tasks.begin(), tasks.end(), [](const Task& t) { return t.done || !t.started; });
  });
  if (!all_started) {
    return Status::Unavailable("the server is busy: this search could not start within " +
                               std::to_string(max_wait_.count()) + " ms; retry shortly");
  }
  return Status::Ok();
}

Result<SearchResponse> Engine::Search(const SearchRequest& r) {
  Result<SearchResponse> result = Status::Unavailable("the search did not run");
  UMWELT_RETURN_IF_ERROR(pool_.RunAll({[&] { result = searcher_.Search(r); }}));
  return result;
}

Result<MultiSearchResponse> Engine::SearchMulti(const std::vector<std::string>& queries, const SearchRequest& base,
                                                int total) {
  return searcher_.SearchMulti(queries, base, total,
                               [this](const std::vector<std::function<void()>>& tasks) { return pool_.RunAll(tasks); });
}

}  // namespace umwelt::server_internal
