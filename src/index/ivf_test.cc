// A large vector space in inverted lists (ivf.h, vector_index.cc): a search
// reads the lists nearest its query, finds what the exact scan finds on
// clustered vectors, reads every list when asked to be exact or when a
// filter leaves too few, and keeps the delta of a stale file.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <random>
#include <set>

#include "corpus_fixtures.h"
#include "index/ivf.h"
#include "test_util.h"
#include "umwelt/vector.h"

namespace umwelt {
namespace {

constexpr int kDim = 32, kClusters = 40, kRows = 4000;

// A corpus of kRows chunks whose vectors lie around kClusters centres, as
// a model's do around topics.
class IvfTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = Corpus::Open(dir_.File("v.db"), Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok());
    corpus_ = std::move(c).value();
    for (int j = 0; j < kClusters; ++j) centres_.push_back(Unit(Gaussian(1.0f)));
    auto b = corpus_->BeginWrite();
    ASSERT_TRUE((*b)->PutMeta("spaces", "{\"prose\":{\"model\":\"m\",\"dim\":" + std::to_string(kDim) + "}}").ok());
    for (int i = 1; i <= kRows; ++i) ASSERT_TRUE((*b)->PutRecord({Row(i)}).ok());
    ASSERT_TRUE((*b)->Commit().ok());
    b = corpus_->BeginWrite();
    for (int64_t id = 1; id <= kRows; ++id) {
      vectors_[id] = Near(centres_[static_cast<size_t>(id) % kClusters]);
      ASSERT_TRUE((*b)->PutEmbedding(id, "prose", vectors_[id]).ok());
    }
    ASSERT_TRUE((*b)->Commit().ok());
  }

  static umwelt::Chunk Row(int i) {
    std::string ref = "o/r#" + std::to_string(i);
    return testing::GithubChunk(ref, ref, "issue", "https://github.com/o/r/issues/" + std::to_string(i),
                                "row " + std::to_string(i));
  }
  std::vector<float> Gaussian(float sigma) {
    std::normal_distribution<float> g(0, sigma);
    std::vector<float> v(kDim);
    for (float& x : v) x = g(rng_);
    return v;
  }
  static std::vector<float> Unit(std::vector<float> v) {
    Normalize(&v);
    return v;
  }
  // A unit vector near `centre`.
  std::vector<float> Near(const std::vector<float>& centre) {
    std::vector<float> v = Gaussian(0.08f);
    for (int k = 0; k < kDim; ++k) v[k] += centre[k];
    return Unit(v);
  }
  // The `k` nearest chunks to `q` that `keep` admits, by an exact float scan.
  std::vector<int64_t> Exact(const std::vector<float>& q, size_t k, const std::function<bool(int64_t)>& keep = nullptr) {
    std::vector<std::pair<float, int64_t>> all;
    for (const auto& [id, v] : vectors_) {
      if (keep && !keep(id)) continue;
      float dot = 0;
      for (int j = 0; j < kDim; ++j) dot += q[j] * v[j];
      all.emplace_back(dot, id);
    }
    std::sort(all.begin(), all.end(), std::greater<>());
    std::vector<int64_t> ids;
    for (size_t i = 0; i < std::min(k, all.size()); ++i) ids.push_back(all[i].second);
    return ids;
  }
  static std::vector<int64_t> Ids(const Result<std::vector<ScoredDoc>>& r) {
    std::vector<int64_t> ids;
    if (r.ok()) {
      for (const auto& d : *r) ids.push_back(d.chunk_id);
    }
    return ids;
  }
  std::unique_ptr<VectorIndex> OpenLists() {
    auto v = VectorIndex::Open(*corpus_, "prose", {.ivf_min_rows = 0});
    EXPECT_TRUE(v.ok()) << v.status().message();
    return v.ok() ? std::move(v).value() : nullptr;
  }

  testing::TempDir dir_;
  std::unique_ptr<Corpus> corpus_;
  std::mt19937 rng_{11};
  std::vector<std::vector<float>> centres_;
  std::map<int64_t, std::vector<float>> vectors_;
};

TEST_F(IvfTest, ASpaceBelowTheThresholdIsScannedWhole) {
  auto v = VectorIndex::Open(*corpus_, "prose");
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ((*v)->lists(), 0u);
  EXPECT_EQ((*v)->size(), static_cast<size_t>(kRows));
}

