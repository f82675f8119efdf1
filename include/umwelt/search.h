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
#include <string_view>
#include <utility>
#include <vector>

#include "umwelt/corpus.h"
#include "umwelt/status.h"

namespace umwelt {

// How the keyword leg weighs a match: BM25F over a chunk's body and title
// (each field normalised by its own length), identifier parts at a discount,
// and optional pseudo-relevance feedback (RM3). The defaults are the values
// chosen on the tuning halves of Cranfield and CISI (README, "Ranking
// quality"); `eval retrieval --bm25` tries others.
struct KeywordTuning {
  double k1 = 1.6;               // term-frequency saturation
  double b = 0.75;               // body length normalisation
  double title_weight = 5.0;     // one title occurrence against one body occurrence
  double title_b = 0.5;          // title length normalisation
  double expanded_weight = 0.3;  // an identifier part against a whole word
  int prf_docs = 0;              // feedback: expand from the top N chunks (0: off)
  int prf_terms = 10;            // feedback: add at most this many terms
  double prf_lambda = 0.7;       // feedback: weight of the original query (1: none of the feedback)
  int prox_docs = 0;             // proximity: rescore the top N exact matches (0: off)
  double prox_weight = 0.5;      // proximity: the bonus's weight against BM25F's
  double compound_part = 0.5;    // a query compound's part ("loss" of "z-loss") against its joined form
};

// The chunks feedback reads when asked for (`search --feedback`, the API's
// `feedback`): chosen on the tuning halves, with 10 terms and lambda 0.7.
inline constexpr int kFeedbackDocs = 10;

// Parses "k1=0.9,b=0.4,title=2,title_b=0.3,expanded=0.3,prf=10,prf_terms=20,
// prf_lambda=0.6,prox=50,prox_weight=0.3" (any subset, over the defaults);
// names the bad pair.
Result<KeywordTuning> ParseKeywordTuning(std::string_view spec);

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
  KeywordTuning tuning;
  // Index terms (stems) added to the query with their weights, one query
  // word counting 1: what pseudo-relevance feedback adds. They rank documents
  // but do not make a match exact.
  std::vector<std::pair<std::string, double>> extra_terms;
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
  // or stale (a stale one whose corpus logged few changes since is searched
  // with a delta segment of those instead). `cache_dir` overrides where a
  // read-only corpus's index goes.
  static Result<std::unique_ptr<KeywordIndex>> Open(Corpus& corpus, const std::string& cache_dir = "");
  // What a build did: the chunks it indexed, and how many of them it took
  // from the previous file instead of tokenizing them.
  struct BuildReport {
    size_t docs = 0, reused = 0;
  };
  // Builds the index for `corpus` into `path` (atomically replaced). The
  // index already at `path`, when it is one of this version, lends the
  // postings of every chunk it holds unchanged (same id, same indexed
  // fields), so a rebuild after a small change tokenizes only what changed.
  // The file written is the one a build from nothing writes, byte for byte.
  static Status Build(Corpus& corpus, const std::string& path, BuildReport* report = nullptr);
  // Where Open() keeps the index of `corpus`.
  static std::string PathFor(const Corpus& corpus, const std::string& cache_dir = "");
  // Where Open() keeps the delta segment beside the index at `path`: the
  // chunks changed since that index was built (the corpus's change log says
  // which), searched with it and its deletions masked, until a write
  // changes more than a sixteenth of them and the index is rebuilt.
  static std::string DeltaPathFor(const std::string& path);

  virtual ~KeywordIndex() = default;

  // The ranked chunks for `options` (query and filters), best first, one per
  // url, at most `limit`. Fails on a query with no searchable words.
  // Documents that cannot enter the top `limit` are skipped unscored
  // (MaxScore pruning), with the same results as RankExhaustive.
  virtual Result<std::vector<ScoredDoc>> Rank(const SearchOptions& options, size_t limit) const = 0;
  // The same ranking with every posting scored: the reference the pruned
  // path is tested against.
  virtual Result<std::vector<ScoredDoc>> RankExhaustive(const SearchOptions& options, size_t limit) const = 0;
  virtual size_t num_docs() const = 0;
  // How many chunks hold index term `term` (a stem) in their body or title.
  virtual size_t DocFrequency(std::string_view term) const = 0;
  // How many chunks hold `word` (lower case, not stemmed) as a part of an
  // identifier: "libpciaccess" of XSERVER_LIBPCIACCESS, "hdr" of LogVHdrMessage.
  virtual size_t PartFrequency(std::string_view word) const = 0;

