// The builtin embedder: a word table trained on the corpus and memory-mapped
// at query time, in one of two kinds —
//   lsa       latent semantic analysis (lsa.h): stems, each text the
//             log(1 + tf) · idf weighted sum of its stems' vectors (the
//             default: it measures far better, README "Retrieval quality")
//   fasttext  fastText skip-gram vectors and SIF sentence embeddings (Arora
//             et al. 2017: weight a / (a + p(w)), mean, first principal
//             component removed)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <unordered_map>

#include <xxhash.h>

#include "fasttext_module.h"
#include "lsa.h"
#include "string_hash.h"
#include "umwelt/dynlib.h"
#include "umwelt/file.h"
#include "umwelt/log.h"
#include "umwelt/parallel.h"
#include "umwelt/text.h"
#include "umwelt/vector.h"

namespace umwelt {
namespace {

// The table's kind is its magic: fastText words (1) or LSA stems (2). The
// magic names how a text is embedded with the table as well, so a change to
// that (StemTerms, lsa::IsStopWord, the weights) needs a magic of its own:
// vectors stored with the old way must not meet queries embedded the new.
constexpr char kFastTextMagic[8] = {'U', 'M', 'W', 'W', 'O', 'R', 'D', '1'};
constexpr char kLsaMagic[8] = {'U', 'M', 'W', 'W', 'O', 'R', 'D', '2'};
constexpr float kSifA = 1e-3f;

// Word table layout: header, pc[dim], weight[n], offsets[n+1], blob, vectors[n*dim], trailer.
// The weight is SIF's for fastText and the idf for LSA; LSA's pc is zero.
struct WordHeader {
  char magic[8];
  uint32_t dim;
  uint32_t n;
  uint64_t blob_bytes;
};

// After the vectors: the XXH3 hash of everything before it, which names the
// model (builtin:lsa-100d-<hash>, builtin:fasttext-100d-<hash>).
constexpr char kTrailerMagic[8] = {'U', 'M', 'W', 'H', 'A', 'S', 'H', '1'};
struct WordTrailer {
  uint64_t hash;
  char magic[8];
};

size_t Align8(size_t x) { return (x + 7) & ~size_t{7}; }

// A text's LSA terms: its tokens but function words, as the keyword index
// stems them.
std::vector<std::string> StemTerms(std::string_view text) {
  std::vector<std::string> terms;
  for (const auto& t : Tokenize(text)) {
    if (!lsa::IsStopWord(t)) terms.push_back(StemWord(t));
  }
  return terms;
}

class BuiltinEmbedder final : public Embedder {
 public:
  static Result<std::unique_ptr<BuiltinEmbedder>> Load(const std::string& path) {
    auto file = MappedFile::Open(path, sizeof(WordHeader));
    if (!file.ok()) {
      if (file.status().code() == Code::kNotFound) {
        return Status::NotFound(path + ": no builtin model (run `umwelt index` to train one)");
      }
      return Status::Corrupt(path + ": unreadable builtin model");
    }
    size_t size = (*file)->size();
    std::unique_ptr<BuiltinEmbedder> e(new BuiltinEmbedder());
    e->file_ = std::move(file).value();
    std::memcpy(&e->h_, e->file_->data(), sizeof e->h_);
    e->lsa_ = std::memcmp(e->h_.magic, kLsaMagic, 8) == 0;
    if ((!e->lsa_ && std::memcmp(e->h_.magic, kFastTextMagic, 8) != 0) || e->h_.dim == 0 || e->h_.dim > 4096) {
      return Status::Corrupt(path + ": not a builtin model");
    }
    size_t off = sizeof(WordHeader);
    e->pc_ = reinterpret_cast<const float*>(e->file_->data() + off);
    off += size_t{e->h_.dim} * 4;
    e->weights_ = reinterpret_cast<const float*>(e->file_->data() + off);
    off += size_t{e->h_.n} * 4;
    e->offsets_ = reinterpret_cast<const uint32_t*>(e->file_->data() + off);
    off += (size_t{e->h_.n} + 1) * 4;
    e->blob_ = e->file_->data() + off;
    off = Align8(off + e->h_.blob_bytes);
    e->vectors_ = reinterpret_cast<const float*>(e->file_->data() + off);
    off += size_t{e->h_.n} * e->h_.dim * 4;
    if (off > size || e->offsets_[e->h_.n] != e->h_.blob_bytes) return Status::Corrupt(path + ": truncated builtin model");
    // The hash of the table before the trailer; models trained before the
    // trailer existed are hashed whole, which gives the same name.
    uint64_t hash = 0;
    WordTrailer t{};
    if (size == off + sizeof t) std::memcpy(&t, e->file_->data() + off, sizeof t);
    if (std::memcmp(t.magic, kTrailerMagic, 8) == 0) {
      hash = t.hash;
    } else {
      hash = XXH3_64bits(e->file_->data(), size);
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
    e->model_ = std::string(e->lsa_ ? "builtin:lsa-" : "builtin:fasttext-") + std::to_string(e->h_.dim) + "d-" +
                std::string(hex, 12);
    return e;
  }

  std::string model() const override { return model_; }
  int dim() const override { return static_cast<int>(h_.dim); }

  // The texts shared among the cores: a vector is the model's alone, so the
  // answer is the same on any number of them (embedding a corpus of ten
  // million chunks took 11 minutes on one).
  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts) override {
    std::vector<std::vector<float>> out(texts.size());
    ForEachBlock(texts.size(), 64, Workers(), [&](unsigned, size_t begin, size_t end) {
      std::unique_ptr<TermRows> rows = TakeRows();
      for (size_t i = begin; i < end; ++i) out[i] = lsa_ ? EmbedLsa(texts[i], *rows) : EmbedSif(texts[i]);
      GiveBack(std::move(rows));
    });
    return out;
  }