TEST_F(IvfTest, ALargeSpaceIsSearchedThroughTheListsNearestTheQuery) {
  auto v = OpenLists();
  ASSERT_TRUE(v);
  ASSERT_EQ(v->lists(), ivf::ListCount(kRows));
  ASSERT_LT(ivf::ProbeCount(ivf::ListCount(kRows)), ivf::ListCount(kRows));  // a search reads some lists, not all
  EXPECT_EQ(v->size(), static_cast<size_t>(kRows));
  // Opened again with the default threshold, the file is kept as it was built.
  auto again = VectorIndex::Open(*corpus_, "prose");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)->lists(), v->lists());

  double found = 0;
  const int kQueries = 40;
  for (int t = 0; t < kQueries; ++t) {
    std::vector<float> q = Near(centres_[static_cast<size_t>(t) % kClusters]);
    std::vector<int64_t> truth = Exact(q, 10);
    EXPECT_EQ(Ids(v->Nearest(q, nullptr, 10, true)), truth) << t;  // exact: every list
    auto got = v->Nearest(q, nullptr, 10, false);
    ASSERT_TRUE(got.ok());
    ASSERT_EQ(got->size(), 10u);
    std::set<int64_t> want(truth.begin(), truth.end());
    for (const auto& d : *got) found += static_cast<double>(want.count(d.chunk_id));
    EXPECT_EQ((*got)[0].chunk_id, truth[0]) << t;
  }
  EXPECT_GE(found / (kQueries * 10), 0.9);

  // A filter that admits one chunk in 400: the search reads more lists and
  // keeps more candidates until it has enough, as the exact scan would.
  auto rare = [](int64_t id) { return id % 400 == 7; };
  for (int t = 0; t < 5; ++t) {
    std::vector<float> q = Near(centres_[static_cast<size_t>(t)]);
    EXPECT_EQ(Ids(v->Nearest(q, rare, 5, false)), Exact(q, 5, rare)) << t;
  }
  EXPECT_EQ(v->Nearest(std::vector<float>(kDim + 1, 0.1f), nullptr, 5, false).status().code(), Code::kInvalidArgument);

  // A one-shot search reads the lists it probes with pread, a block at a
  // time: the same hits as through the mapping.
  auto once = VectorIndex::Open(*corpus_, "prose", {.rows = RowReads::kPread});
  ASSERT_TRUE(once.ok()) << once.status().message();
  for (int t = 0; t < 10; ++t) {
    std::vector<float> q = Near(centres_[static_cast<size_t>(t) % kClusters]);
    EXPECT_EQ(Ids((*once)->Nearest(q, nullptr, 10, false)), Ids(v->Nearest(q, nullptr, 10, false))) << t;
    EXPECT_EQ(Ids((*once)->Nearest(q, nullptr, 10, true)), Ids(v->Nearest(q, nullptr, 10, true))) << t;
    EXPECT_EQ(Ids((*once)->Nearest(q, rare, 5, false)), Ids(v->Nearest(q, rare, 5, false))) << t;
  }
}

// A stale file in lists is brought up to date like one scanned whole: the
// changed chunks' rows masked, their vectors now scanned beside it.
TEST_F(IvfTest, ChangedVectorsOfASpaceInListsAreScannedBesideTheFile) {
  ASSERT_TRUE(OpenLists());
  const std::string path = dir_.File("v.db.vec-prose");
  const std::string built = testing::ReadFileOrEmpty(path);
  const std::vector<float> q = Near(centres_[3]);
  {
    auto b = corpus_->BeginWrite();
    ASSERT_TRUE((*b)->DeleteRecord("o/r#" + std::to_string(Exact(q, 1)[0])).ok());
    ASSERT_TRUE((*b)->PutEmbedding(5, "prose", q).ok());  // chunk 5 (another cluster's) is now the query's own
    ASSERT_TRUE((*b)->Commit().ok());
  }
  vectors_.erase(Exact(q, 1)[0]);
  vectors_[5] = q;
  auto v = VectorIndex::Open(*corpus_, "prose");
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_TRUE(testing::ReadFileOrEmpty(path) == built);  // not rewritten
  EXPECT_GT((*v)->lists(), 0u);
  EXPECT_EQ((*v)->size(), static_cast<size_t>(kRows - 1));
  auto got = (*v)->Nearest(q, nullptr, 10, false);
  ASSERT_TRUE(got.ok() && !got->empty());
  EXPECT_EQ((*got)[0].chunk_id, 5);
  EXPECT_NEAR((*got)[0].score, 1.0, 1e-5);
  EXPECT_EQ(Ids(got), Exact(q, 10));
}

