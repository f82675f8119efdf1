// Internal to server/: the corpus snapshot clients download (/manifest.json,
// /corpus-index.db), rebuilt when the corpus changed.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "umwelt/corpus.h"
#include "umwelt/thread_annotations.h"

namespace umwelt::server_internal {

// A consistent copy of the corpus at `path` (Corpus::Snapshot), without the
// vector spaces a client cannot embed queries for, made again only when the
// corpus's search state changed since the last one. Thread-safe: one
// rebuild at a time; readers get a snapshot's facts and an open file that
// keeps its bytes even when a newer snapshot replaces the name.
class SnapshotCache {
 public:
  struct Info {
    std::string sha256;
    int64_t bytes = 0;
    int64_t made_at = 0;      // epoch seconds
    nlohmann::json spaces;    // the spaces it carries: name -> model
    nlohmann::json left_out;  // name -> why it stays on the server
  };
  explicit SnapshotCache(std::string path) : path_(std::move(path)) {}

  // The current snapshot's facts, made first if `corpus` changed since.
  Result<Info> Ensure(Corpus& corpus) EXCLUDES(mu_);
  // Ensure, then the snapshot opened for reading (the caller closes *fd).
  Result<Info> Open(Corpus& corpus, int* fd) EXCLUDES(mu_);

 private:
  Status Rebuild(Corpus& corpus) REQUIRES(mu_);

  const std::string path_;
  Mutex mu_;
  std::string key_ GUARDED_BY(mu_);  // the search state it was made from
  Info info_ GUARDED_BY(mu_);
};

}  // namespace umwelt::server_internal
