// Opens the keyword index (building it when stale) and ranks queries over it.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include <xxhash.h>

#include "bm25f.h"
#include "index_format.h"
#include "lsa.h"
#include "umwelt/file.h"
#include "umwelt/search.h"
#include "umwelt/text.h"

namespace umwelt {
namespace ii = index_internal;

namespace {

std::string CacheDir(const std::string& override_dir) {
  if (!override_dir.empty()) return override_dir;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/umwelt";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/umwelt";
  return "/tmp/umwelt-cache";
}

struct QueryChannel;
struct QueryTerms;
struct Cand;

class MappedIndex final : public KeywordIndex {
 public:
  // Maps `path` (any content key); returns NotFound when absent, Corrupt
  // when unusable.
  static Result<std::unique_ptr<MappedIndex>> Map(const std::string& path) {
    UMWELT_ASSIGN_OR_RETURN(auto file, MappedFile::Open(path, sizeof(ii::Header)));
    std::unique_ptr<MappedIndex> m(new MappedIndex());
    m->file_ = std::move(file);
    UMWELT_RETURN_IF_ERROR(ii::ReadLayout(*m->file_, path, &m->h_));
    m->n_idf_ = m->h_.n_docs;
    return m;
  }
  const ii::Header& header() const { return h_; }
  const MappedFile& file() const { return *file_; }

  // Makes `base` and `delta` (a delta segment of it) one collection: each
  // scores with both files' document counts and frequencies (the base's
  // masked documents still counted, as Lucene counts deleted ones until a
  // merge), and the base passes over what the delta masks. Corrupt when the
  // delta's mask does not fit the base.
  static Status Pair(MappedIndex* base, MappedIndex* delta, const std::string& delta_path) {
    const uint32_t* masked = delta->Sec<uint32_t>(ii::kMasked);
    const size_t n_masked = delta->h_.size[ii::kMasked] / 4;
    base->masked_.assign(base->h_.n_docs, false);
    for (size_t i = 0; i < n_masked; ++i) {
      if (masked[i] >= base->h_.n_docs || (i > 0 && masked[i] <= masked[i - 1])) {
        return Status::Corrupt(delta_path + ": masks documents its base does not hold");
      }
      base->masked_[masked[i]] = true;
    }
    base->n_masked_ = n_masked;
    base->peer_ = delta;
    delta->peer_ = base;
    base->n_idf_ = delta->n_idf_ = uint64_t{base->h_.n_docs} + delta->h_.n_docs;
    return Status::Ok();
  }

  size_t num_docs() const override { return h_.n_docs - n_masked_; }
  void Prefetch() const override {
    for (int s : {ii::kChunkIds, ii::kLenBody, ii::kLenTitle, ii::kLenSyms, ii::kSourceIds, ii::kKindIds, ii::kDates,
                  ii::kAuthorIds, ii::kUrlIds, ii::kTermOffsets, ii::kTermBlob, ii::kTermPostings, ii::kStrOffsets,
                  ii::kStrBlob, ii::kUrlKeys, ii::kMasked}) {
      file_->Populate(h_.offset[s], h_.size[s]);
    }
  }
  size_t DocFrequency(std::string_view term) const override {
    size_t n = OwnExactDf(term);
    return peer_ ? n + peer_->OwnExactDf(term) : n;
  }
  size_t PartFrequency(std::string_view word) const override {
    size_t n = OwnSymsDf(word);
    return peer_ ? n + peer_->OwnSymsDf(word) : n;
  }

  Result<std::vector<ScoredDoc>> Rank(const SearchOptions& o, size_t limit) const override {
    return Score(o, limit, false, nullptr);
  }
  Result<std::vector<ScoredDoc>> RankExhaustive(const SearchOptions& o, size_t limit) const override {
    return Score(o, limit, true, nullptr);
  }
  // The ranking with each hit's url key (kUrlKeys) in `keys`, for merging
  // segments.
  Result<std::vector<ScoredDoc>> RankKeyed(const SearchOptions& o, size_t limit, bool exhaustive,
                                           std::vector<uint64_t>* keys) const {
    return Score(o, limit, exhaustive, keys);
  }

  Result<DocFilter> Filter(const SearchOptions& o) const override;

  // The per-document test for one query's filters.
  struct Filters;
  Result<Filters> MakeFilters(const SearchOptions& o) const;
  // `chunk_id`'s url key (63 bits) when this file holds it, unmasked, and it
  // passes `f`; else -1.
  int64_t UrlOf(const Filters& f, int64_t chunk_id) const;

 private:
  size_t OwnExactDf(std::string_view term) const {
    const ii::TermEntry* e = Find(term);
    return e ? e->exact_n : 0;
  }
  size_t OwnSymsDf(std::string_view word) const {
    const ii::TermEntry* e = Find(word);
    return e ? e->syms_n : 0;
  }
  bool Masked(uint32_t d) const { return !masked_.empty() && masked_[d]; }
  uint64_t UrlKey(uint32_t d) const {
    uint32_t url = Sec<uint32_t>(ii::kUrlIds)[d];
    return url < h_.n_urls ? Sec<uint64_t>(ii::kUrlKeys)[url] : (uint64_t{1} << 62) + url;
  }

  // The query's channels, its filters, then one of the two rankings.
  Result<std::vector<ScoredDoc>> Score(const SearchOptions& o, size_t limit, bool exhaustive,
                                       std::vector<uint64_t>* keys) const;
  // The query's postings lists, in the order the scores are summed.
  std::vector<QueryChannel> Channels(const SearchOptions& o, const QueryTerms& q, const ii::Fields& text,
                                     const ii::Fields& syms) const;
  // MaxScore in two tiers (exact matches, then expansion only).
  std::vector<Cand> RankPruned(const std::vector<QueryChannel>& channels,
                               const std::function<bool(uint32_t)>& pass, size_t limit) const;
  // Every posting into dense accumulators: the reference.
  std::vector<Cand> RankAccumulated(const std::vector<QueryChannel>& channels,
                                    const std::function<bool(uint32_t)>& pass, size_t limit) const;

