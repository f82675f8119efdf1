#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "corpus_fixtures.h"
#include "fake_embeddings.h"
#include "test_util.h"
#include "umwelt/source_traits.h"
#include "umwelt/vector.h"

namespace umwelt {
namespace {

// A small corpus on two topics, enough for the builtin models to learn something.
class HybridTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = Corpus::Open(dir_.File("c.db"), Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok());
    corpus_ = std::move(c).value();
    const char* gpu[] = {"the gpu kernel was slow", "training throughput on the gpu cluster",
                         "gpu memory ran out during training", "faster kernels raised gpu throughput"};
    const char* data[] = {"the tokenizer splits numbers", "data mixture for the tokenizer",
                          "tokenizer vocabulary and data cleaning", "cleaning the data mixture"};
    auto b = corpus_->BeginWrite();
    for (int i = 0; i < 40; ++i) {
      std::string ref = "o/r#" + std::to_string(i + 1);
      std::string text = i % 2 ? data[i / 2 % 4] : gpu[i / 2 % 4];
      ASSERT_TRUE((*b)->PutRecord({testing::GithubChunk(ref, ref, i % 3 ? "comment" : "issue",
                                                        "https://github.com/o/r/issues/" + std::to_string(i + 1),
                                                        text + " note " + std::to_string(i))}).ok());
    }
    ASSERT_TRUE((*b)->Commit().ok());
  }
  IndexOptions Options() {
    IndexOptions o;
    o.builtin.dim = 16;
    o.builtin.epoch = 20;
    o.builtin.min_count = 1;
    o.builtin.threads = 1;
    return o;
  }
  testing::TempDir dir_;
  std::unique_ptr<Corpus> corpus_;
};

// A random unit vector of `dim` dimensions.
std::vector<float> UnitVector(std::mt19937& rng, int dim) {
  std::normal_distribution<float> g;
  std::vector<float> v(dim);
  float n = 0;
  for (float& x : v) {
    x = g(rng);
    n += x * x;
  }
  for (float& x : v) x /= std::sqrt(n);
  return v;
}

// The 4-bit scan with float rescoring finds the exact nearest rows, for
// dimensions that are and are not multiples of the 64-wide code blocks, and
// a filter that rejects most rows widens the scan instead of coming up short.
TEST(VectorIndexTest, ScanMatchesExactSearchAndWidensForFilters) {
  for (int dim : {16, 100, 384, 1024}) {
    testing::TempDir dir;
    auto c = Corpus::Open(dir.File("v.db"), Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok());
    std::mt19937 rng(dim);
    auto unit = [&] { return UnitVector(rng, dim); };
    const int kRows = 3000;
    std::vector<std::pair<int64_t, std::vector<float>>> rows;
    {
      auto b = (*c)->BeginWrite();
      ASSERT_TRUE((*b)->PutMeta("spaces", "{\"prose\":{\"model\":\"m\",\"dim\":" + std::to_string(dim) + "}}").ok());
      for (int i = 0; i < kRows; ++i) {
        std::string ref = "o/r#" + std::to_string(i + 1);
        ASSERT_TRUE((*b)->PutRecord({testing::GithubChunk(ref, ref, "issue", "https://github.com/o/r/issues/" +
                                                          std::to_string(i + 1), "row " + std::to_string(i))}).ok());
      }
      ASSERT_TRUE((*b)->Commit().ok());
    }
    {
      auto b = (*c)->BeginWrite();
      ASSERT_TRUE((*c)->ForEachText("prose", true, [](std::string_view) { return true; },
                                    [&](const Corpus::TextRow& r) { rows.emplace_back(r.id, unit()); }).ok());
      for (const auto& [id, v] : rows) ASSERT_TRUE((*b)->PutEmbedding(id, "prose", v).ok());
      ASSERT_TRUE((*b)->Commit().ok());
    }
    // Codes scanned and rows rescored through the mapping (a server); read a
    // block at a time with pread (a CLI search: at 384 dimensions the 3,000
    // codes are three blocks); and a CLI search's codes mapped in while its
    // query is embedded (PrefetchWhile: at 1,024 dimensions two pieces), none
    // of them, all, or as many as it got to before the answer came, the
    // rest read: the same hits.
    enum Prefetching { kNone, kWhileNeverPending, kWhileAlwaysPending, kWhileCut, kWhole };
    for (auto [reads, prefetching] :
         {std::pair{RowReads::kMapped, kNone}, std::pair{RowReads::kPread, kNone},
          std::pair{RowReads::kPread, kWhileNeverPending}, std::pair{RowReads::kPread, kWhileAlwaysPending},
          std::pair{RowReads::kPread, kWhileCut}, std::pair{RowReads::kPread, kWhole}}) {
      auto index = VectorIndex::Open(**c, "prose", {.rows = reads});
      ASSERT_TRUE(index.ok()) << index.status().message();
      ASSERT_EQ((*index)->size(), static_cast<size_t>(kRows));
      std::atomic<bool> pending{prefetching != kWhileNeverPending};
      if (prefetching == kWhileNeverPending || prefetching == kWhileAlwaysPending) (*index)->PrefetchWhile(pending);
      if (prefetching == kWhileCut) {
        std::thread answer([&] { pending.store(false); });
        (*index)->PrefetchWhile(pending);
        answer.join();
      }
      if (prefetching == kWhole) (*index)->Prefetch();
      // Each row at or beside a block's edge (pread: 512, 1,365 rows; mapped
      // in: 2,048) finds itself first.
      for (size_t i : {0, 1, 511, 512, 1364, 1365, 2047, 2048, 2730, 2731, kRows - 1}) {
        auto self = (*index)->Nearest(rows[i].second, nullptr, 1, false);
        ASSERT_TRUE(self.ok());
        ASSERT_EQ(self->size(), 1u);
        EXPECT_EQ((*self)[0].chunk_id, rows[i].first) << dim << " row " << i << " prefetching " << prefetching;
      }
      for (int trial = 0; trial < 5; ++trial) {
        std::vector<float> q = unit();
        auto exact = [&](const std::function<bool(int64_t)>& keep, size_t k) {
          std::vector<std::pair<float, int64_t>> all;
          for (const auto& [id, v] : rows) {
            if (keep && !keep(id)) continue;
            float dot = 0;
            for (int j = 0; j < dim; ++j) dot += q[j] * v[j];
            all.emplace_back(dot, id);
          }
          std::sort(all.begin(), all.end(), std::greater<>());
          std::vector<int64_t> ids;
          for (size_t i = 0; i < std::min(k, all.size()); ++i) ids.push_back(all[i].second);
          return ids;
        };
        auto got = (*index)->Nearest(q, nullptr, 10, false);
        ASSERT_TRUE(got.ok());
        std::vector<int64_t> ids;
        for (const auto& h : *got) ids.push_back(h.chunk_id);
        EXPECT_EQ(ids, exact(nullptr, 10)) << dim;
        // Only one row in 400 passes: the first pool of 1024 holds ~2 of them.
        auto rare = [](int64_t id) { return id % 400 == 7; };
        auto filtered = (*index)->Nearest(q, rare, 5, false);
        ASSERT_TRUE(filtered.ok());
        ids.clear();
        for (const auto& h : *filtered) ids.push_back(h.chunk_id);
        EXPECT_EQ(ids, exact(rare, 5)) << dim;
      }
    }
  }
}

