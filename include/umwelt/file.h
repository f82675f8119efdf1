// umwelt/file.h — reading files whole, and read-only memory maps.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "umwelt/status.h"

namespace umwelt {

// A temporary name beside `path`, unique to this process and thread, for
// writing a file that is then renamed over `path`.
std::string TempPathFor(const std::string& path);

// Writes `data` to `path` whole or not at all: into a temporary file beside
// it, flushed, then renamed over it. A reader never sees half a file. A path
// that names a device or a pipe (/dev/null) is written directly, and one
// that is a symbolic link writes the file it names, the link kept.
Status WriteFileAtomic(const std::string& path, std::string_view data);

// Creates `dir` and any missing parents (mkdir -p).
Status MakeDirs(const std::string& dir);

// The contents of `path`; NotFound when it cannot be opened.
Result<std::string> ReadWholeFile(const std::string& path);

// Runs `import` on each of `paths` in turn, going on past a file that
// fails, so that one truncated export does not keep the others out. Ok when
// every file was imported; else the first failure's code, with a message
// that counts the failures and names the first three ("2 of 175 files were
// not imported (the others were): a.json: ...; b.json: ...").
Status ImportEachFile(const std::vector<std::string>& paths, const std::function<Status(const std::string&)>& import);

// SHA-256 as 64 lower-case hex digits (OpenSSL's libcrypto, loaded on first
// use), of bytes or of a file read in blocks. Sha256Hex gives "" when
// libcrypto cannot be loaded (no digest equals it); callers that need one
// check CryptoAvailable() first, which names the library at fault.
Status CryptoAvailable();
std::string Sha256Hex(std::string_view data);
Result<std::string> Sha256File(const std::string& path);
// HMAC-SHA256 (RFC 2104) of `data` under `key`, as 64 lower-case hex digits;
// "" when libcrypto cannot be loaded or the key is over 2 GiB.
std::string HmacSha256Hex(std::string_view key, std::string_view data);
// Whether `a` equals `b`, in time that depends on their lengths only
// (CRYPTO_memcmp): for comparing a secret-derived value with a caller's.
bool ConstantTimeEquals(std::string_view a, std::string_view b);

// A read-only, shared memory map of a whole file. Move-only; unmaps on
// destruction. Safe to read from many threads.
class MappedFile {
 public:
  // NotFound when the file is absent; Corrupt when it is shorter than
  // `min_size` or cannot be mapped.
  static Result<std::unique_ptr<MappedFile>> Open(const std::string& path, size_t min_size = 0);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const char* data() const { return data_; }
  size_t size() const { return size_; }
  // Tells the kernel that [offset, offset + length) is read at random (no
  // readahead): for rows fetched one by one from a large region.
  void AdviseRandom(size_t offset, size_t length) const;
  // Copies [offset, offset + length) of the file into `out` with pread, not
  // through the mapping: a process that reads a few scattered rows once
  // pays less for a read than for the page faults of a first touch. False
  // on an I/O error or a range past the end.
  bool ReadAt(size_t offset, size_t length, void* out) const;
  // Maps [offset, offset + length) into this process's page table ahead of
  // use: MADV_POPULATE_READ (Linux 5.14) reads it into the page cache and
  // maps it in one call, then each page is touched once, which is the
  // costly part where a hypervisor maps a page at its first access (this
  // machine: ~1.6 us a page; README, "What a first touch costs here").
  void Populate(size_t offset, size_t length) const;

 private:
  MappedFile() = default;
  const char* data_ = nullptr;
  size_t size_ = 0;
  int fd_ = -1;  // the mapped file, kept open for ReadAt
};

}  // namespace umwelt
