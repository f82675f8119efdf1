#include "snapshot.h"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>

#include "umwelt/clock.h"
#include "umwelt/file.h"
#include "umwelt/searcher.h"
#include "umwelt/vector.h"

namespace umwelt::server_internal {

Status SnapshotCache::Rebuild(Corpus& corpus) {
  UMWELT_ASSIGN_OR_RETURN(std::string key, SearchStateKey(corpus));
  if (key == key_ && std::filesystem::exists(path_)) return Status::Ok();
  UMWELT_ASSIGN_OR_RETURN(auto spaces, CorpusSpaces(corpus));
  Info info;
  info.spaces = nlohmann::json::object();
  info.left_out = nlohmann::json::object();
  std::vector<std::string> drop;
  for (const auto& [name, model] : spaces) {
    if (PortableModel(model)) {
      info.spaces[name] = model;
    } else {
      drop.push_back(name);
      info.left_out[name] = model + ": only this umwelt can embed queries for it (its word table stays beside the corpus)";
    }
  }
  UMWELT_RETURN_IF_ERROR(corpus.Snapshot(path_, drop));
  UMWELT_ASSIGN_OR_RETURN(info.sha256, Sha256File(path_));
  std::error_code ec;
  info.bytes = static_cast<int64_t>(std::filesystem::file_size(path_, ec));
  info.made_at = NowEpoch();
  info_ = std::move(info);
  key_ = key;
  return Status::Ok();
}

Result<SnapshotCache::Info> SnapshotCache::Ensure(Corpus& corpus) {
  MutexLock lock(mu_);
  UMWELT_RETURN_IF_ERROR(Rebuild(corpus));
  return info_;
}

Result<SnapshotCache::Info> SnapshotCache::Open(Corpus& corpus, int* fd) {
  MutexLock lock(mu_);
  UMWELT_RETURN_IF_ERROR(Rebuild(corpus));
  *fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (*fd < 0) return Status::Io("the snapshot cannot be read");
  return info_;
}

}  // namespace umwelt::server_internal