// A vector file cut short under a one-shot search (its float rows read with
// pread, on two threads for a wide pool) is an error naming a row that
// could not be read, never rows of zeros or a crash.
TEST(VectorIndexTest, RowsCutShortUnderAOneShotSearchAreAnError) {
  const int dim = 64, kRows = 2000;
  testing::TempDir dir;
  auto c = Corpus::Open(dir.File("v.db"), Corpus::Mode::kReadWrite);
  ASSERT_TRUE(c.ok());
  std::mt19937 rng(11);
  {
    auto b = (*c)->BeginWrite();
    ASSERT_TRUE((*b)->PutMeta("spaces", "{\"prose\":{\"model\":\"m\",\"dim\":64}}").ok());
    for (int i = 1; i <= kRows; ++i) {
      std::string ref = "o/r#" + std::to_string(i);
      ASSERT_TRUE((*b)->PutRecord({testing::GithubChunk(ref, ref, "issue",
                                                        "https://github.com/o/r/issues/" + std::to_string(i),
                                                        "row " + std::to_string(i))})
                      .ok());
    }
    ASSERT_TRUE((*b)->Commit().ok());
    b = (*c)->BeginWrite();
    for (int i = 1; i <= kRows; ++i) ASSERT_TRUE((*b)->PutEmbedding(i, "prose", UnitVector(rng, dim)).ok());
    ASSERT_TRUE((*b)->Commit().ok());
  }
  auto index = VectorIndex::Open(**c, "prose", {.rows = RowReads::kPread});
  ASSERT_TRUE(index.ok()) << index.status().message();
  const std::vector<float> q = UnitVector(rng, dim);
  auto whole = (*index)->Nearest(q, nullptr, 100, false);  // a pool of 1,600: both threads read
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  ASSERT_EQ(whole->size(), 100u);
  // The last thousand rows' floats gone: candidates on both halves of the pool.
  const std::string path = dir.File("v.db.vec-prose");
  const auto size = std::filesystem::file_size(path);
  std::filesystem::resize_file(path, size - 1000 * dim * 4);
  auto cut = (*index)->Nearest(q, nullptr, 100, false);
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.status().code(), Code::kIo) << cut.status().message();
  EXPECT_NE(cut.status().message().find("could not be read"), std::string::npos) << cut.status().message();
}

