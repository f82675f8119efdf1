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
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "http_server.h"
#include "umwelt/corpus.h"
#include "umwelt/searcher.h"
#include "umwelt/thread_annotations.h"

namespace umwelt::server_internal {

// Runs searches on `threads` threads of its own. The per-thread search
// buffers (the keyword leg's corpus-sized accumulators, a read connection
// each) exist `threads` times whatever the number of connections; a burst
// queues instead of every connection contending for the cores; and a search
// that cannot start within `max_wait` is refused (Unavailable), so an
// overloaded server answers 503 at once instead of letting requests wait
// seconds. Fair between clients: each client (an address, see ClientKey)
// has a queue of its own, the threads take one task from each in turn, and
// a client with `max_queued_per_client` tasks waiting is refused at once, so
// one address flooding the pool delays another's search by at most one
// task per other client. Thread-safe.
class SearchPool {
 public:
  SearchPool(int threads, std::chrono::milliseconds max_wait, size_t max_queued_per_client = 16);
  ~SearchPool();
  SearchPool(const SearchPool&) = delete;
  SearchPool& operator=(const SearchPool&) = delete;
  // Runs every task on the pool's threads, concurrently as threads free up,
  // and returns when all have run; when one cannot start within max_wait,
  // those not started are dropped (the rest finish) and it fails. A TaskRunner.
  Status RunAll(const std::vector<std::function<void()>>& tasks, const std::string& client = "");
  // Tasks waiting for a thread, all clients together.
  size_t queued() EXCLUDES(mu_);

 private:
  struct Task {
    const std::function<void()>* fn;
    std::condition_variable* progress;  // its caller's: a task started or finished
    bool started = false, done = false;
  };
  void Work() EXCLUDES(mu_);
  Mutex mu_;
  std::condition_variable cv_;        // work arrived, or stopping
  // Each client's waiting tasks (they live on their callers' stacks), and the
  // clients with any, in the order they take turns.
  std::map<std::string, std::deque<Task*>> queues_ GUARDED_BY(mu_);
  std::deque<std::string> turns_ GUARDED_BY(mu_);
  bool stop_ GUARDED_BY(mu_) = false;
  std::chrono::milliseconds max_wait_;
  size_t max_queued_per_client_;
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
  // `client` (ClientKey) shares the pool fairly with other clients.
  Result<SearchResponse> Search(const SearchRequest& r, const std::string& client = "");
  Result<MultiSearchResponse> SearchMulti(const std::vector<std::string>& queries, const SearchRequest& base, int total,
                                          const std::string& client = "");
  std::string content_key() { return searcher_.content_key(); }
  const std::string& path() const { return searcher_.path(); }
  void FileReplaced() { searcher_.FileReplaced(); }
  Searcher& searcher() { return searcher_; }
  // Runs tasks on the pool as `client`'s (a TaskRunner when bound to one).
  Status RunAll(const std::vector<std::function<void()>>& tasks, const std::string& client = "") {
    return pool_.RunAll(tasks, client);
  }

 private:
  Searcher searcher_;
  SearchPool pool_;
};

}  // namespace umwelt::server_internal