  // Per-document accumulators for one search (the exhaustive path). They are corpus-sized, so
  // zeroing (and faulting in) a fresh pair per query costs more than the
  // scoring: searches borrow them from a pool and return them clean
  // (cleared through the touched lists). The pool holds as many as searches
  // ran at once, at most kMaxIdleScratch kept idle: memory follows the
  // concurrency actually used, not the number of threads that ever searched.
  struct Scratch {
    std::vector<float> exact, expanded;
    std::vector<uint32_t> touched_exact, touched_expanded;
  };
  static constexpr size_t kMaxIdleScratch = 4;
  std::unique_ptr<Scratch> Borrow() const {
    {
      std::lock_guard<std::mutex> lock(scratch_mu_);
      if (!idle_.empty()) {
        auto s = std::move(idle_.back());
        idle_.pop_back();
        return s;
      }
    }
    auto s = std::make_unique<Scratch>();
    s->exact.assign(h_.n_docs, 0.0f);
    s->expanded.assign(h_.n_docs, 0.0f);
    return s;
  }
  void Return(std::unique_ptr<Scratch> s) const {
    for (uint32_t d : s->touched_exact) s->exact[d] = 0;
    for (uint32_t d : s->touched_expanded) s->expanded[d] = 0;
    s->touched_exact.clear();
    s->touched_expanded.clear();
    std::lock_guard<std::mutex> lock(scratch_mu_);
    if (idle_.size() < kMaxIdleScratch) idle_.push_back(std::move(s));
  }
  mutable std::mutex scratch_mu_;
  mutable std::vector<std::unique_ptr<Scratch>> idle_;  // guarded by scratch_mu_

  template <typename T>
  const T* Sec(int id) const {
    return ii::SectionOf<T>(*file_, h_, id);
  }

  std::string_view Term(uint32_t i) const { return ii::TermAt(*file_, h_, i); }
  std::string_view Str(uint32_t i) const {
    const uint32_t* off = Sec<uint32_t>(ii::kStrOffsets);
    return std::string_view(Sec<char>(ii::kStrBlob) + off[i], off[i + 1] - off[i]);
  }
  const ii::TermEntry* Find(std::string_view term) const {
    uint32_t lo = 0, hi = h_.n_terms;
    while (lo < hi) {
      uint32_t mid = lo + (hi - lo) / 2;
      if (Term(mid) < term) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= h_.n_terms || Term(lo) != term) return nullptr;
    const ii::TermEntry* e = Sec<ii::TermEntry>(ii::kTermPostings) + lo;
    return ii::InBounds(h_, *e) ? e : nullptr;  // a damaged entry finds nothing, never reads past the file
  }
  // Ids (within [first, first+count)) of strings in `names`.
  std::vector<bool> Allowed(uint32_t first, uint32_t count, const std::vector<std::string>& names) const {
    std::vector<bool> allowed(count, names.empty());
    for (uint32_t i = 0; i < count; ++i) {
      for (const auto& n : names) {
        if (Str(first + i) == n) allowed[i] = true;
      }
    }
    return allowed;
  }