// After a write, the vector file stays: the vectors the change log lists
// since it was built are read from the corpus and scanned beside it, the
// file's rows for those chunks masked. It finds what a rebuilt file finds.
TEST(VectorIndexTest, ChangedVectorsAreScannedBesideTheFile) {
  const int dim = 16, kRows = 500;
  testing::TempDir dir;
  auto c = Corpus::Open(dir.File("v.db"), Corpus::Mode::kReadWrite);
  ASSERT_TRUE(c.ok());
  std::mt19937 rng(7);
  auto unit = [&] { return UnitVector(rng, dim); };
  auto put = [&](int i) {
    std::string ref = "o/r#" + std::to_string(i);
    return testing::GithubChunk(ref, ref, "issue", "https://github.com/o/r/issues/" + std::to_string(i),
                                "row " + std::to_string(i));
  };
  {
    auto b = (*c)->BeginWrite();
    ASSERT_TRUE((*b)->PutMeta("spaces", "{\"prose\":{\"model\":\"m\",\"dim\":16}}").ok());
    for (int i = 1; i <= kRows; ++i) ASSERT_TRUE((*b)->PutRecord({put(i)}).ok());
    ASSERT_TRUE((*b)->Commit().ok());
    b = (*c)->BeginWrite();
    for (int i = 1; i <= kRows; ++i) ASSERT_TRUE((*b)->PutEmbedding(i, "prose", unit()).ok());
    ASSERT_TRUE((*b)->Commit().ok());
  }
  ASSERT_TRUE(VectorIndex::Open(**c, "prose").ok());
  const std::string path = dir.File("v.db.vec-prose");
  const std::string built = testing::ReadFileOrEmpty(path);
  ASSERT_FALSE(built.empty());

  const std::vector<float> q = unit(), old3 = unit();
  {
    auto b = (*c)->BeginWrite();
    ASSERT_TRUE((*b)->PutEmbedding(3, "prose", old3).ok());
    ASSERT_TRUE((*b)->Commit().ok());
  }
  ASSERT_TRUE(VectorIndex::Open(**c, "prose").ok());  // chunk 3's vector in the delta
  {
    auto b = (*c)->BeginWrite();
    ASSERT_TRUE((*b)->DeleteRecord("o/r#3").ok());
    ASSERT_TRUE((*b)->PutEmbedding(5, "prose", q).ok());   // changed: now the query's own
    ASSERT_TRUE((*b)->PutRecord({put(kRows + 1)}).ok());  // new, with a vector next
    ASSERT_TRUE((*b)->Commit().ok());
  }
  auto fresh = (*c)->ChunkByRef("o/r#" + std::to_string(kRows + 1));
  ASSERT_TRUE(fresh.ok() && *fresh);
  {
    auto b = (*c)->BeginWrite();
    ASSERT_TRUE((*b)->PutEmbedding((**fresh).id, "prose", old3).ok());  // where chunk 3's was
    ASSERT_TRUE((*b)->Commit().ok());
  }
  auto index = VectorIndex::Open(**c, "prose");
  ASSERT_TRUE(index.ok()) << index.status().message();
  EXPECT_TRUE(testing::ReadFileOrEmpty(path) == built);  // not rewritten
  EXPECT_EQ((*index)->size(), static_cast<size_t>(kRows));  // less chunk 3, plus the new one
  auto top = (*index)->Nearest(q, nullptr, 3, false);
  ASSERT_TRUE(top.ok() && !top->empty());
  EXPECT_EQ((*top)[0].chunk_id, 5);
  EXPECT_NEAR((*top)[0].score, 1.0, 1e-5);
  auto by_old3 = (*index)->Nearest(old3, nullptr, 3, false);
  ASSERT_TRUE(by_old3.ok() && !by_old3->empty());
  EXPECT_EQ((*by_old3)[0].chunk_id, (**fresh).id);
  for (const auto& h : *by_old3) EXPECT_NE(h.chunk_id, 3);  // deleted
  auto odd = (*index)->Nearest(q, [](int64_t id) { return id % 2 == 1; }, 3, false);
  ASSERT_TRUE(odd.ok() && !odd->empty());
  EXPECT_EQ((*odd)[0].chunk_id, 5);

  // A file rebuilt from nothing finds the same.
  ASSERT_TRUE(std::filesystem::remove(path));
  auto rebuilt = VectorIndex::Open(**c, "prose");
  ASSERT_TRUE(rebuilt.ok());
  EXPECT_EQ((*rebuilt)->size(), (*index)->size());
  for (int trial = 0; trial < 5; ++trial) {
    std::vector<float> r = unit();
    auto a = (*index)->Nearest(r, nullptr, 10, false), b = (*rebuilt)->Nearest(r, nullptr, 10, false);
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_EQ(a->size(), b->size());
    for (size_t i = 0; i < a->size(); ++i) EXPECT_EQ((*a)[i].chunk_id, (*b)[i].chunk_id) << trial << " #" << i;
  }
}

TEST(SpaceConfig, ParsesAndRejects) {
  auto ok = ParseSpaceConfigs({"prose=builtin,code=openai:http://h:8080/v1#BAAI/bge-small-en-v1.5"});
  ASSERT_TRUE(ok.ok());
  ASSERT_EQ(ok->size(), 2u);
  EXPECT_EQ((*ok)[1].provider, "openai:http://h:8080/v1#BAAI/bge-small-en-v1.5");
  for (const char* bad : {"prose", "prose=", "=builtin", "images=builtin", "prose=magic", "prose=openai:http://h/v1"}) {
    auto r = ParseSpaceConfigs({bad});
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  }
  EXPECT_TRUE(SpaceCovers("code", "code"));
  EXPECT_FALSE(SpaceCovers("prose", "code"));
  EXPECT_TRUE(SpaceCovers("prose", "discord"));
}