  // For other legs (vectors): maps a chunk id to its url id when the chunk
  // passes `options`' filters, else to -1. Fails on bad filter values.
  using DocFilter = std::function<int64_t(int64_t chunk_id)>;
  virtual Result<DocFilter> Filter(const SearchOptions& options) const = 0;

  // Maps what every search reads into this process ahead of the searches:
  // the per-chunk columns (lengths, filters, urls) and the term dictionary;
  // the postings, read term by term, are left alone. A server does it when
  // it loads an index, so its first searches cost what the later ones do.
  virtual void Prefetch() const {}
};

// The keyword leg: `index.Rank`, then, when `options.tuning.prf_docs` is set,
// RM3 feedback — the top chunks' terms (read from `corpus`), weighted by
// their share of each chunk and the chunk's score, the most weighty of those
// not too common added to the query, which is ranked again.
Result<std::vector<ScoredDoc>> RankKeyword(Corpus& corpus, const KeywordIndex& index, const SearchOptions& options,
                                           size_t limit);

// Keyword search: ranks (RankKeyword), then reads each hit's row for display,
// with a snippet around the first matching word.
Result<std::vector<Hit>> Search(Corpus& corpus, const KeywordIndex& index, const SearchOptions& options);

// Reads the rows of `ranked` chunks (skipping any removed since) and cuts
// snippets around the words of `query`.
Result<std::vector<Hit>> LoadHits(Corpus& corpus, const std::vector<ScoredDoc>& ranked, const std::string& query);

// One thread's hits in a ranking grouped by thread (`search --group thread`).
struct ThreadGroup {
  std::string thread;     // the thread's ref (a chunk without a parent is a thread of its own)
  std::string title, url; // the thread's title, and its url (the opening post's, else a hit's without anchor)
  double score = 0;       // see GroupByThread
  std::vector<Hit> hits;  // its best hits, best first
};

// Groups `hits` (a ranking, best first) by thread, keeping at most `limit`
// threads and `per_thread` hits of each. A thread scores by the ranks of its
// hits — 1/(60 + rank) for the best, half that for the next, a quarter for
// the third… — so a thread whose issue, comments and pull request all match
// outranks one that matched a single comment a little higher.
std::vector<ThreadGroup> GroupByThread(const std::vector<Hit>& hits, size_t limit, size_t per_thread = 3);

// The words keyword search matches on: lower-case runs of letters, digits and
// `_` (and a `.` between digits), as the index tokenizes them.
std::vector<std::string> Tokenize(std::string_view text);
// The length of the link scheme "http" or "https" (any case) that starts at
// `at` and is followed by "://", not inside a word; 0 for none. A link's
// scheme is no word the text says.
size_t LinkSchemeAt(std::string_view s, size_t at);

// The joined forms of a text's compounds, lower-case: "z-loss", "z_loss"
// and "Z-Loss" give "zloss", as "zloss" and "ZLoss" tokenize; two or three
// parts with a letter among them, not a date, a path or a longer chain. The
// index stores them beside the words and a query searches them too, so each
// spelling finds the others.
std::vector<std::string> CompoundTerms(std::string_view text);
// The same compounds' parts, lower-case, in the same order ({"z", "loss"}).
std::vector<std::vector<std::string>> CompoundParts(std::string_view text);
// The family a text's model numbers belong to, lower-case: "R600" gives
// r6xx, "NV50" nv5x, "RV770" rv77x (letters, then a number ending in
// zeros), as hardware projects name a chip's generation. Query side: a
// question about R600 also finds the records on R6xx.
std::vector<std::string> FamilyNames(std::string_view text);
// The names a text writes as a glob of initials, lower-case: "[GS]etFoo"
// gives getfoo and setfoo, as a record that says them apart would index.
std::vector<std::string> GlobbedNames(std::string_view text);
// A name in code without the prefix of initials its library starts every
// name with, lower-case: "XRRGetScreenInfo" gives getscreeninfo (records as
// often leave "XRR" out), "XDamageAdd" damageadd (the protocol's request);
// "" where the word has no such prefix, what is left is one word
// ("HTTPServer"), or one initial stands before a short word ("DBusMessage").
std::string WithoutNamePrefix(std::string_view word);

// The index term of a token: its English stem (Snowball's Porter2: "retries"
// and "retrying" give "retri") for a word of three or more ASCII letters, the
// token itself otherwise (identifiers with `_`, numbers, other scripts).
std::string StemWord(std::string_view token);

}  // namespace umwelt
