#include "messages.h"

#include <algorithm>
#include <map>
#include <string_view>

#include "umwelt/json_read.h"
#include "umwelt/text.h"

namespace umwelt::discord {
namespace {


using json = nlohmann::json;

constexpr size_t kMaxContentBytes = 64 * 1024;

// The first of `keys` that `j` holds as a non-empty string.
std::string First(const json& j, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    std::string v = StrField(j, k);
    if (!v.empty()) return v;
  }
  return "";
}

std::string AuthorName(const json& author) {
  if (!author.is_object()) return "";
  return First(author, {"nickname", "global_name", "name", "username"});
}

// "<@123>", "<@!123>" -> "@name" using the message's mentions; "<#123>" and
// "<@&123>" are left readable.
std::string ResolveMentions(const std::string& text, const std::map<std::string, std::string>& names) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '<' && i + 2 < text.size() && text[i + 1] == '@') {
      size_t j = i + 2;
      if (j < text.size() && (text[j] == '!' || text[j] == '&')) ++j;
      size_t k = j;
      while (k < text.size() && text[k] >= '0' && text[k] <= '9') ++k;
      if (k > j && k < text.size() && text[k] == '>') {
        auto it = names.find(text.substr(j, k - j));
        out += "@" + (it != names.end() ? it->second : text.substr(j, k - j));
        i = k;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

// The message types with nothing to read unless they carry content.
bool IsSystemType(const json& type) {
  if (type.is_number_integer()) {
    int t = type.get<int>();
    return t != 0 && t != 19 && t != 20 && t != 21 && t != 23;  // default, reply, command, thread starter, context
  }
  if (type.is_string()) {
    std::string t = type.get<std::string>();
    return t != "Default" && t != "Reply" && t != "ApplicationCommand" && t != "ThreadStarterMessage" &&
           t != "ContextMenuCommand";
  }
  return false;
}

}  // namespace

std::string ChannelRef(const std::string& guild, const std::string& channel) {
  return "discord:" + guild + "/" + channel;
}

std::string MessageUrl(const std::string& guild, const std::string& channel, const std::string& message) {
  return "https://discord.com/channels/" + guild + "/" + channel + "/" + message;
}

bool MessageToChunk(const json& m, const Channel& channel, const std::string& repo, Chunk* chunk,
                    std::vector<Link>* links) {
  if (!m.is_object()) return false;
  std::string id = StrField(m, "id");
  if (id.empty()) return false;
  std::map<std::string, std::string> names;
  if (auto it = m.find("mentions"); it != m.end() && it->is_array()) {
    for (const auto& u : *it) {
      if (u.is_object()) names[StrField(u, "id")] = AuthorName(u);
    }
  }
  std::string content = SanitizeUtf8(StrField(m, "content"));
  if (content.size() > kMaxContentBytes) content = std::string(TruncateUtf8(content, kMaxContentBytes));
  std::string text = ResolveMentions(content, names);
  std::string extra;
  auto list = [&](const char* key) -> const json* {
    auto it = m.find(key);
    return it != m.end() && it->is_array() && !it->empty() ? &*it : nullptr;
  };
  if (const json* a = list("attachments")) {
    std::string files;
    for (const auto& f : *a) {
      if (!f.is_object()) continue;
      std::string name = First(f, {"fileName", "filename"});
      if (!name.empty()) files += (files.empty() ? "" : ", ") + name;
    }
    if (!files.empty()) extra += "\nAttachments: " + files;
  }
  if (const json* e = list("embeds")) {
    for (const auto& em : *e) {
      if (!em.is_object()) continue;
      std::string url = StrField(em, "url"), title = StrField(em, "title");
      if (url.empty() && title.empty()) continue;
      extra += "\nEmbed: " + (title.empty() ? url : title + (url.empty() ? "" : " " + url));
    }
  }
  if (const json* r = list("reactions")) {
    std::string counts;
    for (const auto& x : *r) {
      if (!x.is_object() || !x.contains("emoji") || !x["emoji"].is_object()) continue;
      std::string emoji = StrField(x["emoji"], "name");
      int64_t n = x.contains("count") && x["count"].is_number() ? x["count"].get<int64_t>() : 0;
      counts += (counts.empty() ? "" : ", ") + emoji + " " + std::to_string(n);
    }
    if (!counts.empty()) extra += std::string(kReactionsLine) + counts;
  }
  json ref;
  if (auto it = m.find("reference"); it != m.end() && it->is_object()) ref = *it;
  if (auto it = m.find("message_reference"); it != m.end() && it->is_object()) ref = *it;
  std::string reply_to = ref.is_object() ? First(ref, {"messageId", "message_id"}) : "";
  std::string type_name = m.contains("type") && m["type"].is_string() ? m["type"].get<std::string>() : "";
  if (text.empty() && extra.empty()) return false;
  // Joins, pins, renames, boosts and types this build does not know: notices, not conversation.
  if (m.contains("type") && IsSystemType(m["type"])) return false;
  Chunk& c = *chunk;
  c = Chunk{};
  c.source = "discord";
  c.kind = "message";
  c.ref = ChannelRef(channel.guild_id, channel.id) + "/" + id;
  c.parent = ChannelRef(channel.guild_id, channel.id);
  c.title = channel.kind == "thread" ? channel.name : "#" + channel.name;
  c.author = SanitizeUtf8(AuthorName(m.contains("author") ? m["author"] : json()));
  c.date = NormalizeIsoTime(StrField(m, "timestamp"));
  std::string edited = NormalizeIsoTime(First(m, {"timestampEdited", "edited_timestamp"}));
  c.updated = edited.empty() ? c.date : edited;
  c.url = MessageUrl(channel.guild_id, channel.id, id);
  c.text = text + extra;
  if (!reply_to.empty()) c.text += "\nReply to: " + MessageUrl(channel.guild_id, channel.id, reply_to);
  if (c.text.front() == '\n') c.text.erase(0, 1);
  *links = FindLinks(c.ref, text + extra, repo, c.parent);
  return true;
}

Channel ApiChannel(const json& c) {
  Channel ch;
  if (!c.is_object()) return ch;
  ch.guild_id = StrField(c, "guild_id");
  ch.id = StrField(c, "id");
  ch.name = StrField(c, "name");
  int type = c.contains("type") && c["type"].is_number_integer() ? c["type"].get<int>() : 0;
  if (type == 10 || type == 11 || type == 12) ch.kind = "thread";
  else if (type == 15 || type == 16) ch.kind = "forum";
  if (ch.kind == "thread") ch.parent_id = StrField(c, "parent_id");
  ch.topic = StrField(c, "topic");
  return ch;
}

Thread ChannelThread(const Channel& c) {
  Thread t;
  t.ref = ChannelRef(c.guild_id, c.id);
  t.source = "discord";
  t.kind = c.kind;
  t.title = c.kind == "thread" ? c.name : "#" + c.name;
  t.titled_kinds = {"message"};  // a message reads under its channel's or thread's name
  t.url = "https://discord.com/channels/" + c.guild_id + "/" + c.id;
  if (!c.parent_id.empty()) t.parent = ChannelRef(c.guild_id, c.parent_id);
  std::string topic = CollapseWhitespace(c.topic);
  t.description = std::string(TruncateUtf8(topic, 200));
  return t;
}

uint64_t SnowflakeAt(int64_t epoch_seconds) {
  constexpr int64_t kDiscordEpochMs = 1420070400000;
  int64_t ms = epoch_seconds * 1000 - kDiscordEpochMs;
  return ms <= 0 ? 0 : static_cast<uint64_t>(ms) << 22;
}


}  // namespace umwelt::discord