  std::unique_ptr<MappedFile> file_;
  ii::Header h_{};
  // With a delta segment (Pair): the documents counted for idf, the other
  // file (its frequencies added to this one's), and this base's documents
  // the delta deletes or replaces.
  uint64_t n_idf_ = 0;
  const MappedIndex* peer_ = nullptr;
  std::vector<bool> masked_;
  size_t n_masked_ = 0;
};

// The per-document test for one query's filters.
struct MappedIndex::Filters {
  std::vector<bool> src_ok, kind_ok;
  int64_t since = std::numeric_limits<int64_t>::min(), until = std::numeric_limits<int64_t>::max();
  bool date_filter = false;
  int64_t author = -1;  // -1 any; -2 none match
  const uint8_t* src;
  const uint8_t* kind;
  const int64_t* dates;
  const uint32_t* authors;
  bool NonePass() const {
    return std::find(src_ok.begin(), src_ok.end(), true) == src_ok.end() ||
           std::find(kind_ok.begin(), kind_ok.end(), true) == kind_ok.end() || author == -2;
  }
  bool Pass(uint32_t d) const {
    if (!src_ok[src[d]] || !kind_ok[kind[d]]) return false;
    if (date_filter && (dates[d] < since || dates[d] > until)) return false;
    if (author != -1 && static_cast<int64_t>(authors[d]) != author) return false;
    return true;
  }
};


Result<MappedIndex::Filters> MappedIndex::MakeFilters(const SearchOptions& o) const {
  Filters f;
  f.src_ok = Allowed(0, h_.n_sources, o.sources);
  for (uint32_t i = 0; i < h_.n_sources; ++i) {
    for (const auto& x : o.exclude_sources) {
      if (Str(i) == x) f.src_ok[i] = false;
    }
  }
  f.kind_ok = Allowed(h_.n_sources, h_.n_kinds, o.kinds);
  if (f.src_ok.empty()) f.src_ok.push_back(false);
  if (f.kind_ok.empty()) f.kind_ok.push_back(false);
  if (!o.since.empty()) {
    auto t = ParseIsoTime(o.since);
    if (!t) return Status::Invalid("since must be an ISO-8601 date (2024-05-01 or 2024-05-01T10:00:00Z), not `" + std::string(TruncateUtf8(o.since, 64)) + "`");
    f.since = *t;
  }
  if (!o.until.empty()) {
    auto t = ParseIsoTime(o.until);
    if (!t) return Status::Invalid("until must be an ISO-8601 date (2024-05-01 or 2024-05-01T10:00:00Z), not `" + std::string(TruncateUtf8(o.until, 64)) + "`");
    f.until = *t + (o.until.size() == 10 ? 86399 : 0);
  }
  f.date_filter = !o.since.empty() || !o.until.empty();
  if (!o.author.empty()) {
    f.author = -2;
    for (uint32_t i = 0; i < h_.n_authors; ++i) {
      if (Str(h_.n_sources + h_.n_kinds + i) == o.author) f.author = i;
    }
  }
  f.src = Sec<uint8_t>(ii::kSourceIds);
  f.kind = Sec<uint8_t>(ii::kKindIds);
  f.dates = Sec<int64_t>(ii::kDates);
  f.authors = Sec<uint32_t>(ii::kAuthorIds);
  return f;
}


Result<KeywordIndex::DocFilter> MappedIndex::Filter(const SearchOptions& o) const {
  UMWELT_ASSIGN_OR_RETURN(Filters f, MakeFilters(o));
  return DocFilter([this, f](int64_t chunk_id) -> int64_t { return UrlOf(f, chunk_id); });
}

int64_t MappedIndex::UrlOf(const Filters& f, int64_t chunk_id) const {
  const int64_t* ids = Sec<int64_t>(ii::kChunkIds);
  const int64_t* end = ids + h_.n_docs;
  const int64_t* it = ii::LowerBoundDense(ids, h_.n_docs, chunk_id);
  if (it == end || *it != chunk_id) return -1;
  uint32_t d = static_cast<uint32_t>(it - ids);
  if (Masked(d) || !f.Pass(d)) return -1;
  return static_cast<int64_t>(UrlKey(d) & static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
}

using ii::Channel;
using ii::DefaultScoring;
using ii::Fields;
using ii::TermScore;

// The most one posting of `c` can add: `max`, the highest weight-1 score
// of its postings that the index stores for the default scoring, else
// BM25's saturation, tf (k1 + 1) / (tf + k1), which stays below k1 + 1
// whatever the lengths and frequencies; a hair more for the rounding.
double UpperBound(const Channel& c, const Fields& f, float max) {
  double part = DefaultScoring(*f.t) && max > 0 ? max : f.t->k1 + 1;
  return c.weight * part * (1 + 1e-5) + 1e-9;
}

void Accumulate(const Channel& c, const Fields& f, float* acc, std::vector<uint32_t>* touched) {
  for (uint32_t i = 0; i < c.n; ++i) {
    uint32_t d = c.docs[i];
    if (acc[d] == 0) touched->push_back(d);
    acc[d] += TermScore(c, f, i, d);
  }
}

// A query's terms: stems with their counts (the exact channel), spellings
// with theirs (identifier parts stored in symbols), and the parts of the
// query's own identifiers ("parseHTTPResponse" -> parse, http, response).
struct QueryTerms {
  std::vector<std::pair<std::string, double>> stems, spellings, part_stems, part_spellings;
};

void Count(std::vector<std::pair<std::string, double>>* terms, std::string term, double weight) {
  for (auto& [t, w] : *terms) {
    if (t == term) {
      w += weight;
      return;
    }
  }
  terms->emplace_back(std::move(term), weight);
}

// "Qt 6", "Python 3", "GPT 4": a name and a small number after it, which
// are as often written as one word (qt6), joined. Query side only: a text
// saying "step 2" indexes no step2.
std::vector<std::string> NumberedNames(std::string_view query) {
  auto letter = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; };
  auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  std::vector<std::string> out;
  for (size_t i = 0; i < query.size() && out.size() < 16;) {
    if (!letter(query[i]) || (i > 0 && (alnum(query[i - 1]) || query[i - 1] == '_' || query[i - 1] == '-'))) {
      ++i;
      continue;
    }
    size_t e = i;
    while (e < query.size() && letter(query[e])) ++e;
    size_t d = e + 1, n = d;
    while (n < query.size() && std::isdigit(static_cast<unsigned char>(query[n])) != 0) ++n;
    bool number = e < query.size() && query[e] == ' ' && n > d && n - d <= 2 && (n == query.size() || !alnum(query[n]));
    if (number && e - i >= 2 && e - i <= 24) {
      std::string joined(query.substr(i, e - i));
      joined += query.substr(d, n - d);
      for (char& c : joined) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      out.push_back(std::move(joined));
    }
    i = e;
  }
  return out;
}

// "page flipping" also asks for pageflip: two words a space apart are as
// often written as one in titles and code ("Add pageflip/exchange
// support"). Words of letters, three or more each, neither a stop word.
// Query side only.
std::vector<std::string> JoinedPairs(std::string_view query) {
  auto letter = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; };
  std::vector<std::string> out;
  std::string prev;  // the word before, lower-case, if only one space stands between
  for (size_t i = 0; i < query.size() && out.size() < 16;) {
    size_t e = i;
    while (e < query.size() && (letter(query[e]) || std::isdigit(static_cast<unsigned char>(query[e])) != 0)) ++e;
    if (e == i) {
      if (query[i] != ' ' || (i + 1 < query.size() && query[i + 1] == ' ')) prev.clear();
      ++i;
      continue;
    }
    std::string w(query.substr(i, e - i));
    bool word = w.size() >= 3 && w.size() <= 16 && std::all_of(w.begin(), w.end(), letter);
    for (char& c : w) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    word = word && !lsa::IsStopWord(w);
    if (word && !prev.empty()) out.push_back(prev + w);
    prev = word && e < query.size() && query[e] == ' ' ? w : "";
    i = e;
  }
  return out;
}

QueryTerms TermsOf(std::string_view query, const std::vector<std::string>& words, double compound_part) {
  QueryTerms q;
  for (const auto& w : words) {
    Count(&q.stems, StemWord(w), 1);
    Count(&q.spellings, w, 1);
  }
  // "z-loss" also asks for zloss, which every spelling of it indexes as;
  // its parts then weigh `compound_part` each (a title about "loss" is not
  // about z-loss).
  for (const auto& c : CompoundTerms(query)) Count(&q.stems, StemWord(c), 1);
  for (const auto& n : NumberedNames(query)) Count(&q.stems, n, 1);
  // "R600" also asks for r6xx, its family as records name it.
  for (const auto& f : FamilyNames(query)) Count(&q.stems, StemWord(f), 1);
  // "page flipping" also asks for pageflip, matched as expansions are
  // (below the words themselves: "max score" is not MaxScore).
  for (const auto& j : JoinedPairs(query)) {
    std::string stem = StemWord(j);
    auto known = [&](const auto& list) {
      return std::any_of(list.begin(), list.end(), [&](const auto& x) { return x.first == stem; });
    };
    if (!known(q.stems) && !known(q.part_stems)) q.part_stems.emplace_back(stem, 1);
  }
  // "XRRGetScreenInfo" also asks for GetScreenInfo, as its records write it.
  for (size_t i = 0; i < query.size();) {
    size_t e = i;
    while (e < query.size() && (std::isalnum(static_cast<unsigned char>(query[e])) || query[e] == '_')) ++e;
    if (e == i) {
      ++i;
      continue;
    }
    if (std::string rest = WithoutNamePrefix(query.substr(i, e - i)); !rest.empty()) Count(&q.stems, StemWord(rest), 1);
    i = e;
  }
  if (compound_part < 1) {
    for (const auto& parts : CompoundParts(query)) {
      for (const auto& p : parts) {
        for (auto* list : {&q.stems, &q.spellings}) {
          std::string term = list == &q.stems ? StemWord(p) : p;
          for (auto& [t, w] : *list) {
            if (t == term) w = std::max(w - (1 - compound_part), compound_part);
          }
        }
      }
    }
  }
  // Parts come from the original spelling so camelCase survives lower-casing.
  size_t i = 0;
  while (i < query.size() && q.part_spellings.size() <= 64) {
    while (i < query.size() && !(std::isalnum(static_cast<unsigned char>(query[i])) || query[i] == '_')) ++i;
    size_t s = i;
    while (i < query.size() && (std::isalnum(static_cast<unsigned char>(query[i])) || query[i] == '_')) ++i;
    auto parts = SplitIdentifier(query.substr(s, i - s));
    if (parts.size() < 2) continue;
    for (auto& p : parts) {
      auto known = [&](const auto& list, const std::string& t) {
        return std::any_of(list.begin(), list.end(), [&](const auto& x) { return x.first == t; });
      };
      std::string stem = StemWord(p);
      if (!known(q.stems, stem) && !known(q.part_stems, stem)) q.part_stems.emplace_back(stem, 1);
      if (!known(q.spellings, p) && !known(q.part_spellings, p)) q.part_spellings.emplace_back(p, 1);
    }
  }
  return q;
}

// One channel of a query, in the order the exhaustive path adds them up:
// the exact channel's stems, then the expanded channel's spellings, parts
// and feedback terms.
struct QueryChannel {
  Channel c;
  const Fields* f;
  bool exact;
  float max;  // the list's highest weight-1 score under the default scoring
};

// The candidates' order: exact matches first, then by score, then by
// document (the index's order).
struct Cand {
  uint32_t doc;
  bool exact;
  float score;
};
bool Better(const Cand& a, const Cand& b) {
  if (a.exact != b.exact) return a.exact;
  if (a.score != b.score) return a.score > b.score;
  return a.doc < b.doc;
}

// The best `limit` candidates of distinct urls (each url by its best
// candidate), and the worst of them once there are `limit`: what a new
// candidate must beat.
class TopUrls {
 public:
  TopUrls(size_t limit, const uint32_t* url_ids) : limit_(limit), url_ids_(url_ids) {}
  bool full() const { return by_url_.size() >= limit_; }
  // The worst kept; only when full().
  const Cand& worst() {
    Clean();
    return heap_.front();
  }
  void Offer(const Cand& c) {
    if (limit_ == 0) return;
    uint32_t url = url_ids_[c.doc];
    auto it = by_url_.find(url);
    if (it != by_url_.end()) {
      if (!Better(c, it->second)) return;
      it->second = c;  // the older entry in the heap goes stale
      Push(c);
      return;
    }
    if (full()) {
      if (!Better(c, worst())) return;
      by_url_.erase(url_ids_[heap_.front().doc]);
      std::pop_heap(heap_.begin(), heap_.end(), Better);
      heap_.pop_back();
    }
    by_url_.emplace(url, c);
    Push(c);
  }
  bool HasUrl(uint32_t url) const { return by_url_.count(url) > 0; }
  // Best first.
  std::vector<Cand> Sorted() const {
    std::vector<Cand> out;
    out.reserve(by_url_.size());
    for (const auto& [url, c] : by_url_) out.push_back(c);
    std::sort(out.begin(), out.end(), Better);
    return out;
  }

