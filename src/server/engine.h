// Internal to server/: the search state shared by the connections.
//
// Each search thread reads through its own read-only connection; the keyword
// index and vector spaces are opened once and shared (embedders serialized),
// and swapped whole when the corpus changes, so a request never waits for a
// rebuild and always sees one committed state.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "umwelt/corpus.h"
#include "umwelt/searcher.h"
#include "umwelt/thread_annotations.h"

namespace umwelt::server_internal {

// Runs searches on `threads` threads of its own, in arrival order. The
// per-thread search buffers (the keyword leg's corpus-sized accumulators, a
// read connection each) exist `threads` times whatever the number of
// connections; a burst queues fairly instead of every connection contending
// for the cores; and a search that cannot start within `max_wait` is refused
// (Unavailable), so an overloaded server answers 503 at once instead of
// letting requests wait seconds. Thread-safe.
class SearchPool {
 public:
  SearchPool(int threads, std::chrono::milliseconds max_wait);
  ~SearchPool();
  SearchPool(const SearchPool&) = delete;
  SearchPool& operator=(const SearchPool&) = delete;
  // Runs every task on the pool's threads, concurrently as threads free up,
  // and returns when all have run; when one cannot start within max_wait,
  // those not started are dropped (the rest finish) and it fails. A TaskRunner.
  Status RunAll(const std::vector<std::function<void()>>& tasks);

 private:
  struct Task {
    const std::function<void()>* fn;
    bool started = false, done = false;
  };
  void Work() EXCLUDES(mu_);
  Mutex mu_;
  std::condition_variable cv_;        // work arrived, or stopping
  std::condition_variable progress_;  // a task started or finished
  std::deque<Task*> queue_ GUARDED_BY(mu_);  // the tasks live on their callers' stacks
  bool stop_ GUARDED_BY(mu_) = false;
  std::chrono::milliseconds max_wait_;
  std::vector<std::thread> threads_;
};

// The server's search state: the library Searcher (indexes opened once,
// swapped whole when the corpus changes), with every search and sub-query
// run on the bounded pool.
class Engine {
 public:
  Engine(std::string corpus_path, std::vector<SpaceConfig> configs, int concurrency,
         std::chrono::milliseconds max_wait = std::chrono::milliseconds(1000))
      : searcher_(std::move(corpus_path), std::move(configs)), pool_(concurrency, max_wait) {}

  Status Refresh() { return searcher_.Refresh(); }
  Result<Corpus*> Connection() { return searcher_.Connection(); }
  Result<SearchResponse> Search(const SearchRequest& r);
  Result<MultiSearchResponse> SearchMulti(const std::vector<std::string>& queries, const SearchRequest& base, int total);
  std::string content_key() { return searcher_.content_key(); }
  const std::string& path() const { return searcher_.path(); }
  void FileReplaced() { searcher_.FileReplaced(); }
  Searcher& searcher() { return searcher_; }
  // Runs tasks on the pool (a TaskRunner).
  Status RunAll(const std::vector<std::function<void()>>& tasks) { return pool_.RunAll(tasks); }

 private:
  Searcher searcher_;
  SearchPool pool_;
};

}  // namespace umwelt::server_internal
