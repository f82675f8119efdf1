// `umwelt sync discord GUILD`: the Discord REST API with a bot token.
#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "messages.h"
#include "store.h"
#include "umwelt/json_read.h"
#include "umwelt/log.h"
#include "umwelt/text.h"

namespace umwelt::discord {
namespace {

using json = nlohmann::json;

constexpr int kPageSize = 100;

// Snowflakes compare as numbers; as strings, shorter is smaller.
bool IdLess(const std::string& a, const std::string& b) {
  return a.size() != b.size() ? a.size() < b.size() : a < b;
}

class DiscordSync {
 public:
  DiscordSync(Corpus& corpus, HttpClient& http, const SyncOptions& o, SyncReport* r)
      : corpus_(corpus), http_(http), o_(o), r_(*r), key_("discord:" + o.guild) {}

  Status Run() {
    if (o_.token.empty()) return Status::Invalid("sync discord: no bot token (set DISCORD_TOKEN)");
    if (o_.guild.empty() || o_.guild.find_first_not_of("0123456789") != std::string::npos) {
      return Status::Invalid("sync discord: `" + o_.guild + "` is not a guild id (a number)");
    }
    AddLogSecret(o_.token);
    UMWELT_RETURN_IF_ERROR(LoadCursor());
    std::vector<Channel> readable;
    UMWELT_RETURN_IF_ERROR(ListChannels(&readable));
    for (const auto& c : readable) {
      Status s = SyncChannel(c);
      if (s.code() == Code::kNotFound) {
        LogWarn("sync discord: " + c.name + " (" + c.id + ") skipped: " + s.message());
        continue;
      }
      UMWELT_RETURN_IF_ERROR(s);
    }
    return SaveState("");
  }

  Status SaveState(const std::string& error) {
    UMWELT_ASSIGN_OR_RETURN(auto batch, corpus_.BeginWrite());
    UMWELT_RETURN_IF_ERROR(PutState(*batch, error));
    return batch->Commit();
  }

 private:
  Status LoadCursor() {
    UMWELT_ASSIGN_OR_RETURN(auto state, corpus_.GetSyncState(key_));
    if (state) {
      prev_ = *state;
      json j = ParseJson(state->cursor);
      if (j.is_object()) {
        for (auto& [k, v] : j.items()) {
          if (v.is_string()) cursor_[k] = v.get<std::string>();
        }
      }
    }
    return Status::Ok();
  }

  // The sync state with the cursor as it stands; `final` also records how
  // the run ended (`error` empty: success).
  Status PutState(WriteBatch& batch, const std::string& error, bool final = true) {
    SyncState s = prev_;
    s.source = key_;
    s.cursor = json(cursor_).dump();
    if (!final) {
      // a checkpoint: only the cursor moves
    } else if (error.empty()) {
      MarkSyncSuccess(&s, NowEpoch());
    } else {
      MarkSyncFailure(&s, error, NowEpoch());
    }
    return batch.PutSyncState(s);
  }

  void Sleep(double seconds) {
    if (o_.sleep) {
      o_.sleep(seconds);
    } else {
      SleepSeconds(seconds);
    }
  }

