// The per-space vector file: 4-bit codes scanned, float32 rows rescored for
// the best candidates. Layout: header; for a space in inverted lists (IVF,
// header.lists > 0) the centroids float[lists*dim], the lists' first rows
// uint64[lists+1] and the ids in ascending order int64[n]; then ids int64[n],
// scales float[n], codes (8-aligned; n rows of padded_dim/2 bytes), vectors
// float[n*dim]. Rows are in id order, or list by list (each in id order).
// A small space is scanned whole; a large one list by list, the lists
// nearest the query only (ivf.h), unless the search asks for the exact scan.
//
// A code row packs the dimensions in blocks of 64: byte j of a block holds
// dimension j in its low nibble and dimension 32 + j in its high nibble, each
// stored as q + 8 where q = round(v / scale) in [-7, 7] and scale = max|v| / 7.
// Padding dimensions hold 8 (zero). Half the bytes of int8 codes and, with
// AVX2's unsigned-by-signed multiply, twice its speed; the recall cost is
// measured by `vector_bench recall` (the rescoring pool is wide).
#include <fcntl.h>
#include <immintrin.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

#include "ivf.h"
#include "umwelt/file.h"
#include "umwelt/vector.h"

namespace umwelt {
namespace {

// 03: the change log's point and the space's key, for the delta; 04: lists
constexpr char kMagic[8] = {'U', 'M', 'W', 'V', 'E', 'C', '0', '4'};

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
  uint32_t lists;       // inverted lists; 0: one list of every row, in id order
  uint32_t pad3;
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

// What a one-shot scan reads at a time: small enough to stay in the cache
// between the read and the scoring, large enough that the reads are few.
constexpr uint64_t kScanBlockBytes = 256 * 1024;
// Candidates from which a one-shot search reads their rows on two threads.
constexpr size_t kRescoreSplitRows = 256;
// What PrefetchWhile maps in between two looks at whether to go on.
constexpr uint64_t kMapInBlockBytes = 1024 * 1024;

class MappedVectors final : public VectorIndex {
 public:
  // Maps the file at `path`, current or stale (header()).
  static Result<std::unique_ptr<MappedVectors>> Map(const std::string& path, RowReads rows) {
    UMWELT_ASSIGN_OR_RETURN(auto file, MappedFile::Open(path, sizeof(VecHeader)));
    size_t size = file->size();
    std::unique_ptr<MappedVectors> m(new MappedVectors());
    m->file_ = std::move(file);
    std::memcpy(&m->h_, m->file_->data(), sizeof m->h_);
    if (std::memcmp(m->h_.magic, kMagic, 8) != 0) return Status::Corrupt(path + ": not a vector file of this version");
    const size_t n = m->h_.n, d = m->h_.dim, lists = m->h_.lists;
    if (n > 0 && (d == 0 || d > 8192 || n > size / (d * 4 + 12))) return Status::Corrupt(path + ": header out of range");
    if (lists > 0 && (lists > n || d == 0 || d > 8192 || lists > size / (d * 4 + 16))) {
      return Status::Corrupt(path + ": header out of range");
    }
    // Where each part begins, checked against the file's size before any is read.
    const size_t row = PaddedDim(static_cast<uint32_t>(d)) / 2;
    size_t off = sizeof(VecHeader);
    const size_t centroids = off, starts = Align8(centroids + lists * d * 4);
    const size_t sorted = lists > 0 ? starts + (lists + 1) * 8 : off;
    const size_t ids = lists > 0 ? sorted + n * 8 : off;
    const size_t scales = ids + n * 8, codes = Align8(scales + n * 4), vectors = Align8(codes + n * row);
    if (vectors + n * d * 4 != size) return Status::Corrupt(path + ": size disagrees with its header");
    const auto* base = reinterpret_cast<const uint8_t*>(m->file_->data());
    m->ids_ = reinterpret_cast<const int64_t*>(base + ids);
    m->sorted_ids_ = lists > 0 ? reinterpret_cast<const int64_t*>(base + sorted) : m->ids_;
    m->scales_ = reinterpret_cast<const float*>(base + scales);
    m->codes_ = base + codes;
    m->vectors_ = reinterpret_cast<const float*>(base + vectors);
    m->read_rows_ = rows == RowReads::kPread;
    if (lists > 0) {
      m->centroids_ = reinterpret_cast<const float*>(base + centroids);
      m->starts_ = reinterpret_cast<const uint64_t*>(base + starts);
      if (m->starts_[0] != 0 || m->starts_[lists] != n) return Status::Corrupt(path + ": lists disagree with its header");
      for (size_t j = 0; j < lists; ++j) {
        if (m->starts_[j] > m->starts_[j + 1]) return Status::Corrupt(path + ": lists out of order");
      }
    }
    m->file_->AdviseRandom(vectors, n * d * 4);  // rescoring reads a few rows
    m->model_ = std::string(m->h_.model, strnlen(m->h_.model, sizeof m->h_.model));
    return m;
  }

