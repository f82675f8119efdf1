#include "ivf.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <numeric>
#include <random>
#include <string_view>

#include <Eigen/Dense>

#include "umwelt/dynlib.h"
#include "umwelt/parallel.h"

#ifdef UMWELT_SONAME_OPENBLAS
// The two CBLAS and OpenBLAS functions called, declared here (the enums as
// the ints they are) so that no cblas.h is needed to build.
extern "C" {
void cblas_sgemm(int order, int trans_a, int trans_b, int m, int n, int k, float alpha, const float* a, int lda,
                 const float* b, int ldb, float beta, float* c, int ldc);
void openblas_set_num_threads(int threads);
}
#endif

namespace umwelt::ivf {
namespace {

using Rows = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstRows = Eigen::Map<const Rows>;

// Rows scored against the centroids at a time: 4,096 × lists floats.
constexpr Eigen::Index kBlock = 4096;

// Training samples per list: enough for a centroid to settle, and training
// stays seconds at millions of vectors.
constexpr uint64_t kSamplesPerList = 64;
constexpr int kIterations = 10;

void Normalize(float* v, uint32_t dim) {
  double s = 0;
  for (uint32_t k = 0; k < dim; ++k) s += double{v[k]} * v[k];
  if (s <= 0) return;
  const auto inv = static_cast<float>(1 / std::sqrt(s));
  for (uint32_t k = 0; k < dim; ++k) v[k] *= inv;
}

#ifdef UMWELT_SONAME_OPENBLAS
#define UMWELT_OPENBLAS_API(X) X(cblas_, sgemm) X(openblas_, set_num_threads)
UMWELT_DYNLIB_TABLE(BlasApi, UMWELT_OPENBLAS_API)

// OpenBLAS's sgemm when the library is installed (loaded on first use; it
// picks the CPU's widest kernels at run time, and ran a block of rows
// against 2,983 centroids 1.9x as fast as Eigen's portable code on this
// machine), unless $UMWELT_BLAS is "off"; else null, and Eigen multiplies.
// OpenBLAS spreads one product over the cores itself: it is called from one
// thread at a time (two calls at once ran ten times slower), two lists'
// builds in one process taking turns.
const BlasApi* Blas() {
  static const BlasApi* api = []() -> const BlasApi* {
    const char* env = std::getenv("UMWELT_BLAS");
    if (env && std::string_view(env) == "off") return nullptr;
    auto t = LoadTable<BlasApi>(UMWELT_SONAME_OPENBLAS, "matrix products",
                                [](const BlasApi& b) { b.set_num_threads(static_cast<int>(Workers())); });
    return t.ok() ? *t : nullptr;
  }();
  return api;
}
#endif

// The nearest centroid of each row of `x` (n × dim), blockwise: each block's
// scores against every centroid in one product, then each row's best. A
// row's nearest is its own: the answer is the same on any number of cores
// (and, but for exact ties, with or without OpenBLAS). `scratch` holds the
// scores, one buffer a thread, kept by the caller from call to call: a
// fresh 48 MB for each block of 4,096 rows against 2,983 lists cost more in
// page faults than the product (glibc maps so large a block anew each time).
std::vector<uint32_t> Nearest(const ConstRows& x, const ConstRows& c, Multiplier multiplier,
                              std::vector<std::vector<float>>& scratch) {
  std::vector<uint32_t> out(static_cast<size_t>(x.rows()));
  const auto n = static_cast<size_t>(x.rows());
  const unsigned workers = Workers();
  scratch.resize(workers);
  auto scores = [&](unsigned worker, Eigen::Index rows) {
    std::vector<float>& buffer = scratch[worker];
    buffer.resize(std::max(buffer.size(), static_cast<size_t>(rows * c.rows())));
    return Eigen::Map<Rows>(buffer.data(), rows, c.rows());
  };
  auto best_of = [&](const Eigen::Map<Rows>& s, size_t begin, size_t first, size_t last) {
    for (size_t r = first; r < last; ++r) {
      Eigen::Index best = 0;
      s.row(static_cast<Eigen::Index>(r)).maxCoeff(&best);
      out[begin + r] = static_cast<uint32_t>(best);
    }
  };
#ifdef UMWELT_SONAME_OPENBLAS
  if (const BlasApi* blas = multiplier == Multiplier::kFastest ? Blas() : nullptr) {
    for (size_t begin = 0; begin < n; begin += static_cast<size_t>(kBlock)) {
      const auto rows = static_cast<Eigen::Index>(std::min(n - begin, static_cast<size_t>(kBlock)));
      Eigen::Map<Rows> s = scores(0, rows);
      constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;
      const auto dim = static_cast<int>(x.cols());
      static std::mutex one_at_a_time;
      {
        std::lock_guard<std::mutex> lock(one_at_a_time);
        blas->sgemm(kRowMajor, kNoTrans, kTrans, static_cast<int>(rows), static_cast<int>(c.rows()), dim, 1.0F,
                    x.row(static_cast<Eigen::Index>(begin)).data(), dim, c.data(), dim, 0.0F, s.data(),
                    static_cast<int>(c.rows()));
      }
      ForEachBlock(static_cast<size_t>(rows), 256, workers, [&](unsigned, size_t first, size_t last) {
        best_of(s, begin, first, last);
      });
    }
    return out;
  }
#else
  (void)multiplier;
#endif
  const size_t step = std::clamp<size_t>((n + workers - 1) / workers, 256, static_cast<size_t>(kBlock));
  ForEachBlock(n, step, workers, [&](unsigned worker, size_t begin, size_t end) {
    const auto rows = static_cast<Eigen::Index>(end - begin);
    Eigen::Map<Rows> s = scores(worker, rows);
    s.noalias() = x.middleRows(static_cast<Eigen::Index>(begin), rows) * c.transpose();
    best_of(s, begin, 0, end - begin);
  });
  return out;
}

}  // namespace

uint32_t ListCount(uint64_t n) {
  const auto root = static_cast<uint64_t>(std::sqrt(static_cast<double>(n)));
  return static_cast<uint32_t>(std::clamp<uint64_t>(root, 1, 8192));
}

uint32_t ProbeCount(uint32_t lists) { return std::clamp<uint32_t>(lists / 10, std::min<uint32_t>(lists, 8), lists); }

std::vector<uint64_t> SampleRows(uint64_t n, uint32_t lists) {
  std::mt19937_64 rng(0x1f5eed);
  std::vector<uint64_t> pick(n);
  std::iota(pick.begin(), pick.end(), uint64_t{0});
  const uint64_t samples = std::min<uint64_t>(n, kSamplesPerList * lists);
  if (samples < n) {
    for (uint64_t i = 0; i < samples; ++i) std::swap(pick[i], pick[i + rng() % (n - i)]);
    pick.resize(samples);
    std::sort(pick.begin(), pick.end());
  }
  return pick;
}

std::vector<float> Train(const float* sample, uint64_t n, uint32_t dim, uint32_t lists) {
  std::mt19937_64 rng(0x5eed5);  // an empty list's new seed
  const ConstRows x(sample, static_cast<Eigen::Index>(n), dim);
  // Seeds: distinct sample rows.
  Rows c(lists, dim);
  for (uint32_t j = 0; j < lists; ++j) {
    c.row(j) = x.row(static_cast<Eigen::Index>(j * n / lists));
    Normalize(c.row(j).data(), dim);
  }
  std::vector<uint64_t> sizes(lists);
  std::vector<std::vector<float>> scratch;
  for (int it = 0; it < kIterations; ++it) {
    std::vector<uint32_t> of = Nearest(x, ConstRows(c.data(), lists, dim), Multiplier::kFastest, scratch);
    c.setZero();
    std::fill(sizes.begin(), sizes.end(), 0);
    for (uint64_t i = 0; i < n; ++i) {
      c.row(of[i]) += x.row(static_cast<Eigen::Index>(i));
      ++sizes[of[i]];
    }
    for (uint32_t j = 0; j < lists; ++j) {
      // An empty list starts again from a random sample row.
      if (sizes[j] == 0) c.row(j) = x.row(static_cast<Eigen::Index>(rng() % n));
      Normalize(c.row(j).data(), dim);
    }
  }
  return {c.data(), c.data() + c.size()};
}

std::string FastestMultiplier() {
#ifdef UMWELT_SONAME_OPENBLAS
  if (Blas()) return "OpenBLAS (" UMWELT_SONAME_OPENBLAS ")";
#endif
  return "Eigen";
}

Assigner::Assigner(std::vector<float> centroids, uint32_t dim, Multiplier multiplier)
    : centroids_(std::move(centroids)), dim_(dim), multiplier_(multiplier) {}

std::vector<uint32_t> Assigner::operator()(const float* vectors, uint64_t n) {
  const auto lists = static_cast<Eigen::Index>(centroids_.size() / dim_);
  return Nearest(ConstRows(vectors, static_cast<Eigen::Index>(n), dim_), ConstRows(centroids_.data(), lists, dim_),
                 multiplier_, scratch_);
}

std::vector<uint32_t> NearestLists(const float* q, uint32_t dim, const float* centroids, uint32_t lists,
                                   uint32_t probes) {
  Eigen::Map<const Eigen::VectorXf> query(q, dim);
  Eigen::VectorXf scores = ConstRows(centroids, lists, dim) * query;
  std::vector<uint32_t> order(lists);
  std::iota(order.begin(), order.end(), 0U);
  probes = std::min(probes, lists);
  std::partial_sort(order.begin(), order.begin() + probes, order.end(),
                    [&](uint32_t a, uint32_t b) { return scores[a] > scores[b]; });
  order.resize(probes);
  return order;
}

}  // namespace umwelt::ivf