  // GET `path` with retries: 429 (the body's retry_after, else Retry-After),
  // 5xx and transport errors with backoff; a bucket left at zero waits for its
  // reset before the next request.
  Result<json> Get(const std::string& path) {
    HttpRequest req;
    req.url = o_.api_base + path;
    req.headers = {{"Authorization", "Bot " + o_.token}, {"User-Agent", "DiscordBot (umwelt, 0.1)"}};
    RetryPolicy policy;
    policy.max_retries = o_.max_retries;
    policy.backoff_seconds = o_.backoff_seconds;
    policy.max_wait_seconds = 600;
    policy.wait_of = [](const HttpResponse& r) {  // a 429's body says how long, else Retry-After, else 1 s
      double asked = RetryAfterInBody(r);
      return asked >= 0 || r.status != 429 || !r.Header("retry-after").empty() ? asked : 1.0;
    };
    policy.sleep = [this](double seconds) { Sleep(seconds); };
    policy.on_retry = [this](const Result<HttpResponse>&, double) { r_.retries++; };
    int attempts = 0;
    auto resp = SendWithRetry(http_, req, policy, &attempts);
    r_.requests += attempts;
    if (!resp.ok()) return Status::Unavailable("sync discord: GET " + path + ": " + resp.status().message());
    if (resp->status == 429) {
      return Status::Unavailable("sync discord: GET " + path + ": still rate limited after " +
                                 std::to_string(attempts - 1) + " retries");
    }
    if (resp->status >= 500) return Status::Unavailable("sync discord: GET " + path + ": HTTP " + std::to_string(resp->status));
    if (resp->status == 401) return Status::Unavailable("sync discord: the bot token was rejected (HTTP 401)");
    // No access to one channel is the bot's permissions, not a failed sync: skipped.
    if (resp->status == 403) return Status::NotFound("the bot has no access (HTTP 403)");
    if (resp->status == 404) return Status::NotFound("not found (HTTP 404)");
    if (resp->status != 200) {
      return Status::Io("sync discord: GET " + path + ": HTTP " + std::to_string(resp->status));
    }
    if (resp->Header("x-ratelimit-remaining") == "0") {
      double reset = std::atof(resp->Header("x-ratelimit-reset-after").c_str());
      if (reset > 0) Sleep(std::min(reset, 600.0));
    }
    json j = ParseJson(resp->body);
    if (j.is_discarded()) return Status::Corrupt("sync discord: GET " + path + ": the response is not JSON");
    return j;
  }

  // Text channels, active threads, and threads archived in the last
  // archived_days days (a late reply to them is caught).
  Status ListChannels(std::vector<Channel>* out) {
    UMWELT_ASSIGN_OR_RETURN(json channels, Get("/guilds/" + o_.guild + "/channels"));
    if (!channels.is_array()) return Status::Corrupt("sync discord: the channel list is not an array");
    std::map<std::string, std::string> names;
    std::vector<Channel> parents;  // channels that hold threads
    for (const auto& c : channels) {
      Channel ch = ApiChannel(c);
      if (ch.id.empty()) continue;
      if (ch.guild_id.empty()) ch.guild_id = o_.guild;
      int type = c.is_object() && c.contains("type") && c["type"].is_number_integer() ? c["type"].get<int>() : -1;
      names[ch.id] = ch.name;
      if (type == 0 || type == 5) {
        out->push_back(ch);
        parents.push_back(ch);
      } else if (type == 15 || type == 16) {
        parents.push_back(ch);
      }
    }
    std::set<std::string> seen;
    auto add_threads = [&](const json& list) {
      if (!list.is_object() || !list.contains("threads") || !list["threads"].is_array()) return;
      for (const auto& t : list["threads"]) {
        Channel ch = ApiChannel(t);
        if (ch.id.empty() || !seen.insert(ch.id).second) continue;
        if (ch.guild_id.empty()) ch.guild_id = o_.guild;
        ch.kind = "thread";
        out->push_back(ch);
      }
    };
    UMWELT_ASSIGN_OR_RETURN(json active, Get("/guilds/" + o_.guild + "/threads/active"));
    add_threads(active);
    int64_t now = o_.now ? o_.now : NowEpoch();
    std::string recent = FormatIsoTime(now - int64_t{o_.archived_days} * 86400);
    for (const auto& p : parents) {
      auto archived = Get("/channels/" + p.id + "/threads/archived/public?limit=50");
      if (!archived.ok()) {
        if (archived.status().code() == Code::kNotFound) continue;
        return archived.status();
      }
      json keep = json::object();
      keep["threads"] = json::array();
      if (archived->contains("threads") && (*archived)["threads"].is_array()) {
        for (const auto& t : (*archived)["threads"]) {
          std::string at = t.contains("thread_metadata") && t["thread_metadata"].is_object()
                                ? NormalizeIsoTime(StrField(t["thread_metadata"], "archive_timestamp"))
                                : "";
          if (!at.empty() && at >= recent) keep["threads"].push_back(t);
        }
      }
      add_threads(keep);
    }
    r_.channels = static_cast<int>(out->size());
    return Status::Ok();
  }