TEST_F(HybridTest, IndexIsIncrementalAndRetrainReembeds) {
  IndexReport r1;
  ASSERT_TRUE(IndexSpaces(*corpus_, {{"prose", "builtin"}}, Options(), &r1).ok());
  ASSERT_EQ(r1.spaces.size(), 1u);
  EXPECT_EQ(r1.spaces[0].embedded, 40);
  std::string model = r1.spaces[0].model;
  EXPECT_EQ(model.rfind("builtin:lsa-16d-", 0), 0u) << model;
  EXPECT_EQ(CorpusSpaces(*corpus_).value().at("prose"), model);
  {
    // The word table keeps its hash in a trailer, so opening it reads no
    // more than it uses; a table from before the trailer (cut here) is
    // hashed whole and keeps its name, so its space stays valid.
    std::string path = BuiltinModelPath(*corpus_, "prose");
    std::string bytes = testing::ReadFileOrEmpty(path);
    ASSERT_GT(bytes.size(), 16u);
    EXPECT_EQ(bytes.substr(bytes.size() - 8), "UMWHASH1");
    auto with_trailer = MakeEmbedder("builtin", *corpus_, "prose");
    ASSERT_TRUE(with_trailer.ok()) << with_trailer.status().message();
    EXPECT_EQ((*with_trailer)->model(), model);
    std::string old = path + ".old";
    testing::WriteFile(old, bytes.substr(0, bytes.size() - 16));
    ASSERT_EQ(::rename(old.c_str(), path.c_str()), 0);
    auto without = MakeEmbedder("builtin", *corpus_, "prose");
    ASSERT_TRUE(without.ok()) << without.status().message();
    EXPECT_EQ((*without)->model(), model);
  }
  IndexReport r2;
  ASSERT_TRUE(IndexSpaces(*corpus_, {{"prose", "builtin"}}, Options(), &r2).ok());
  EXPECT_EQ(r2.spaces[0].embedded, 0);  // nothing new
  {
    auto b = corpus_->BeginWrite();
    ASSERT_TRUE((*b)->PutRecord({testing::GithubChunk("o/r#1", "o/r#1", "issue", "https://github.com/o/r/issues/1",
                                                      "the gpu kernel was slow, edited")}).ok());
    ASSERT_TRUE((*b)->Commit().ok());
  }
  IndexReport r3;
  ASSERT_TRUE(IndexSpaces(*corpus_, {{"prose", "builtin"}}, Options(), &r3).ok());
  EXPECT_EQ(r3.spaces[0].embedded, 1);  // only the changed chunk
  IndexOptions retrain = Options();
  retrain.retrain = true;
  retrain.builtin.dim = 24;
  IndexReport r4;
  ASSERT_TRUE(IndexSpaces(*corpus_, {{"prose", "builtin"}}, retrain, &r4).ok());
  EXPECT_EQ(r4.spaces[0].embedded, 40);  // a new model re-embeds everything
  EXPECT_NE(r4.spaces[0].model, model);
  auto v = VectorIndex::Open(*corpus_, "prose");
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ((*v)->dim(), 24);
  EXPECT_EQ((*v)->size(), 40u);

  // The other kind of builtin model, fastText, names itself so and
  // re-embeds the space; its table loads as well as LSA's.
  retrain.builtin.method = "fasttext";
  IndexReport r5;
  ASSERT_TRUE(IndexSpaces(*corpus_, {{"prose", "builtin"}}, retrain, &r5).ok());
  EXPECT_EQ(r5.spaces[0].model.rfind("builtin:fasttext-24d-", 0), 0u) << r5.spaces[0].model;
  EXPECT_EQ(r5.spaces[0].embedded, 40);
  auto fasttext = MakeEmbedder("builtin", *corpus_, "prose");
  ASSERT_TRUE(fasttext.ok()) << fasttext.status().message();
  EXPECT_EQ((*fasttext)->model(), r5.spaces[0].model);
  IndexOptions again = Options();
  again.builtin.method = "fasttext";
  IndexReport r5b;
  ASSERT_TRUE(IndexSpaces(*corpus_, {{"prose", "builtin"}}, again, &r5b).ok());
  EXPECT_EQ(r5b.spaces[0].embedded, 0);  // the same kind: kept
  // Asked for LSA (the default), a fastText table is trained again as LSA.
  IndexReport r5c;
  ASSERT_TRUE(IndexSpaces(*corpus_, {{"prose", "builtin"}}, Options(), &r5c).ok());
  EXPECT_EQ(r5c.spaces[0].model.rfind("builtin:lsa-16d-", 0), 0u) << r5c.spaces[0].model;
  EXPECT_EQ(r5c.spaces[0].embedded, 40);
  retrain.builtin.method = "word2vec";
  IndexReport r6;
  auto unknown = IndexSpaces(*corpus_, {{"prose", "builtin"}}, retrain, &r6);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.message().find("lsa or fasttext"), std::string::npos) << unknown.message();
}

// Progress counts what is left from above without reading the corpus to
// count it, and lands exactly on what was embedded.
TEST_F(HybridTest, IndexProgressNeverPromisesLessThanIsLeft) {
  IndexOptions o = Options();
  o.batch = 7;
  std::vector<std::pair<int64_t, int64_t>> seen;
  o.progress = [&](const std::string&, int64_t done, int64_t total) { seen.emplace_back(done, total); };
  IndexReport r;
  ASSERT_TRUE(IndexSpaces(*corpus_, {{"prose", "builtin"}}, o, &r).ok());
  const int64_t embedded = r.spaces[0].embedded;
  EXPECT_EQ(embedded, 40);
  ASSERT_EQ(seen.size(), 6u);  // 40 chunks in batches of 7
  for (const auto& [done, total] : seen) EXPECT_GE(total, embedded) << done;
  EXPECT_EQ(seen.back(), std::make_pair(embedded, embedded));
}

// A large space trains on a seeded sample of its chunks (read by id after
// one read of the space): the same sample, so the same table, each time,
// and not the table of the whole space.
TEST_F(HybridTest, ABuiltinModelOfASampleIsTheSameEachTime) {
  IndexOptions o = Options();
  auto model = [&](int64_t max_words) -> std::string {
    o.builtin.max_train_words = max_words;
    Status trained = TrainBuiltin(*corpus_, "prose", o.builtin);
    EXPECT_TRUE(trained.ok()) << trained.message();
    auto e = MakeEmbedder("builtin", *corpus_, "prose");
    return e.ok() ? (*e)->model() : "";
  };
  const std::string whole = model(6'000'000), sample = model(60);
  EXPECT_NE(sample, whole);
  EXPECT_EQ(model(60), sample);
  EXPECT_EQ(model(6'000'000), whole);
}