 private:
  BuiltinEmbedder() = default;
  std::unique_ptr<MappedFile> file_;

  // Each token's row of the table, -1 for a function word or a stem the
  // table lacks: telling function words, stemming and the binary search
  // took most of the time of embedding a corpus, and a corpus says the same
  // words again and again. A block being embedded holds a map of its own,
  // taken from a pool and given back; each map is bounded, and the pool
  // keeps one per core (a server's concurrent searches make more at once).
  using TermRows = std::unordered_map<std::string, int32_t, StringHash, std::equal_to<>>;
  static constexpr size_t kMaxRowsCached = size_t{1} << 18;
  std::unique_ptr<TermRows> TakeRows() const {
    std::lock_guard lock(pool_mu_);
    if (pool_.empty()) return std::make_unique<TermRows>();
    std::unique_ptr<TermRows> rows = std::move(pool_.back());
    pool_.pop_back();
    return rows;
  }
  void GiveBack(std::unique_ptr<TermRows> rows) const {
    if (rows->size() > kMaxRowsCached) rows->clear();
    std::lock_guard lock(pool_mu_);
    if (pool_.size() < Workers()) pool_.push_back(std::move(rows));
  }
  int32_t RowOf(std::string_view token, TermRows& rows) const {
    auto it = rows.find(token);
    if (it != rows.end()) return it->second;
    const int32_t row = lsa::IsStopWord(token) ? -1 : static_cast<int32_t>(Find(StemWord(token)));
    rows.emplace(token, row);
    return row;
  }

  std::string_view Word(uint32_t i) const {
    return std::string_view(blob_ + offsets_[i], offsets_[i + 1] - offsets_[i]);
  }
  int64_t Find(std::string_view w) const {
    uint32_t lo = 0, hi = h_.n;
    while (lo < hi) {
      uint32_t mid = lo + (hi - lo) / 2;
      if (Word(mid) < w) lo = mid + 1;
      else hi = mid;
    }
    return lo < h_.n && Word(lo) == w ? static_cast<int64_t>(lo) : -1;
  }

  // Each known stem's vector times log(1 + tf) and its weight, summed in the
  // table's order (the stems' sorted order: the sum is the same to the bit
  // as the stems', counted apart, would give).
  std::vector<float> EmbedLsa(const std::string& text, TermRows& rows) const {
    const uint32_t d = h_.dim;
    std::vector<float> v(d, 0.0f);
    std::vector<int32_t> found;
    for (const auto& t : Tokenize(text)) {
      if (int32_t row = RowOf(t, rows); row >= 0) found.push_back(row);
    }
    if (found.empty()) return v;  // all zeros when the text has no known stem
    std::sort(found.begin(), found.end());
    for (size_t i = 0, j; i < found.size(); i = j) {
      for (j = i + 1; j < found.size() && found[j] == found[i];) ++j;
      const auto row = static_cast<size_t>(found[i]);
      const float* wv = vectors_ + row * d;
      const float weight = lsa::LogTf(static_cast<uint32_t>(j - i)) * weights_[row];
      for (uint32_t k = 0; k < d; ++k) v[k] += weight * wv[k];
    }
    Normalize(&v);
    return v;
  }