 private:
  // A max-heap under Better's reverse: the front is the worst.
  void Push(const Cand& c) {
    heap_.push_back(c);
    std::push_heap(heap_.begin(), heap_.end(), Better);
  }
  // Drops stale entries (a url's superseded or evicted candidates) off the front.
  void Clean() {
    while (!heap_.empty()) {
      const Cand& f = heap_.front();
      auto it = by_url_.find(url_ids_[f.doc]);
      if (it != by_url_.end() && it->second.doc == f.doc) return;
      std::pop_heap(heap_.begin(), heap_.end(), Better);
      heap_.pop_back();
    }
  }
  size_t limit_;
  const uint32_t* url_ids_;
  std::unordered_map<uint32_t, Cand> by_url_;
  std::vector<Cand> heap_;
};

// A channel's postings read in document order, skipping ahead.
struct Cursor {
  const QueryChannel* q;
  uint32_t i = 0;
  double ub = 0;
  uint32_t doc() const { return i < q->c.n ? q->c.docs[i] : std::numeric_limits<uint32_t>::max(); }
  // To the first posting at or after `d` (galloping, then binary search).
  void SkipTo(uint32_t d) {
    const uint32_t* docs = q->c.docs;
    uint32_t n = q->c.n;
    if (i >= n || docs[i] >= d) return;
    uint32_t step = 1, lo = i;
    while (lo + step < n && docs[lo + step] < d) {
      lo += step;
      step *= 2;
    }
    uint32_t hi = std::min(n, lo + step + 1);
    i = static_cast<uint32_t>(std::lower_bound(docs + lo, docs + hi, d) - docs);
  }
};

// Dynamic pruning (MaxScore: Turtle & Flood 1995), document at a time. The
// lists that can make a document by themselves ("essential") propose
// candidates; the others are only looked into for a candidate that could
// still beat the k-th best url, in order of what they can add, and the
// candidate is dropped as soon as it cannot. `propose` are the channels
// that make a candidate (the exact tier: its exact stems; the second tier:
// the expanded terms), `probe` the ones that only add to it. A document
// `skip` rejects is not a candidate (the second tier leaves out exact
// matches). Scores are summed in the exhaustive path's order, so both
// paths agree to the bit.
void Prune(const std::vector<QueryChannel>& channels, const std::vector<size_t>& propose,
           const std::vector<size_t>& probe, bool exact_tier, const std::function<bool(uint32_t)>& pass,
           const std::function<bool(uint32_t)>& skip, TopUrls* top) {
  std::vector<Cursor> lists;  // proposing, by upper bound ascending
  for (size_t j : propose) lists.push_back({&channels[j], 0, UpperBound(channels[j].c, *channels[j].f, channels[j].max)});
  std::sort(lists.begin(), lists.end(), [](const Cursor& a, const Cursor& b) { return a.ub < b.ub; });
  std::vector<Cursor> probes;
  double probe_ub = 0;
  for (size_t j : probe) {
    probes.push_back({&channels[j], 0, UpperBound(channels[j].c, *channels[j].f, channels[j].max)});
    probe_ub += probes.back().ub;
  }
  std::sort(probes.begin(), probes.end(), [](const Cursor& a, const Cursor& b) { return a.ub > b.ub; });
  // prefix[p]: what lists[0..p) can add together.
  std::vector<double> prefix(lists.size() + 1, 0);
  for (size_t p = 0; p < lists.size(); ++p) prefix[p + 1] = prefix[p] + lists[p].ub;
  size_t first_essential = 0;
  // Per channel, this document's contribution; `present` lists which.
  std::vector<float> contrib(channels.size(), 0);
  std::vector<size_t> present;
  // What a candidate's bound must reach: the k-th url's score, less a hair
  // for the bounds being summed in double and the scores in float.
  auto threshold = [&]() -> double {
    if (!top->full()) return -std::numeric_limits<double>::infinity();
    const Cand& w = top->worst();
    if (w.exact != exact_tier) {
      return w.exact ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
    }
    return w.score - (std::abs(w.score) * 1e-5 + 1e-7);
  };
  double theta = threshold();
  while (true) {
    // The next candidate: the smallest document among the essential lists.
    uint32_t d = std::numeric_limits<uint32_t>::max();
    for (size_t p = first_essential; p < lists.size(); ++p) d = std::min(d, lists[p].doc());
    if (d == std::numeric_limits<uint32_t>::max()) break;
    present.clear();
    double partial = 0;
    auto add = [&](const Cursor& cur) {  // the posting under `cur` is d's
      float v = TermScore(cur.q->c, *cur.q->f, cur.i, d);
      size_t j = static_cast<size_t>(cur.q - channels.data());
      contrib[j] = v;
      present.push_back(j);
      partial += v;
    };
    for (size_t p = first_essential; p < lists.size(); ++p) {
      Cursor& cur = lists[p];
      if (cur.doc() != d) continue;
      add(cur);
      ++cur.i;
    }
    if (!pass(d) || skip(d)) continue;
    // The non-essential lists, most valuable first, while the candidate can
    // still beat the threshold.
    double rest = prefix[first_essential] + probe_ub;
    bool alive = partial + rest >= theta;
    auto look_into = [&](Cursor& cur) {
      rest -= cur.ub;
      cur.SkipTo(d);
      if (cur.doc() == d) add(cur);
      return partial + rest >= theta;
    };
    for (size_t p = first_essential; alive && p-- > 0;) alive = look_into(lists[p]);
    for (size_t p = 0; alive && p < probes.size(); ++p) alive = look_into(probes[p]);
    if (!alive) continue;
    // The exhaustive path's sums: each channel's float in channel order.
    std::sort(present.begin(), present.end());
    float exact = 0, expanded = 0;
    for (size_t j : present) (channels[j].exact ? exact : expanded) += contrib[j];
    Cand c{d, exact_tier, exact_tier ? exact + expanded : expanded};
    top->Offer(c);
    double was = theta;
    theta = threshold();
    if (theta > was) {  // fewer lists can make a candidate now
      while (first_essential < lists.size() && prefix[first_essential + 1] + probe_ub < theta) ++first_essential;
    }
  }
}

}  // namespace