// The builtin model shares a large batch among the cores: each text's vector
// is the one it gets alone, in the order given.
TEST_F(HybridTest, ABuiltinBatchEmbedsAsEachTextAlone) {
  IndexReport r;
  ASSERT_TRUE(IndexSpaces(*corpus_, {{"prose", "builtin"}}, Options(), &r).ok());
  auto embedder = MakeEmbedder("builtin", *corpus_, "prose");
  ASSERT_TRUE(embedder.ok()) << embedder.status().message();
  std::vector<std::string> texts;
  for (int i = 0; i < 500; ++i) texts.push_back(i % 3 ? "gpu kernel throughput " + std::to_string(i) : "tokenizer data");
  auto batch = (*embedder)->Embed(texts);
  ASSERT_TRUE(batch.ok());
  ASSERT_EQ(batch->size(), texts.size());
  for (size_t i = 0; i < texts.size(); i += 37) {
    auto alone = (*embedder)->Embed({texts[i]});
    ASSERT_TRUE(alone.ok());
    EXPECT_EQ((*batch)[i], alone->at(0)) << i;
    // and by an embedder that has seen no text before (what a token's
    // row is, remembered across texts, changes nothing)
    auto fresh = MakeEmbedder("builtin", *corpus_, "prose");
    ASSERT_TRUE(fresh.ok());
    auto first = (*fresh)->Embed({texts[i]});
    ASSERT_TRUE(first.ok());
    EXPECT_EQ((*batch)[i], first->at(0)) << i;
  }
  // A stem counts its forms together, in any order; function words count nothing.
  auto same = [&](const std::string& a, const std::string& b) {
    auto va = (*embedder)->Embed({a}), vb = (*embedder)->Embed({b});
    ASSERT_TRUE(va.ok() && vb.ok());
    EXPECT_EQ(va->at(0), vb->at(0)) << a << " / " << b;
  };
  same("kernels kernel throughput", "throughput kernel kernel");
  same("the kernel of the gpu", "gpu kernel");
  auto once = (*embedder)->Embed({"kernel gpu"}), twice = (*embedder)->Embed({"kernel kernel gpu"});
  ASSERT_TRUE(once.ok() && twice.ok());
  ASSERT_NE(once->at(0), std::vector<float>(once->at(0).size(), 0.0f));  // the table knows both stems
  EXPECT_NE(once->at(0), twice->at(0));  // tf counts
}

TEST_F(HybridTest, FusesLegsFiltersAndNamesThem) {
  IndexReport r;
  ASSERT_TRUE(IndexSpaces(*corpus_, {{"prose", "builtin"}}, Options(), &r).ok());
  auto keyword = KeywordIndex::Open(*corpus_);
  ASSERT_TRUE(keyword.ok());
  std::vector<std::string> notes;
  auto spaces = LoadSpaces(*corpus_, {}, &notes);
  ASSERT_TRUE(spaces.ok());
  ASSERT_EQ(spaces->size(), 1u);
  HybridOptions o;
  o.search.query = "gpu throughput";
  o.search.k = 10;
  auto res = HybridSearch(*corpus_, **keyword, *spaces, o);
  ASSERT_TRUE(res.ok()) << res.status().message();
  ASSERT_FALSE(res->hits.empty());
  bool both = false;
  for (const auto& h : res->hits) {
    both |= h.via == std::vector<std::string>{"keyword", "prose"};
  }
  EXPECT_TRUE(both);
  EXPECT_NE(res->hits[0].snippet.find("gpu"), std::string::npos);
  std::set<std::string> urls;
  for (const auto& h : res->hits) EXPECT_TRUE(urls.insert(h.url).second);  // one hit per url
  // Vector leg alone, with a kind filter that both legs obey.
  o.vec_only = true;
  o.search.kinds = {"issue"};
  auto vec = HybridSearch(*corpus_, **keyword, *spaces, o);
  ASSERT_TRUE(vec.ok());
  ASSERT_FALSE(vec->hits.empty());
  for (const auto& h : vec->hits) {
    EXPECT_EQ(h.kind, "issue");
    EXPECT_EQ(h.via, std::vector<std::string>{"prose"});
  }
  // HyDE texts drive the vector leg: it ranks as if they were the query.
  o.vec_only = true;
  o.search.kinds = {};
  o.search.query = "gpu";
  o.vec_texts = {"tokenizer data mixture"};
  auto hyde = HybridSearch(*corpus_, **keyword, *spaces, o);
  HybridOptions plain = o;
  plain.vec_texts.clear();
  plain.search.query = "tokenizer data mixture";
  auto direct = HybridSearch(*corpus_, **keyword, *spaces, plain);
  ASSERT_TRUE(hyde.ok() && direct.ok());
  ASSERT_EQ(hyde->hits.size(), direct->hits.size());
  for (size_t i = 0; i < hyde->hits.size(); ++i) EXPECT_EQ(hyde->hits[i].ref, direct->hits[i].ref);
  plain.search.query = "gpu";
  auto gpu = HybridSearch(*corpus_, **keyword, *spaces, plain);
  ASSERT_TRUE(gpu.ok());
  bool differs = false;
  for (size_t i = 0; i < gpu->hits.size() && i < hyde->hits.size(); ++i) differs |= gpu->hits[i].ref != hyde->hits[i].ref;
  EXPECT_TRUE(differs);
}

