// umwelt/vector.h — vector spaces, the builtin embedder, `umwelt index`, and
// hybrid search (keyword + vectors, fused by reciprocal rank).
//
// A space ("prose", "code") holds one vector per chunk of its sources (code:
// source `code`; prose: every other source), all from one model, recorded in
// meta.spaces as {model, dim, sources}. Vectors live in chunks.embedding
// (float32, little-endian) with chunks.embed_space; a memory-mapped side file
// per space (<corpus>.vec-<space>) holds them as 4-bit codes for the scan and
// float32 for rescoring, rebuilt when the space changes.
//
// The builtin embedder trains a word table on the corpus itself: by default
// latent semantic analysis of its stems (a text is the log-tf · idf weighted
// sum of its stems' vectors), or fastText word vectors with SIF weights. The
// table (<corpus>.<space>.words) is the model; its kind and hash are in the
// model id (builtin:lsa-100d-<hash>).
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "umwelt/corpus.h"
#include "umwelt/embed.h"
#include "umwelt/search.h"

namespace umwelt {

struct SpaceConfig {
  std::string space;     // "prose" or "code"
  std::string provider;  // "builtin" or "openai:<base-url>#<model>"
};

// Parses "prose=builtin,code=openai:http://h/v1#m" (and repeated flags).
Result<std::vector<SpaceConfig>> ParseSpaceConfigs(const std::vector<std::string>& specs);
// Whether chunks of `source` belong in `space`.
bool SpaceCovers(const std::string& space, const std::string& source);

struct BuiltinTrainOptions {
  std::string method = "lsa";  // or "fasttext" (README "Hybrid search")
  int dim = 100;
  int epoch = 5;      // fastText
  int min_count = 2;  // words in fewer texts (LSA) or fewer times (fastText) have no vector
  int threads = 2;    // fastText
  // Larger corpora train on a uniform sample of their chunks of about this
  // many words: enough for word vectors, and training stays within minutes.
  int64_t max_train_words = 6'000'000;
};
// Trains the builtin model for `space` on the corpus's chunks and writes its
// word table beside the corpus.
Status TrainBuiltin(Corpus& corpus, const std::string& space, const BuiltinTrainOptions& options);
std::string BuiltinModelPath(const Corpus& corpus, const std::string& space);

// The embedder for `provider` in `space` of `corpus` (builtin loads the word
// table trained for it). A search retries a remote embedder once; indexing,
// which can wait, more.
Result<std::unique_ptr<Embedder>> MakeEmbedder(const std::string& provider, Corpus& corpus,
                                               const std::string& space, int max_retries = 4);

struct IndexOptions {
  bool retrain = false;   // builtin: train again even when a model exists
  int batch = 256;        // chunks per transaction
  BuiltinTrainOptions builtin;
  std::function<void(const std::string& space, int64_t done, int64_t total)> progress;
};
struct IndexReport {
  struct Space {
    std::string space, model;
    int64_t embedded = 0;
    double seconds = 0;
  };
  std::vector<Space> spaces;
};
// Embeds the chunks of each space that have no vector yet (new or changed),
// committing batch by batch, so an interrupted run resumes. A space whose
// model changed is emptied and embedded afresh.
Status IndexSpaces(Corpus& corpus, const std::vector<SpaceConfig>& spaces, const IndexOptions& options,
                   IndexReport* report);

// The spaces recorded in the corpus: name -> model.
Result<std::map<std::string, std::string>> CorpusSpaces(Corpus& corpus);
// Whether another program (the reference client, an umwelt elsewhere) can
// embed queries for vectors of `model`: a named model an OpenAI-compatible
// server or fastembed serves, not the builtin one, whose word table stays
// beside the corpus. Snapshots carry only such spaces.
bool PortableModel(const std::string& model);

// Spaces of at least this many vectors are split into inverted lists when
// their file is built, and a search reads the lists nearest its query; smaller
// ones are scanned whole (README, "Vectors and hybrid search").
inline constexpr uint64_t kIvfMinRows = 1'000'000;

// How a search reads the codes it scans and the float rows it rescores:
// through the mapping (a long-lived process, whose pages stay mapped from
// search to search), or with pread (a process that searches once: a first
// touch of a mapped page costs more than a read; README, "What a first touch
// costs here"): the codes a block at a time, but those PrefetchWhile mapped
// in while a model server embedded the query, and each row with one read.
enum class RowReads { kMapped, kPread };

struct VectorFileOptions {
  uint64_t ivf_min_rows = kIvfMinRows;  // applies when the file is built
  RowReads rows = RowReads::kMapped;
};

class VectorIndex {
 public:
  // Maps (building when stale) the side file of `space`.
  static Result<std::unique_ptr<VectorIndex>> Open(Corpus& corpus, const std::string& space,
                                                   const VectorFileOptions& options = {});
  virtual ~VectorIndex() = default;
  virtual const std::string& model() const = 0;
  virtual int dim() const = 0;
  virtual size_t size() const = 0;
  // The inverted lists it reads by; 0 when every search scans every vector.
  virtual size_t lists() const { return 0; }
  // Reads the pages a search scans into this process ahead of it (a
  // long-lived process does when it loads the index); once per index.
  virtual void Prefetch() const {}
  // As much of that as it can while `pending` holds, in pieces (a one-shot
  // search does while a model server embeds its query, and the scan reads
  // the rest with pread).
  virtual void PrefetchWhile(const std::atomic<bool>& pending) const { Prefetch(); }
  // The nearest chunks to unit vector `q` by cosine, best first, filtered by
  // `filter` (chunk id -> keep), at most `limit`. A space in lists reads the
  // lists nearest `q`, unless `exact`: then every vector.
  virtual Result<std::vector<ScoredDoc>> Nearest(const std::vector<float>& q,
                                                 const std::function<bool(int64_t)>& filter, size_t limit,
                                                 bool exact) const = 0;
};

// How the legs' rankings combine: by reciprocal rank (k = 60), or by their
// scores, each leg's scaled to [0, 1] over its list, weighted and summed.
enum class Fusion { kRrf, kScores };
// What one vector leg weighs against the keyword leg's 1 in score fusion:
// chosen on the tuning halves of Cranfield and CISI with the builtin (LSA)
// space, in the middle of a plateau from 0.8 to 1.5 (README, "Retrieval
// quality"). A fastText space, much weaker, was best at 0.2.
inline constexpr double kDefaultVectorWeight = 0.8;

struct HybridOptions {
  SearchOptions search;                 // query, k, filters
  bool vec_only = false;
  std::vector<std::string> vec_texts;   // HyDE: embedded and mean-pooled for the vector leg
  double vector_weight = kDefaultVectorWeight;  // fusion weight of each vector leg (keyword: 1)
  Fusion fusion = Fusion::kScores;
  int code_k = 10;                      // budget of each code lane
  bool exact = false;                   // vector legs scan every vector, not the nearest lists
};

struct Space {
  std::string name;
  std::unique_ptr<Embedder> embedder;
  std::unique_ptr<VectorIndex> index;
};

// How a code window's file serves a question in words: 0 for source and
// docs, 1 for tests, 2 for data (JSON, CSV, lock files, fixtures, generated
// or vendored files, snapshots). Code lanes order by it.
int FileClass(std::string_view path);

struct HybridResult {
  std::vector<Hit> hits;           // the primary lane (prose, or code with --source code)
  std::vector<Hit> code_main;      // code on the default branch
  std::vector<Hit> code_branches;  // code in flight on branches
  std::vector<std::string> notes;  // spaces skipped and why
};

// Keyword plus every usable space, fused by reciprocal rank (k = 60), one hit
// per url, with `via` naming the legs that found each hit. A space whose
// embedder fails is skipped with a note; a request that needs only that
// space fails.
Result<HybridResult> HybridSearch(Corpus& corpus, const KeywordIndex& keyword, std::vector<Space>& spaces,
                                  const HybridOptions& options);

// `search --json`'s object: {"query", "k", "mode", "hits", "code_main",
// "code_branches" (hybrid only), "notes"}; each hit {source, kind, ref,
// parent, title, author, date, url, snippet, score, via}. The value is the
// one writer (MCP's structuredContent); the string is it serialized.
nlohmann::json SearchValue(const std::string& query, int k, bool hybrid, const HybridResult& r);
std::string SearchJson(const std::string& query, int k, bool hybrid, const HybridResult& r);

// Several sub-queries' results merged by url, by reciprocal rank across the
// lists (k = 60), at most `total`; each hit names the sub-queries that found it.
struct MultiHit {
  Hit hit;
  double score = 0;
  std::vector<std::string> queries;
};
std::vector<MultiHit> MergeMulti(const std::vector<std::string>& queries, std::vector<HybridResult>& results,
                                 size_t total, std::vector<std::string>* notes);
// `search-multi --json`'s object: {"queries", "total", "hits", "notes"}, as
// a value and serialized.
nlohmann::json SearchMultiValue(const std::vector<std::string>& queries, int total, const std::vector<MultiHit>& hits,
                                const std::vector<std::string>& notes);
std::string SearchMultiJson(const std::vector<std::string>& queries, int total, const std::vector<MultiHit>& hits,
                            const std::vector<std::string>& notes);

// An Embedder that lets one thread at a time into `inner`: spaces shared by
// concurrent searches (a server) wrap their embedders in it.
std::unique_ptr<Embedder> SerializedEmbedder(std::unique_ptr<Embedder> inner);

// Loads the spaces recorded in the corpus with the configured providers
// (configs may be empty: then builtin spaces load their own model and others
// are skipped with a note). A configured model that differs from the space's
// is an error naming both.
Result<std::vector<Space>> LoadSpaces(Corpus& corpus, const std::vector<SpaceConfig>& configs,
                                      std::vector<std::string>* notes, const VectorFileOptions& files = {});

}  // namespace umwelt
