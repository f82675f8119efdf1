// Hybrid search: the keyword leg and one leg per vector space, fused by
// their scaled scores (or reciprocal rank), in lanes.
#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include <nlohmann/json.hpp>
#include <set>

#include "umwelt/pattern.h"
#include "umwelt/source_traits.h"
#include "umwelt/text.h"
#include "umwelt/vector.h"

namespace umwelt {
namespace {

constexpr double kRrfK = 60.0;

struct Fused {
  int64_t chunk_id = 0;
  double score = 0;
  double best_leg_score = -1;  // which leg's chunk represents the url
  std::vector<std::string> via;
};

// The query vector of one space: the embedded query, or the mean of the
// embedded HyDE texts. Fails when nothing embeds to a usable vector.
Result<std::vector<float>> QueryVector(Embedder& e, const HybridOptions& o) {
  std::vector<std::string> texts = o.vec_texts.empty() ? std::vector<std::string>{o.search.query} : o.vec_texts;
  UMWELT_ASSIGN_OR_RETURN(auto vectors, e.Embed(texts));
  std::vector<float> q;
  for (const auto& v : vectors) {
    if (q.empty()) q.assign(v.size(), 0.0f);
    if (v.size() != q.size()) return Status::Corrupt("embedder returned vectors of different sizes");
    for (size_t k = 0; k < v.size(); ++k) q[k] += v[k];
  }
  if (q.empty() || !Normalize(&q)) return Status::Invalid("no word of the query is known to the model");
  return q;
}

// Whether `space` can hold any chunk the lane's source filters admit: a code
// lane never scans the prose space, nor the prose lane the code space.
bool SpaceServes(const std::string& space, const SearchOptions& search) {
  if (!search.sources.empty()) {
    return std::any_of(search.sources.begin(), search.sources.end(),
                       [&](const std::string& s) { return SpaceCovers(space, s); });
  }
  // Unless every source in the space is excluded.
  std::vector<std::string> in_space = SourcesInSpace(space);
  return in_space.empty() || !std::all_of(in_space.begin(), in_space.end(), [&](const std::string& s) {
    return std::find(search.exclude_sources.begin(), search.exclude_sources.end(), s) != search.exclude_sources.end();
  });
}

// How deep each leg of a lane ranks for its best `k`.
size_t LegK(const SearchOptions& search) { return std::max<size_t>(static_cast<size_t>(search.k) * 2, 100); }

// One lane: fuse the legs for `search` and return its best `k` hits. The
// keyword leg's ranking (LegK deep) comes ranked: none for --vec-only.
Result<std::vector<Hit>> Lane(Corpus& corpus, const KeywordIndex& keyword, std::vector<Space>& spaces,
                              const std::vector<std::vector<float>>& qvecs, const HybridOptions& o,
                              const SearchOptions& search, const std::optional<Result<std::vector<ScoredDoc>>>& ranked,
                              std::vector<std::string>* notes) {
  size_t k = static_cast<size_t>(search.k);
  size_t leg_k = LegK(search);
  UMWELT_ASSIGN_OR_RETURN(auto filter, keyword.Filter(search));
  std::map<int64_t, Fused> by_url;
  auto add = [&](const std::vector<ScoredDoc>& list, const std::string& leg, double weight) {
    // Score fusion: each leg's scores min-max scaled to [0, 1] over its list,
    // never rising down the list (the keyword leg ranks exact matches above
    // expansion-only ones whatever their scores, and fusion keeps that order).
    std::vector<double> scores;
    for (const auto& d : list) scores.push_back(scores.empty() ? d.score : std::min(scores.back(), d.score));
    const double hi = scores.empty() ? 0 : scores.front(), lo = scores.empty() ? 0 : scores.back();
    const double span = hi > lo ? hi - lo : 1.0;
    for (size_t r = 0; r < list.size(); ++r) {
      int64_t url = filter(list[r].chunk_id);
      if (url < 0) continue;
      Fused& f = by_url[url];
      double leg_score = o.fusion == Fusion::kScores ? weight * (scores[r] - lo) / span
                                                     : weight / (kRrfK + static_cast<double>(r + 1));
      f.score += leg_score;
      if (leg_score > f.best_leg_score) {
        f.best_leg_score = leg_score;
        f.chunk_id = list[r].chunk_id;
      }
      if (std::find(f.via.begin(), f.via.end(), leg) == f.via.end()) f.via.push_back(leg);
    }
  };
  if (ranked) {
    if (!ranked->ok()) {
      // A query with no keyword words can still have a vector leg.
      if (ranked->status().code() != Code::kInvalidArgument || spaces.empty()) return ranked->status();
      notes->push_back("keyword leg skipped: " + ranked->status().message());
    } else {
      add(**ranked, "keyword", 1.0);
      // Name the expansion-only hits as such.
      for (const auto& d : **ranked) {
        if (d.exact) continue;
        int64_t url = filter(d.chunk_id);
        if (url < 0) continue;
        auto& via = by_url[url].via;
        std::replace(via.begin(), via.end(), std::string("keyword"), std::string("keyword-expanded"));
      }
    }
  }
  for (size_t i = 0; i < spaces.size(); ++i) {
    if (qvecs[i].empty() || !SpaceServes(spaces[i].name, search)) continue;
    auto near = spaces[i].index->Nearest(qvecs[i], [&](int64_t id) { return filter(id) >= 0; }, leg_k, o.exact);
    if (!near.ok()) {
      notes->push_back("space " + spaces[i].name + " skipped: " + near.status().message());
      continue;
    }
    add(*near, spaces[i].name, o.vector_weight);
  }
  std::vector<Fused> all;
  for (auto& [url, f] : by_url) all.push_back(f);
  std::sort(all.begin(), all.end(), [](const Fused& a, const Fused& b) {
    return a.score != b.score ? a.score > b.score : a.chunk_id < b.chunk_id;
  });
  if (all.size() > k) all.resize(k);
  std::vector<ScoredDoc> fused;
  for (const auto& f : all) fused.push_back({f.chunk_id, f.score, false});
  UMWELT_ASSIGN_OR_RETURN(auto hits, LoadHits(corpus, fused, search.query));
  std::map<int64_t, const Fused*> by_chunk;
  for (const auto& f : all) by_chunk[f.chunk_id] = &f;
  for (auto& h : hits) h.via = by_chunk[h.chunk_id]->via;
  return hits;
}

}  // namespace

// How a code window's file serves a question in words: source and docs (0)
// before tests (1) before data — JSON, CSV, lock files, fixtures,
// generated or vendored files, snapshots (2).
int FileClass(std::string_view path) {
  static const Pattern data(
      R"((\.(json|jsonl|ndjson|csv|tsv|lock|snap|svg|ipynb|parquet|arrow|pb|min\.js|min\.css)$)|(^|/)(fixtures?|testdata|golden|__snapshots__|vendor|vendored|third_party|node_modules|generated|dist)/|(^|/)(package-lock\.json|go\.sum)$)",
      Pattern::kIgnoreCase);
  static const Pattern test(R"((^|/)(tests?|e2e|spec|__tests__)/|(^|/)test_[^/]*$|_test\.[a-z]+$|\.(test|spec)\.[a-z]+$)",
                            Pattern::kIgnoreCase);
  if (data.Search(path)) return 2;
  if (test.Search(path)) return 1;
  return 0;
}

namespace {

// Whether the query asks for such files itself: a path or file name, or
// the words for them.
bool AsksForFiles(std::string_view query) {
  static const Pattern asks(R"([\w-]+\.[a-z]{1,5}\b|/|\b(tests?|json|csv|fixtures?|data ?files?|lock ?files?|e2e)\b)",
                            Pattern::kIgnoreCase);
  return asks.Search(query);
}

// The code lane as a reader wants it: one hit per file (its best window),
// source before tests before data unless the query asks for them, at most k.
std::vector<Hit> OrderCodeLane(std::vector<Hit> hits, std::string_view query, size_t k) {
  // A window's file: its title before the symbol ("src/loss.py — zloss",
  // "[branch] src/loss.py — zloss"), under its thread (a file on main; a
  // branch's windows share the branch's thread).
  auto path = [](const Hit& h) { return std::string_view(h.title).substr(0, h.title.find(" \xE2\x80\x94 ")); };
  std::set<std::string> files;
  std::erase_if(hits, [&](const Hit& h) { return !files.insert(h.parent + "\x1f" + std::string(path(h))).second; });
  if (!AsksForFiles(query)) {
    std::stable_sort(hits.begin(), hits.end(), [&](const Hit& a, const Hit& b) {
      auto file = [&](const Hit& h) {  // without a branch tag
        std::string_view p = path(h);
        return p.size() > 2 && p[0] == '[' && p.find("] ") != std::string_view::npos ? p.substr(p.find("] ") + 2) : p;
      };
      return FileClass(file(a)) < FileClass(file(b));
    });
  }
  if (hits.size() > k) hits.resize(k);
  return hits;
}

}  // namespace

namespace {

// The query's vector in each space (empty where a space is skipped, with a
// note saying why).
struct QueryVectors {
  std::vector<std::vector<float>> vecs;
  std::vector<std::string> notes;
};

QueryVectors EmbedQuery(std::vector<Space>& spaces, const HybridOptions& o) {
  QueryVectors out;
  out.vecs.resize(spaces.size());
  for (size_t i = 0; i < spaces.size(); ++i) {
    auto q = QueryVector(*spaces[i].embedder, o);
    if (!q.ok()) {
      out.notes.push_back("space " + spaces[i].name + " skipped: " + q.status().message());
      continue;
    }
    if (static_cast<int>(q->size()) != spaces[i].index->dim()) {
      out.notes.push_back("space " + spaces[i].name + " skipped: the embedder gave " + std::to_string(q->size()) +
                          "-d vectors; the space holds " + std::to_string(spaces[i].index->dim()) + "-d");
      continue;
    }
    out.vecs[i] = std::move(q).value();
  }
  return out;
}

// Whether embedding the query waits on a model server (any space's model is
// not the builtin one, whose table is already in memory).
bool EmbedsRemotely(const std::vector<Space>& spaces) {
  return std::any_of(spaces.begin(), spaces.end(),
                     [](const Space& s) { return s.embedder && s.embedder->model().rfind("builtin:", 0) != 0; });
}

}  // namespace

Result<HybridResult> HybridSearch(Corpus& corpus, const KeywordIndex& keyword, std::vector<Space>& spaces,
                                  const HybridOptions& o) {
  if (o.search.k <= 0) return Status::Invalid("-k must be positive, got " + std::to_string(o.search.k));
  if (CollapseWhitespace(o.search.query).empty() && o.vec_texts.empty()) {
    return Status::Invalid("the query is empty");
  }
  // The lanes: the primary one, and code's own unless the search asked for
  // code.
  static const std::vector<std::string> code_sources = SourcesInSpace("code");
  bool code_primary = std::any_of(o.search.sources.begin(), o.search.sources.end(),
                                  [](const std::string& s) { return SpaceOf(s) == "code"; });
  std::vector<SearchOptions> lanes(1, o.search);
  if (!code_primary && lanes[0].sources.empty()) {
    for (const auto& s : code_sources) lanes[0].exclude_sources.push_back(s);
  }
  if (!code_primary && o.search.sources.empty() && o.search.kinds.empty() && o.code_k > 0) {
    for (bool branch : {false, true}) {
      SearchOptions code = o.search;
      code.sources = code_sources;
      code.kinds = CodeKinds(branch);
      code.k = std::min(o.code_k * 4, 200);  // room for one window per file and the files a question wants first
      lanes.push_back(std::move(code));
    }
  }
  // A model server's round trip (and, in a fresh process, loading the HTTP
  // library) is the longest part of a hybrid search: the keyword legs rank,
  // and the vector files are read in, while it runs on a thread of its own.
  // Only that thread touches the embedders; only this one the corpus.
  QueryVectors embedded;
  std::exception_ptr failed;
  std::atomic<bool> pending{true};  // the embedding thread has not answered yet
  std::thread embedding;
  struct Joined {  // the thread ends before what it writes, even if this one throws
    std::thread& t;
    ~Joined() {
      if (t.joinable()) t.join();
    }
  } joined{embedding};
  const bool overlap = !spaces.empty() && EmbedsRemotely(spaces);
  if (overlap) {
    embedding = std::thread([&] {
      try {
        embedded = EmbedQuery(spaces, o);
      } catch (...) {
        failed = std::current_exception();
      }
      pending.store(false, std::memory_order_release);
    });
  } else {
    embedded = EmbedQuery(spaces, o);
  }
  std::vector<std::optional<Result<std::vector<ScoredDoc>>>> ranked(lanes.size());
  if (!o.vec_only) {
    for (size_t i = 0; i < lanes.size(); ++i) ranked[i] = RankKeyword(corpus, keyword, lanes[i], LegK(lanes[i]));
  }
  if (overlap) {
    for (const auto& sp : spaces) sp.index->PrefetchWhile(pending);
    embedding.join();
    if (failed) std::rethrow_exception(failed);
  }
  HybridResult result;
  result.notes = std::move(embedded.notes);
  const auto& qvecs = embedded.vecs;
  size_t usable = static_cast<size_t>(
      std::count_if(qvecs.begin(), qvecs.end(), [](const std::vector<float>& v) { return !v.empty(); }));
  if (usable == 0 && (o.vec_only || Tokenize(o.search.query).empty())) {
    if (!o.vec_only) {
      return Status::Invalid("the query `" + std::string(TruncateUtf8(o.search.query, 80)) + "` has no searchable words");
    }
    std::string why = result.notes.empty() ? "the corpus has no vector space (run `umwelt index`)" : result.notes.front();
    return Status::Unavailable("--vec-only: no vector leg can run: " + why);
  }
  UMWELT_ASSIGN_OR_RETURN(result.hits, Lane(corpus, keyword, spaces, qvecs, o, lanes[0], ranked[0], &result.notes));
  for (size_t i = 1; i < lanes.size(); ++i) {
    std::vector<std::string> lane_notes;
    auto hits = Lane(corpus, keyword, spaces, qvecs, o, lanes[i], ranked[i], &lane_notes);
    std::vector<Hit>& lane = i == 1 ? result.code_main : result.code_branches;
    if (hits.ok()) lane = OrderCodeLane(std::move(hits).value(), o.search.query, static_cast<size_t>(o.code_k));
  }
  return result;
}

namespace {

nlohmann::json HitJson(const Hit& h) {
  return {{"source", h.source}, {"kind", h.kind}, {"ref", h.ref}, {"parent", h.parent}, {"title", h.title},
          {"author", h.author}, {"date", h.date}, {"url", h.url}, {"snippet", h.snippet}, {"score", h.score},
          {"via", h.via}};
}

class Serialized final : public Embedder {
 public:
  explicit Serialized(std::unique_ptr<Embedder> inner) : inner_(std::move(inner)) {}
  std::string model() const override { return inner_->model(); }
  int dim() const override { return inner_->dim(); }
  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts) override {
    std::lock_guard<std::mutex> lock(mu_);
    return inner_->Embed(texts);
  }