// A file rebuilt after many changes keeps the lists it was built with (no
// training again) while the space has not outgrown them.
TEST_F(IvfTest, ARebuiltFileKeepsItsLists) {
  ASSERT_TRUE(OpenLists());
  const std::string path = dir_.File("v.db.vec-prose");
  const size_t centroid_bytes = size_t{ivf::ListCount(kRows)} * kDim * 4;
  const std::string before = testing::ReadFileOrEmpty(path);
  {
    auto b = corpus_->BeginWrite();
    for (int64_t id = 1; id <= kRows / 4; ++id) {  // beyond what is scanned beside the file
      vectors_[id] = Near(centres_[static_cast<size_t>(id + 1) % kClusters]);
      ASSERT_TRUE((*b)->PutEmbedding(id, "prose", vectors_[id]).ok());
    }
    ASSERT_TRUE((*b)->Commit().ok());
  }
  auto v = OpenLists();
  ASSERT_TRUE(v);
  const std::string after = testing::ReadFileOrEmpty(path);
  ASSERT_NE(after, before);  // rebuilt
  ASSERT_EQ(v->lists(), ivf::ListCount(kRows));
  EXPECT_EQ(after.substr(336, centroid_bytes), before.substr(336, centroid_bytes));
  for (int t = 0; t < 5; ++t) {
    std::vector<float> q = Near(centres_[static_cast<size_t>(t)]);
    EXPECT_EQ(Ids(v->Nearest(q, nullptr, 10, true)), Exact(q, 10)) << t;
  }
}

// A file whose lists are damaged is not read past its end or trusted: it is
// built again, and the search is right.
TEST_F(IvfTest, DamagedListsAreBuiltAgain) {
  ASSERT_TRUE(OpenLists());
  const std::string path = dir_.File("v.db.vec-prose");
  std::string bytes = testing::ReadFileOrEmpty(path);
  ASSERT_GT(bytes.size(), 4096u);
  // The lists' starts follow the header and the centroids: make one point
  // past the end of the rows.
  const size_t starts = 336 + ((ivf::ListCount(kRows) * kDim * 4 + 7) & ~size_t{7});
  bytes.replace(starts + 8, 8, std::string(8, '\x7f'));
  testing::WriteFile(path, bytes);
  auto v = VectorIndex::Open(*corpus_, "prose", {.ivf_min_rows = 0});
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_NE(testing::ReadFileOrEmpty(path), bytes);
  std::vector<float> q = Near(centres_[0]);
  EXPECT_EQ(Ids((*v)->Nearest(q, nullptr, 10, true)), Exact(q, 10));

  testing::WriteFile(path, bytes.substr(0, bytes.size() / 2));  // truncated
  v = VectorIndex::Open(*corpus_, "prose");
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ((*v)->size(), static_cast<size_t>(kRows));
}

// Whatever multiplies (OpenBLAS where installed, Eigen's portable code
// otherwise or when asked), each row goes to the centroid nearest it: the
// two agree on every row but where its two best centroids tie to the last
// bits of a float, and each answer is the best by an exact count. 10,000
// rows make two whole blocks of 4,096 and a part.
TEST(IvfAssign, EveryMultiplierPutsEachRowInItsNearestList) {
  constexpr uint32_t kD = 100;
  constexpr uint64_t kN = 10000;
  constexpr int kLists = 300;
  std::mt19937 rng(11);
  std::normal_distribution<float> g;
  std::vector<float> rows(kN * kD), centroids(size_t{kLists} * kD);
  for (float& x : rows) x = g(rng);
  for (float& x : centroids) x = g(rng);
  const std::vector<uint32_t> fast = ivf::Assigner(centroids, kD)(rows.data(), kN);
  const std::vector<uint32_t> portable = ivf::Assigner(centroids, kD, ivf::Multiplier::kPortable)(rows.data(), kN);
  ASSERT_EQ(fast.size(), kN);
  ASSERT_EQ(portable.size(), kN);
  auto dot = [&](uint64_t r, uint32_t j) {
    double s = 0;
    for (uint32_t k = 0; k < kD; ++k) s += double{rows[r * kD + k]} * centroids[size_t{j} * kD + k];
    return s;
  };
  int differ = 0;
  for (uint64_t r = 0; r < kN; ++r) {
    double best = dot(r, 0);
    for (uint32_t j = 1; j < kLists; ++j) best = std::max(best, dot(r, j));
    for (uint32_t got : {fast[r], portable[r]}) {
      ASSERT_LT(got, static_cast<uint32_t>(kLists));
      EXPECT_NEAR(dot(r, got), best, 1e-4 * (1 + std::abs(best))) << "row " << r;
    }
    differ += fast[r] != portable[r];
  }
  EXPECT_LE(differ, 10) << "multiplied by " << ivf::FastestMultiplier();
}

}  // namespace
}  // namespace umwelt