  std::vector<float> EmbedSif(const std::string& text) const {
    const uint32_t d = h_.dim;
    std::vector<float> v(d, 0.0f);
    size_t n = 0;
    for (const auto& w : Tokenize(text)) {
      int64_t i = Find(w);
      if (i < 0) continue;
      const float* wv = vectors_ + static_cast<size_t>(i) * d;
      float weight = weights_[i];
      for (uint32_t k = 0; k < d; ++k) v[k] += weight * wv[k];
      ++n;
    }
    if (n == 0) return v;  // all zeros: the text has no known words
    double dot = 0;
    for (uint32_t k = 0; k < d; ++k) dot += v[k] * pc_[k];
    for (uint32_t k = 0; k < d; ++k) v[k] -= static_cast<float>(dot) * pc_[k];
    Normalize(&v);
    return v;
  }

  WordHeader h_{};
  bool lsa_ = false;
  const float* pc_ = nullptr;
  const float* weights_ = nullptr;
  const uint32_t* offsets_ = nullptr;
  const char* blob_ = nullptr;
  const float* vectors_ = nullptr;
  std::string model_;
  mutable std::mutex pool_mu_;
  mutable std::vector<std::unique_ptr<TermRows>> pool_;
};

// The first principal component of `rows` (power iteration on X^T X).
std::vector<float> FirstComponent(const std::vector<std::vector<float>>& rows, int dim) {
  std::vector<double> u(dim, 1.0 / std::sqrt(static_cast<double>(dim)));
  for (int iter = 0; iter < 30; ++iter) {
    std::vector<double> next(dim, 0.0);
    for (const auto& r : rows) {
      double dot = 0;
      for (int k = 0; k < dim; ++k) dot += r[k] * u[k];
      for (int k = 0; k < dim; ++k) next[k] += dot * r[k];
    }
    double norm = 0;
    for (double x : next) norm += x * x;
    norm = std::sqrt(norm);
    if (norm == 0) break;
    for (int k = 0; k < dim; ++k) u[k] = next[k] / norm;
  }
  return std::vector<float>(u.begin(), u.end());
}

}  // namespace

std::string BuiltinModelPath(const Corpus& corpus, const std::string& space) {
  return corpus.path() + "." + space + ".words";
}

namespace {

// Calls `each` with the title and text of the space's records, sampled down
// to about o.max_train_words words (uniformly, seeded: a table reproduces).
// The first read of the space counts its bytes and notes its ids; a sample
// is then read by id, not by reading the space again.
Status ForEachSampledText(Corpus& corpus, const std::string& space, const BuiltinTrainOptions& o,
                          const std::function<void(const std::string&)>& each) {
  auto covers = [&](std::string_view src) { return SpaceCovers(space, std::string(src)); };
  // Words in the space, roughly (bytes / 6), to decide the sampling rate.
  int64_t bytes = 0;
  std::vector<int64_t> ids;
  UMWELT_RETURN_IF_ERROR(corpus.ForEachText(space, false, covers, [&](const Corpus::TextRow& r) {
    bytes += static_cast<int64_t>(r.title.size() + r.text.size());
    ids.push_back(r.id);
  }));
  double keep = std::min(1.0, static_cast<double>(o.max_train_words) * 6 / std::max<int64_t>(1, bytes));
  if (keep >= 1.0) {
    return corpus.ForEachText(space, false, covers, [&](const Corpus::TextRow& r) {
      each(std::string(r.title) + " " + std::string(r.text));
    });
  }
  std::mt19937_64 sampler(20261130);
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  std::vector<int64_t> picked;
  for (int64_t id : ids) {
    if (coin(sampler) <= keep) picked.push_back(id);
  }
  ids = std::vector<int64_t>();
  constexpr size_t kRead = 4096;
  for (size_t at = 0; at < picked.size(); at += kRead) {
    std::vector<int64_t> part(picked.begin() + static_cast<long>(at),
                              picked.begin() + static_cast<long>(std::min(picked.size(), at + kRead)));
    UMWELT_ASSIGN_OR_RETURN(auto chunks, corpus.ChunksById(part));
    for (const auto& c : chunks) each(c.title + " " + c.text);
  }
  return Status::Ok();
}

// A trained word table, before it is written.
struct WordTable {
  const char* magic = nullptr;
  int dim = 0;
  std::vector<std::string> words;  // sorted
  std::vector<float> weights;      // per word
  std::vector<float> vectors;      // words × dim
  std::vector<float> pc;           // dim
};

// Latent semantic analysis over the sampled texts' stems.
Result<WordTable> TrainLsaTable(Corpus& corpus, const std::string& space, const BuiltinTrainOptions& o) {
  lsa::Trainer trainer;
  UMWELT_RETURN_IF_ERROR(
      ForEachSampledText(corpus, space, o, [&](const std::string& text) { trainer.Add(StemTerms(text)); }));
  lsa::TrainOptions lo;
  lo.dim = o.dim;
  lo.min_df = o.min_count;
  auto model = trainer.Train(lo);
  if (!model.ok()) {
    return Status::Invalid("training the builtin model for space " + space + ": " + model.status().message() +
                           " (is the corpus empty?)");
  }
  WordTable t;
  t.magic = kLsaMagic;
  t.dim = o.dim;
  t.words = std::move(model->terms);
  t.weights = std::move(model->idf);
  t.vectors = std::move(model->vectors);
  t.pc.assign(o.dim, 0.0f);
  return t;
}

// Word vectors trained by fastText.
struct Trained {
  int dim = 0;
  std::vector<std::string> words;
  std::vector<int64_t> counts;
  std::vector<float> vectors;  // in the order of words
};

// Trains through fastText, which lives in a module loaded only here
// (fasttext_module.cc), on the sampled texts' tokens, one text a line.
Result<Trained> TrainFastTextWords(Corpus& corpus, const std::string& space, const BuiltinTrainOptions& o,
                                   const std::string& model_path) {
  static const auto train = LoadModuleFunction<decltype(&umwelt_fasttext_train)>(
      "umwelt-fasttext", "umwelt_fasttext_train", "training the builtin vector space");
  if (!train.ok()) return train.status();
  std::string text_path = TempPathFor(model_path + ".train");
  {
    std::ofstream out(text_path, std::ios::binary | std::ios::trunc);
    if (!out) return Status::Io(text_path + ": cannot write training text");
    Status s = ForEachSampledText(corpus, space, o, [&](const std::string& text) {
      std::string line;
      for (const auto& w : Tokenize(text)) {
        line += w;
        line += ' ';
      }
      out << line << '\n';
    });
    if (!s.ok()) {
      ::unlink(text_path.c_str());
      return s;
    }
  }
  Trained t;
  UmweltFastTextArgs args{text_path.c_str(), o.dim, o.epoch, o.min_count, std::max(1, o.threads)};
  char err[512] = "";
  int rc = (*train)(
      &args, &t,
      [](void* ctx, const char* w, size_t size, int64_t count, const float* v, int d) {
        auto* t = static_cast<Trained*>(ctx);
        t->dim = d;
        t->words.emplace_back(w, size);
        t->counts.push_back(count);
        t->vectors.insert(t->vectors.end(), v, v + d);
      },
      err, sizeof err);
  ::unlink(text_path.c_str());
  if (rc != 0) {
    return Status::Invalid("training the builtin model for space " + space + ": " + err + " (is the corpus empty?)");
  }
  return t;
}

// fastText words with SIF weights and the principal component of a sample of
// the corpus's sentence vectors.
Result<WordTable> TrainFastTextTable(Corpus& corpus, const std::string& space, const BuiltinTrainOptions& o) {
  UMWELT_ASSIGN_OR_RETURN(Trained trained, TrainFastTextWords(corpus, space, o, BuiltinModelPath(corpus, space)));
  const Trained& t = trained;
  const int32_t n = static_cast<int32_t>(t.words.size());
  WordTable table;
  table.magic = kFastTextMagic;
  table.dim = t.dim > 0 ? t.dim : o.dim;
  const int dim = table.dim;
  double total = 0;
  for (auto c : t.counts) total += static_cast<double>(c);
  std::vector<std::pair<std::string, int32_t>> words;
  for (int32_t i = 0; i < n; ++i) words.emplace_back(t.words[i], i);
  std::sort(words.begin(), words.end());
  table.vectors.resize(static_cast<size_t>(n) * dim);
  table.weights.resize(n);
  for (int32_t j = 0; j < n; ++j) {
    table.words.push_back(words[j].first);
    const float* wv = &t.vectors[static_cast<size_t>(words[j].second) * dim];
    std::copy(wv, wv + dim, &table.vectors[static_cast<size_t>(j) * dim]);
    double p = total > 0 ? t.counts[words[j].second] / total : 0;
    table.weights[j] = static_cast<float>(kSifA / (kSifA + p));
  }

  // The principal component over a sample of the corpus's sentence vectors.
  std::vector<std::vector<float>> sample;
  std::mt19937 rng(7);
  std::map<std::string, int32_t> index;
  for (int32_t j = 0; j < n; ++j) index.emplace(table.words[j], j);
  Status s = corpus.ForEachText(space, false, [&](std::string_view src) { return SpaceCovers(space, std::string(src)); },
                                [&](const Corpus::TextRow& r) {
                                  if (sample.size() >= 20000 && rng() % 8 != 0) return;
                                  std::vector<float> v(dim, 0.0f);
                                  size_t used = 0;
                                  for (const auto& w : Tokenize(std::string(r.title) + " " + std::string(r.text))) {
                                    auto it = index.find(w);
                                    if (it == index.end()) continue;
                                    const float* x = &table.vectors[static_cast<size_t>(it->second) * dim];
                                    for (int k = 0; k < dim; ++k) v[k] += table.weights[it->second] * x[k];
                                    ++used;
                                  }
                                  if (used == 0) return;
                                  if (sample.size() < 40000) sample.push_back(std::move(v));
                                  else sample[rng() % sample.size()] = std::move(v);
                                });
  UMWELT_RETURN_IF_ERROR(s);
  table.pc = FirstComponent(sample, dim);
  return table;
}

// Writes `t` to `path` (through a temporary file, renamed into place).
Status WriteWordTable(const WordTable& t, const std::string& path) {
  std::vector<uint32_t> offsets;
  std::string blob;
  for (const auto& w : t.words) {
    offsets.push_back(static_cast<uint32_t>(blob.size()));
    blob += w;
  }
  offsets.push_back(static_cast<uint32_t>(blob.size()));
  WordHeader h{};
  std::memcpy(h.magic, t.magic, 8);
  h.dim = static_cast<uint32_t>(t.dim);
  h.n = static_cast<uint32_t>(t.words.size());
  h.blob_bytes = blob.size();
  std::string tmp = TempPathFor(path);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    // The model's name hashes the table; the trailer keeps the hash so that
    // opening the model does not read the whole file for it.
    XXH3_state_t* state = XXH3_createState();
    XXH3_64bits_reset(state);
    auto put = [&](const void* p, size_t n) {
      out.write(static_cast<const char*>(p), static_cast<std::streamsize>(n));
      XXH3_64bits_update(state, p, n);
    };
    put(&h, sizeof h);
    put(t.pc.data(), t.pc.size() * 4);
    put(t.weights.data(), t.weights.size() * 4);
    put(offsets.data(), offsets.size() * 4);
    put(blob.data(), blob.size());
    size_t pos = sizeof h + t.pc.size() * 4 + t.weights.size() * 4 + offsets.size() * 4 + blob.size();
    static const char zeros[8] = {};
    put(zeros, Align8(pos) - pos);
    put(t.vectors.data(), t.vectors.size() * 4);
    WordTrailer trailer{XXH3_64bits_digest(state), {}};
    XXH3_freeState(state);
    std::memcpy(trailer.magic, kTrailerMagic, 8);
    out.write(reinterpret_cast<const char*>(&trailer), sizeof trailer);
    if (!out) {
      ::unlink(tmp.c_str());
      return Status::Io(tmp + ": write failed");
    }
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) return Status::Io(path + ": " + std::strerror(errno));
  return Status::Ok();
}

}  // namespace

Status TrainBuiltin(Corpus& corpus, const std::string& space, const BuiltinTrainOptions& o) {
  if (o.method != "lsa" && o.method != "fasttext") {
    return Status::Invalid("the builtin model is lsa or fasttext, not `" + o.method + "`");
  }
  UMWELT_ASSIGN_OR_RETURN(WordTable table, o.method == "fasttext" ? TrainFastTextTable(corpus, space, o)
                                                                   : TrainLsaTable(corpus, space, o));
  UMWELT_RETURN_IF_ERROR(WriteWordTable(table, BuiltinModelPath(corpus, space)));
  LogInfo("trained the builtin model (" + o.method + ") for " + space + ": " + std::to_string(table.words.size()) +
          " words, " + std::to_string(table.dim) + "-d");
  return Status::Ok();
}

Result<std::unique_ptr<Embedder>> LoadBuiltinEmbedder(const std::string& path) {
  UMWELT_ASSIGN_OR_RETURN(auto e, BuiltinEmbedder::Load(path));
  return std::unique_ptr<Embedder>(std::move(e));
}

}  // namespace umwelt
