// Internal to sources/discord: writes messages in batches, each batch one
// transaction with its channels' thread rows (and, for a sync, its cursor).
#pragma once

#include <functional>
#include <set>

#include "messages.h"

namespace umwelt::discord {

class MessageWriter {
 public:
  MessageWriter(Corpus& corpus, std::string repo, int batch) : corpus_(corpus), repo_(std::move(repo)), batch_(batch) {}

  // Queues one message; writes the batch when it is full. A message whose
  // fields have types the reader does not expect is skipped, counted and
  // named in a warning (with `origin`: the file or "sync discord").
  Status Add(const Channel& channel, const nlohmann::json& message);
  void set_origin(std::string origin) { origin_ = std::move(origin); }
  // Writes what is queued; `extra` runs inside the same transaction.
  Status Flush(const std::function<Status(WriteBatch&)>& extra = nullptr);

  int64_t stored() const { return stored_; }
  int64_t changed() const { return changed_; }
  int64_t skipped() const { return skipped_; }
  int64_t channels() const { return static_cast<int64_t>(channels_.size()); }

 private:
  struct Pending {
    Channel channel;
    Chunk chunk;
    std::vector<Link> links;
  };
  Corpus& corpus_;
  std::string repo_, origin_ = "discord";
  size_t batch_;
  std::vector<Pending> pending_;
  std::set<std::string> channels_;
  int64_t stored_ = 0, changed_ = 0, skipped_ = 0;
};

}  // namespace umwelt::discord
