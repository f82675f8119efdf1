// The per-space vector file: 4-bit codes scanned exhaustively, float32 rows
// rescored for the best candidates. Layout: header, ids int64[n],
// scales float[n], codes (8-aligned; n rows of padded_dim/2 bytes),
// vectors float[n*dim].
//
// A code row packs the dimensions in blocks of 64: byte j of a block holds
// dimension j in its low nibble and dimension 32 + j in its high nibble, each
// stored as q + 8 where q = round(v / scale) in [-7, 7] and scale = max|v| / 7.
// Padding dimensions hold 8 (zero). Half the bytes of int8 codes and, with
// AVX2's unsigned-by-signed multiply, twice its speed; the recall cost is
// measured by `vector_bench recall` (the rescoring pool is wide).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <immintrin.h>
#include <fstream>
#include <limits>
#include <mutex>
#include <optional>

#include <xxhash.h>

#include "umwelt/file.h"
#include "umwelt/vector.h"

namespace umwelt {
namespace {

// 03: the change log's point and the space's key, for the delta
constexpr char kMagic[8] = {'U', 'M', 'W', 'V', 'E', 'C', '0', '3'};

struct VecHeader {
  char magic[8];
  uint32_t dim;
  uint32_t pad;
  uint64_t n;
  uint64_t key_hash;  // the corpus's vector key when built: current, or stale
  char model[256];
  // The change log's newest entry when built (Corpus::LogPoint), and what
  // the space was then (its name and the corpus's spaces): a stale file of
  // the same space is brought up to date with the vectors logged since.
  uint32_t has_log;
  uint32_t pad2;
  int64_t log_seq, log_id;
  uint64_t space_hash;
  uint64_t log_corpus;  // whose log: the hash of the corpus's corpus_id
};

size_t Align8(size_t x) { return (x + 7) & ~size_t{7}; }
uint32_t PaddedDim(uint32_t d) { return (d + 63) & ~uint32_t{63}; }

// sum over dimensions of code nibble * query byte (the +8 offset is taken
// off by the caller), over `blocks` blocks of 64 dimensions.
int32_t DotNibblesScalar(const int8_t* q, const uint8_t* code, uint32_t blocks) {
  int32_t s = 0;
  for (uint32_t b = 0; b < blocks; ++b, q += 64, code += 32) {
    for (uint32_t j = 0; j < 32; ++j) s += (code[j] & 15) * q[j] + (code[j] >> 4) * q[32 + j];
  }
  return s;
}

__attribute__((target("avx2"))) int32_t DotNibblesAvx2(const int8_t* q, const uint8_t* code, uint32_t blocks) {
  const __m256i ones = _mm256_set1_epi16(1), low = _mm256_set1_epi8(15);
  __m256i acc = _mm256_setzero_si256();
  for (uint32_t b = 0; b < blocks; ++b, q += 64, code += 32) {
    __m256i packed = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(code));
    __m256i lo = _mm256_and_si256(packed, low);
    __m256i hi = _mm256_and_si256(_mm256_srli_epi16(packed, 4), low);
    __m256i q0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q));
    __m256i q1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 32));
    // nibble (0..15) * query (-127..127), pairs summed: |x| <= 3810, no saturation.
    __m256i pairs = _mm256_add_epi16(_mm256_maddubs_epi16(lo, q0), _mm256_maddubs_epi16(hi, q1));
    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, ones));
  }
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
  s = _mm_hadd_epi32(s, s);
  s = _mm_hadd_epi32(s, s);
  return _mm_cvtsi128_si32(s);
}

using DotNibblesFn = int32_t (*)(const int8_t*, const uint8_t*, uint32_t);
DotNibblesFn PickDotNibbles() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") ? DotNibblesAvx2 : DotNibblesScalar;
}

float DotF(const float* a, const float* b, uint32_t d) {
  float s = 0;
  for (uint32_t k = 0; k < d; ++k) s += a[k] * b[k];
  return s;
}

