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

// A word is named as a word or as a part of an identifier (fbdev's records
// say libpciaccess only in XSERVER_LIBPCIACCESS), never inside another word.
TEST(Searcher, AChunkNamesAWordAsAWordOrAsAPartOfAnIdentifier) {
  testing::TempDir dir;
  const std::string db = dir.File("s.db");
  {
    auto c = Corpus::Open(db, Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok()) << c.status().message();
    auto b = (*c)->BeginWrite();
    ASSERT_TRUE(b.ok());
    const char* texts[] = {"Avoid unused variables when XSERVER_LIBPCIACCESS is defined.",
                           "Prepare the 1.2 release", "Call setLeaseTimeout once"};
    for (int i = 1; i <= 3; ++i) {
      std::string ref = "o/r#" + std::to_string(i);
      ASSERT_TRUE((*b)->PutRecord({testing::GithubChunk(ref, ref, "issue",
                                                        "https://github.com/o/r/issues/" + std::to_string(i),
                                                        texts[i - 1])})
                      .ok());
    }
    ASSERT_TRUE((*b)->Commit().ok());
  }
  Searcher s(db, {}, {.keyword_only = true});
  ASSERT_TRUE(s.Refresh().ok());
  EXPECT_EQ(s.ChunksNaming("libpciaccess"), 1u);
  EXPECT_EQ(s.ChunksNaming("xserver libpciaccess"), 1u);
  EXPECT_EQ(s.ChunksNaming("release"), 1u);
  EXPECT_EQ(s.ChunksNaming("lease"), 1u);  // a part of setLeaseTimeout, not of "release"
  EXPECT_EQ(s.ChunksNaming("pciaccess"), 0u);
  EXPECT_EQ(s.ChunksNaming("timeouts"), 0u);  // parts are spelt as written, not stemmed
}

}  // namespace
}  // namespace umwelt
