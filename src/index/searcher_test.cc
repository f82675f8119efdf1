#include "umwelt/searcher.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "corpus_fixtures.h"
#include "test_util.h"
#include "umwelt/corpus.h"
#include "umwelt/search.h"

namespace umwelt {
namespace {

// A long-lived searcher (a server) maps in its keyword index's per-chunk
// columns and dictionary when it loads, so its first searches cost what the
// later ones do.
TEST(Searcher, ALongLivedSearcherMapsInWhatEverySearchReadsWhenItLoads) {
  testing::TempDir dir;
  char* real = ::realpath(dir.path().c_str(), nullptr);
  ASSERT_NE(real, nullptr);
  const std::string db = std::string(real) + "/s.db";
  std::free(real);
  const int kChunks = 20000;
  {
    auto c = Corpus::Open(db, Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok()) << c.status().message();
    auto b = (*c)->BeginWrite();
    ASSERT_TRUE(b.ok());
    for (int i = 1; i <= kChunks; ++i) {
      std::string ref = "o/r#" + std::to_string(i);
      ASSERT_TRUE((*b)->PutRecord({testing::GithubChunk(ref, ref, "issue", "https://github.com/o/r/issues/" +
                                                        std::to_string(i), "word" + std::to_string(i) + " text")})
                      .ok());
    }
    ASSERT_TRUE((*b)->Commit().ok());
    ASSERT_TRUE(KeywordIndex::Open(**c).ok());  // built once, before either searcher maps it
  }
  const std::string index = db + ".kwidx";
  // 20,000 chunks' columns alone (ids, three lengths, source, kind, date,
  // author, url: 38 bytes each) are 742 kB. A one-shot searcher's load maps
  // the header and what the kernel maps around it (188 kB here); how much
  // that is depends on the page cache's folios, so only the long-lived
  // searcher's count is held to a bound.
  const size_t columns_kb = kChunks * 38 / 1024;
  Searcher s(db, {}, {.keyword_only = true});
  ASSERT_TRUE(s.Refresh().ok());
  EXPECT_GE(testing::MappedRssKb(index), columns_kb);
  SearchRequest r;
  r.search.query = "word17";
  auto hits = s.Search(r);
  ASSERT_TRUE(hits.ok()) << hits.status().message();
  ASSERT_FALSE(hits->result.hits.empty());
  EXPECT_EQ(hits->result.hits[0].ref, "o/r#17");
}

}  // namespace
}  // namespace umwelt