// The query side: int8, padded with zeros to `padded` dimensions.
float QuantizeQuery(const float* v, uint32_t d, uint32_t padded, std::vector<int8_t>* out) {
  float mx = 0;
  for (uint32_t k = 0; k < d; ++k) mx = std::max(mx, std::fabs(v[k]));
  float scale = mx > 0 ? mx / 127.0f : 1.0f;
  out->assign(padded, 0);
  for (uint32_t k = 0; k < d; ++k) (*out)[k] = static_cast<int8_t>(std::lround(v[k] / scale));
  return scale;
}

// The stored side: one code row of PaddedDim(d) / 2 bytes (layout above).
float QuantizeRow(const float* v, uint32_t d, uint8_t* out) {
  float mx = 0;
  for (uint32_t k = 0; k < d; ++k) mx = std::max(mx, std::fabs(v[k]));
  float scale = mx > 0 ? mx / 7.0f : 1.0f;
  uint32_t padded = PaddedDim(d);
  std::memset(out, 0x88, padded / 2);
  for (uint32_t k = 0; k < d; ++k) {
    auto nib = static_cast<uint8_t>(std::clamp<long>(std::lround(v[k] / scale), -7, 7) + 8);
    uint8_t& byte = out[(k / 64) * 32 + (k % 32)];
    byte = (k % 64) < 32 ? static_cast<uint8_t>((byte & 0xF0) | nib) : static_cast<uint8_t>((byte & 0x0F) | (nib << 4));
  }
  return scale;
}

class MappedVectors final : public VectorIndex {
 public:
  // Maps the file at `path`, current or stale (header()).
  static Result<std::unique_ptr<MappedVectors>> Map(const std::string& path) {
    UMWELT_ASSIGN_OR_RETURN(auto file, MappedFile::Open(path, sizeof(VecHeader)));
    size_t size = file->size();
    std::unique_ptr<MappedVectors> m(new MappedVectors());
    m->file_ = std::move(file);
    std::memcpy(&m->h_, m->file_->data(), sizeof m->h_);
    if (std::memcmp(m->h_.magic, kMagic, 8) != 0) return Status::Corrupt(path + ": not a vector file of this version");
    size_t n = m->h_.n, d = m->h_.dim;
    if (n > 0 && (d == 0 || d > 8192 || n > size / (d * 4 + 12))) return Status::Corrupt(path + ": header out of range");
    size_t row = PaddedDim(static_cast<uint32_t>(d)) / 2;
    size_t off = sizeof(VecHeader);
    m->ids_ = reinterpret_cast<const int64_t*>(m->file_->data() + off);
    off += n * 8;
    m->scales_ = reinterpret_cast<const float*>(m->file_->data() + off);
    off = Align8(off + n * 4);
    m->codes_ = reinterpret_cast<const uint8_t*>(m->file_->data() + off);
    off = Align8(off + n * row);
    m->vectors_ = reinterpret_cast<const float*>(m->file_->data() + off);
    m->file_->AdviseRandom(off, n * d * 4);  // rescoring reads a few rows
    off += n * d * 4;
    if (off != size) return Status::Corrupt(path + ": size disagrees with its header");
    m->model_ = std::string(m->h_.model, strnlen(m->h_.model, sizeof m->h_.model));
    return m;
  }

  // The scales and codes, which every search scans: mapped into the page
  // table in one call (MADV_POPULATE_READ, Linux 5.14), else touched page by
  // page; the float rows, read a few at a time, are left alone.
  void Prefetch() const override {
    std::call_once(prefetched_, [this] {
      const uint32_t row = PaddedDim(h_.dim) / 2;
      const auto* begin = reinterpret_cast<const uint8_t*>(scales_);
      const uint8_t* end = codes_ + h_.n * row;
      const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
      const uint8_t* first = begin - (reinterpret_cast<uintptr_t>(begin) & (page - 1));
      constexpr int kPopulateRead = 22;  // MADV_POPULATE_READ, for older headers
      if (end <= first || ::madvise(const_cast<uint8_t*>(first), static_cast<size_t>(end - first), kPopulateRead) == 0) {
        return;
      }
      volatile uint8_t sink = 0;
      for (const uint8_t* p = first; p < end; p += page) sink = sink + *p;
    });
  }

