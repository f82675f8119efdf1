#include "store.h"

#include <map>

#include "umwelt/json_read.h"
#include "umwelt/log.h"

namespace umwelt::discord {

Status MessageWriter::Add(const Channel& channel, const nlohmann::json& message) {
  Pending p;
  try {
    if (!MessageToChunk(message, channel, repo_, &p.chunk, &p.links)) {
      ++skipped_;
      return Status::Ok();
    }
  } catch (const nlohmann::json::exception& e) {
    ++skipped_;
    std::string id = StrField(message, "id");
    LogWarn(origin_ + ": message " + (id.empty() ? std::string("without an id") : id) + " in channel " + channel.id +
            " skipped: " + e.what());
    return Status::Ok();
  }
  p.channel = channel;
  pending_.push_back(std::move(p));
  if (pending_.size() >= batch_) return Flush();
  return Status::Ok();
}

Status MessageWriter::Flush(const std::function<Status(WriteBatch&)>& extra) {
  if (pending_.empty() && !extra) return Status::Ok();
  UMWELT_ASSIGN_OR_RETURN(auto batch, corpus_.BeginWrite());
  std::map<std::string, Thread> threads;  // ref -> row, its updated = the newest message
  for (const auto& p : pending_) {
    Thread& t = threads[p.chunk.parent];
    if (t.ref.empty()) t = ChannelThread(p.channel);
    if (p.chunk.date > t.updated) t.updated = p.chunk.date;
    if (t.created.empty() || p.chunk.date < t.created) t.created = p.chunk.date;
  }
  for (auto& [ref, t] : threads) {
    // A later page, or one message from the gateway, does not move the
    // channel's start.
    UMWELT_ASSIGN_OR_RETURN(auto stored, corpus_.GetThread(ref));
    if (stored && !stored->created.empty() && stored->created < t.created) t.created = stored->created;
    UMWELT_RETURN_IF_ERROR(batch->PutThread(t));
    channels_.insert(ref);
  }
  for (const auto& p : pending_) {
    UMWELT_ASSIGN_OR_RETURN(bool changed, batch->PutRecord(SplitIntoParts(p.chunk)));
    UMWELT_RETURN_IF_ERROR(batch->PutLinks(p.chunk.ref, p.links));
    ++stored_;
    if (changed) ++changed_;
  }
  if (extra) UMWELT_RETURN_IF_ERROR(extra(*batch));
  UMWELT_RETURN_IF_ERROR(batch->Commit());
  pending_.clear();
  return Status::Ok();
}

}  // namespace umwelt::discord
