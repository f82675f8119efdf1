// `umwelt refresh --from URL`: a client's side of snapshot distribution.
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "umwelt/json_read.h"
#include "umwelt/corpus.h"
#include "umwelt/file.h"
#include "umwelt/http.h"
#include "umwelt/server.h"
#include "umwelt/text.h"
#include "umwelt/web.h"

namespace umwelt {

namespace {

using json = nlohmann::json;

constexpr size_t kMaxManifestBytes = 1 << 20;
constexpr size_t kMaxErrorBodyBytes = 64 << 10;

class FileClient {
 public:
  FileClient(const std::string& token, std::vector<std::string> resolve, const RefreshLimits& limits)
      : token_(token), resolve_(std::move(resolve)), limits_(limits) {}

  // A small answer (the manifest), kept in memory up to `max` bytes.
  Result<HttpResponse> Get(const std::string& url, size_t max) {
    HttpRequest req = Base(url);
    req.max_body_bytes = max;
    req.timeout_seconds = 60;
    return Send(req);
  }
  // `expected` bytes streamed to `on_body`: a deadline of two minutes plus
  // that many bytes at the minimum rate; an error body kept to 64 KiB.
  Result<HttpResponse> Download(const std::string& url, const std::vector<std::pair<std::string, std::string>>& extra,
                                int64_t expected, std::function<bool(std::string_view)> on_body) {
    HttpRequest req = Base(url);
    for (const auto& h : extra) req.headers.push_back(h);
    req.on_body = std::move(on_body);
    req.max_body_bytes = kMaxErrorBodyBytes;
    req.timeout_seconds = 120 + static_cast<long>(expected / std::max<int64_t>(1, limits_.min_bytes_per_second));
    return Send(req);
  }

 private:
  HttpRequest Base(const std::string& url) {
    HttpRequest req;
    req.url = url;
    if (!token_.empty()) req.headers.push_back({"Authorization", "Bearer " + token_});
    req.stall_seconds = limits_.stall_seconds;
    req.min_bytes_per_second = limits_.min_bytes_per_second;
    req.resolve = resolve_;
    return req;
  }
  Result<HttpResponse> Send(const HttpRequest& req) {
    auto r = http_->Send(req);
    if (!r.ok()) return Status::Unavailable(Redact(r.status().message(), {token_}));
    return r;
  }

  std::string token_;
  std::vector<std::string> resolve_;
  RefreshLimits limits_;
  std::unique_ptr<HttpClient> http_ = NewCurlHttpClient();
};

std::string DetailOf(const HttpResponse& r) {
  json j = ParseJson(r.body);
  if (j.is_object() && j.contains("detail") && j["detail"].is_string()) return j["detail"].get<std::string>();
  return std::string(TruncateUtf8(CollapseWhitespace(r.body), 200));
}

Status WriteAppend(const std::string& path, const std::string& data, bool truncate) {
  FILE* f = std::fopen(path.c_str(), truncate ? "wb" : "ab");
  if (!f) return Status::Io(path + ": cannot write");
  size_t n = std::fwrite(data.data(), 1, data.size(), f);
  bool ok = n == data.size() && std::fflush(f) == 0 && ::fsync(fileno(f)) == 0;
  std::fclose(f);
  return ok ? Status::Ok() : Status::Io(path + ": write failed");
}

// The download is a corpus of this umwelt's schema, undamaged, and opens.
// A file whose sha256 matches a manifest is still only what that server
// chose to send.
Status CheckCorpusFile(const std::string& part, const std::string& base, std::chrono::seconds budget) {
  Status s = CheckForeignCorpus(part, budget);
  if (s.ok()) s = Corpus::Open(part, Corpus::Mode::kReadOnly).status();
  if (s.ok()) return s;
  std::remove(part.c_str());
  return Status::Corrupt(base + "/corpus-index.db is not a usable corpus (" + s.message() +
                         "); the download was removed and the corpus left as it was");
}

// Moves the old corpus (and its WAL, which holds its latest commits) aside
// as <corpus>.bak, renames the download into place, opens it and runs a
// search on it; if that fails the old corpus is put back.
Status SwapIn(const std::string& part, const std::string& corpus_path, std::chrono::seconds budget) {
  std::string bak = corpus_path + ".bak";
  std::error_code ec;
  bool had = std::filesystem::exists(corpus_path, ec);
  if (had) {
    std::remove((bak + "-wal").c_str());
    std::remove((bak + "-shm").c_str());
    if (std::rename(corpus_path.c_str(), bak.c_str()) != 0) return Status::Io(corpus_path + ": cannot move aside to " + bak);
    std::rename((corpus_path + "-wal").c_str(), (bak + "-wal").c_str());
    std::remove((corpus_path + "-shm").c_str());
  }
  auto restore = [&](const std::string& why) {
    if (had) {
      std::rename(bak.c_str(), corpus_path.c_str());
      std::rename((bak + "-wal").c_str(), (corpus_path + "-wal").c_str());
    }
    return Status::Io(corpus_path + ": " + why + "; the old corpus was kept");
  };
  if (std::rename(part.c_str(), corpus_path.c_str()) != 0) return restore("cannot replace");
  Status opened = Corpus::Open(corpus_path, Corpus::Mode::kReadOnly).status();
  if (opened.ok()) opened = AnswersASearch(corpus_path, budget);
  if (!opened.ok()) {
    std::rename(corpus_path.c_str(), part.c_str());
    return restore("the new corpus does not answer (" + opened.message() + ")");
  }
  std::remove(bak.c_str());
  std::remove((bak + "-wal").c_str());
  return Status::Ok();
}

}  // namespace

Result<SnapshotManifest> ParseManifest(std::string_view body, const std::string& where) {
  json manifest = ParseJson(body);
  const json* ci = FieldOf(manifest, "corpus_index");
  if (!ci || !ci->is_object()) return Status::Corrupt(where + " has no corpus_index");
  SnapshotManifest out;
  out.sha256 = StrField(*ci, "sha256");
  out.bytes = IntField(*ci, "bytes", -1);
  bool hex = out.sha256.size() == 64 && std::all_of(out.sha256.begin(), out.sha256.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
             });
  if (!hex || out.bytes < 0) return Status::Corrupt(where + ": corpus_index needs sha256 (64 hex digits) and bytes");
  return out;
}

