// The per-space vector file: int8 codes scanned exhaustively, float32 rows
// rescored for the best candidates. Layout: header, ids int64[n],
// scales float[n], codes int8[n*dim] (8-aligned), vectors float[n*dim].
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>

#include <xxhash.h>

#include "umwelt/file.h"
#include "umwelt/vector.h"

namespace umwelt {
namespace {

constexpr char kMagic[8] = {'U', 'M', 'W', 'V', 'E', 'C', '0', '1'};

struct VecHeader {
  char magic[8];
  uint32_t dim;
  uint32_t pad;
  uint64_t n;
  uint64_t key_hash;
  char model[256];
};

size_t Align8(size_t x) { return (x + 7) & ~size_t{7}; }

// int8 dot product; the loop is simple enough for the compiler to vectorize,
// and it is built for AVX2 as well as the baseline, chosen at run time.
__attribute__((target_clones("avx2", "default")))
int32_t DotI8(const int8_t* a, const int8_t* b, uint32_t d) {
  int32_t s = 0;
  for (uint32_t k = 0; k < d; ++k) s += static_cast<int32_t>(a[k]) * static_cast<int32_t>(b[k]);
  return s;
}

float DotF(const float* a, const float* b, uint32_t d) {
  float s = 0;
  for (uint32_t k = 0; k < d; ++k) s += a[k] * b[k];
  return s;
}

float Quantize(const float* v, uint32_t d, int8_t* out) {
  float mx = 0;
  for (uint32_t k = 0; k < d; ++k) mx = std::max(mx, std::fabs(v[k]));
  float scale = mx > 0 ? mx / 127.0f : 1.0f;
  for (uint32_t k = 0; k < d; ++k) out[k] = static_cast<int8_t>(std::lround(v[k] / scale));
  return scale;
}

class MappedVectors final : public VectorIndex {
 public:
  static Result<std::unique_ptr<MappedVectors>> Map(const std::string& path, uint64_t key) {
    UMWELT_ASSIGN_OR_RETURN(auto file, MappedFile::Open(path, sizeof(VecHeader)));
    size_t size = file->size();
    std::unique_ptr<MappedVectors> m(new MappedVectors());
    m->file_ = std::move(file);
    std::memcpy(&m->h_, m->file_->data(), sizeof m->h_);
    if (std::memcmp(m->h_.magic, kMagic, 8) != 0 || m->h_.key_hash != key) return Status::Corrupt(path + ": stale");
    size_t n = m->h_.n, d = m->h_.dim;
    if (n > 0 && (d == 0 || d > 8192 || n > size / (d + 12))) return Status::Corrupt(path + ": header out of range");
    size_t off = sizeof(VecHeader);
    m->ids_ = reinterpret_cast<const int64_t*>(m->file_->data() + off);
    off += n * 8;
    m->scales_ = reinterpret_cast<const float*>(m->file_->data() + off);
    off = Align8(off + n * 4);
    m->codes_ = reinterpret_cast<const int8_t*>(m->file_->data() + off);
    off = Align8(off + n * d);
    m->vectors_ = reinterpret_cast<const float*>(m->file_->data() + off);
    off += n * d * 4;
    if (off != size) return Status::Corrupt(path + ": size disagrees with its header");
    m->model_ = std::string(m->h_.model, strnlen(m->h_.model, sizeof m->h_.model));
    return m;
  }

  const std::string& model() const override { return model_; }
  int dim() const override { return static_cast<int>(h_.dim); }
  size_t size() const override { return h_.n; }

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
    std::vector<int8_t> qc(d);
    float qs = Quantize(q.data(), d, qc.data());
    // Scan: approximate scores for every row; keep a generous candidate set.
    size_t want = std::max<size_t>(limit * 8, 256);
    std::vector<std::pair<float, uint32_t>> cand;
    cand.reserve(h_.n);
    for (uint64_t i = 0; i < h_.n; ++i) {
      float s = static_cast<float>(DotI8(qc.data(), codes_ + i * d, d)) * qs * scales_[i];
      cand.emplace_back(s, static_cast<uint32_t>(i));
    }
    std::vector<ScoredDoc> out;
    while (true) {
      size_t take = std::min(want, cand.size());
      std::partial_sort(cand.begin(), cand.begin() + static_cast<long>(take), cand.end(),
                        [](const auto& a, const auto& b) { return a.first > b.first; });
      out.clear();
      for (size_t i = 0; i < take; ++i) {
        uint32_t row = cand[i].second;
        if (filter && !filter(ids_[row])) continue;
        out.push_back({ids_[row], DotF(q.data(), vectors_ + size_t{row} * d, d), false});
      }
      if (out.size() >= limit || take == cand.size()) break;
      want *= 4;  // the filter removed too many: widen
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
  const int8_t* codes_ = nullptr;
  const float* vectors_ = nullptr;
  std::string model_;
};

Status BuildVectors(Corpus& corpus, const std::string& space, const std::string& model, uint64_t key,
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
  std::vector<float> scales(ids.size());
  std::vector<int8_t> codes(ids.size() * static_cast<size_t>(dim));
  for (size_t i = 0; i < ids.size(); ++i) {
    scales[i] = Quantize(&vectors[i * dim], static_cast<uint32_t>(dim), &codes[i * dim]);
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

Result<std::unique_ptr<VectorIndex>> VectorIndex::Open(Corpus& corpus, const std::string& space) {
  UMWELT_ASSIGN_OR_RETURN(auto spaces, CorpusSpaces(corpus));
  auto it = spaces.find(space);
  if (it == spaces.end()) return Status::NotFound("the corpus has no vector space `" + space + "`");
  std::string path = VectorPath(corpus, space);
  for (int attempt = 0; attempt < 3; ++attempt) {
    UMWELT_ASSIGN_OR_RETURN(std::string key_text, corpus.VectorKey(space));
    uint64_t key = XXH3_64bits(key_text.data(), key_text.size());
    auto mapped = MappedVectors::Map(path, key);
    if (mapped.ok()) return std::unique_ptr<VectorIndex>(std::move(mapped).value());
    if (attempt < 2) UMWELT_RETURN_IF_ERROR(BuildVectors(corpus, space, it->second, key, path));
  }
  return Status::Unavailable(path + ": the vector file keeps going stale (a writer is busy); try again");
}

}  // namespace umwelt
