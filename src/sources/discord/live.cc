// A gateway event applied to the corpus, with sync's mapping (messages.cc,
// store.cc): the same chunk for a message whether it came by REST or by the
// gateway.
#include "messages.h"
#include "store.h"
#include "umwelt/json_read.h"

namespace umwelt::discord {
namespace {

using json = nlohmann::json;

bool Snowflake(const std::string& id) {
  return !id.empty() && id.size() <= 24 && id.find_first_not_of("0123456789") == std::string::npos;
}

// The channel a message event names: as the gateway described it, else as
// stored (a channel synced before), else by its id alone.
Result<Channel> ChannelOf(Corpus& corpus, const json& event, const std::string& guild, const std::string& id) {
  if (auto it = event.find("channel"); it != event.end() && it->is_object() && StrField(*it, "id") == id) {
    Channel c = ApiChannel(*it);
    c.guild_id = guild;
    return c;
  }
  Channel c;
  c.guild_id = guild;
  c.id = id;
  c.name = id;
  UMWELT_ASSIGN_OR_RETURN(auto stored, corpus.GetThread(ChannelRef(guild, id)));
  if (stored) {
    c.kind = stored->kind;
    c.name = stored->kind == "thread" || stored->title.rfind('#', 0) != 0 ? stored->title : stored->title.substr(1);
    if (stored->parent.rfind("discord:", 0) == 0) c.parent_id = stored->parent.substr(stored->parent.rfind('/') + 1);
    c.topic = stored->description;
  }
  return c;
}

}  // namespace

Status ApplyEvent(Corpus& corpus, std::string_view body, const std::string& guild, const std::string& repo,
                  int64_t* changed) {
  *changed = 0;
  json e = ParseJson(body);
  if (!e.is_object() || !e.contains("d") || !e["d"].is_object()) {
    return Status::Corrupt("a Discord event without its data");
  }
  const std::string t = StrField(e, "t");
  const json& d = e["d"];
  if (StrField(d, "guild_id") != guild) return Status::Ok();
  if (t == "MESSAGE_CREATE" || t == "MESSAGE_UPDATE") {
    std::string channel = StrField(d, "channel_id");
    if (!Snowflake(channel) || !Snowflake(StrField(d, "id"))) return Status::Corrupt(t + " without a channel and id");
    // An update that is not a whole message (an embed unfurled later) adds
    // nothing the stored one lacks; the next catch-up re-reads it.
    if (!d.contains("author") || !d.contains("timestamp")) return Status::Ok();
    UMWELT_ASSIGN_OR_RETURN(Channel c, ChannelOf(corpus, e, guild, channel));
    MessageWriter writer(corpus, repo, 1 << 30);
    writer.set_origin("discord gateway");
    UMWELT_RETURN_IF_ERROR(writer.Add(c, d));
    UMWELT_RETURN_IF_ERROR(writer.Flush());
    *changed = writer.changed();
    return Status::Ok();
  }
  if (t == "MESSAGE_DELETE" || t == "MESSAGE_DELETE_BULK") {
    std::string channel = StrField(d, "channel_id");
    if (!Snowflake(channel)) return Status::Corrupt(t + " without a channel");
    std::vector<std::string> ids;
    if (t == "MESSAGE_DELETE") {
      ids.push_back(StrField(d, "id"));
    } else {
      for (const auto& id : ArrayField(d, "ids")) ids.push_back(id.is_string() ? id.get<std::string>() : "");
    }
    UMWELT_ASSIGN_OR_RETURN(auto batch, corpus.BeginWrite());
    for (const auto& id : ids) {
      if (!Snowflake(id)) continue;
      UMWELT_RETURN_IF_ERROR(batch->DeleteRecord(ChannelRef(guild, channel) + "/" + id));
      ++*changed;
    }
    return batch->Commit();
  }
  const bool thread_event = t.rfind("THREAD_", 0) == 0 || t.rfind("CHANNEL_", 0) == 0;
  if (!thread_event) return Status::Ok();
  std::string id = StrField(d, "id");
  if (!Snowflake(id)) return Status::Corrupt(t + " without a channel id");
  const std::string ref = ChannelRef(guild, id);
  UMWELT_ASSIGN_OR_RETURN(auto stored, corpus.GetThread(ref));
  if (t.find("DELETE") != std::string::npos) {  // its messages go with it
    UMWELT_ASSIGN_OR_RETURN(auto messages, corpus.RecordRefs(ref, "message"));
    UMWELT_ASSIGN_OR_RETURN(auto batch, corpus.BeginWrite());
    for (const auto& m : messages) UMWELT_RETURN_IF_ERROR(batch->DeleteRecord(m));
    if (stored) UMWELT_RETURN_IF_ERROR(batch->DeleteThread(ref));
    *changed = static_cast<int64_t>(messages.size()) + (stored ? 1 : 0);
    return batch->Commit();
  }
  // Only channels that hold messages: text, announcement, forum, threads.
  int type = d.contains("type") && d["type"].is_number_integer() ? d["type"].get<int>() : -1;
  if (type != 0 && type != 5 && type != 10 && type != 11 && type != 12 && type != 15 && type != 16) return Status::Ok();
  Channel c = ApiChannel(d);
  c.guild_id = guild;
  Thread row = ChannelThread(c);
  if (stored) {  // a rename keeps what the messages made of the row
    row.created = stored->created;
    row.updated = stored->updated;
  }
  UMWELT_ASSIGN_OR_RETURN(auto batch, corpus.BeginWrite());
  UMWELT_RETURN_IF_ERROR(batch->PutThread(row));
  *changed = 1;
  return batch->Commit();
}

}  // namespace umwelt::discord
