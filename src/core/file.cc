#include "umwelt/file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "umwelt/dynlib.h"

namespace umwelt {

namespace {

std::string Hex(const unsigned char* p, unsigned n) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < n; ++i) {
    out += digits[p[i] >> 4];
    out += digits[p[i] & 15];
  }
  return out;
}

// libcrypto is loaded on the first digest: only snapshots, sign-in and the
// page script's hash need one.
#define UMWELT_CRYPTO_API(X)                                                      \
  X(EVP_, Digest) X(EVP_, sha256) X(EVP_, MD_CTX_new) X(EVP_, MD_CTX_free)        \
  X(EVP_, DigestInit_ex) X(EVP_, DigestUpdate) X(EVP_, DigestFinal_ex) X(, HMAC) X(CRYPTO_, memcmp)
UMWELT_DYNLIB_TABLE(CryptoApi, UMWELT_CRYPTO_API)

// libcrypto, loaded once; its failure is kept and reported by
// CryptoAvailable (and Sha256File).
const Result<const CryptoApi*>& Crypto() {
  static const Result<const CryptoApi*> api = LoadTable<CryptoApi>(UMWELT_SONAME_CRYPTO, "SHA-256 digests");
  return api;
}

}  // namespace

Status CryptoAvailable() { return Crypto().status(); }

std::string Sha256Hex(std::string_view data) {
  if (!Crypto().ok()) return "";
  const CryptoApi& c = **Crypto();
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned n = 0;
  c.Digest(data.data(), data.size(), md, &n, c.sha256(), nullptr);
  return Hex(md, n);
}

std::string HmacSha256Hex(std::string_view key, std::string_view data) {
  if (!Crypto().ok() || key.size() > (1u << 31) - 1) return "";
  const CryptoApi& c = **Crypto();
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned n = 0;
  if (!c.HMAC(c.sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
              data.size(), md, &n)) {
    return "";
  }
  return Hex(md, n);
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size() || !Crypto().ok()) return false;
  return (**Crypto()).memcmp(a.data(), b.data(), a.size()) == 0;
}

Result<std::string> Sha256File(const std::string& path) {
  UMWELT_RETURN_IF_ERROR(CryptoAvailable());
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return Status::NotFound(path + ": cannot open");
  const CryptoApi& c = **Crypto();
  EVP_MD_CTX* ctx = c.MD_CTX_new();
  c.DigestInit_ex(ctx, c.sha256(), nullptr);
  std::vector<char> buf(1 << 20);
  size_t got;
  while ((got = std::fread(buf.data(), 1, buf.size(), f)) > 0) c.DigestUpdate(ctx, buf.data(), got);
  bool failed = std::ferror(f) != 0;
  std::fclose(f);
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned n = 0;
  c.DigestFinal_ex(ctx, md, &n);
  c.MD_CTX_free(ctx);
  if (failed) return Status::Io(path + ": read failed");
  return Hex(md, n);
}

std::string TempPathFor(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1));
}

Status WriteFileAtomic(const std::string& path_given, std::string_view data) {
  std::string path = path_given;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    // A device or a pipe (/dev/null, /dev/stdout, a FIFO) is written as it
    // is: a file renamed over it would take its place.
    if (S_ISDIR(st.st_mode)) return Status::Invalid(path + ": is a directory");
    std::ofstream f(path, std::ios::binary);
    if (!f) return Status::Io(path + ": cannot write");
    f.write(data.data(), static_cast<std::streamsize>(data.size()));
    return f.flush() ? Status::Ok() : Status::Io(path + ": write failed");
  }
  // A link is kept, and the file it names written.
  if (struct stat lst{}; ::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) {
    if (char* real = ::realpath(path.c_str(), nullptr)) {
      path = real;
      std::free(real);
    }
  }
  std::string tmp = TempPathFor(path);
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return Status::Io(path + ": cannot write");
    f.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!f.flush()) {
      std::remove(tmp.c_str());
      return Status::Io(path + ": write failed");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    return Status::Io(path + ": " + why);
  }
  return Status::Ok();
}

Status MakeDirs(const std::string& dir) {
  for (size_t p = 1; p <= dir.size(); ++p) {
    if (p == dir.size() || dir[p] == '/') {
      std::string d = dir.substr(0, p);
      if (::mkdir(d.c_str(), 0755) != 0 && errno != EEXIST) return Status::Io(d + ": " + std::strerror(errno));
    }
  }
  return Status::Ok();
}

Result<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(path + ": cannot open");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Status::Io(path + ": read failed");
  return ss.str();
}

Status ImportEachFile(const std::vector<std::string>& paths, const std::function<Status(const std::string&)>& import) {
  std::vector<Status> failed;
  for (const auto& path : paths) {
    Status s = import(path);
    if (!s.ok()) failed.push_back(std::move(s));
  }
  if (failed.empty()) return Status::Ok();
  if (failed.size() == 1 && paths.size() == 1) return failed.front();
  std::string message = std::to_string(failed.size()) + " of " + std::to_string(paths.size()) + " files " +
                        (failed.size() == 1 ? "was" : "were") + " not imported" +
                        (failed.size() < paths.size() ? " (the others were)" : "") + ": ";
  for (size_t i = 0; i < failed.size() && i < 3; ++i) message += (i > 0 ? "; " : "") + failed[i].message();
  if (failed.size() > 3) message += "; and " + std::to_string(failed.size() - 3) + " more";
  return Status::Error(failed.front().code(), message);
}

Result<std::unique_ptr<MappedFile>> MappedFile::Open(const std::string& path, size_t min_size) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::NotFound(path + ": " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0 || static_cast<size_t>(st.st_size) < min_size || st.st_size == 0) {
    ::close(fd);
    return Status::Corrupt(path + ": too small");
  }
  void* p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    ::close(fd);
    return Status::Io(path + ": mmap: " + std::strerror(errno));
  }
  std::unique_ptr<MappedFile> m(new MappedFile());
  m->data_ = static_cast<const char*>(p);
  m->size_ = static_cast<size_t>(st.st_size);
  m->fd_ = fd;
  return m;
}

bool MappedFile::ReadAt(size_t offset, size_t length, void* out) const {
  if (offset > size_ || length > size_ - offset) return false;
  auto* to = static_cast<char*>(out);
  while (length > 0) {
    ssize_t n = ::pread(fd_, to, length, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    to += n;
    offset += static_cast<size_t>(n);
    length -= static_cast<size_t>(n);
  }
  return true;
}

void MappedFile::AdviseRandom(size_t offset, size_t length) const {
  if (!data_ || offset >= size_) return;
  static const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  size_t start = (offset + page - 1) / page * page;  // whole pages inside the range only
  size_t end = std::min(size_, offset + length) / page * page;
  if (end > start) ::madvise(const_cast<char*>(data_) + start, end - start, MADV_RANDOM);
}

void MappedFile::Populate(size_t offset, size_t length) const {
  if (!data_ || offset >= size_ || length == 0) return;
  static const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t start = offset / page * page, end = offset + std::min(length, size_ - offset);
  constexpr int kPopulateRead = 22;  // MADV_POPULATE_READ, for older headers
  ::madvise(const_cast<char*>(data_) + start, end - start, kPopulateRead);
  volatile char sink = 0;
  for (size_t at = start; at < end; at += page) sink = static_cast<char>(sink + data_[at]);
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<char*>(data_), size_);
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace umwelt