Result<RefreshReport> RefreshFrom(const std::string& base_in, const std::string& corpus_path, const std::string& token,
                                  bool allow_private, const RefreshLimits& limits) {
  std::string base = base_in;
  while (!base.empty() && base.back() == '/') base.pop_back();
  if (base.rfind("https://", 0) != 0 && base.rfind("http://", 0) != 0) {
    return Status::Invalid("--from must be an http(s) url, not " + base_in);
  }
  UMWELT_ASSIGN_OR_RETURN(std::vector<std::string> pins, web::CheckedResolve(base + "/", allow_private));
  FileClient http(token, pins, limits);
  UMWELT_ASSIGN_OR_RETURN(HttpResponse m, http.Get(base + "/manifest.json", kMaxManifestBytes));
  if (m.status == 401 || m.status == 403) {
    return Status::Invalid(base + " refused the manifest (HTTP " + std::to_string(m.status) + "): " + DetailOf(m) +
                           (token.empty() ? " (set UMWELT_TOKEN)" : ""));
  }
  if (m.status != 200) return Status::Unavailable(base + "/manifest.json: HTTP " + std::to_string(m.status) + ": " + DetailOf(m));
  UMWELT_ASSIGN_OR_RETURN(SnapshotManifest manifest, ParseManifest(m.body, base + "/manifest.json"));
  const std::string& sha = manifest.sha256;
  const int64_t bytes = manifest.bytes;
  if (bytes > limits.max_bytes) {
    return Status::Invalid(base + "/manifest.json announces a corpus of " + std::to_string(bytes) +
                           " bytes, over this client's limit of " + std::to_string(limits.max_bytes) +
                           " (refresh --max-bytes)");
  }
  RefreshReport report;
  report.sha256 = sha;
  report.bytes = bytes;
  // Up to date already?
  std::error_code ec;
  if (std::filesystem::exists(corpus_path, ec) &&
      static_cast<int64_t>(std::filesystem::file_size(corpus_path, ec)) == bytes) {
    auto local = Sha256File(corpus_path);
    if (local.ok() && *local == sha) return report;
  }
  std::string part = corpus_path + ".part";
  std::string part_sha = corpus_path + ".part.sha256";  // which snapshot the partial file is of
  int64_t have = 0;
  if (std::filesystem::exists(part, ec)) {
    auto was = ReadWholeFile(part_sha);
    if (was.ok() && CollapseWhitespace(*was) == sha) have = static_cast<int64_t>(std::filesystem::file_size(part, ec));
    if (have > bytes) have = 0;
  }
  if (have == 0) {
    UMWELT_RETURN_IF_ERROR(WriteAppend(part, "", true));
    UMWELT_RETURN_IF_ERROR(WriteAppend(part_sha, sha + "\n", true));
  }
  report.resumed_from = have;
  if (have < bytes) {
    // Room for the rest, and for SQLite to open the file beside it.
    std::filesystem::path dir = std::filesystem::absolute(corpus_path, ec).parent_path();
    auto space = std::filesystem::space(dir, ec);
    int64_t need = bytes - have + (int64_t{64} << 20);
    if (!ec && static_cast<int64_t>(space.available) < need) {
      return Status::Io(dir.string() + ": " + std::to_string(space.available >> 20) + " MiB free, the snapshot needs " +
                        std::to_string(need >> 20) + " MiB; nothing was downloaded");
    }
    std::vector<std::pair<std::string, std::string>> range;
    if (have > 0) range.push_back({"Range", "bytes=" + std::to_string(have) + "-"});
    // The body goes straight to the partial file as it arrives (a snapshot
    // is hundreds of megabytes): a broken download keeps what came.
    FILE* out = std::fopen(part.c_str(), have > 0 ? "ab" : "wb");
    if (!out) return Status::Io(part + ": cannot write");
    bool whole_instead = false;
    // Never more than the manifest announced: a server that keeps sending
    // is cut off at `bytes`, not allowed to fill the disk.
    // (One transfer carries at most the whole file: the rest of it after a
    // Range, or all of it from a server that ignores the Range.)
    int64_t received = 0;
    bool too_long = false;
    auto d = http.Download(base + "/corpus-index.db", range, bytes - have, [&](std::string_view piece) {
      if (received + static_cast<int64_t>(piece.size()) > bytes) {
        too_long = true;
        return false;
      }
      received += static_cast<int64_t>(piece.size());
      return std::fwrite(piece.data(), 1, piece.size(), out) == piece.size();
    });
    bool flushed = std::fflush(out) == 0 && ::fsync(fileno(out)) == 0;
    std::fclose(out);
    if (too_long) {
      std::remove(part.c_str());
      std::remove(part_sha.c_str());
      return Status::Corrupt(base + "/corpus-index.db: the server sent more than the " + std::to_string(bytes) +
                             " bytes its manifest announced; nothing was kept");
    }
    if (!d.ok()) {
      return Status::Unavailable(d.status().message() + "; " + std::to_string(std::filesystem::file_size(part, ec)) +
                                 " bytes kept in " + part + ": run refresh again to resume");
    }
    if (!flushed) return Status::Io(part + ": write failed");
    if (d->status == 200 && have > 0) whole_instead = true;  // the server ignored the range
    if (d->status != 200 && d->status != 206) {
      return Status::Unavailable(base + "/corpus-index.db: HTTP " + std::to_string(d->status) + ": " + DetailOf(*d));
    }
    std::string etag = d->Header("etag");
    if (!etag.empty() && etag.find(sha) == std::string::npos) {
      std::remove(part.c_str());
      std::remove(part_sha.c_str());
      return Status::Unavailable(base + " published a newer snapshot during the download; run refresh again");
    }
    if (whole_instead) {
      // The whole file came after the partial one: keep its tail.
      auto all = ReadWholeFile(part);
      if (!all.ok() || static_cast<int64_t>(all->size()) < bytes) return Status::Corrupt(part + ": short download");
      UMWELT_RETURN_IF_ERROR(WriteAppend(part, all->substr(all->size() - bytes), true));
    }
  }
  UMWELT_ASSIGN_OR_RETURN(std::string got, Sha256File(part));
  if (got != sha) {
    std::remove(part.c_str());
    std::remove(part_sha.c_str());
    return Status::Corrupt("the downloaded snapshot's sha256 is " + got + ", the manifest says " + sha +
                           "; the partial file was removed (run refresh again)");
  }
  UMWELT_RETURN_IF_ERROR(CheckCorpusFile(part, base, limits.check_budget));
  UMWELT_RETURN_IF_ERROR(SwapIn(part, corpus_path, limits.check_budget));
  std::remove(part_sha.c_str());
  report.updated = true;
  return report;
}

}  // namespace umwelt