 private:
  std::mutex mu_;
  std::unique_ptr<Embedder> inner_;
};

}  // namespace

std::unique_ptr<Embedder> SerializedEmbedder(std::unique_ptr<Embedder> inner) {
  return std::make_unique<Serialized>(std::move(inner));
}

namespace {

// Appends `s` as a JSON string, escaped as nlohmann's dump escapes valid
// UTF-8; false when `s` is not valid UTF-8 (dump's replacement is its own).
bool AppendJsonString(std::string* out, std::string_view s) {
  if (!IsValidUtf8(s)) return false;
  out->push_back('"');
  size_t plain = 0;  // start of the run of bytes copied as they are
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out->append(s.substr(plain, i - plain));
    plain = i + 1;
    switch (c) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\b': *out += "\\b"; break;
      case '\f': *out += "\\f"; break;
      case '\n': *out += "\\n"; break;
      case '\r': *out += "\\r"; break;
      case '\t': *out += "\\t"; break;
      default: {
        static constexpr char kHex[] = "0123456789abcdef";
        *out += "\\u00";
        out->push_back(kHex[c >> 4]);
        out->push_back(kHex[c & 0xF]);
      }
    }
  }
  out->append(s.substr(plain));
  out->push_back('"');
  return true;
}

// A number as dump writes it: null when not finite, else Grisu2's digits.
void AppendJsonNumber(std::string* out, double v) {
  if (!std::isfinite(v)) {
    *out += "null";
    return;
  }
  std::array<char, 64> buf{};
  char* end = nlohmann::detail::to_chars(buf.data(), buf.data() + buf.size(), v);
  out->append(buf.data(), static_cast<size_t>(end - buf.data()));
}