  const VecHeader& header() const { return h_; }
  const std::string& model() const override { return model_; }
  int dim() const override { return static_cast<int>(h_.dim); }
  size_t size() const override { return h_.n - n_masked_ + delta_ids_.size(); }

  // Brings a stale file up to date: the chunks among `changed` (sorted) are
  // masked here, and those of them with a vector now, `ids` and their
  // `vectors`, are scanned beside the file, exactly.
  void SetDelta(const std::vector<int64_t>& changed, std::vector<int64_t> ids, std::vector<float> vectors) {
    masked_.assign(h_.n, false);
    n_masked_ = 0;
    for (int64_t id : changed) {
      const int64_t* it = std::lower_bound(ids_, ids_ + h_.n, id);
      if (it != ids_ + h_.n && *it == id) {
        masked_[static_cast<size_t>(it - ids_)] = true;
        ++n_masked_;
      }
    }
    delta_ids_ = std::move(ids);
    delta_vectors_ = std::move(vectors);
  }

  Result<std::vector<ScoredDoc>> Nearest(const std::vector<float>& q, const std::function<bool(int64_t)>& filter,
                                         size_t limit) const override {
    const uint32_t d = h_.dim;
    if (q.size() != d) {
      return Status::Invalid("query vector has " + std::to_string(q.size()) + " dimensions; the space has " +
                             std::to_string(d));
    }
    for (float x : q) {
      if (!std::isfinite(x)) return Status::Invalid("query vector is not finite");
    }
    const uint32_t padded = PaddedDim(d), blocks = padded / 64, row = padded / 2;
    std::vector<int8_t> qc;
    float qs = QuantizeQuery(q.data(), d, padded, &qc);
    int32_t offset = 0;  // codes are q + 8: take 8 * sum(query) back off
    for (int8_t x : qc) offset += 8 * x;
    static const DotNibblesFn dot = PickDotNibbles();
    // Scan: approximate scores for every row, keeping the best `want`
    // (rescored exactly below). The buffer is cut back to `want` whenever it
    // fills, which raises the bar the next rows must clear.
    size_t want = std::max<size_t>(limit * 16, 1024);
    std::vector<std::pair<float, uint32_t>> cand;
    auto scan = [&](size_t keep) {
      cand.clear();
      cand.reserve(2 * keep);
      float bar = -std::numeric_limits<float>::infinity();
      auto better = [](const auto& a, const auto& b) { return a.first > b.first; };
      for (uint64_t i = 0; i < h_.n; ++i) {
        float s = static_cast<float>(dot(qc.data(), codes_ + i * row, blocks) - offset) * qs * scales_[i];
        if (s < bar) continue;
        cand.emplace_back(s, static_cast<uint32_t>(i));
        if (cand.size() == 2 * keep) {
          std::nth_element(cand.begin(), cand.begin() + static_cast<long>(keep - 1), cand.end(), better);
          cand.resize(keep);
          bar = cand.back().first;
        }
      }
      size_t take = std::min(keep, cand.size());
      std::partial_sort(cand.begin(), cand.begin() + static_cast<long>(take), cand.end(), better);
      cand.resize(take);
    };
    std::vector<ScoredDoc> out;
    while (true) {
      scan(want);
      out.clear();
      for (const auto& [approx, r] : cand) {
        if ((!masked_.empty() && masked_[r]) || (filter && !filter(ids_[r]))) continue;
        out.push_back({ids_[r], DotF(q.data(), vectors_ + size_t{r} * d, d), false});
      }
      if (out.size() >= limit || cand.size() < want || want >= h_.n) break;
      want *= 8;  // the filter removed too many: scan again, keeping more
    }
    for (size_t i = 0; i < delta_ids_.size(); ++i) {
      if (filter && !filter(delta_ids_[i])) continue;
      out.push_back({delta_ids_[i], DotF(q.data(), delta_vectors_.data() + i * d, d), false});
    }
    std::sort(out.begin(), out.end(), [](const ScoredDoc& a, const ScoredDoc& b) { return a.score > b.score; });
    if (out.size() > limit) out.resize(limit);
    return out;
  }