Result<std::vector<ScoredDoc>> MappedIndex::Score(const SearchOptions& o, size_t limit, bool exhaustive,
                                                  std::vector<uint64_t>* keys) const {
  std::vector<std::string> words = Tokenize(o.query);
  if (words.empty()) {
    return Status::Invalid("the query `" + std::string(TruncateUtf8(o.query, 80)) +
                           "` has no searchable words");
  }
  if (words.size() > 64) words.resize(64);  // a pasted page is not 10,000 terms
  UMWELT_ASSIGN_OR_RETURN(Filters f, MakeFilters(o));
  if (f.NonePass() || limit == 0) return std::vector<ScoredDoc>{};  // e.g. a code lane over a corpus without code
  const KeywordTuning& t = o.tuning;
  const Fields text{Sec<uint32_t>(ii::kLenBody), Sec<uint32_t>(ii::kLenTitle), h_.avg_len_body, h_.avg_len_title, &t};
  const Fields syms{Sec<uint32_t>(ii::kLenSyms), nullptr, h_.avg_len_syms, 1, &t};
  std::vector<QueryChannel> channels = Channels(o, TermsOf(o.query, words, o.tuning.compound_part), text, syms);
  auto pass = [&](uint32_t d) { return !Masked(d) && f.Pass(d); };
  std::vector<Cand> top = exhaustive ? RankAccumulated(channels, pass, limit) : RankPruned(channels, pass, limit);
  const int64_t* chunk_ids = Sec<int64_t>(ii::kChunkIds);
  std::vector<ScoredDoc> out;
  out.reserve(top.size());
  for (const Cand& c : top) {
    out.push_back({chunk_ids[c.doc], c.score, c.exact});
    if (keys) keys->push_back(UrlKey(c.doc));
  }
  return out;
}