bool AppendHitJson(std::string* out, const Hit& h) {
  // The keys in dump's (sorted) order.
  const std::pair<const char*, const std::string*> before[] = {
      {"{\"author\":", &h.author}, {",\"date\":", &h.date}, {",\"kind\":", &h.kind},
      {",\"parent\":", &h.parent}, {",\"ref\":", &h.ref}};
  for (const auto& [key, value] : before) {
    *out += key;
    if (!AppendJsonString(out, *value)) return false;
  }
  *out += ",\"score\":";
  AppendJsonNumber(out, h.score);
  const std::pair<const char*, const std::string*> after[] = {
      {",\"snippet\":", &h.snippet}, {",\"source\":", &h.source}, {",\"title\":", &h.title}, {",\"url\":", &h.url}};
  for (const auto& [key, value] : after) {
    *out += key;
    if (!AppendJsonString(out, *value)) return false;
  }
  *out += ",\"via\":[";
  for (size_t i = 0; i < h.via.size(); ++i) {
    if (i > 0) out->push_back(',');
    if (!AppendJsonString(out, h.via[i])) return false;
  }
  *out += "]}";
  return true;
}

bool AppendHitsJson(std::string* out, const char* key, const std::vector<Hit>& hits) {
  *out += key;
  out->push_back('[');
  for (size_t i = 0; i < hits.size(); ++i) {
    if (i > 0) out->push_back(',');
    if (!AppendHitJson(out, hits[i])) return false;
  }
  out->push_back(']');
  return true;
}