  // What every search reads, mapped in (MappedFile::Populate): the scales
  // and codes of a space scanned whole, the centroids and lists' starts of a
  // space in lists (17 ms for 221k 384-d codes on this machine, when a
  // server loads the file). The float rows, read a few at a time, are left
  // alone.
  void Prefetch() const override {
    std::call_once(prefetched_, [this] {
      if (h_.lists == 0) {
        MapInRows(nullptr);
        return;
      }
      const auto* begin = reinterpret_cast<const char*>(centroids_);
      const auto* end = reinterpret_cast<const char*>(starts_ + h_.lists + 1);
      file_->Populate(Offset(begin), static_cast<size_t>(end - begin));
    });
  }

  // A space scanned whole maps in its rows' scales and codes a block at a
  // time, from the first, while `pending` holds; the scan reads the rest
  // with pread in a one-shot search. A space in lists maps in its centroids.
  void PrefetchWhile(const std::atomic<bool>& pending) const override {
    if (h_.lists > 0) {
      Prefetch();
    } else {
      MapInRows(&pending);
    }
  }

  const VecHeader& header() const { return h_; }
  const std::string& model() const override { return model_; }
  int dim() const override { return static_cast<int>(h_.dim); }
  size_t size() const override { return h_.n - masked_.size() + delta_ids_.size(); }
  size_t lists() const override { return h_.lists; }
  std::vector<float> centroids() const {
    return {centroids_, centroids_ + (centroids_ ? size_t{h_.lists} * h_.dim : 0)};
  }

  // Brings a stale file up to date: the chunks among `changed` (sorted) are
  // masked here, and those of them with a vector now, `ids` and their
  // `vectors`, are scanned beside the file, exactly.
  void SetDelta(const std::vector<int64_t>& changed, std::vector<int64_t> ids, std::vector<float> vectors) {
    masked_.clear();
    for (int64_t id : changed) {
      if (std::binary_search(sorted_ids_, sorted_ids_ + h_.n, id)) masked_.push_back(id);
    }
    delta_ids_ = std::move(ids);
    delta_vectors_ = std::move(vectors);
  }