  // New messages after the cursor, and the last recheck_days again for edits
  // and deletions, in one pass from the earlier of the two; each page commits
  // with the cursor.
  Status SyncChannel(const Channel& c) {
    int64_t now = o_.now ? o_.now : NowEpoch();
    std::string recheck = std::to_string(SnowflakeAt(now - int64_t{o_.recheck_days} * 86400));
    auto it = cursor_.find(c.id);
    bool known = it != cursor_.end();
    std::string after = known ? (IdLess(recheck, it->second) ? recheck : it->second) : "0";
    bool rechecking = known && after == recheck;
    std::string recheck_from = FormatIsoTime(now - int64_t{o_.recheck_days} * 86400);
    std::set<std::string> seen;
    MessageWriter writer(corpus_, o_.repo, 1 << 30);
    writer.set_origin("sync discord " + o_.guild);
    while (true) {
      auto page = Get("/channels/" + c.id + "/messages?limit=" + std::to_string(kPageSize) + "&after=" + after);
      if (!page.ok()) return page.status();
      if (!page->is_array()) return Status::Corrupt("sync discord: messages of " + c.id + " are not an array");
      std::vector<json> msgs(page->begin(), page->end());
      std::sort(msgs.begin(), msgs.end(), [](const json& a, const json& b) {
        return IdLess(StrField(a, "id"), StrField(b, "id"));
      });
      for (const auto& m : msgs) {
        std::string id = StrField(m, "id");
        if (id.empty()) continue;
        seen.insert(ChannelRef(c.guild_id, c.id) + "/" + id);
        UMWELT_RETURN_IF_ERROR(writer.Add(c, m));
        if (IdLess(after, id)) after = id;
      }
      std::string& cur = cursor_[c.id];
      if (cur.empty() || IdLess(cur, after)) cur = after;
      int64_t before = writer.changed();
      UMWELT_RETURN_IF_ERROR(writer.Flush([&](WriteBatch& b) { return PutState(b, "", false); }));
      r_.messages += writer.changed() - before;
      if (o_.progress) o_.progress(c.name, writer.stored());
      if (static_cast<int>(msgs.size()) < kPageSize) break;
    }
    if (rechecking) {  // stored messages of the window that the API no longer has were deleted
      UMWELT_ASSIGN_OR_RETURN(auto stored, corpus_.RecordRefs(ChannelRef(c.guild_id, c.id), "message", recheck_from));
      std::vector<std::string> gone;
      for (const auto& ref : stored) {
        if (!seen.count(ref)) gone.push_back(ref);
      }
      if (!gone.empty()) {
        UMWELT_ASSIGN_OR_RETURN(auto batch, corpus_.BeginWrite());
        for (const auto& ref : gone) UMWELT_RETURN_IF_ERROR(batch->DeleteRecord(ref));
        UMWELT_RETURN_IF_ERROR(batch->Commit());
        r_.deleted += static_cast<int64_t>(gone.size());
      }
    }
    return Status::Ok();
  }

  Corpus& corpus_;
  HttpClient& http_;
  const SyncOptions& o_;
  SyncReport& r_;
  std::string key_;
  SyncState prev_;
  std::map<std::string, std::string> cursor_;  // channel id -> newest message id stored
};

}  // namespace

Status Sync(Corpus& corpus, HttpClient& http, const SyncOptions& options, SyncReport* report) {
  DiscordSync sync(corpus, http, options, report);
  Status s = sync.Run();
  if (!s.ok() && s.code() != Code::kInvalidArgument) (void)sync.SaveState(s.message());
  return s;
}

}  // namespace umwelt::discord
