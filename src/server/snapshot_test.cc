// The snapshot cache alone: made once per corpus state, made again when the
// corpus changed, and a file handed out keeps its bytes.
#include "snapshot.h"

#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

#include "test_util.h"
#include "umwelt/file.h"

namespace umwelt::server_internal {
namespace {

Chunk Comment(const std::string& ref, const std::string& text) {
  Chunk c;
  c.source = "github";
  c.kind = "comment";
  c.ref = ref;
  c.parent = "o/r#1";
  c.title = "A title";
  c.author = "ann";
  c.date = "2026-11-30T12:00:00Z";
  c.url = "https://github.com/o/r/issues/1#" + ref;
  c.text = text;
  return c;
}

class SnapshotCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = Corpus::Open(dir_.File("c.db"), Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok()) << c.status().message();
    corpus_ = std::move(c).value();
    Put(Comment("o/r#1/c1", "the first comment"));
  }
  void Put(const Chunk& c) {
    auto b = corpus_->BeginWrite();
    ASSERT_TRUE(b.ok());
    ASSERT_TRUE((*b)->PutRecord({c}).ok());
    ASSERT_TRUE((*b)->Commit().ok());
  }
  static std::string ReadAll(int fd) {
    std::string out;
    char buf[65536];
    ssize_t n;
    while ((n = ::pread(fd, buf, sizeof buf, static_cast<off_t>(out.size()))) > 0) out.append(buf, static_cast<size_t>(n));
    return out;
  }
  testing::TempDir dir_;
  std::unique_ptr<Corpus> corpus_;
};

TEST_F(SnapshotCacheTest, MadeOncePerCorpusStateAndAgainWhenItChanges) {
  SnapshotCache cache(dir_.File("c.db.snapshot"));
  auto first = cache.Ensure(*corpus_);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_GT(first->bytes, 0);
  EXPECT_EQ(first->sha256, Sha256File(dir_.File("c.db.snapshot")).value());
  EXPECT_TRUE(first->spaces.is_object());
  auto again = cache.Ensure(*corpus_);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->sha256, first->sha256);
  EXPECT_EQ(again->made_at, first->made_at);

  int fd = -1;
  auto held = cache.Open(*corpus_, &fd);
  ASSERT_TRUE(held.ok()) << held.status().message();
  ASSERT_GE(fd, 0);
  Put(Comment("o/r#1/c2", "a second comment changes the corpus"));
  auto changed = cache.Ensure(*corpus_);
  ASSERT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_NE(changed->sha256, first->sha256);
  // The file handed out before still reads as the snapshot it was.
  EXPECT_EQ(Sha256Hex(ReadAll(fd)), first->sha256);
  ::close(fd);
  auto copy = Corpus::Open(dir_.File("c.db.snapshot"), Corpus::Mode::kReadOnly);
  ASSERT_TRUE(copy.ok()) << copy.status().message();
  auto c2 = (*copy)->ChunkByRef("o/r#1/c2");
  ASSERT_TRUE(c2.ok() && c2->has_value());
}

TEST_F(SnapshotCacheTest, AFolderThatCannotHoldItIsOneClearError) {
  SnapshotCache cache(dir_.File("no/such/folder/c.db.snapshot"));
  auto r = cache.Ensure(*corpus_);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no/such/folder"), std::string::npos) << r.status().message();
  int fd = -1;
  EXPECT_FALSE(cache.Open(*corpus_, &fd).ok());
  EXPECT_EQ(fd, -1);
}

}  // namespace
}  // namespace umwelt::server_internal