// SearchValue's dump written directly (a served search spent a fifth of its
// time building and freeing that tree); false for text that is not valid
// UTF-8, which dump writes with its replacement characters.
bool WriteSearchJson(std::string* out, const std::string& query, int k, bool hybrid, const HybridResult& r) {
  size_t size = 256;
  for (const auto& h : r.hits) size += 160 + h.snippet.size() + h.title.size() + h.url.size() + h.ref.size();
  out->reserve(size);
  *out += "{";
  if (hybrid) {
    if (!AppendHitsJson(out, "\"code_branches\":", r.code_branches)) return false;
    if (!AppendHitsJson(out, ",\"code_main\":", r.code_main)) return false;
    *out += ",";
  }
  if (!AppendHitsJson(out, "\"hits\":", r.hits)) return false;
  *out += ",\"k\":" + std::to_string(k) + ",\"mode\":" + (hybrid ? "\"hybrid\"" : "\"keyword\"") + ",\"notes\":[";
  for (size_t i = 0; i < r.notes.size(); ++i) {
    if (i > 0) out->push_back(',');
    if (!AppendJsonString(out, r.notes[i])) return false;
  }
  *out += "],\"query\":";
  if (!AppendJsonString(out, query)) return false;
  *out += "}";
  return true;
}

}  // namespace