std::vector<QueryChannel> MappedIndex::Channels(const SearchOptions& o, const QueryTerms& q, const Fields& text,
                                                const Fields& syms) const {
  const uint64_t n = n_idf_;
  const uint32_t* docs = Sec<uint32_t>(ii::kPostDocs);
  const uint16_t* tfs = Sec<uint16_t>(ii::kPostTf);
  const uint8_t* title_tfs = Sec<uint8_t>(ii::kPostTitleTf);
  // Robertson-Sparck Jones idf as FTS5 computes it: words in more than half
  // the documents ("the", "what") weigh next to nothing, not a little.
  auto idf = [&](uint64_t df) {
    return std::max(1e-6, std::log((static_cast<double>(n) - static_cast<double>(df) + 0.5) / (df + 0.5)));
  };
  // A term's frequency in the whole collection (both segments).
  auto exact_df = [&](const std::string& stem, const ii::TermEntry& e) -> uint64_t {
    return e.exact_n + (peer_ ? peer_->OwnExactDf(stem) : 0);
  };
  auto text_channel = [&](const std::string& stem, const ii::TermEntry& e, double weight) {
    return Channel{docs + e.exact_off, tfs + e.exact_off, title_tfs + e.exact_off, e.exact_n,
                   weight * idf(exact_df(stem, e))};
  };
  // Index-side expansion: the word as a part of a stored identifier.
  auto syms_channel = [&](const ii::TermEntry& e, uint64_t df, double weight) {
    return Channel{docs + e.syms_off, tfs + e.syms_off, nullptr, e.syms_n, weight * idf(df)};
  };
  auto exact_n = [&](const std::string& stem) -> uint64_t { return DocFrequency(stem); };
  auto syms_n = [&](const std::string& word, const ii::TermEntry& e) -> uint64_t {
    return e.syms_n + (peer_ ? peer_->OwnSymsDf(word) : 0);
  };
  const double xw = o.tuning.expanded_weight;
  std::vector<QueryChannel> channels;
  for (const auto& [stem, count] : q.stems) {
    if (const ii::TermEntry* e = Find(stem)) channels.push_back({text_channel(stem, *e, count), &text, true, e->exact_max});
  }
  // Spellings as identifier parts in the symbols: the query's words, then
  // the parts of its own identifiers.
  for (const auto* spellings : {&q.spellings, &q.part_spellings}) {
    for (const auto& [word, count] : *spellings) {
      const ii::TermEntry* e = Find(word);
      if (!e || e->syms_n == 0) continue;
      channels.push_back({syms_channel(*e, syms_n(word, *e) + exact_n(StemWord(word)), count * xw), &syms, false, e->syms_max});
    }
  }
  for (const auto& [stem, count] : q.part_stems) {
    if (const ii::TermEntry* e = Find(stem)) {
      channels.push_back({text_channel(stem, *e, count * xw), &text, false, e->exact_max});
    }
  }
  // Feedback terms rank what the query found and may find more, but a chunk
  // that holds only them is not an exact match.
  for (const auto& [stem, weight] : o.extra_terms) {
    if (const ii::TermEntry* e = Find(stem); e && weight > 0) {
      channels.push_back({text_channel(stem, *e, weight), &text, false, e->exact_max});
    }
  }
  std::erase_if(channels, [](const QueryChannel& c) { return c.c.n == 0; });
  return channels;
}

