// Inverted lists for a large vector space (IVF): the vectors are split into
// lists by their nearest centroid (spherical k-means: centroids of unit
// length, nearness by dot product), and a search scans only the lists whose
// centroids lie nearest the query. The vector file (vector_index.cc) stores
// the lists one after another; this is the clustering.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace umwelt::ivf {

// How many lists a space of `n` vectors gets: about √n, so a list holds about
// √n vectors (README, "Vectors and hybrid search").
uint32_t ListCount(uint64_t n);

// How many lists a search reads: the nearest `ProbeCount` of `lists`, chosen
// by recall against the exact scan (`vector_bench recall`).
uint32_t ProbeCount(uint32_t lists);

// The rows of a space of `n` that train its `lists` centroids, ascending:
// every row of a small space, a seeded uniform draw of 64 a list from a
// large one, so a build is reproducible.
std::vector<uint64_t> SampleRows(uint64_t n, uint32_t lists);

// `lists` centroids (row-major, `lists` × `dim`, each of unit length) trained
// by spherical k-means on the `n` rows of `sample` (SampleRows's, gathered).
std::vector<float> Train(const float* sample, uint64_t n, uint32_t dim, uint32_t lists);

// What multiplies rows by centroids in Train and Assigner: OpenBLAS where it
// is installed (it picks the CPU's widest kernels at run time) unless
// $UMWELT_BLAS is "off", else Eigen's portable code; kPortable asks for
// Eigen's. Both give the same lists but where two centroids tie to the last
// bits of a float.
enum class Multiplier { kFastest, kPortable };

// What kFastest uses: "OpenBLAS (libopenblas.so.0)" or "Eigen".
std::string FastestMultiplier();

// The list of each row: the centroid with the largest dot product. Rows may
// come a block at a time; the scores' memory is kept from block to block (a
// fresh 48 MB for each block of 4,096 rows against 2,983 lists cost more in
// page faults than the product itself).
class Assigner {
 public:
  Assigner(std::vector<float> centroids, uint32_t dim, Multiplier multiplier = Multiplier::kFastest);
  // The lists of the `n` rows of `vectors` (n × dim).
  std::vector<uint32_t> operator()(const float* vectors, uint64_t n);

 private:
  std::vector<float> centroids_;
  uint32_t dim_;
  Multiplier multiplier_;
  std::vector<std::vector<float>> scratch_;  // each thread's scores
};

// The `probes` lists nearest unit vector `q`, nearest first.
std::vector<uint32_t> NearestLists(const float* q, uint32_t dim, const float* centroids, uint32_t lists,
                                   uint32_t probes);

}  // namespace umwelt::ivf
