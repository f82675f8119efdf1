// Internal to server/: the search state shared by the workers.
//
// Each worker thread reads through its own read-only connection; the keyword
// index and vector spaces are opened once and shared (embedders serialized),
// and swapped whole when the corpus changes, so a request never waits for a
// rebuild and always sees one committed state.
#pragma once

#include <atomic>
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

// Lets at most `limit` callers in at once, in arrival order: under a burst,
// searches queue fairly instead of every worker thread contending for the
// cores (which stretched the slowest requests to seconds).
class FifoGate {
 public:
  explicit FifoGate(int limit) : limit_(limit) {}
  void Enter();
  void Leave();

 private:
  struct Waiter {
    std::condition_variable cv;
    bool admitted = false;
  };
  std::mutex mu_;
  std::deque<Waiter*> queue_;  // each waiter is woken alone, in order
  int active_ = 0, limit_;
};

class Engine {
 public:
  Engine(std::string corpus_path, std::vector<SpaceConfig> configs, int concurrency)
      : path_(std::move(corpus_path)), configs_(std::move(configs)), gate_(concurrency) {}

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

  std::string path_;
  std::vector<SpaceConfig> configs_;
  std::mutex mu_;          // guards state_
  std::mutex reload_mu_;   // one reload at a time
  std::shared_ptr<State> state_;
  std::atomic<uint64_t> generation_{1};
  FifoGate gate_;
};

}  // namespace umwelt::server_internal