std::string SearchJson(const std::string& query, int k, bool hybrid, const HybridResult& r) {
  std::string out;
  if (WriteSearchJson(&out, query, k, hybrid, r)) return out;
  return SearchValue(query, k, hybrid, r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json SearchValue(const std::string& query, int k, bool hybrid, const HybridResult& r) {
  using json = nlohmann::json;
  json out = {{"query", query}, {"k", k}, {"mode", hybrid ? "hybrid" : "keyword"}};
  out["hits"] = json::array();
  for (const auto& h : r.hits) out["hits"].push_back(HitJson(h));
  if (hybrid) {
    out["code_main"] = json::array();
    out["code_branches"] = json::array();
    for (const auto& h : r.code_main) out["code_main"].push_back(HitJson(h));
    for (const auto& h : r.code_branches) out["code_branches"].push_back(HitJson(h));
  }
  out["notes"] = r.notes;
  return out;
}

std::vector<MultiHit> MergeMulti(const std::vector<std::string>& queries, std::vector<HybridResult>& results,
                                 size_t total, std::vector<std::string>* notes) {
  std::map<std::string, MultiHit> by_url;
  for (size_t i = 0; i < results.size() && i < queries.size(); ++i) {
    for (auto& n : results[i].notes) notes->push_back(n);
    for (size_t rank = 0; rank < results[i].hits.size(); ++rank) {
      Hit& h = results[i].hits[rank];
      MultiHit& m = by_url[h.url.empty() ? h.ref : h.url];
      if (m.queries.empty()) m.hit = h;
      m.score += 1.0 / (60.0 + static_cast<double>(rank + 1));
      m.queries.push_back(queries[i]);
      for (const auto& v : h.via) {
        if (std::find(m.hit.via.begin(), m.hit.via.end(), v) == m.hit.via.end()) m.hit.via.push_back(v);
      }
    }
  }
  std::vector<MultiHit> merged;
  for (auto& [url, m] : by_url) merged.push_back(std::move(m));
  std::sort(merged.begin(), merged.end(), [](const MultiHit& x, const MultiHit& y) {
    return x.score != y.score ? x.score > y.score : x.hit.url < y.hit.url;
  });
  if (merged.size() > total) merged.resize(total);
  std::sort(notes->begin(), notes->end());
  notes->erase(std::unique(notes->begin(), notes->end()), notes->end());
  return merged;
}

std::string SearchMultiJson(const std::vector<std::string>& queries, int total, const std::vector<MultiHit>& hits,
                            const std::vector<std::string>& notes) {
  return SearchMultiValue(queries, total, hits, notes).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json SearchMultiValue(const std::vector<std::string>& queries, int total, const std::vector<MultiHit>& hits,
                                const std::vector<std::string>& notes) {
  using json = nlohmann::json;
  json out = {{"queries", queries}, {"total", total}, {"hits", json::array()}, {"notes", notes}};
  for (const auto& m : hits) {
    json h = HitJson(m.hit);
    h["score"] = m.score;
    h["queries"] = m.queries;
    out["hits"].push_back(h);
  }
  return out;
}

}  // namespace umwelt
