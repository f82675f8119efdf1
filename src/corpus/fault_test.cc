// Issue 14, item 2: a scan that fails part-way is an error, never a short
// answer. A test VFS (SQLite's VFS shim API) fails the Nth read of the file
// with SQLITE_IOERR; a corpus with damaged pages is read too.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "example_project.h"
#include "test_util.h"
#include "umwelt/corpus.h"

namespace umwelt {
namespace {

std::atomic<int> g_reads_left{-1};  // < 0: never fail
std::atomic<int> g_failures{0};
sqlite3_vfs* g_real = nullptr;

// Our file: the real one's memory follows it.
struct FaultFile {
  sqlite3_file base;
  sqlite3_io_methods methods;
  sqlite3_file* real;
};
sqlite3_file* Real(sqlite3_file* f) { return reinterpret_cast<FaultFile*>(f)->real; }

int Read(sqlite3_file* f, void* buf, int n, sqlite3_int64 off) {
  if (g_reads_left.load() >= 0 && g_reads_left.fetch_sub(1) == 0) {
    ++g_failures;
    return SQLITE_IOERR_READ;
  }
  return Real(f)->pMethods->xRead(Real(f), buf, n, off);
}
int Close(sqlite3_file* f) { return Real(f)->pMethods->xClose(Real(f)); }
int Write(sqlite3_file* f, const void* b, int n, sqlite3_int64 o) { return Real(f)->pMethods->xWrite(Real(f), b, n, o); }
int Truncate(sqlite3_file* f, sqlite3_int64 s) { return Real(f)->pMethods->xTruncate(Real(f), s); }
int Sync(sqlite3_file* f, int flags) { return Real(f)->pMethods->xSync(Real(f), flags); }
int FileSize(sqlite3_file* f, sqlite3_int64* s) { return Real(f)->pMethods->xFileSize(Real(f), s); }
int Lock(sqlite3_file* f, int l) { return Real(f)->pMethods->xLock(Real(f), l); }
int Unlock(sqlite3_file* f, int l) { return Real(f)->pMethods->xUnlock(Real(f), l); }
int CheckLock(sqlite3_file* f, int* r) { return Real(f)->pMethods->xCheckReservedLock(Real(f), r); }
int FileControl(sqlite3_file* f, int op, void* a) { return Real(f)->pMethods->xFileControl(Real(f), op, a); }
int SectorSize(sqlite3_file* f) { return Real(f)->pMethods->xSectorSize(Real(f)); }
int Device(sqlite3_file* f) { return Real(f)->pMethods->xDeviceCharacteristics(Real(f)); }
int ShmMap(sqlite3_file* f, int i, int s, int e, void volatile** p) { return Real(f)->pMethods->xShmMap(Real(f), i, s, e, p); }
int ShmLock(sqlite3_file* f, int o, int n, int fl) { return Real(f)->pMethods->xShmLock(Real(f), o, n, fl); }
void ShmBarrier(sqlite3_file* f) { Real(f)->pMethods->xShmBarrier(Real(f)); }
int ShmUnmap(sqlite3_file* f, int d) { return Real(f)->pMethods->xShmUnmap(Real(f), d); }
int Fetch(sqlite3_file*, sqlite3_int64, int, void** pp) {  // no memory map: every page through Read
  *pp = nullptr;
  return SQLITE_OK;
}
int Unfetch(sqlite3_file* f, sqlite3_int64 o, void* p) { return p ? Real(f)->pMethods->xUnfetch(Real(f), o, p) : SQLITE_OK; }

int Open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* file, int flags, int* out) {
  auto* f = reinterpret_cast<FaultFile*>(file);
  f->real = reinterpret_cast<sqlite3_file*>(f + 1);
  f->base.pMethods = nullptr;
  int rc = g_real->xOpen(g_real, name, f->real, flags, out);
  if (rc != SQLITE_OK || !f->real->pMethods) return rc;
  f->methods = {3, Close, Read, Write, Truncate, Sync, FileSize, Lock, Unlock, CheckLock, FileControl,
                SectorSize, Device, ShmMap, ShmLock, ShmBarrier, ShmUnmap, Fetch, Unfetch};
  f->base.pMethods = &f->methods;
  return SQLITE_OK;
}

// Installs the faulty VFS as the default for the test's lifetime.
class FaultVfs {
 public:
  FaultVfs() {
    g_real = sqlite3_vfs_find(nullptr);
    vfs_ = *g_real;
    vfs_.zName = "umwelt-faulty";
    vfs_.szOsFile = static_cast<int>(sizeof(FaultFile)) + g_real->szOsFile;
    vfs_.xOpen = Open;
    sqlite3_vfs_register(&vfs_, 1);
  }
  ~FaultVfs() {
    g_reads_left = -1;
    sqlite3_vfs_unregister(&vfs_);
    sqlite3_vfs_register(g_real, 1);
  }