TEST_F(HybridTest, BadQueriesAndMissingSpaces) {
  IndexReport r;
  ASSERT_TRUE(IndexSpaces(*corpus_, {{"prose", "builtin"}}, Options(), &r).ok());
  auto keyword = KeywordIndex::Open(*corpus_);
  std::vector<std::string> notes;
  auto spaces = LoadSpaces(*corpus_, {}, &notes);
  ASSERT_TRUE(spaces.ok());
  HybridOptions o;
  o.search.query = "   ";
  EXPECT_FALSE(HybridSearch(*corpus_, **keyword, *spaces, o).ok());
  o.search.query.clear();
  while (o.search.query.size() < 100000) o.search.query += "gpu kernel unknownword ";
  EXPECT_TRUE(HybridSearch(*corpus_, **keyword, *spaces, o).ok());  // 100 KB of words: searched, no crash
  o.search.query = std::string(100000, 'x');  // one 100 KB "word": nothing to search
  EXPECT_FALSE(HybridSearch(*corpus_, **keyword, *spaces, o).ok());
  o.search.query = "?!";
  auto punct = HybridSearch(*corpus_, **keyword, *spaces, o);
  EXPECT_FALSE(punct.ok());
  // A configured model that differs from the space's is refused, naming both.
  auto mismatch = LoadSpaces(*corpus_, {{"prose", "openai:http://127.0.0.1:1/v1#other-model"}}, &notes);
  ASSERT_FALSE(mismatch.ok());
  EXPECT_NE(mismatch.status().message().find("other-model"), std::string::npos);
  EXPECT_NE(mismatch.status().message().find("builtin:lsa"), std::string::npos);
}

// An index run embeds one batch while it reads the next and stores the one
// before: every chunk gets its own text's vector, and a failure stops the
// run with the batches before it stored and the next run resuming there.
TEST_F(HybridTest, AnIndexRunStoresEachBatchsOwnVectorsAndStopsAtAFailure) {
  testing::FakeEmbeddings fake;
  auto configs = ParseSpaceConfigs({"prose=openai:" + fake.base() + "#m1"});
  ASSERT_TRUE(configs.ok()) << configs.status().message();
  IndexOptions o = Options();
  o.batch = 7;  // 40 chunks: five whole batches and a part
  auto stored = [&] {
    std::map<int64_t, std::vector<float>> out;
    EXPECT_TRUE(corpus_->ForEachVector("prose", [&](int64_t id, const float* v, int dim) {
      out[id] = std::vector<float>(v, v + dim);
    }).ok());
    return out;
  };
  fake.fail_after_ = 3;  // the fourth batch is refused
  IndexReport failed;
  Status s = IndexSpaces(*corpus_, *configs, o, &failed);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("401"), std::string::npos) << s.message();
  EXPECT_EQ(stored().size(), 21u);  // three batches
  fake.fail_after_ = -1;
  IndexReport resumed;
  ASSERT_TRUE(IndexSpaces(*corpus_, *configs, o, &resumed).ok());
  ASSERT_EQ(resumed.spaces.size(), 1u);
  EXPECT_EQ(resumed.spaces[0].embedded, 19);
  auto vectors = stored();
  ASSERT_EQ(vectors.size(), 40u);
  for (const auto& [id, v] : vectors) {  // the fake answers [length, 1, 0], normalized
    auto chunk = corpus_->ChunksById({id});
    ASSERT_TRUE(chunk.ok() && chunk->size() == 1u);
    const double len = static_cast<double>((*chunk)[0].title.size() + 1 + (*chunk)[0].text.size());
    ASSERT_EQ(v.size(), 3u);
    EXPECT_NEAR(v[0], len / std::sqrt(len * len + 1), 1e-6) << id;
  }
}

TEST_F(HybridTest, AnUnreachableEmbedderSkipsItsSpaceAndKeepsKeyword) {
  // Record a space built by a server that is now down.
  auto b = corpus_->BeginWrite();
  ASSERT_TRUE((*b)->PutMeta("spaces", R"({"prose":{"model":"m1","dim":3}})").ok());
  for (int i = 1; i <= 40; ++i) {
    std::vector<float> v = {1, 0, 0};
    if (i == 7) v = {std::numeric_limits<float>::quiet_NaN(), 0, 0};  // a NaN vector in the file
    ASSERT_TRUE((*b)->PutEmbedding(i, "prose", v).ok());
  }
  ASSERT_TRUE((*b)->Commit().ok());
  auto keyword = KeywordIndex::Open(*corpus_);
  std::vector<std::string> notes;
  auto spaces = LoadSpaces(*corpus_, {{"prose", "openai:http://127.0.0.1:1/v1#m1"}}, &notes);
  ASSERT_TRUE(spaces.ok()) << spaces.status().message();
  ASSERT_EQ(spaces->size(), 1u);
  EXPECT_EQ((*spaces)[0].index->size(), 39u);  // the NaN row is left out
  HybridOptions o;
  o.search.query = "gpu";
  auto r = HybridSearch(*corpus_, **keyword, *spaces, o);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->hits.empty());
  ASSERT_FALSE(r->notes.empty());
  EXPECT_NE(r->notes[0].find("space prose skipped"), std::string::npos) << r->notes[0];
  o.vec_only = true;
  auto only = HybridSearch(*corpus_, **keyword, *spaces, o);
  ASSERT_FALSE(only.ok());
  EXPECT_NE(only.status().message().find("--vec-only"), std::string::npos);
  // Without any configuration the space is skipped with a hint.
  std::vector<std::string> hint;
  auto none = LoadSpaces(*corpus_, {}, &hint);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  ASSERT_EQ(hint.size(), 1u);
  EXPECT_NE(hint[0].find("--embedder prose=openai:<base-url>#m1"), std::string::npos);
}

