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
#include "umwelt/search.h"
#include "umwelt/vector.h"

namespace umwelt::server_internal {

// The key of everything a search reads: the chunks, and each space's
// vectors; it changes whenever they do.
Result<std::string> StateKey(Corpus& corpus);

struct SearchRequest {
  SearchOptions search;
  bool fts_only = false, vec_only = false;
  std::vector<std::string> vec_texts;
  double vec_weight = 0.5;
};

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
  // Runs `task` on a pool thread and returns when it has run.
  Status Run(const std::function<void()>& task);

 private:
  struct Task {
    const std::function<void()>* fn;
    bool started = false, done = false;
    std::condition_variable cv;
  };
  void Work();
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Task*> queue_;  // guarded by mu_; the tasks live on their callers' stacks
  bool stop_ = false;        // guarded by mu_
  std::chrono::milliseconds max_wait_;
  std::vector<std::thread> threads_;
};

class Engine {
 public:
  Engine(std::string corpus_path, std::vector<SpaceConfig> configs, int concurrency,
         std::chrono::milliseconds max_wait = std::chrono::milliseconds(1000))
      : path_(std::move(corpus_path)), configs_(std::move(configs)), pool_(concurrency, max_wait) {}

  // Opens the indexes for the current corpus when its content changed since
  // the last load (the first call always loads).
  Status Refresh();
  // The worker's own read-only connection (reopened after the file was
  // replaced by a refresh).
  Result<Corpus*> Connection();
  Result<HybridResult> Search(const SearchRequest& r, bool* hybrid);
  std::string content_key();
  const std::string& path() const { return path_; }
  // Bumped when the corpus file is replaced: connections reopen.
  void FileReplaced() { ++generation_; }

 private:
  struct State {
    std::string key;
    std::unique_ptr<KeywordIndex> keyword;
    std::vector<Space> spaces;
    std::vector<std::string> notes;
  };
  std::shared_ptr<State> Current();
  Result<HybridResult> SearchOn(State& s, const SearchRequest& r, bool hybrid);

  std::string path_;
  std::vector<SpaceConfig> configs_;
  std::mutex mu_;          // guards state_
  std::mutex reload_mu_;   // one reload at a time
  std::shared_ptr<State> state_;
  std::atomic<uint64_t> generation_{1};
  SearchPool pool_;
};

}  // namespace umwelt::server_internal
