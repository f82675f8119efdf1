#include "umwelt/file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "test_util.h"

namespace umwelt {
namespace {

// A report written to a pipe or a device (`--md /dev/null`) goes into it:
// renamed over it, a file would take its place (it replaced /dev/null once).
// A symbolic link stays one, the file it names rewritten.
TEST(WriteFileAtomic, WritesIntoAPipeAndThroughALinkWithoutReplacingThem) {
  testing::TempDir dir;
  const std::string fifo = dir.File("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Open for reading first (without waiting for a writer), so the write
  // neither blocks nor, where a file took the pipe's place, hangs the test.
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  Status written = WriteFileAtomic(fifo, "# report\n");
  char buf[64] = {};
  const ssize_t got = ::read(reader, buf, sizeof buf);
  ::close(reader);
  ASSERT_TRUE(written.ok()) << written.message();
  EXPECT_EQ(std::string(buf, got > 0 ? static_cast<size_t>(got) : 0), "# report\n");
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));

  ASSERT_TRUE(WriteFileAtomic(dir.File("target.md"), "old").ok());
  ASSERT_EQ(::symlink("target.md", dir.File("link.md").c_str()), 0);
  ASSERT_TRUE(WriteFileAtomic(dir.File("link.md"), "new").ok());
  ASSERT_EQ(::lstat(dir.File("link.md").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(testing::ReadFileOrEmpty(dir.File("target.md")), "new");

  EXPECT_EQ(WriteFileAtomic(dir.path(), "x").code(), Code::kInvalidArgument);
}

// ReadAt reads the mapped file's own bytes with pread (what a one-shot search
// rescores from), and refuses any range that does not lie inside the file.
TEST(MappedFile, ReadAtCopiesTheFilesBytesAndRefusesARangePastTheEnd) {
  testing::TempDir dir;
  std::string data(3 * 4096 + 17, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7 + 3);
  ASSERT_TRUE(WriteFileAtomic(dir.File("f"), data).ok());
  auto file = MappedFile::Open(dir.File("f"));
  ASSERT_TRUE(file.ok()) << file.status().message();
  for (size_t at : {size_t{0}, size_t{4090}, data.size() - 20}) {
    std::string got(20, '\0');
    ASSERT_TRUE((*file)->ReadAt(at, got.size(), got.data())) << at;
    EXPECT_EQ(got, data.substr(at, 20)) << at;
    EXPECT_EQ(got, std::string((*file)->data() + at, 20)) << at;
  }
  std::string whole(data.size(), '\0');
  ASSERT_TRUE((*file)->ReadAt(0, whole.size(), whole.data()));
  EXPECT_EQ(whole, data);
  char byte = 0;
  EXPECT_TRUE((*file)->ReadAt(data.size(), 0, &byte));
  EXPECT_FALSE((*file)->ReadAt(data.size(), 1, &byte));
  EXPECT_FALSE((*file)->ReadAt(data.size() - 1, 2, &byte));
  EXPECT_FALSE((*file)->ReadAt(SIZE_MAX, 1, &byte));
  EXPECT_FALSE((*file)->ReadAt(1, SIZE_MAX, &byte));
}

// Populate maps the range into the process (its pages count in the
// mapping's Rss), not the whole file. The kernel maps some pages around each
// fault (16 by default, a whole large folio), so only the range's own pages
// are counted exactly: at least them, far less than the file's 16 MiB.
TEST(MappedFile, PopulateMapsInTheRangeNotTheWholeFile) {
  testing::TempDir dir;
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE)), pages = (16u << 20) / page;
  ASSERT_TRUE(WriteFileAtomic(dir.File("f"), std::string(pages * page, 'x')).ok());
  char* real = ::realpath(dir.File("f").c_str(), nullptr);
  ASSERT_NE(real, nullptr);
  const std::string path = real;
  std::free(real);
  auto file = MappedFile::Open(path);
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_EQ(testing::MappedRssKb(path), 0u);
  (*file)->Populate(10 * page + 1, 20 * page);  // pages 10 to 30
  EXPECT_GE(testing::MappedRssKb(path), 21 * page / 1024);
  (*file)->Populate((pages - 1) * page, 100 * page);  // cut at the end
  (*file)->Populate((pages + 6) * page, page);        // past the end: nothing
  (*file)->Populate(0, 0);
  EXPECT_GE(testing::MappedRssKb(path), 22 * page / 1024);
  EXPECT_LE(testing::MappedRssKb(path), pages * page / 1024 / 4);
}

// An import goes on past a file that fails; the one error counts the
// failures, names the first three and keeps the first one's code.
TEST(ImportEachFile, GoesOnPastAFailureAndCountsAndNamesTheFailures) {
  std::vector<std::string> seen;
  auto import = [&](const std::string& path) {
    seen.push_back(path);
    return path[0] == 'x' ? Status::Corrupt(path + ": truncated at byte 9") : Status::Ok();
  };
  EXPECT_TRUE(ImportEachFile({"a", "b"}, import).ok());
  EXPECT_TRUE(ImportEachFile({}, import).ok());
  seen.clear();
  Status s = ImportEachFile({"x1", "a", "x2", "b"}, import);
  EXPECT_EQ(seen, (std::vector<std::string>{"x1", "a", "x2", "b"}));
  EXPECT_EQ(s.code(), Code::kCorrupt);
  EXPECT_EQ(s.message(),
            "2 of 4 files were not imported (the others were): x1: truncated at byte 9; x2: truncated at byte 9");
  // One file alone fails with its own error; every file failing says so.
  s = ImportEachFile({"x1"}, import);
  EXPECT_EQ(s.message(), "x1: truncated at byte 9");
  s = ImportEachFile({"x1", "x2", "x3", "x4", "x5"}, import);
  EXPECT_EQ(s.message(),
            "5 of 5 files were not imported: x1: truncated at byte 9; x2: truncated at byte 9; "
            "x3: truncated at byte 9; and 2 more");
  s = ImportEachFile({"a", "x1"}, import);
  EXPECT_EQ(s.message(), "1 of 2 files was not imported (the others were): x1: truncated at byte 9");
}

}  // namespace
}  // namespace umwelt