// A space whose embedder stands for a model server: it answers only once the
// search has gone on without it (the index's Prefetch, after the keyword
// legs), or after 10 s.
struct Handshake {
  std::mutex mu;
  std::condition_variable cv;
  bool prefetched = false;
  bool embedded_after_prefetch = false;
};

class WaitingEmbedder final : public Embedder {
 public:
  WaitingEmbedder(std::unique_ptr<Embedder> inner, std::string model, Handshake* h)
      : inner_(std::move(inner)), model_(std::move(model)), h_(h) {}
  std::string model() const override { return model_; }
  int dim() const override { return inner_->dim(); }
  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts) override {
    std::unique_lock<std::mutex> lock(h_->mu);
    h_->embedded_after_prefetch =
        h_->cv.wait_for(lock, std::chrono::seconds(10), [this] { return h_->prefetched; });
    return inner_->Embed(texts);
  }

 private:
  std::unique_ptr<Embedder> inner_;
  std::string model_;
  Handshake* h_;
};

class SignallingIndex final : public VectorIndex {
 public:
  SignallingIndex(std::unique_ptr<VectorIndex> inner, Handshake* h) : inner_(std::move(inner)), h_(h) {}
  const std::string& model() const override { return inner_->model(); }
  int dim() const override { return inner_->dim(); }
  size_t size() const override { return inner_->size(); }
  void Prefetch() const override {
    inner_->Prefetch();
    std::lock_guard<std::mutex> lock(h_->mu);
    h_->prefetched = true;
    h_->cv.notify_all();
  }
  Result<std::vector<ScoredDoc>> Nearest(const std::vector<float>& q, const std::function<bool(int64_t)>& filter,
                                         size_t limit, bool exact) const override {
    return inner_->Nearest(q, filter, limit, exact);
  }

 private:
  std::unique_ptr<VectorIndex> inner_;
  Handshake* h_;
};

// A model server's round trip runs beside the keyword legs and the vector
// file's read-in, not before them, and the answer is the one a search in
// turn gives; an in-memory (builtin) model is asked in turn.
TEST_F(HybridTest, AModelServersRoundTripRunsBesideTheKeywordLegs) {
  IndexReport r;
  ASSERT_TRUE(IndexSpaces(*corpus_, {{"prose", "builtin"}}, Options(), &r).ok());
  auto keyword = KeywordIndex::Open(*corpus_);
  ASSERT_TRUE(keyword.ok());
  auto space = [&](const std::string& model, Handshake* h) {
    std::vector<std::string> notes;
    auto loaded = LoadSpaces(*corpus_, {}, &notes);
    std::vector<Space> out;
    EXPECT_TRUE(loaded.ok() && loaded->size() == 1);
    if (!loaded.ok() || loaded->size() != 1) return out;
    out.push_back({"prose", std::make_unique<WaitingEmbedder>(std::move((*loaded)[0].embedder), model, h),
                   std::make_unique<SignallingIndex>(std::move((*loaded)[0].index), h)});
    return out;
  };
  HybridOptions o;
  o.search.query = "gpu throughput";
  o.search.k = 10;
  Handshake remote_h;
  auto remote_spaces = space("BAAI/bge-small-en-v1.5", &remote_h);
  auto remote = HybridSearch(*corpus_, **keyword, remote_spaces, o);
  ASSERT_TRUE(remote.ok()) << remote.status().message();
  EXPECT_TRUE(remote_h.embedded_after_prefetch);
  // The same search in turn (the model in memory): the same hits.
  Handshake local_h;
  local_h.prefetched = true;  // nothing to wait for
  auto local_spaces = space("builtin:lsa-test", &local_h);
  auto local = HybridSearch(*corpus_, **keyword, local_spaces, o);
  ASSERT_TRUE(local.ok());
  ASSERT_EQ(remote->hits.size(), local->hits.size());
  ASSERT_FALSE(remote->hits.empty());
  for (size_t i = 0; i < remote->hits.size(); ++i) {
    EXPECT_EQ(remote->hits[i].ref, local->hits[i].ref);
    EXPECT_EQ(remote->hits[i].score, local->hits[i].score);
    EXPECT_EQ(remote->hits[i].via, local->hits[i].via);
  }
  EXPECT_EQ(remote->notes, local->notes);
}