std::vector<Cand> MappedIndex::RankPruned(const std::vector<QueryChannel>& channels,
                                          const std::function<bool(uint32_t)>& pass, size_t limit) const {
  const uint32_t* url_ids = Sec<uint32_t>(ii::kUrlIds);
  std::vector<Cand> out;
  std::vector<size_t> exact, expanded;
  for (size_t j = 0; j < channels.size(); ++j) (channels[j].exact ? exact : expanded).push_back(j);
  // The exact tier: documents holding an exact stem, scored with every channel.
  TopUrls top(limit, url_ids);
  Prune(channels, exact, expanded, true, pass, [](uint32_t) { return false; }, &top);
  out = top.Sorted();
  // Fewer urls than asked for: the second tier, documents that match only
  // through expansion, at urls the first left free. (The first tier then
  // pruned nothing: every exact match was scored and kept.)
  if (out.size() < limit && !expanded.empty()) {
    std::vector<Cursor> in_exact;
    for (size_t j : exact) in_exact.push_back({&channels[j]});
    auto holds_exact = [&](uint32_t d) {
      for (auto& cur : in_exact) {
        cur.SkipTo(d);
        if (cur.doc() == d) return true;
      }
      return false;
    };
    auto taken = [&](uint32_t d) { return holds_exact(d) || top.HasUrl(url_ids[d]); };
    TopUrls rest(limit - out.size(), url_ids);
    Prune(channels, expanded, {}, false, pass, taken, &rest);
    for (const Cand& c : rest.Sorted()) out.push_back(c);
  }
  return out;
}

std::vector<Cand> MappedIndex::RankAccumulated(const std::vector<QueryChannel>& channels,
                                               const std::function<bool(uint32_t)>& pass, size_t limit) const {
  const uint32_t* url_ids = Sec<uint32_t>(ii::kUrlIds);
  struct Lease {  // the scratch goes back to the pool however this returns
    const MappedIndex* index;
    std::unique_ptr<Scratch> s;
    ~Lease() { index->Return(std::move(s)); }
  } lease{this, Borrow()};
  std::vector<float>& acc_exact = lease.s->exact;
  std::vector<float>& acc_expanded = lease.s->expanded;
  std::vector<uint32_t>& touched_exact = lease.s->touched_exact;
  std::vector<uint32_t>& touched_expanded = lease.s->touched_expanded;
  for (const auto& c : channels) {
    Accumulate(c.c, *c.f, c.exact ? acc_exact.data() : acc_expanded.data(), c.exact ? &touched_exact : &touched_expanded);
  }
  std::vector<Cand> cands;
  cands.reserve(touched_exact.size() + touched_expanded.size());
  for (uint32_t d : touched_exact) {
    if (pass(d)) cands.push_back({d, true, acc_exact[d] + acc_expanded[d]});
  }
  for (uint32_t d : touched_expanded) {
    if (acc_exact[d] == 0 && pass(d)) cands.push_back({d, false, acc_expanded[d]});
  }
  // Take a margin above `limit` so one-hit-per-url still fills it; widen if not.
  std::vector<Cand> out;
  size_t want = std::min(cands.size(), limit * 4 + 16);
  while (true) {
    std::partial_sort(cands.begin(), cands.begin() + static_cast<long>(want), cands.end(), Better);
    out.clear();
    std::unordered_set<uint32_t> urls;
    for (size_t i = 0; i < want && out.size() < limit; ++i) {
      if (urls.insert(url_ids[cands[i].doc]).second) {
        out.push_back(cands[i]);
      }
    }
    if (out.size() >= limit || want == cands.size()) break;
    want = std::min(cands.size(), want * 4);
  }
  return out;
}

namespace {

// A base index and its delta segment (the chunks changed since the base was
// built), searched as one: each ranks its own top `limit` urls, and the two
// lists merge by the order both use, one hit per url. A url's best chunk is
// in its own file's top `limit` whenever it is in the merged top `limit`, so
// the merge loses nothing.
class SegmentedIndex final : public KeywordIndex {
 public:
  SegmentedIndex(std::unique_ptr<MappedIndex> base, std::unique_ptr<MappedIndex> delta)
      : base_(std::move(base)), delta_(std::move(delta)) {}

  size_t num_docs() const override { return base_->num_docs() + delta_->num_docs(); }
  void Prefetch() const override {
    base_->Prefetch();
    delta_->Prefetch();
  }
  size_t DocFrequency(std::string_view term) const override { return base_->DocFrequency(term); }
  size_t PartFrequency(std::string_view word) const override { return base_->PartFrequency(word); }
  Result<std::vector<ScoredDoc>> Rank(const SearchOptions& o, size_t limit) const override {
    return Merged(o, limit, false);
  }
  Result<std::vector<ScoredDoc>> RankExhaustive(const SearchOptions& o, size_t limit) const override {
    return Merged(o, limit, true);
  }
  Result<DocFilter> Filter(const SearchOptions& o) const override {
    UMWELT_ASSIGN_OR_RETURN(MappedIndex::Filters in_base, base_->MakeFilters(o));
    UMWELT_ASSIGN_OR_RETURN(MappedIndex::Filters in_delta, delta_->MakeFilters(o));
    return DocFilter([this, in_base, in_delta](int64_t chunk_id) -> int64_t {
      int64_t url = delta_->UrlOf(in_delta, chunk_id);
      return url >= 0 ? url : base_->UrlOf(in_base, chunk_id);
    });
  }

 private:
  Result<std::vector<ScoredDoc>> Merged(const SearchOptions& o, size_t limit, bool exhaustive) const {
    std::vector<uint64_t> base_keys, delta_keys;
    UMWELT_ASSIGN_OR_RETURN(auto from_base, base_->RankKeyed(o, limit, exhaustive, &base_keys));
    UMWELT_ASSIGN_OR_RETURN(auto from_delta, delta_->RankKeyed(o, limit, exhaustive, &delta_keys));
    struct Entry {
      const ScoredDoc* doc;
      uint64_t key;
    };
    std::vector<Entry> all;
    for (size_t i = 0; i < from_base.size(); ++i) all.push_back({&from_base[i], base_keys[i]});
    for (size_t i = 0; i < from_delta.size(); ++i) all.push_back({&from_delta[i], delta_keys[i]});
    // Exact matches first, then by score; ties by chunk id.
    std::sort(all.begin(), all.end(), [](const Entry& a, const Entry& b) {
      if (a.doc->exact != b.doc->exact) return a.doc->exact;
      if (a.doc->score != b.doc->score) return a.doc->score > b.doc->score;
      return a.doc->chunk_id < b.doc->chunk_id;
    });
    std::vector<ScoredDoc> out;
    std::unordered_set<uint64_t> urls;
    for (const Entry& e : all) {
      if (out.size() >= limit) break;
      if (urls.insert(e.key).second) out.push_back(*e.doc);
    }
    return out;
  }