 private:
  MappedVectors() = default;
  std::unique_ptr<MappedFile> file_;
  VecHeader h_{};
  const int64_t* ids_ = nullptr;
  const float* scales_ = nullptr;
  const uint8_t* codes_ = nullptr;
  const float* vectors_ = nullptr;
  std::string model_;
  mutable std::once_flag prefetched_;
  // The delta (SetDelta): rows replaced or deleted since the file was built,
  // and the vectors written since.
  std::vector<bool> masked_;
  size_t n_masked_ = 0;
  std::vector<int64_t> delta_ids_;
  std::vector<float> delta_vectors_;
};

// The corpus's vectors of `space` into the file at `path`; `key` and `log`
// were read before them.
Status BuildVectors(Corpus& corpus, const std::string& space, const std::string& model, uint64_t key,
                    uint64_t space_hash, const std::optional<Corpus::LogPoint>& log, uint64_t log_corpus,
                    const std::string& path) {
  std::vector<int64_t> ids;
  std::vector<float> vectors;
  int dim = 0;
  std::string bad;
  UMWELT_RETURN_IF_ERROR(corpus.ForEachVector(space, [&](int64_t id, const float* v, int d) {
    if (dim == 0) dim = d;
    if (d != dim) return;
    for (int k = 0; k < d; ++k) {
      if (!std::isfinite(v[k])) {
        if (bad.empty()) bad = std::to_string(id);
        return;  // a NaN vector is left out of the space
      }
    }
    ids.push_back(id);
    vectors.insert(vectors.end(), v, v + d);
  }));
  VecHeader h{};
  std::memcpy(h.magic, kMagic, 8);
  h.dim = static_cast<uint32_t>(dim);
  h.n = ids.size();
  h.key_hash = key;
  std::strncpy(h.model, model.c_str(), sizeof h.model - 1);
  h.has_log = log.has_value();
  h.log_seq = log ? log->seq : 0;
  h.log_id = log ? log->id : 0;
  h.space_hash = space_hash;
  h.log_corpus = log_corpus;
  const size_t row = PaddedDim(static_cast<uint32_t>(dim)) / 2;
  std::vector<float> scales(ids.size());
  std::vector<uint8_t> codes(ids.size() * row);
  for (size_t i = 0; i < ids.size(); ++i) {
    scales[i] = QuantizeRow(&vectors[i * dim], static_cast<uint32_t>(dim), &codes[i * row]);
  }
  std::string tmp = TempPathFor(path);
  std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
  static const char zeros[8] = {};
  auto pad = [&](size_t pos) { out.write(zeros, static_cast<std::streamsize>(Align8(pos) - pos)); };
  out.write(reinterpret_cast<const char*>(&h), sizeof h);
  out.write(reinterpret_cast<const char*>(ids.data()), static_cast<std::streamsize>(ids.size() * 8));
  out.write(reinterpret_cast<const char*>(scales.data()), static_cast<std::streamsize>(scales.size() * 4));
  size_t pos = sizeof h + ids.size() * 12;
  pad(pos);
  pos = Align8(pos);
  out.write(reinterpret_cast<const char*>(codes.data()), static_cast<std::streamsize>(codes.size()));
  pad(pos + codes.size());
  out.write(reinterpret_cast<const char*>(vectors.data()), static_cast<std::streamsize>(vectors.size() * 4));
  out.close();
  if (!out) {
    ::unlink(tmp.c_str());
    return Status::Io(tmp + ": write failed");
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) return Status::Io(path + ": " + std::strerror(errno));
  return Status::Ok();
}

