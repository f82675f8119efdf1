#include "umwelt/searcher.h"

#include <algorithm>
#include <cstdio>
#include <unordered_map>
#include <thread>

#include <nlohmann/json.hpp>

#include "umwelt/source_traits.h"
#include "umwelt/suggest.h"
#include "umwelt/text.h"

namespace umwelt {

Status ValidateSearchRequest(const SearchRequest& r) {
  if (r.search.query.empty()) return Status::Invalid("query is required");
  if (r.search.k < 1 || r.search.k > 1000) return Status::Invalid("k must be a whole number from 1 to 1000");
  if (r.fts_only && r.vec_only) return Status::Invalid("fts_only and vec_only exclude each other");
  if (!(r.vec_weight >= 0 && r.vec_weight <= 10)) return Status::Invalid("vec_weight must be a number from 0 to 10");
  return Status::Ok();
}

namespace {

std::string Decimal(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

std::vector<ParamTable<SearchRequest>::Param> SearchFilterParams() {
  using T = ParamType;
  using V = const ParamValue&;
  return {
      {{.name = "source", .type = T::kNames, .help = "Only these sources (comma-separated)", .max = 20, .choices = CorpusSources()},
       [](SearchRequest& r, V v) { r.search.sources = v.list; }},
      {{.name = "kind", .type = T::kNames, .help = "Only these kinds (issue, pr, comment, commit, message, run, page, …)", .max = 20},
       [](SearchRequest& r, V v) { r.search.kinds = v.list; }},
      {{.name = "since", .type = T::kDate, .help = "Only records dated on or after this ISO date"},
       [](SearchRequest& r, V v) { r.search.since = v.text; }},
      {{.name = "until", .type = T::kDate, .help = "Only records dated on or before this ISO date (a bare date: the whole day)"},
       [](SearchRequest& r, V v) { r.search.until = v.text; }},
      {{.name = "author", .type = T::kString, .help = "Only records by this author (login or name)", .max = 200},
       [](SearchRequest& r, V v) { r.search.author = v.text; }},
      {{.name = "fts_only", .type = T::kBool, .help = "Keyword leg only"}, [](SearchRequest& r, V v) { r.fts_only = v.flag; }},
      {{.name = "vec_only", .type = T::kBool, .help = "Vector legs only"}, [](SearchRequest& r, V v) { r.vec_only = v.flag; }},
      {{.name = "vec_text", .type = T::kList, .help = "Hypothetical answer text for the vector legs (HyDE; repeatable)", .max = 8},
       [](SearchRequest& r, V v) { r.vec_texts = v.list; }},
      {{.name = "vec_weight", .type = T::kNumber, .help = "Fusion weight of each vector leg (keyword: 1)", .min = 0, .max = 10,
        .fallback = Decimal(kDefaultVectorWeight)},
       [](SearchRequest& r, V v) { r.vec_weight = v.number; }},
      {{.name = "exact", .type = T::kBool,
        .help = "Vector legs scan every vector (a space of a million or more reads the lists nearest the query)"},
       [](SearchRequest& r, V v) { r.exact = v.flag; }},
      {{.name = "feedback", .type = T::kBool,
        .help = "Pseudo-relevance feedback: expand the keyword query with the terms of its top ten hits (≈ +1.7 ms)"},
       [](SearchRequest& r, V v) { r.search.tuning.prf_docs = v.flag ? kFeedbackDocs : 0; }},
  };
}

const ParamTable<SearchRequest>& SearchParams() {
  static const ParamTable<SearchRequest> table = [] {
    using T = ParamType;
    using V = const ParamValue&;
    ParamTable<SearchRequest> t;
    t.params = {
        {{.name = "query", .type = T::kString, .help = "What to look for", .required = true, .flag = "@", .http = "q"},
         [](SearchRequest& r, V v) { r.search.query = CollapseWhitespace(v.text); }},
        {{.name = "k", .type = T::kInt, .help = "Hits to return", .min = 1, .max = 1000, .fallback = "50", .flag = "-k"},
         [](SearchRequest& r, V v) { r.search.k = static_cast<int>(v.integer); }},
        {{.name = "group", .type = T::kString, .help = "thread: k threads, each with its best hits", .choices = {"none", "thread"}},
         [](SearchRequest& r, V v) { r.group_threads = v.text == "thread"; }},
    };
    for (auto& p : SearchFilterParams()) t.params.push_back(std::move(p));
    t.check = ValidateSearchRequest;
    return t;
  }();
  return table;
}

const ParamTable<MultiSearchRequest>& SearchMultiParams() {
  static const ParamTable<MultiSearchRequest> table = [] {
    using T = ParamType;
    using V = const ParamValue&;
    ParamTable<MultiSearchRequest> t;
    t.params = {
        {{.name = "queries", .type = T::kList, .help = "The sub-queries (1 to 20)", .max = 20, .required = true, .flag = "@",
          .http = "q"},
         [](MultiSearchRequest& r, V v) {
           r.queries.clear();
           for (const auto& q : v.list) r.queries.push_back(CollapseWhitespace(q));
         }},
        {{.name = "k", .type = T::kInt, .help = "Hits per sub-query", .min = 1, .max = 1000, .fallback = "50", .flag = "-k"},
         [](MultiSearchRequest& r, V v) { r.base.search.k = static_cast<int>(v.integer); }},
        {{.name = "total", .type = T::kInt, .help = "Hits to return in all", .min = 1, .max = 1000, .fallback = "60"},
         [](MultiSearchRequest& r, V v) { r.total = static_cast<int>(v.integer); }},
    };
    for (auto& p : SearchFilterParams()) {
      t.params.push_back({p.spec, [set = p.set](MultiSearchRequest& r, V v) { set(r.base, v); }});
    }
    t.check = [](const MultiSearchRequest& r) -> Status {
      for (const auto& q : r.queries) {
        if (q.empty()) return Status::Invalid("a query is empty");
      }
      SearchRequest first = r.base;
      first.search.query = r.queries.empty() ? "" : r.queries.front();
      return ValidateSearchRequest(first);
    };
    return t;
  }();
  return table;
}

std::string SearchResponseJson(const SearchRequest& request, const SearchResponse& response) {
  if (!response.grouped) return SearchJson(request.search.query, request.search.k, response.hybrid, response.result);
  return SearchResponseValue(request, response).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json SearchResponseValue(const SearchRequest& request, const SearchResponse& response) {
  if (!response.grouped) return SearchValue(request.search.query, request.search.k, response.hybrid, response.result);
  using json = nlohmann::json;
  HybridResult flat = response.result;
  flat.hits.clear();
  for (const auto& g : response.threads) flat.hits.insert(flat.hits.end(), g.hits.begin(), g.hits.end());
  json out = SearchValue(request.search.query, request.search.k, response.hybrid, flat);
  json threads = json::array();
  size_t next = 0;  // each group's hits, as SearchValue wrote them
  for (const auto& g : response.threads) {
    json hits = json::array();
    for (size_t i = 0; i < g.hits.size(); ++i) hits.push_back(out["hits"][next++]);
    threads.push_back({{"thread", g.thread}, {"title", g.title}, {"url", g.url}, {"score", g.score}, {"hits", hits}});
  }
  out["group"] = "thread";
  out["threads"] = std::move(threads);
  return out;
}

Status RunOnThreads(const std::vector<std::function<void()>>& tasks) {
  if (tasks.size() == 1) {
    tasks[0]();
    return Status::Ok();
  }
  std::vector<std::thread> threads;
  threads.reserve(tasks.size());
  for (const auto& t : tasks) threads.emplace_back(t);
  for (auto& t : threads) t.join();
  return Status::Ok();
}

Result<std::string> SearchStateKey(Corpus& corpus) {
  UMWELT_ASSIGN_OR_RETURN(std::string key, corpus.ContentKey());
  UMWELT_ASSIGN_OR_RETURN(auto spaces, CorpusSpaces(corpus));
  for (const auto& [space, model] : spaces) {
    UMWELT_ASSIGN_OR_RETURN(std::string v, corpus.VectorKey(space));
    key += "|" + space + "=" + model + ":" + v;
  }
  return key;
}

struct Searcher::State {
  std::string key;
  std::unique_ptr<KeywordIndex> keyword;
  std::vector<Space> spaces;
  std::vector<std::string> notes;
};

namespace {
std::atomic<uint64_t> next_searcher_id{1};
}  // namespace

Searcher::Searcher(std::string corpus_path, std::vector<SpaceConfig> configs, SearcherOptions options)
    : path_(std::move(corpus_path)), configs_(std::move(configs)), options_(options), id_(next_searcher_id++) {}

Searcher::~Searcher() = default;

void Searcher::FileReplaced() { ++generation_; }

namespace {
// A thread's read-only connection, for the Searcher `owner` at `generation`.
struct LocalConnection {
  uint64_t owner = 0;
  uint64_t generation = 0;
  std::unique_ptr<Corpus> corpus;
};
thread_local LocalConnection local_connection;
}  // namespace

Result<Corpus*> Searcher::Connection() {
  LocalConnection& local = local_connection;
  uint64_t gen = generation_.load();
  if (local.owner != id_ || local.generation != gen || !local.corpus) {
    local.corpus.reset();
    UMWELT_ASSIGN_OR_RETURN(local.corpus, Corpus::Open(path_, Corpus::Mode::kReadOnly));
    local.owner = id_;
    local.generation = gen;
  }
  return local.corpus.get();
}

std::shared_ptr<Searcher::State> Searcher::Current() {
  std::lock_guard<std::mutex> lock(mu_);
  return state_;
}

std::string Searcher::content_key() {
  auto s = Current();
  return s ? s->key : "";
}

size_t Searcher::ChunksNaming(std::string_view words) {
  auto s = Current();
  if (!s || !s->keyword) return 0;
  // A name of several words: no more chunks than its rarest word. A word is
  // named as a word or as a part of an identifier ("libpciaccess" in
  // XSERVER_LIBPCIACCESS), never inside another ("lease" in "release").
  size_t least = SIZE_MAX;
  for (const auto& w : Tokenize(words)) {
    least = std::min(least, s->keyword->DocFrequency(StemWord(w)) + s->keyword->PartFrequency(w));
  }
  return least == SIZE_MAX ? 0 : least;
}

Status Searcher::Refresh() {
  std::lock_guard<std::mutex> one(reload_mu_);
  UMWELT_ASSIGN_OR_RETURN(auto corpus, Corpus::Open(path_, Corpus::Mode::kReadOnly));
  UMWELT_ASSIGN_OR_RETURN(std::string key, SearchStateKey(*corpus));
  if (auto cur = Current(); cur && cur->key == key) return Status::Ok();
  auto next = std::make_shared<State>();
  next->key = key;
  UMWELT_ASSIGN_OR_RETURN(next->keyword, KeywordIndex::Open(*corpus));
  if (!options_.keyword_only) {
    VectorFileOptions files;
    if (options_.one_shot) files.rows = RowReads::kPread;
    UMWELT_ASSIGN_OR_RETURN(next->spaces, LoadSpaces(*corpus, configs_, &next->notes, files));
    // Shared by concurrent searches: one thread at a time in each embedder.
    for (auto& sp : next->spaces) sp.embedder = SerializedEmbedder(std::move(sp.embedder));
  }
  // A long-lived searcher (a server, MCP, ask) maps in what every search
  // reads before the new state serves any: its first searches after a load
  // or a refresh cost what the later ones do. A one-shot search reads only
  // what its query touches.
  if (!options_.one_shot) {
    next->keyword->Prefetch();
    for (const auto& sp : next->spaces) sp.index->Prefetch();
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    state_ = std::move(next);
  }
  // The connection that loaded the state serves this thread's searches (a
  // one-shot CLI search opens the corpus once).
  if (LocalConnection& local = local_connection; local.owner != id_ || !local.corpus) {
    local = {id_, generation_.load(), std::move(corpus)};
  }
  return Status::Ok();
}

// Hits ranked for grouping: this many per thread asked for.
constexpr int kGroupDepth = 4;

namespace {

// When nothing matched and a kind asked for is one no source declares (a
// slip, or a reference corpus's own), says so, with the nearest known kind.
void NoteUnknownKinds(const SearchOptions& search, SearchResponse* out) {
  if (!out->result.hits.empty() || search.kinds.empty()) return;
  std::vector<std::string> known;
  for (const auto& s : AllSourceTraits()) {
    for (const auto& k : s.kinds) known.emplace_back(k.kind);
  }
  for (const auto& kind : search.kinds) {
    if (std::find(known.begin(), known.end(), kind) != known.end()) continue;
    out->result.notes.push_back("no source declares kind `" + std::string(TruncateUtf8(kind, 64)) + "`" +
                                DidYouMean(kind, known));
  }
}

}  // namespace

Result<SearchResponse> Searcher::Search(const SearchRequest& request) {
  UMWELT_RETURN_IF_ERROR(ValidateSearchRequest(request));
  if (!request.group_threads) {
    UMWELT_ASSIGN_OR_RETURN(SearchResponse out, SearchFlat(request));
    NoteUnknownKinds(request.search, &out);
    return out;
  }
  SearchRequest deeper = request;
  deeper.search.k = std::min(1000, request.search.k * kGroupDepth);
  UMWELT_ASSIGN_OR_RETURN(SearchResponse out, SearchFlat(deeper));
  out.grouped = true;
  out.threads = GroupByThread(out.result.hits, static_cast<size_t>(request.search.k));
  NoteUnknownKinds(request.search, &out);
  return out;
}

void Searcher::Rerank(Corpus& corpus, const SearchRequest& r, SearchResponse* out) {
  std::vector<Hit>& hits = out->result.hits;
  size_t top = std::min(hits.size(), static_cast<size_t>(std::max(0, r.rerank_top)));
  if (!reranker_ || top < 2) return;
  std::vector<int64_t> ids;
  for (size_t i = 0; i < top; ++i) ids.push_back(hits[i].chunk_id);
  auto rows = corpus.ChunksById(ids);
  if (!rows.ok()) {
    out->result.notes.push_back("rerank skipped: " + rows.status().message());
    return;
  }
  std::unordered_map<int64_t, const Chunk*> by_id;
  for (const auto& c : *rows) by_id[c.id] = &c;
  std::vector<std::string> texts;
  for (size_t i = 0; i < top; ++i) {
    auto it = by_id.find(hits[i].chunk_id);
    texts.push_back(it == by_id.end() ? hits[i].title + "\n" + hits[i].snippet
                                      : it->second->title + "\n" + it->second->text);
  }
  auto scores = reranker_->Score(r.search.query, texts);
  if (!scores.ok()) {
    out->result.notes.push_back("rerank skipped (the ranking stands): " + scores.status().message());
    return;
  }
  std::vector<size_t> order(top);
  for (size_t i = 0; i < top; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return (*scores)[a] > (*scores)[b]; });
  std::vector<Hit> reranked;
  for (size_t i : order) {
    reranked.push_back(std::move(hits[i]));
    reranked.back().score = (*scores)[i];
    reranked.back().via.push_back("rerank");
  }
  std::move(reranked.begin(), reranked.end(), hits.begin());
}

Result<SearchResponse> Searcher::SearchFlat(const SearchRequest& r) {
  std::shared_ptr<State> s = Current();
  if (!s) return Status::Unavailable("the search indexes are still loading");
  UMWELT_ASSIGN_OR_RETURN(Corpus * corpus, Connection());
  SearchResponse out;
  out.hybrid = !r.fts_only && (!s->spaces.empty() || r.vec_only);
  if (!out.hybrid) {
    if (!r.vec_texts.empty() && !r.fts_only) out.result.notes.push_back("vec_text ignored: no vector space");
    UMWELT_ASSIGN_OR_RETURN(out.result.hits, umwelt::Search(*corpus, *s->keyword, r.search));
    out.result.notes.insert(out.result.notes.begin(), s->notes.begin(), s->notes.end());
    Rerank(*corpus, r, &out);
    return out;
  }
  HybridOptions ho;
  ho.search = r.search;
  ho.vec_only = r.vec_only;
  ho.vec_texts = r.vec_texts;
  ho.vector_weight = r.vec_weight;
  ho.exact = r.exact;
  UMWELT_ASSIGN_OR_RETURN(out.result, HybridSearch(*corpus, *s->keyword, s->spaces, ho));
  out.result.notes.insert(out.result.notes.begin(), s->notes.begin(), s->notes.end());
  Rerank(*corpus, r, &out);
  return out;
}

Result<MultiSearchResponse> Searcher::SearchMulti(const std::vector<std::string>& queries, const SearchRequest& base,
                                                  int total, const TaskRunner& run) {
  if (queries.empty() || queries.size() > 20) return Status::Invalid("give 1 to 20 queries");
  if (total < 1 || total > 1000) return Status::Invalid("total must be a whole number from 1 to 1000");
  std::vector<Result<SearchResponse>> results(queries.size(), Status::Unavailable("the sub-query did not run"));
  std::vector<std::function<void()>> tasks;
  for (size_t i = 0; i < queries.size(); ++i) {
    if (queries[i].empty()) return Status::Invalid("an empty query");
    tasks.push_back([&, i] {
      SearchRequest r = base;
      r.search.query = queries[i];
      results[i] = Search(r);
    });
  }
  UMWELT_RETURN_IF_ERROR(run(tasks));
  MultiSearchResponse out;
  out.queries = queries;
  out.total = total;
  std::vector<HybridResult> lists;
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i].ok()) return results[i].status().WithContext("sub-query \"" + queries[i] + "\"");
    lists.push_back(std::move(results[i]->result));
  }
  out.hits = MergeMulti(queries, lists, static_cast<size_t>(total), &out.notes);
  return out;
}

}  // namespace umwelt