 private:
  sqlite3_vfs vfs_;
};

std::vector<std::string> Refs(const std::vector<Chunk>& chunks) {
  std::vector<std::string> out;
  for (const auto& c : chunks) out.push_back(c.ref + "|" + c.text);
  return out;
}

TEST(CorpusFault, AReadThatFailsMidScanIsAnErrorNeverAShortAnswer) {
  testing::TempDir dir;
  std::string path = dir.File("c.db");
  {
    auto c = Corpus::Open(path, Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok());
    testing::ImportExampleProject(**c, true);
  }
  // What each reader answers when every read succeeds.
  auto readers = [&](Corpus& c) -> Result<std::vector<std::string>> {
    std::vector<std::string> all;
    UMWELT_ASSIGN_OR_RETURN(auto thread, c.ThreadChunks("acme/tinylm#102"));
    UMWELT_ASSIGN_OR_RETURN(auto linked, c.LinkedFrom("acme/tinylm#102"));
    UMWELT_ASSIGN_OR_RETURN(auto period, c.ChunksInPeriod("2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z"));
    UMWELT_ASSIGN_OR_RETURN(auto changed, c.ThreadsChangedIn("2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z"));
    UMWELT_ASSIGN_OR_RETURN(auto states, c.SyncStates());
    for (auto* v : {&thread, &linked, &period}) {
      for (auto& r : Refs(*v)) all.push_back(r);
    }
    for (const auto& t : changed) all.push_back(t.ref);
    all.push_back(std::to_string(states.size()));
    return all;
  };
  std::vector<std::string> full;
  {
    auto c = Corpus::Open(path, Corpus::Mode::kReadOnly);
    ASSERT_TRUE(c.ok());
    auto r = readers(**c);
    ASSERT_TRUE(r.ok()) << r.status().message();
    full = *r;
    ASSERT_GT(full.size(), 40u);
  }
  FaultVfs vfs;
  int errors = 0, complete = 0;
  for (int n = 0; n < 400; ++n) {
    g_reads_left = -1;
    auto c = Corpus::Open(path, Corpus::Mode::kReadOnly);
    if (!c.ok()) continue;
    g_reads_left = n;
    auto r = readers(**c);
    g_reads_left = -1;
    if (r.ok()) {
      EXPECT_EQ(*r, full) << "a short answer after " << n << " reads";
      ++complete;
    } else {
      ++errors;
      EXPECT_NE(r.status().message().find("c.db"), std::string::npos) << r.status().message();
    }
  }
  EXPECT_GT(g_failures.load(), 0);
  EXPECT_GT(errors, 0);
  EXPECT_GT(complete, 0);  // past the reads the scans need, every answer is whole
}

TEST(CorpusFault, ADamagedCorpusFileIsReportedNotReadAsShort) {
  testing::TempDir dir;
  std::string path = dir.File("c.db");
  {
    auto c = Corpus::Open(path, Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok());
    testing::ImportExampleProject(**c, true);
  }
  auto size = std::filesystem::file_size(path);
  ASSERT_GT(size, 64u * 1024);
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    std::string junk(size / 3, '\x5a');
    f.seekp(static_cast<std::streamoff>(size / 3));
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  auto c = Corpus::Open(path, Corpus::Mode::kReadOnly);
  if (!c.ok()) return;  // refused at open: reported
  EXPECT_FALSE((*c)->QuickCheck().ok());
  auto period = (*c)->ChunksInPeriod("2000-01-01T00:00:00Z", "2100-01-01T00:00:00Z");
  auto stats = (*c)->Stats();
  EXPECT_FALSE(period.ok() && stats.ok()) << "a damaged file read without an error";
}

}  // namespace
}  // namespace umwelt