  std::unique_ptr<MappedIndex> base_, delta_;
};

// A delta segment may hold this many changed chunks before the next write
// rebuilds the base instead (which then lends every unchanged chunk's
// postings). The delta is scored with the base's average lengths, which a
// sixteenth more chunks move little; a small base is rebuilt in
// milliseconds anyway.
size_t DeltaLimit(size_t base_docs) { return base_docs / 16; }

// `base` with the delta segment at `delta_path` for the corpus at
// `content_key` (hash `hash`): the one already there, else one built now
// from the change log (lending the postings of an older delta's unchanged
// chunks). None when the corpus's log cannot say what changed since the
// base, or too much did.
Result<std::unique_ptr<KeywordIndex>> WithDelta(Corpus& corpus, std::unique_ptr<MappedIndex>& base,
                                                const std::string& content_key, uint64_t hash,
                                                const std::string& delta_path) {
  const ii::Header& bh = base->header();
  std::unique_ptr<KeywordIndex> none;
  if (!bh.has_log || bh.base_hash != 0) return none;
  auto paired = [&](std::unique_ptr<MappedIndex> delta) -> Result<std::unique_ptr<KeywordIndex>> {
    UMWELT_RETURN_IF_ERROR(MappedIndex::Pair(base.get(), delta.get(), delta_path));
    return std::unique_ptr<KeywordIndex>(new SegmentedIndex(std::move(base), std::move(delta)));
  };
  auto current = MappedIndex::Map(delta_path);
  auto fits = [&](const MappedIndex& d) {
    return d.header().base_hash == bh.content_hash && d.header().content_hash == hash;
  };
  if (current.ok() && fits(**current)) {
    auto seg = paired(std::move(current).value());
    if (seg.ok() || seg.status().code() != Code::kCorrupt) return seg;
  }
  UMWELT_ASSIGN_OR_RETURN(auto at, corpus.ChangeLogPoint());
  UMWELT_ASSIGN_OR_RETURN(uint64_t log_corpus, ii::LogCorpus(corpus));
  if (!at || log_corpus != bh.log_corpus) return none;
  const size_t limit = DeltaLimit(bh.n_docs);
  UMWELT_ASSIGN_OR_RETURN(auto changed, corpus.ChangedSince({bh.log_seq, bh.log_id}, 2 * limit));
  if (!changed || changed->size() > limit) return none;
  UMWELT_RETURN_IF_ERROR(ii::WriteDelta(corpus, base->file(), bh, *changed, content_key, *at, delta_path));
  UMWELT_ASSIGN_OR_RETURN(auto delta, MappedIndex::Map(delta_path));
  if (!fits(*delta)) return none;  // replaced by another process's meanwhile
  return paired(std::move(delta));
}

}  // namespace

std::string KeywordIndex::PathFor(const Corpus& corpus, const std::string& cache_dir) {
  const std::string& p = corpus.path();
  std::string dir = p.find('/') == std::string::npos ? "." : p.substr(0, p.rfind('/'));
  if (dir.empty()) dir = "/";
  if (cache_dir.empty() && ::access(dir.c_str(), W_OK) == 0) {
    return p + ".kwidx";
  }
  char* real = ::realpath(p.c_str(), nullptr);
  std::string abs = real ? real : p;
  std::free(real);
  char name[40];
  std::snprintf(name, sizeof name, "kw-%016llx.idx",
                static_cast<unsigned long long>(XXH3_64bits(abs.data(), abs.size())));
  return CacheDir(cache_dir) + "/" + name;
}

std::string KeywordIndex::DeltaPathFor(const std::string& path) { return path + ".delta"; }

Result<std::unique_ptr<KeywordIndex>> KeywordIndex::Open(Corpus& corpus, const std::string& cache_dir) {
  std::string path = PathFor(corpus, cache_dir);
  const std::string delta_path = DeltaPathFor(path);
  Status last;
  // A writer committing between the key and the build makes the fresh file
  // stale at once; one rebuild settles it.
  for (int attempt = 0; attempt < 3; ++attempt) {
    UMWELT_ASSIGN_OR_RETURN(std::string key, corpus.ContentKey());
    uint64_t hash = XXH3_64bits(key.data(), key.size());
    auto mapped = MappedIndex::Map(path);
    if (mapped.ok() && (*mapped)->header().content_hash == hash && (*mapped)->header().base_hash == 0) {
      return std::unique_ptr<KeywordIndex>(std::move(mapped).value());
    }
    if (mapped.ok()) {  // stale: the chunks changed since, when few, in a delta segment beside it
      auto seg = WithDelta(corpus, *mapped, key, hash, delta_path);
      if (!seg.ok() && seg.status().code() != Code::kCorrupt) return seg.status();
      if (seg.ok() && *seg) return std::move(seg).value();
      last = seg.ok() ? Status::Corrupt(path + ": stale") : seg.status();
    } else {
      last = mapped.status();
    }
    if (attempt == 0 && path.find('/') != std::string::npos) {
      UMWELT_RETURN_IF_ERROR(MakeDirs(path.substr(0, path.rfind('/'))));
    }
    if (attempt < 2) {
      UMWELT_RETURN_IF_ERROR(Build(corpus, path));
      ::unlink(delta_path.c_str());  // of the old base
    }
  }
  return last.WithContext("keyword index");
}

}  // namespace umwelt