std::string VectorPath(const Corpus& corpus, const std::string& space) {
  std::string p = KeywordIndex::PathFor(corpus);
  size_t dot = p.rfind(".kwidx");
  if (dot != std::string::npos && dot + 6 == p.size()) return p.substr(0, dot) + ".vec-" + space;
  return p + ".vec-" + space;  // the cache folder's name for a read-only corpus
}

}  // namespace

namespace {

// At most this many changed chunks are scanned beside a stale file (read
// from the corpus by each process that opens it); beyond, the file is
// rebuilt.
size_t VectorDeltaLimit(uint64_t n) { return static_cast<size_t>(n / 16); }

// Brings `file` (stale, of the same space) up to date from the change log;
// false when the log cannot say what changed since it was built, or too
// much did.
Result<bool> ApplyDelta(Corpus& corpus, const std::string& space, MappedVectors& file) {
  const VecHeader& h = file.header();
  if (!h.has_log) return false;
  const size_t limit = VectorDeltaLimit(h.n);
  UMWELT_ASSIGN_OR_RETURN(auto changed, corpus.ChangedSince({h.log_seq, h.log_id}, 2 * limit));
  if (!changed || changed->size() > limit) return false;
  std::vector<int64_t> ids;
  std::vector<float> vectors;
  bool fits = true;
  UMWELT_RETURN_IF_ERROR(corpus.ForEachVectorIn(space, *changed, [&](int64_t id, const float* v, int d) {
    if (static_cast<uint32_t>(d) != h.dim) {
      fits = false;  // another model's: rebuilt (and refused there)
      return;
    }
    for (int k = 0; k < d; ++k) {
      if (!std::isfinite(v[k])) return;  // a NaN vector is left out of the space
    }
    ids.push_back(id);
    vectors.insert(vectors.end(), v, v + d);
  }));
  if (!fits) return false;
  file.SetDelta(*changed, std::move(ids), std::move(vectors));
  return true;
}

}  // namespace

Result<std::unique_ptr<VectorIndex>> VectorIndex::Open(Corpus& corpus, const std::string& space) {
  UMWELT_ASSIGN_OR_RETURN(auto spaces, CorpusSpaces(corpus));
  auto it = spaces.find(space);
  if (it == spaces.end()) return Status::NotFound("the corpus has no vector space `" + space + "`");
  std::string path = VectorPath(corpus, space);
  for (int attempt = 0; attempt < 3; ++attempt) {
    // The keys and the log's point before the vectors: a write committed in
    // between makes the file stale, or is read twice (harmless).
    UMWELT_ASSIGN_OR_RETURN(std::string key_text, corpus.VectorKey(space));
    uint64_t key = XXH3_64bits(key_text.data(), key_text.size());
    UMWELT_ASSIGN_OR_RETURN(std::string spaces_meta, corpus.GetMeta("spaces"));
    std::string space_text = space + "|" + it->second + "|" + spaces_meta;
    uint64_t space_hash = XXH3_64bits(space_text.data(), space_text.size());
    UMWELT_ASSIGN_OR_RETURN(std::string corpus_id, corpus.GetMeta("corpus_id"));
    uint64_t log_corpus = XXH3_64bits(corpus_id.data(), corpus_id.size());
    auto mapped = MappedVectors::Map(path);
    if (mapped.ok() && (*mapped)->header().key_hash == key) return std::unique_ptr<VectorIndex>(std::move(mapped).value());
    if (mapped.ok() && (*mapped)->header().space_hash == space_hash && (*mapped)->header().log_corpus == log_corpus) {
      UMWELT_ASSIGN_OR_RETURN(bool applied, ApplyDelta(corpus, space, **mapped));
      if (applied) return std::unique_ptr<VectorIndex>(std::move(mapped).value());
    }
    UMWELT_ASSIGN_OR_RETURN(auto log, corpus.ChangeLogPoint());
    if (attempt < 2) UMWELT_RETURN_IF_ERROR(BuildVectors(corpus, space, it->second, key, space_hash, log, log_corpus, path));
  }
  return Status::Unavailable(path + ": the vector file keeps going stale (a writer is busy); try again");
}

}  // namespace umwelt
