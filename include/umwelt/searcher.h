// umwelt/searcher.h — search as one capability, whoever asks.
//
// The CLI's flags, the server's query strings and MCP's tool arguments all
// parse into one SearchRequest and run through one Searcher: the corpus's
// keyword index and vector spaces are opened once per process (or per server
// state) and shared by every query, sub-query and facet; each thread reads
// through a read-only connection of its own.
//
//   Searcher s(corpus_path, configs);
//   UMWELT_RETURN_IF_ERROR(s.Refresh());
//   UMWELT_ASSIGN_OR_RETURN(SearchResponse r, s.Search(request));
//
// A Searcher is safe for concurrent searches. Refresh() swaps in the indexes
// of a changed corpus whole, so a search always sees one committed state.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "umwelt/corpus.h"
#include "umwelt/params.h"
#include "umwelt/rerank.h"
#include "umwelt/search.h"
#include "umwelt/vector.h"

namespace umwelt {

// One search: the query and filters, and how the legs combine.
struct SearchRequest {
  SearchOptions search;               // query, k, filters
  bool fts_only = false;              // keyword leg only
  bool vec_only = false;              // vector legs only
  std::vector<std::string> vec_texts; // HyDE texts for the vector legs
  double vec_weight = kDefaultVectorWeight;  // fusion weight of each vector leg (keyword: 1)
  bool exact = false;                 // vector legs scan every vector (a large space reads the nearest lists)
  bool group_threads = false;         // also group by thread: `k` threads from a deeper ranking
  int rerank_top = 50;                // with a reranker (Searcher::SetReranker): reorder this many
};
// search's parameters (umwelt/params.h): the query, k, the filters, the legs
// and `group`; every front door reads a SearchRequest through it.
const ParamTable<SearchRequest>& SearchParams();
// The filters and legs search, search-multi and context share: source, kind,
// since, until, author, fts_only, vec_only, vec_text, vec_weight, feedback.
std::vector<ParamTable<SearchRequest>::Param> SearchFilterParams();

// Several queries at once, merged (search-multi).
struct MultiSearchRequest {
  std::vector<std::string> queries;  // 1 to 20
  SearchRequest base;                // filters and legs; k hits per query
  int total = 60;                    // hits in all
};
const ParamTable<MultiSearchRequest>& SearchMultiParams();


// The one check every transport applies: a query, k from 1 to 1000, legs that
// do not exclude each other, a weight from 0 to 10. Names the field at fault.
Status ValidateSearchRequest(const SearchRequest& request);

struct SearchResponse {
  HybridResult result;  // hits, code lanes, notes
  bool hybrid = false;  // whether vector legs ran
  bool grouped = false;  // whether `threads` holds the ranking grouped by thread
  std::vector<ThreadGroup> threads;
};

// `search --json`'s object (SearchJson); grouped, also "group": "thread" and
// "threads": [{thread, title, url, score, hits}], with "hits" the groups'
// hits in their order.
nlohmann::json SearchResponseValue(const SearchRequest& request, const SearchResponse& response);
std::string SearchResponseJson(const SearchRequest& request, const SearchResponse& response);

struct MultiSearchResponse {
  std::vector<std::string> queries;
  int total = 0;
  std::vector<MultiHit> hits;
  std::vector<std::string> notes;
};

// Runs every task and returns when all have run: the CLI runs them on
// threads of their own, the server on its bounded search pool. Fails (and
// runs none) when it cannot take them (an overloaded server).
using TaskRunner = std::function<Status(const std::vector<std::function<void()>>& tasks)>;
// Each task on a thread of its own.
Status RunOnThreads(const std::vector<std::function<void()>>& tasks);

struct SearcherOptions {
  bool keyword_only = false;  // open no vector space
  // The process searches once and exits (the CLI): the vector codes it scans
  // and the rows it rescores are read with pread, not through the mapping
  // (RowReads), and nothing is mapped in at load beyond what the query reads
  // (a long-lived searcher prefetches).
  bool one_shot = false;
};

class Searcher {
 public:
  // `configs`: the embedders for the corpus's spaces (see LoadSpaces).
  Searcher(std::string corpus_path, std::vector<SpaceConfig> configs, SearcherOptions options = {});
  ~Searcher();
  Searcher(const Searcher&) = delete;
  Searcher& operator=(const Searcher&) = delete;

  // Opens the indexes for the current corpus when its content changed since
  // the last load (the first call always loads). Fails on a missing or
  // unreadable corpus.
  Status Refresh();
  // This thread's read-only connection (reopened after FileReplaced()).
  Result<Corpus*> Connection();
  // Call when the corpus file was replaced whole: connections reopen.
  void FileReplaced();

  Result<SearchResponse> Search(const SearchRequest& request);
  // Reorders the top `rerank_top` prose hits of every search by `reranker`'s
  // scores over each hit's title and text; when it fails, the ranking stands
  // and the response carries a note. Set before searches start.
  void SetReranker(std::shared_ptr<Reranker> reranker) { reranker_ = std::move(reranker); }
  // Each of `queries` as `base` with that query, run through `run`, merged by
  // reciprocal rank into at most `total` hits. 1 to 20 queries.
  Result<MultiSearchResponse> SearchMulti(const std::vector<std::string>& queries, const SearchRequest& base,
                                          int total, const TaskRunner& run = RunOnThreads);

  // How many of the corpus's chunks name `words` (each word, as the keyword
  // index stems it or as a part of an identifier; at most the rarest word's
  // count); 0 before the first Refresh().
  size_t ChunksNaming(std::string_view words);

  // The key of everything a search reads ("" before the first Refresh()).
  std::string content_key();
  const std::string& path() const { return path_; }

 private:
  struct State;
  std::shared_ptr<State> Current();
  Result<SearchResponse> SearchFlat(const SearchRequest& request);
  void Rerank(Corpus& corpus, const SearchRequest& request, SearchResponse* response);
  std::shared_ptr<Reranker> reranker_;

  std::string path_;
  std::vector<SpaceConfig> configs_;
  SearcherOptions options_;
  std::mutex mu_;         // guards state_
  std::mutex reload_mu_;  // one reload at a time
  std::shared_ptr<State> state_;
  const uint64_t id_;  // tells this Searcher's connections from another's at the same address
  std::atomic<uint64_t> generation_{1};
};

// The key of everything a search reads: the chunks, and each space's
// vectors; it changes whenever they do.
Result<std::string> SearchStateKey(Corpus& corpus);

}  // namespace umwelt