// Issue 34, item 6: the code lane gives one hit per file, and for a
// question in words source before tests before data files, unless the
// query asks for those.
TEST(CodeLane, OneHitPerFileAndSourceBeforeTestsBeforeData) {
  testing::TempDir dir;
  auto c = Corpus::Open(dir.File("c.db"), Corpus::Mode::kReadWrite);
  ASSERT_TRUE(c.ok());
  auto window = [](const std::string& path, int from, int to, const std::string& text) {
    Chunk w;
    w.source = "code";
    w.kind = CodeKinds(false).front();
    w.parent = "local/main/blob/" + path;
    w.ref = w.parent + "#L" + std::to_string(from) + "-L" + std::to_string(to);
    w.title = path;
    w.url = "git+file:///r@abc:" + path + "#L" + std::to_string(from) + "-L" + std::to_string(to);
    w.text = text;
    w.date = "2026-11-20T00:00:00Z";
    return w;
  };
  {
    auto b = (*c)->BeginWrite();
    ASSERT_TRUE((*b)->PutRecord({window("data/zloss_cases.json", 1, 40, "zloss penalty zloss penalty zloss penalty zloss")}).ok());
    ASSERT_TRUE((*b)->PutRecord({window("tests/test_loss.py", 1, 40, "def test_zloss_penalty(): zloss penalty zloss")}).ok());
    ASSERT_TRUE((*b)->PutRecord({window("src/loss.py", 1, 40, "def zloss(logits): the penalty on large logits")}).ok());
    ASSERT_TRUE((*b)->PutRecord({window("src/loss.py", 20, 60, "return zloss penalty times the weight")}).ok());
    ASSERT_TRUE((*b)->PutRecord({window("src/train.py", 1, 40, "loss = ce + zloss(logits)")}).ok());
    ASSERT_TRUE((*b)->Commit().ok());
  }
  auto keyword = KeywordIndex::Open(**c);
  ASSERT_TRUE(keyword.ok());
  std::vector<Space> spaces;
  auto files = [&](const std::string& query) {
    HybridOptions o;
    o.search.query = query;
    o.search.k = 5;
    auto r = HybridSearch(**c, **keyword, spaces, o);
    EXPECT_TRUE(r.ok()) << r.status().message();
    std::vector<std::string> out;
    if (r.ok()) {
      for (const auto& h : r->code_main) out.push_back(h.title);
    }
    return out;
  };
  std::vector<std::string> words = files("zloss penalty");
  ASSERT_EQ(words.size(), 4u) << "one hit for the two windows of src/loss.py";
  EXPECT_EQ(std::set<std::string>(words.begin(), words.begin() + 2), (std::set<std::string>{"src/loss.py", "src/train.py"}));
  EXPECT_EQ(words[2], "tests/test_loss.py");
  EXPECT_EQ(words[3], "data/zloss_cases.json");
  // A branch's windows share the branch's thread: its files stay apart.
  {
    auto b = (*c)->BeginWrite();
    for (const char* path : {"src/kernel.py", "src/fused.py"}) {
      Chunk w = window(path, 1, 40, "zloss penalty in the fused kernel");
      w.kind = CodeKinds(true).front();
      w.parent = "local/tree/feature/fast";
      w.ref = w.parent + "/" + path + "#L1-L40";
      w.title = std::string("[feature/fast] ") + path;
      w.url = "git+file:///r@def:" + std::string(path) + "#L1-L40";
      ASSERT_TRUE((*b)->PutRecord({w}).ok());
    }
    ASSERT_TRUE((*b)->Commit().ok());
  }
  auto fresh = KeywordIndex::Open(**c);
  ASSERT_TRUE(fresh.ok());
  HybridOptions bo;
  bo.search.query = "zloss penalty";
  bo.search.k = 5;
  auto br = HybridSearch(**c, **fresh, spaces, bo);
  ASSERT_TRUE(br.ok()) << br.status().message();
  EXPECT_EQ(br->code_branches.size(), 2u);
  // Asked for by name, the data file ranks by its words again (its many
  // matches put it ahead of a source file).
  keyword = std::move(fresh);
  std::vector<std::string> asked = files("zloss penalty json");
  ASSERT_EQ(asked.size(), 4u);
  auto at = std::find(asked.begin(), asked.end(), "data/zloss_cases.json") - asked.begin();
  EXPECT_LT(at, 3) << "a data file the query asks for is not put last";
}

// SearchJson writes the JSON itself; it must read exactly as the tree's dump
// would, for any text and any score.
TEST(SearchJsonText, IsExactlyTheTreesDumpForAnyTextAndScore) {
  const double scores[] = {0.0, -0.0, 3.0, 0.1 + 0.2, 1e-7, 0.00012, 1e22, 123456789012345678.0, -2.5,
                           std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()};
  const std::string texts[] = {"", "plain", "quote \" and \\ slash", "tab\tnew\nline\r\b\f", std::string("nul\0x", 5),
                               "\x01\x1f\x7f", "é — 😀 中文", "\xff invalid", "ok \xed\xa0\x80 surrogate"};
  std::mt19937 rng(7);
  // Whole characters; one text in fifty also gets a stray byte (dump's own path).
  const std::vector<std::string> alphabet = {"a", "b", " ", "\"", "\\", "\n", "\t", "\x01", "\x1f", "\x7f", "é", "😀", "\u2028"};
  auto random_text = [&] {
    std::string t;
    for (int n = static_cast<int>(rng() % 12); n > 0; --n) t += alphabet[rng() % alphabet.size()];
    if (rng() % 50 == 0) t += "\xe2";
    return t;
  };
  for (int round = 0; round < 400; ++round) {
    HybridResult r;
    for (int i = 0; i < 3; ++i) {
      Hit h;
      // The texts above; the last two, which are not UTF-8, in one round in five.
      const bool fixed = round < 40;
      const size_t n_texts = std::size(texts) - (round % 5 == 0 ? 0 : 2);
      auto text = [&](int j) { return fixed ? texts[(round + i + j) % n_texts] : random_text(); };
      h.source = text(0), h.kind = text(1), h.ref = text(2), h.parent = text(3), h.title = text(4);
      h.author = text(5), h.date = text(6), h.url = text(7), h.snippet = text(8);
      h.score = fixed ? scores[(round + i) % std::size(scores)] : std::ldexp(static_cast<double>(rng()), -20);
      h.via = {text(9), "keyword"};
      (i == 0 ? r.hits : i == 1 ? r.code_main : r.code_branches).push_back(h);
    }
    r.notes = {random_text()};
    const std::string query = round % 2 ? random_text() : "z-loss \"x\"";
    for (bool hybrid : {false, true}) {
      std::string tree = SearchValue(query, round, hybrid, r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      ASSERT_EQ(SearchJson(query, round, hybrid, r), tree) << "round " << round;
    }
  }
}

}  // namespace
}  // namespace umwelt
