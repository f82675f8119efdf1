// umwelt/search.h — keyword search over a corpus.
//
// Ranking is BM25 over two channels built from the same chunks: the exact
// channel (the words of text and title, title weighted higher) and the
// expanded channel (identifier parts: `syms` on the index side, camelCase /
// snake_case splits of query words on the query side). A hit that matches any
// exact query word always ranks above one that matches only through
// expansion.
//
// The index is a side file, memory-mapped, built from the corpus and keyed to
// its content: beside the corpus when that folder is writable, else in the
// user's cache folder. chunks_fts (FTS5) stays in the corpus for other
// clients; this index replaces it for ranking because it scores without
// FTS5's per-row cost (see README, "Keyword search").
//
// A KeywordIndex is immutable once open and safe for concurrent searches.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "umwelt/corpus.h"
#include "umwelt/status.h"

namespace umwelt {

struct SearchOptions {
  std::string query;
  int k = 50;
  std::vector<std::string> sources;  // empty: any
  std::vector<std::string> kinds;    // empty: any
  std::vector<std::string> exclude_sources;  // never these (the prose lane leaves out code)
  std::string since;                 // ISO date or date-time, inclusive; "" = open
  std::string until;                 // inclusive (a bare date means the whole day)
  std::string author;                // exact login / name; "" = any
  bool fts_only = true;              // keyword leg only (hybrid search: umwelt/vector.h)
};

struct Hit {
  int64_t chunk_id = 0;
  std::string source, kind, ref, parent, title, author, date, url;
  std::string snippet;
  double score = 0;
  std::vector<std::string> via;  // legs that found it: "keyword", "keyword-expanded", a space name
};

struct ScoredDoc {
  int64_t chunk_id;
  double score;
  bool exact;  // matched an exact query word (tier 1)
};

class KeywordIndex {
 public:
  // Opens the index for `corpus`, building and caching it when it is missing
  // or stale. `cache_dir` overrides where a read-only corpus's index goes.
  static Result<std::unique_ptr<KeywordIndex>> Open(Corpus& corpus, const std::string& cache_dir = "");
  // Builds the index for `corpus` into `path` (atomically replaced).
  static Status Build(Corpus& corpus, const std::string& path);
  // Where Open() keeps the index of `corpus`.
  static std::string PathFor(const Corpus& corpus, const std::string& cache_dir = "");

  virtual ~KeywordIndex() = default;

  // The ranked chunks for `options` (query and filters), best first, one per
  // url, at most `limit`. Fails on a query with no searchable words.
  virtual Result<std::vector<ScoredDoc>> Rank(const SearchOptions& options, size_t limit) const = 0;
  virtual size_t num_docs() const = 0;

  // For other legs (vectors): maps a chunk id to its url id when the chunk
  // passes `options`' filters, else to -1. Fails on bad filter values.
  using DocFilter = std::function<int64_t(int64_t chunk_id)>;
  virtual Result<DocFilter> Filter(const SearchOptions& options) const = 0;
};

// Keyword search: ranks, then reads each hit's row for display, with a
// snippet around the first matching word.
Result<std::vector<Hit>> Search(Corpus& corpus, const KeywordIndex& index, const SearchOptions& options);

// Reads the rows of `ranked` chunks (skipping any removed since) and cuts
// snippets around the words of `query`.
Result<std::vector<Hit>> LoadHits(Corpus& corpus, const std::vector<ScoredDoc>& ranked, const std::string& query);

// The words keyword search matches on: lower-case runs of letters, digits and
// `_` (and a `.` between digits), as the index tokenizes them.
std::vector<std::string> Tokenize(std::string_view text);

}  // namespace umwelt