  Result<std::vector<ScoredDoc>> Nearest(const std::vector<float>& q, const std::function<bool(int64_t)>& filter,
                                         size_t limit, bool exact) const override {
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
    // The rows to scan: every row, or the lists nearest the query (all of
    // them for the exact scan), `probes` of them in this order.
    const uint32_t lists = h_.lists;
    const std::vector<uint32_t> order =
        lists > 0 ? ivf::NearestLists(q.data(), d, centroids_, lists, lists) : std::vector<uint32_t>{};
    uint32_t probes = lists == 0 || exact ? lists : ivf::ProbeCount(lists);
    // Scan: approximate scores for every row read, keeping the best `want`
    // (rescored exactly below). The buffer is cut back to `want` whenever it
    // fills, which raises the bar the next rows must clear.
    size_t want = std::max<size_t>(limit * 16, 1024);
    std::vector<std::pair<float, uint32_t>> cand;
    // A one-shot search reads the codes it did not map in while its query
    // was embedded (PrefetchWhile) a block at a time: a first touch of a
    // mapped page costs more than copying it (README, "What a first touch
    // costs here"). A long-lived one reads the mapping.
    const uint64_t mapped = read_rows_ ? mapped_rows_.load(std::memory_order_acquire) : h_.n;
    const uint64_t block_rows = std::max<uint64_t>(1, kScanBlockBytes / row);
    std::vector<uint8_t> code_buf;
    std::vector<float> scale_buf;
    auto scan = [&](size_t keep) -> Status {
      cand.clear();
      cand.reserve(2 * keep);
      float bar = -std::numeric_limits<float>::infinity();
      auto better = [](const auto& a, const auto& b) { return a.first > b.first; };
      // Rows [first, first + count), whose codes and scales are at `codes` and `scales`.
      auto score = [&](const uint8_t* codes, const float* scales, uint64_t first, uint64_t count) {
        for (uint64_t i = 0; i < count; ++i) {
          float s = static_cast<float>(dot(qc.data(), codes + i * row, blocks) - offset) * qs * scales[i];
          if (s < bar) continue;
          cand.emplace_back(s, static_cast<uint32_t>(first + i));
          if (cand.size() == 2 * keep) {
            std::nth_element(cand.begin(), cand.begin() + static_cast<long>(keep - 1), cand.end(), better);
            cand.resize(keep);
            bar = cand.back().first;
          }
        }
      };
      auto rows = [&](uint64_t begin, uint64_t end) -> Status {
        const uint64_t split = std::clamp(mapped, begin, end);
        score(codes_ + begin * row, scales_ + begin, begin, split - begin);
        if (split < end && code_buf.empty()) {
          code_buf.resize(block_rows * row);
          scale_buf.resize(block_rows);
        }
        for (uint64_t b = split; b < end; b += block_rows) {
          const uint64_t count = std::min<uint64_t>(block_rows, end - b);
          if (!file_->ReadAt(Offset(codes_ + b * row), count * row, code_buf.data()) ||
              !file_->ReadAt(Offset(scales_ + b), count * 4, scale_buf.data())) {
            return Status::Io("vector file: rows " + std::to_string(b) + "+" + std::to_string(count) +
                              " could not be read");
          }
          score(code_buf.data(), scale_buf.data(), b, count);
        }
        return Status::Ok();
      };
      if (lists == 0) UMWELT_RETURN_IF_ERROR(rows(0, h_.n));
      for (uint32_t j = 0; j < probes; ++j) UMWELT_RETURN_IF_ERROR(rows(starts_[order[j]], starts_[order[j] + 1]));
      size_t take = std::min(keep, cand.size());
      std::partial_sort(cand.begin(), cand.begin() + static_cast<long>(take), cand.end(), better);
      cand.resize(take);
      return Status::Ok();
    };
    std::vector<ScoredDoc> out;
    while (true) {
      UMWELT_RETURN_IF_ERROR(scan(want));
      UMWELT_ASSIGN_OR_RETURN(out, Rescore(q, cand, filter));
      // Too few left after the filter: read more lists, keep more candidates.
      const bool every_row = probes == lists;
      const bool pool_full = cand.size() >= want && want < h_.n;
      if (out.size() >= limit || (every_row && !pool_full)) break;
      if (pool_full) want *= 8;
      probes = std::min(lists, probes * 4);
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
  const int64_t* sorted_ids_ = nullptr;  // the ids ascending: ids_ itself without lists
  const float* scales_ = nullptr;
  const uint8_t* codes_ = nullptr;
  const float* vectors_ = nullptr;
  bool read_rows_ = false;  // rescoring reads rows with pread, not through the mapping
  const float* centroids_ = nullptr;  // lists × dim
  const uint64_t* starts_ = nullptr;  // lists + 1: list j is rows [starts_[j], starts_[j + 1])
  std::string model_;
  mutable std::once_flag prefetched_;
  // Rows [0, mapped_rows_) of a space scanned whole have their scales and
  // codes mapped in (MapInRows); map_mu_ serializes the mapping in.
  mutable std::atomic<uint64_t> mapped_rows_{0};
  mutable std::mutex map_mu_;

  // The candidates `filter` keeps, each scored exactly against its float32
  // row. A one-shot search reads the rows with pread, a syscall and a copy
  // each (about 2 us a row when cached; a search's vector leg rescores
  // 1,600): a second thread reads half of them.
  Result<std::vector<ScoredDoc>> Rescore(const std::vector<float>& q,
                                         const std::vector<std::pair<float, uint32_t>>& cand,
                                         const std::function<bool(int64_t)>& filter) const {
    const uint32_t d = h_.dim;
    std::vector<ScoredDoc> out;
    std::vector<uint32_t> rows;
    for (const auto& [approx, r] : cand) {
      const int64_t id = ids_[r];
      if (std::binary_search(masked_.begin(), masked_.end(), id) || (filter && !filter(id))) continue;
      out.push_back({id, 0, false});
      rows.push_back(r);
    }
    // Rows [from, to) scored into `out`; the first that could not be read, or none.
    auto score = [&](size_t from, size_t to) -> std::optional<uint32_t> {
      std::vector<float> buf(read_rows_ ? d : 0);
      for (size_t i = from; i < to; ++i) {
        const float* v = vectors_ + size_t{rows[i]} * d;
        if (read_rows_) {
          if (!file_->ReadAt(Offset(v), size_t{d} * 4, buf.data())) return rows[i];
          v = buf.data();
        }
        out[i].score = DotF(q.data(), v, d);
      }
      return std::nullopt;
    };
    const size_t n = rows.size();
    size_t split = read_rows_ && n >= kRescoreSplitRows ? n / 2 : n;
    std::optional<uint32_t> back_failed;
    std::thread back;
    try {
      if (split < n) back = std::thread([&] { back_failed = score(split, n); });
    } catch (const std::system_error&) {  // no thread to be had: this one reads them all
      split = n;
    }
    std::optional<uint32_t> failed = score(0, split);
    if (back.joinable()) back.join();
    if (!failed) failed = back_failed;
    if (failed) return Status::Io("vector file: row " + std::to_string(*failed) + " could not be read");
    return out;
  }

  // Maps in the scales and codes of the rows from mapped_rows_ on, 1 MB of
  // codes at a time, while `pending` (if given) holds.
  void MapInRows(const std::atomic<bool>* pending) const {
    std::lock_guard<std::mutex> lock(map_mu_);
    const uint64_t row = PaddedDim(h_.dim) / 2, step = std::max<uint64_t>(1, kMapInBlockBytes / row);
    for (uint64_t r = mapped_rows_.load(std::memory_order_relaxed); r < h_.n; r += step) {
      if (pending && !pending->load(std::memory_order_acquire)) return;
      const uint64_t count = std::min(step, h_.n - r);
      file_->Populate(Offset(scales_ + r), count * 4);
      file_->Populate(Offset(codes_ + r * row), count * row);
      mapped_rows_.store(r + count, std::memory_order_release);
    }
  }

  // The file offset of `p`, a pointer into the mapping.
  size_t Offset(const void* p) const { return static_cast<size_t>(static_cast<const char*>(p) - file_->data()); }

  // The delta (SetDelta): the ids of rows replaced or deleted since the file
  // was built (ascending), and the vectors written since.
  std::vector<int64_t> masked_;
  std::vector<int64_t> delta_ids_;
  std::vector<float> delta_vectors_;
};

// What a vector file records besides the vectors (read before them), and how
// it is laid out.
struct BuildInputs {
  uint64_t key = 0, space_hash = 0, log_corpus = 0;
  std::optional<Corpus::LogPoint> log;
  uint64_t ivf_min_rows = kIvfMinRows;  // a space of at least this many vectors is split into lists
  // The centroids of the stale file of the same space being replaced: its
  // lists are kept (not trained again) while the space has grown less than
  // fourfold since they were trained.
  std::vector<float> centroids;
};

// Writes a file at given offsets, a write that continues the last joined to
// it: sequential rows go out in large writes, scattered rows one each.
class PlacedWriter {
 public:
  explicit PlacedWriter(int fd) : fd_(fd) {}

  void Put(uint64_t at, const void* data, size_t bytes) {
    if (at != at_ + buf_.size() || buf_.size() + bytes > kJoin) Flush();
    if (bytes >= kJoin) {
      Write(at, static_cast<const char*>(data), bytes);
      return;
    }
    if (buf_.empty()) at_ = at;
    buf_.append(static_cast<const char*>(data), bytes);
  }
  // False when a write failed (errno says why). Call before closing the file.
  bool Flush() {
    Write(at_, buf_.data(), buf_.size());
    at_ += buf_.size();
    buf_.clear();
    return ok_;
  }

 private:
  static constexpr size_t kJoin = size_t{1} << 20;
  void Write(uint64_t at, const char* data, size_t bytes) {
    for (size_t done = 0; ok_ && done < bytes;) {
      ssize_t w = ::pwrite(fd_, data + done, bytes - done, static_cast<off_t>(at + done));
      if (w <= 0) ok_ = false;
      else done += static_cast<size_t>(w);
    }
  }
  int fd_;
  uint64_t at_ = 0;
  std::string buf_;
  bool ok_ = true;
};

// The corpus's vectors of `space` into the file at `path`, streamed: one
// read of the corpus copies the rows to a scratch file (unlinked at once)
// and later passes read them back a block at a time (the training sample,
// the lists, then each row written where its list puts it), so the build
// holds ids, lists and the sample, never the space (15 GB at 10M 384-d),
// and reads the corpus, whose chunks' text is most of it, once.
Status BuildVectors(Corpus& corpus, const std::string& space, const std::string& model, const BuildInputs& in,
                    const std::string& path) {
  std::string scratch_path = TempPathFor(path) + ".rows";
  int scratch = ::open(scratch_path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (scratch < 0) return Status::Io(scratch_path + ": " + std::strerror(errno));
  ::unlink(scratch_path.c_str());
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } close_scratch{scratch};
  std::vector<int64_t> ids;  // in id order, as the corpus gives them
  uint32_t d = 0;
  PlacedWriter spill(scratch);
  UMWELT_RETURN_IF_ERROR(corpus.ForEachVector(space, [&](int64_t id, const float* v, int dim) {
    if (d == 0) d = static_cast<uint32_t>(dim);
    if (static_cast<uint32_t>(dim) != d || !std::all_of(v, v + dim, [](float x) { return std::isfinite(x); })) {
      return;  // another dimension's, or a NaN vector: left out of the space
    }
    spill.Put(ids.size() * d * 4, v, size_t{d} * 4);
    ids.push_back(id);
  }));
  if (!spill.Flush()) return Status::Io(scratch_path + ": write failed: " + std::strerror(errno));
  if (std::adjacent_find(ids.begin(), ids.end(), std::greater_equal<>()) != ids.end()) {
    return Status::Corrupt("vector file: the corpus gave the vectors of `" + space + "` out of id order");
  }
  // A pass over the rows: each with its place in `ids`.
  auto pass = [&](const std::function<void(uint64_t, const float*)>& visit) -> Status {
    constexpr uint64_t kRows = 4096;
    std::vector<float> block(kRows * d);
    for (uint64_t begin = 0; begin < ids.size(); begin += kRows) {
      const uint64_t rows = std::min<uint64_t>(kRows, ids.size() - begin);
      auto* into = reinterpret_cast<char*>(block.data());
      for (size_t done = 0, want = rows * d * 4; done < want;) {
        ssize_t r = ::pread(scratch, into + done, want - done, static_cast<off_t>(begin * d * 4 + done));
        if (r <= 0) return Status::Io(scratch_path + ": read failed: " + std::strerror(r < 0 ? errno : EIO));
        done += static_cast<size_t>(r);
      }
      for (uint64_t r = 0; r < rows; ++r) visit(begin + r, &block[r * d]);
    }
    return Status::Ok();
  };
  const uint64_t n = ids.size();
  VecHeader h{};
  std::memcpy(h.magic, kMagic, 8);
  h.dim = d;
  h.n = n;
  h.key_hash = in.key;
  std::strncpy(h.model, model.c_str(), sizeof h.model - 1);
  h.has_log = in.log.has_value();
  h.log_seq = in.log ? in.log->seq : 0;
  h.log_id = in.log ? in.log->id : 0;
  h.space_hash = in.space_hash;
  h.log_corpus = in.log_corpus;
  // Each row's list, and where each list starts; none for a space scanned whole.
  std::vector<float> centroids;
  std::vector<uint32_t> list;
  std::vector<uint64_t> starts;
  if (n > 0 && n >= in.ivf_min_rows) {
    const uint64_t kept = in.centroids.size() / d;
    if (kept > 0 && kept <= n && in.centroids.size() % d == 0 && ivf::ListCount(n) < 2 * kept) {
      h.lists = static_cast<uint32_t>(kept);
      centroids = in.centroids;
    } else {
      h.lists = ivf::ListCount(n);
      std::vector<uint64_t> pick = ivf::SampleRows(n, h.lists);
      std::vector<float> sample;
      sample.reserve(pick.size() * d);
      size_t next = 0;
      UMWELT_RETURN_IF_ERROR(pass([&](uint64_t i, const float* v) {
        if (next < pick.size() && pick[next] == i) sample.insert(sample.end(), v, v + d), ++next;
      }));
      centroids = ivf::Train(sample.data(), pick.size(), d, h.lists);
    }
    list.reserve(n);
    std::vector<float> block;
    ivf::Assigner assigner(centroids, d);
    auto assign = [&] {
      auto of = assigner(block.data(), block.size() / d);
      list.insert(list.end(), of.begin(), of.end());
      block.clear();
    };
    UMWELT_RETURN_IF_ERROR(pass([&](uint64_t, const float* v) {
      block.insert(block.end(), v, v + d);
      if (block.size() == size_t{4096} * d) assign();
    }));
    assign();
    starts.assign(h.lists + 1, 0);
    for (uint32_t l : list) ++starts[l + 1];
    for (uint32_t j = 0; j < h.lists; ++j) starts[j + 1] += starts[j];
  }
  // The sections' offsets (the layout at the top of this file).
  const size_t row = PaddedDim(d) / 2;
  uint64_t at = sizeof h;
  const uint64_t centroids_at = at;
  if (h.lists > 0) at = Align8(at + centroids.size() * 4) + starts.size() * 8 + n * 8;
  const uint64_t ids_at = at, scales_at = ids_at + n * 8;
  const uint64_t codes_at = Align8(scales_at + n * 4);
  const uint64_t vectors_at = Align8(codes_at + n * row);
  const uint64_t size = vectors_at + n * d * 4;

  std::string tmp = TempPathFor(path);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::Io(tmp + ": " + std::strerror(errno));
  auto fail = [&](const std::string& what) {
    std::string message = tmp + ": " + what + ": " + std::strerror(errno);
    ::close(fd);
    ::unlink(tmp.c_str());
    return Status::Io(message);
  };
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0) return fail("cannot size the file");
  std::vector<float> scales(n);
  std::vector<int64_t> row_ids(n);
  {
    PlacedWriter head(fd), codes(fd), rows(fd);
    head.Put(0, &h, sizeof h);
    if (h.lists > 0) {
      head.Put(centroids_at, centroids.data(), centroids.size() * 4);
      head.Put(Align8(centroids_at + centroids.size() * 4), starts.data(), starts.size() * 8);
      head.Put(ids_at - n * 8, ids.data(), n * 8);  // ascending, for the delta's masking
    }
    std::vector<uint64_t> next(starts.begin(), starts.end() - (starts.empty() ? 0 : 1));
    std::vector<uint8_t> code(row);
    Status written = pass([&](uint64_t i, const float* v) {
      const uint64_t place = list.empty() ? i : next[list[i]]++;
      row_ids[place] = ids[i];
      scales[place] = QuantizeRow(v, d, code.data());
      codes.Put(codes_at + place * row, code.data(), row);
      rows.Put(vectors_at + place * d * 4, v, size_t{d} * 4);
    });
    if (!written.ok()) {
      ::close(fd);
      ::unlink(tmp.c_str());
      return written;
    }
    head.Put(ids_at, row_ids.data(), n * 8);
    head.Put(scales_at, scales.data(), n * 4);
    if (!head.Flush() || !codes.Flush() || !rows.Flush()) return fail("write failed");
  }
  if (::close(fd) != 0) {
    ::unlink(tmp.c_str());
    return Status::Io(tmp + ": write failed: " + std::strerror(errno));
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

Result<std::unique_ptr<VectorIndex>> VectorIndex::Open(Corpus& corpus, const std::string& space,
                                                       const VectorFileOptions& options) {
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
    auto mapped = MappedVectors::Map(path, options.rows);
    if (mapped.ok() && (*mapped)->header().key_hash == key) return std::unique_ptr<VectorIndex>(std::move(mapped).value());
    BuildInputs in{.key = key, .space_hash = space_hash, .log_corpus = log_corpus, .ivf_min_rows = options.ivf_min_rows};
    if (mapped.ok() && (*mapped)->header().space_hash == space_hash && (*mapped)->header().log_corpus == log_corpus) {
      UMWELT_ASSIGN_OR_RETURN(bool applied, ApplyDelta(corpus, space, **mapped));
      if (applied) return std::unique_ptr<VectorIndex>(std::move(mapped).value());
      in.centroids = (*mapped)->centroids();
    }
    UMWELT_ASSIGN_OR_RETURN(in.log, corpus.ChangeLogPoint());
    if (attempt < 2) UMWELT_RETURN_IF_ERROR(BuildVectors(corpus, space, it->second, in, path));
  }
  return Status::Unavailable(path + ": the vector file keeps going stale (a writer is busy); try again");
}

}  // namespace umwelt
