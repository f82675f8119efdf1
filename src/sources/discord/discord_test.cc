#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>

#include <nlohmann/json.hpp>

#include "messages.h"
#include "test_util.h"
#include "umwelt/discord.h"
#include "umwelt/log.h"
#include "umwelt/text.h"

namespace umwelt::discord {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

std::unique_ptr<Corpus> NewCorpus(const testing::TempDir& dir) {
  auto c = Corpus::Open(dir.File("c.db"), Corpus::Mode::kReadWrite);
  EXPECT_TRUE(c.ok());
  return std::move(c).value();
}

int64_t MessageCount(Corpus& c) {
  int64_t n = 0;
  auto stats = c.Stats();
  for (const auto& k : stats->counts) {
    if (k.source == "discord" && k.kind == "message") n += k.chunks;
  }
  return n;
}

// A small export in DiscordChatExporter's dialect, written for this test.
json Export() {
  json e;
  e["guild"] = {{"id", "100"}, {"name", "Acme"}};
  e["channel"] = {{"id", "200"}, {"type", "GuildTextChat"}, {"name", "training"}, {"topic", "runs and such"}};
  e["exportedAt"] = "2026-11-01T00:00:00+00:00";
  auto msg = [](const std::string& id, const std::string& type, const std::string& content, const std::string& ts) {
    return json{{"id", id},
                {"type", type},
                {"timestamp", ts},
                {"timestampEdited", nullptr},
                {"content", content},
                {"author", {{"id", "7"}, {"name", "ann"}, {"nickname", "Ann L"}}},
                {"attachments", json::array()},
                {"embeds", json::array()},
                {"reactions", json::array()},
                {"mentions", json::array()}};
  };
  e["messages"] = json::array();
  e["messages"].push_back(msg("301", "Default", "The loss spiked at step 4000, see #12 and <@8>", "2026-10-01T10:00:00+00:00"));
  e["messages"][0]["mentions"] = json::array({{{"id", "8"}, {"name", "bo"}, {"nickname", "Bo K"}}});
  e["messages"][0]["reactions"] = json::array({{{"emoji", {{"name", "🔥"}}}, {"count", 3}}});
  e["messages"][0]["attachments"] = json::array({{{"fileName", "loss.png"}, {"url", "https://cdn/x"}}});
  e["messages"].push_back(msg("302", "Reply", "Rolled back; run https://wandb.ai/acme/tinylm/runs/abc12 is clean",
                              "2026-10-01T10:05:00+02:00"));
  e["messages"][1]["reference"] = {{"messageId", "301"}, {"channelId", "200"}, {"guildId", "100"}};
  e["messages"].push_back(msg("303", "GuildMemberJoin", "", "2026-10-01T10:06:00+00:00"));
  e["messages"].push_back(msg("304", "SomeFutureType", "", "2026-10-01T10:07:00+00:00"));
  e["messages"].push_back(msg("305", "Default", "Paper: https://arxiv.org/abs/2401.00001.", "2026-10-01T10:08:00+00:00"));
  e["messageCount"] = 5;
  return e;
}

TEST(DiscordImport, ExportMessagesBecomeChunksWithNamesLinksAndReplies) {
  testing::TempDir dir;
  auto corpus = NewCorpus(dir);
  testing::WriteFile(dir.File("export.json"), Export().dump(2));
  ImportOptions o;
  o.repo = "acme/tinylm";
  ImportReport r;
  Status s = ImportFiles(*corpus, {dir.File("export.json")}, o, &r);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(r.messages, 3);
  EXPECT_EQ(r.skipped, 2);  // a join and an unknown type with nothing to read
  auto m = corpus->ChunkByRef("discord:100/200/301");
  ASSERT_TRUE(m.ok() && *m);
  EXPECT_EQ((*m)->url, "https://discord.com/channels/100/200/301");
  EXPECT_EQ((*m)->author, "Ann L");
  EXPECT_EQ((*m)->title, "#training");
  EXPECT_EQ((*m)->date, "2026-10-01T10:00:00Z");
  EXPECT_NE((*m)->text.find("see #12 and @Bo K"), std::string::npos) << (*m)->text;
  EXPECT_NE((*m)->text.find("Attachments: loss.png"), std::string::npos);
  EXPECT_NE((*m)->text.find("Reactions: 🔥 3"), std::string::npos);
  EXPECT_EQ(ReactionCount((*m)->text), 3);
  auto reply = corpus->ChunkByRef("discord:100/200/302");
  ASSERT_TRUE(reply.ok() && *reply);
  EXPECT_EQ((*reply)->date, "2026-10-01T08:05:00Z");  // +02:00 in UTC
  EXPECT_NE((*reply)->text.find("Reply to: https://discord.com/channels/100/200/301"), std::string::npos);
  // Cross-source links: the issue, the run, the paper.
  EXPECT_EQ(corpus->LinkedFrom("acme/tinylm#12")->size(), 1u);
  EXPECT_EQ(corpus->LinkedFrom("wandb:acme/tinylm/abc12")->size(), 1u);
  EXPECT_EQ(corpus->LinkedFrom("web:https://arxiv.org/abs/2401.00001")->size(), 1u);
  auto channel = corpus->GetThread("discord:100/200");
  ASSERT_TRUE(channel.ok() && *channel);
  EXPECT_EQ((*channel)->title, "#training");
  EXPECT_EQ((*channel)->description, "runs and such");
  // Importing again changes nothing.
  ImportReport again;
  ASSERT_TRUE(ImportFiles(*corpus, {dir.File("export.json")}, o, &again).ok());
  EXPECT_EQ(again.changed, 0);
}

// Issue 15: the reactions line is read back only here, by the source that
// writes it; names with spaces or digits, odd counts and other lines.
TEST(DiscordMessages, ReactionCountReadsOnlyItsOwnLine) {
  EXPECT_EQ(ReactionCount("plain text"), 0);
  EXPECT_EQ(ReactionCount("hi\nReactions: 🔥 7, 👍 2"), 9);
  EXPECT_EQ(ReactionCount("hi\nReactions: party parrot 4, v2 1\nReply to: x"), 5);
  EXPECT_EQ(ReactionCount("Reactions: 🔥 7"), 0);  // not a line of its own
  EXPECT_EQ(ReactionCount("x\nReactions: 🔥 -3, 👍 many, 🎉 99999999999"), 0);
  EXPECT_EQ(ReactionCount("x\nReactions: 🔥 1\nmore\nReactions: 👍 2"), 2);  // the last one
}

TEST(DiscordImport, TruncatedAndForeignFilesFailNamingTheFileAndKeepWhatCame) {
  testing::TempDir dir;
  auto corpus = NewCorpus(dir);
  std::string full = Export().dump(2);
  size_t cut = full.find("\"305\"");
  testing::WriteFile(dir.File("cut.json"), full.substr(0, cut));
  ImportReport r;
  Status s = ImportFiles(*corpus, {dir.File("cut.json")}, {}, &r);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cut.json"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("byte"), std::string::npos) << s.message();
  EXPECT_EQ(MessageCount(*corpus), 2);  // the complete readable messages before the cut

  // A cut file among others keeps none of them out: each is imported, and the
  // one error counts and names the file that failed.
  json other = Export();
  other["channel"]["id"] = "201";
  testing::WriteFile(dir.File("other.json"), other.dump());
  ImportReport both;
  s = ImportFiles(*corpus, {dir.File("cut.json"), dir.File("other.json")}, {}, &both);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("1 of 2 files was not imported (the others were): "), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("cut.json"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find("other.json"), std::string::npos) << s.message();
  EXPECT_EQ(both.files, 1);
  EXPECT_EQ(MessageCount(*corpus), 5);

  for (const std::string& bad : {std::string("{\"messages\": [{\"id\": \"1\"}]}"), std::string("[1, 2]"),
                                 std::string("{\"name\": \"not an export\"}"), std::string("")}) {
    testing::WriteFile(dir.File("bad.json"), bad);
    ImportReport rb;
    Status sb = ImportFiles(*corpus, {dir.File("bad.json")}, {}, &rb);
    EXPECT_FALSE(sb.ok()) << bad;
    EXPECT_NE(sb.message().find("bad.json"), std::string::npos) << sb.message();
  }
  EXPECT_EQ(MessageCount(*corpus), 5);
}

TEST(DiscordImport, RealExportsAndForumThreads) {
  UMWELT_REQUIRE_SHARED_DATA(data);
  testing::TempDir dir;
  auto corpus = NewCorpus(dir);
  std::string dce = data + "/discord/dce-cre8r-dao/";
  ImportReport r;
  ASSERT_TRUE(ImportFiles(*corpus, {dce + "channel_998527456925462549.json", dce + "channel_923736705926840403.json"}, {},
                          &r).ok());
  EXPECT_EQ(r.messages, 40);
  // The export cut off at its source: the complete messages before the cut are kept.
  ImportReport cut;
  Status s = ImportFiles(*corpus, {dce + "channel_860395547567587331.json"}, {}, &cut);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("channel_860395547567587331.json: malformed or truncated JSON at byte"), std::string::npos)
      << s.message();
  EXPECT_GE(cut.messages, 300);
  EXPECT_LE(cut.messages, 328);

  std::vector<std::string> forum;
  for (const auto& e : fs::directory_iterator(data + "/discord/infrahub-qa-forum")) {
    if (e.path().filename() != "channel_data.json") forum.push_back(e.path());
  }
  ImportReport fr;
  s = ImportFiles(*corpus, forum, {}, &fr);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(fr.files, 175);
  EXPECT_EQ(fr.messages, 1822);  // 1,832 less 10 thread-rename notices
  auto thread = corpus->GetThread("discord:1212332642801025064/1301919460135010324");
  ASSERT_TRUE(thread.ok() && *thread);
  EXPECT_EQ((*thread)->kind, "thread");
  EXPECT_EQ((*thread)->parent, "discord:1212332642801025064/1301914405176475729");
}

// A scripted Discord API: a text channel, a forum with threads, pages of 100
// newest-first, a 429 and an exhausted bucket, and state the test changes.
class FakeDiscord {
 public:
  FakeDiscord() {
    auto& s = server_.server();
    s.Get("/api/guilds/100/channels", [this](const httplib::Request& req, httplib::Response& res) {
      if (!Authorized(req, res)) return;
      json out = json::array({{{"id", "200"}, {"type", 0}, {"guild_id", "100"}, {"name", "general"}},
                              {{"id", "210"}, {"type", 15}, {"guild_id", "100"}, {"name", "questions"}},
                              {{"id", "220"}, {"type", 2}, {"guild_id", "100"}, {"name", "voice"}}});
      Reply(res, out);
    });
    s.Get("/api/guilds/100/threads/active", [this](const httplib::Request& req, httplib::Response& res) {
      if (!Authorized(req, res)) return;
      std::lock_guard<std::mutex> lock(mu_);
      json out = {{"threads", json::array()}};
      for (const auto& [id, t] : threads_) {
        if (!t["thread_metadata"]["archived"].get<bool>()) out["threads"].push_back(t);
      }
      Reply(res, out);
    });
    s.Get("/api/channels/210/threads/archived/public", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      json out = {{"threads", json::array()}, {"has_more", false}};
      for (const auto& [id, t] : threads_) {
        if (t["thread_metadata"]["archived"].get<bool>()) out["threads"].push_back(t);
      }
      Reply(res, out);
    });
    s.Get("/api/channels/200/threads/archived/public", [this](const httplib::Request&, httplib::Response& res) {
      Reply(res, {{"threads", json::array()}, {"has_more", false}});
    });
    s.Get(R"(/api/channels/(\d+)/messages)", [this](const httplib::Request& req, httplib::Response& res) {
      if (!Authorized(req, res)) return;
      std::lock_guard<std::mutex> lock(mu_);
      std::string channel = req.matches[1];
      if (rate_limit_once_ || rate_limit_always_) {
        rate_limit_once_ = false;
        res.status = 429;
        res.set_content(R"({"message": "You are being rate limited.", "retry_after": 0.25, "global": false})",
                        "application/json");
        return;
      }
      if (fail_after_page_ >= 0 && pages_served_ >= fail_after_page_) {
        res.status = 500;
        return;
      }
      ++pages_served_;
      uint64_t after = std::stoull(req.get_param_value("after"));
      int limit = std::stoi(req.get_param_value("limit"));
      json page = json::array();
      for (const auto& [id, m] : messages_[channel]) {  // ascending ids
        if (id > after && static_cast<int>(page.size()) < limit) page.push_back(m);
      }
      std::reverse(page.begin(), page.end());  // Discord answers newest first
      if (exhaust_bucket_once_) {
        exhaust_bucket_once_ = false;
        res.set_header("X-RateLimit-Remaining", "0");
        res.set_header("X-RateLimit-Reset-After", "0.5");
      }
      Reply(res, page);
    });
  }

  void AddMessage(const std::string& channel, uint64_t id, const std::string& content, const std::string& ts) {
    std::lock_guard<std::mutex> lock(mu_);
    messages_[channel][id] = {{"id", std::to_string(id)},
                              {"type", 0},
                              {"channel_id", channel},
                              {"content", content},
                              {"timestamp", ts},
                              {"edited_timestamp", nullptr},
                              {"author", {{"id", "7"}, {"username", "ann"}, {"global_name", "Ann"}}},
                              {"attachments", json::array()},
                              {"embeds", json::array()},
                              {"mentions", json::array()}};
  }
  void Edit(const std::string& channel, uint64_t id, const std::string& content, const std::string& ts) {
    std::lock_guard<std::mutex> lock(mu_);
    messages_[channel][id]["content"] = content;
    messages_[channel][id]["edited_timestamp"] = ts;
  }
  void Delete(const std::string& channel, uint64_t id) {
    std::lock_guard<std::mutex> lock(mu_);
    messages_[channel].erase(id);
  }
  void AddThread(const std::string& id, const std::string& name, bool archived, const std::string& archived_at) {
    std::lock_guard<std::mutex> lock(mu_);
    threads_[id] = {{"id", id},
                    {"type", 11},
                    {"guild_id", "100"},
                    {"parent_id", "210"},
                    {"name", name},
                    {"thread_metadata", {{"archived", archived}, {"archive_timestamp", archived_at}}}};
  }
  void RateLimitOnce() { rate_limit_once_ = true; }
  void RateLimitAlways(bool on) { rate_limit_always_ = on; }
  void ExhaustBucketOnce() { exhaust_bucket_once_ = true; }
  void FailAfterPages(int n) {
    std::lock_guard<std::mutex> lock(mu_);
    fail_after_page_ = n;
    pages_served_ = 0;
  }
  std::string base() const { return server_.base() + "/api"; }
  testing::TestServer& server() { return server_; }

 private:
  bool Authorized(const httplib::Request& req, httplib::Response& res) {
    if (req.get_header_value("Authorization") == "Bot s3cret-token") return true;
    res.status = 401;
    res.set_content(R"({"message": "401: Unauthorized", "code": 0})", "application/json");
    return false;
  }
  static void Reply(httplib::Response& res, const json& j) { res.set_content(j.dump(), "application/json"); }

  testing::TestServer server_;
  std::mutex mu_;
  std::map<std::string, std::map<uint64_t, json>> messages_;
  std::map<std::string, json> threads_;
  bool rate_limit_once_ = false, rate_limit_always_ = false, exhaust_bucket_once_ = false;
  int fail_after_page_ = -1, pages_served_ = 0;
};

// Message ids made from their times, as Discord makes them.
uint64_t IdAt(const std::string& iso, int seq = 0) { return SnowflakeAt(*ParseIsoTime(iso)) + seq; }

class DiscordSyncTest : public ::testing::Test {
 protected:
  SyncOptions Options() {
    SyncOptions o;
    o.guild = "100";
    o.api_base = api_.base();
    o.token = "s3cret-token";
    o.repo = "acme/tinylm";
    o.backoff_seconds = 0;
    o.max_retries = 2;
    o.now = *ParseIsoTime("2026-11-04T00:00:00Z");
    o.sleep = [this](double s) { sleeps_.push_back(s); };
    return o;
  }
  testing::TempDir dir_;
  std::unique_ptr<Corpus> corpus_ = NewCorpus(dir_);
  FakeDiscord api_;
  std::vector<double> sleeps_;
  std::unique_ptr<HttpClient> http_ = NewCurlHttpClient();
};

TEST_F(DiscordSyncTest, SyncsPagesHonoursLimitsAndCatchesLateRepliesEditsAndDeletions) {
  // 150 messages in #general over a month, the last ones recent.
  for (int i = 0; i < 150; ++i) {
    std::string ts = FormatIsoTime(*ParseIsoTime("2026-10-10T00:00:00Z") + i * 4 * 3600);
    api_.AddMessage("200", IdAt(ts, i), "general message " + std::to_string(i) + " about #" + std::to_string(i + 1), ts);
  }
  // An old forum thread, archived long ago, and an active one.
  api_.AddThread("300", "How do I resume a run?", true, "2026-11-01T00:00:00+00:00");
  api_.AddMessage("300", IdAt("2026-09-01T00:00:00Z"), "How do I resume a run?", "2026-09-01T00:00:00Z");
  api_.AddThread("310", "Tokenizer question", false, "2026-11-01T00:00:00+00:00");
  api_.AddMessage("310", IdAt("2026-11-03T00:00:00Z"), "Which tokenizer do we use?", "2026-11-03T00:00:00Z");
  api_.RateLimitOnce();
  api_.ExhaustBucketOnce();

  SyncReport r;
  Status s = Sync(*corpus_, *http_, Options(), &r);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(r.messages, 152);
  EXPECT_EQ(r.channels, 3);  // general and two threads; the forum and voice hold no messages
  EXPECT_EQ(MessageCount(*corpus_), 152);
  EXPECT_NE(std::find(sleeps_.begin(), sleeps_.end(), 0.25), sleeps_.end());  // retry_after
  EXPECT_NE(std::find(sleeps_.begin(), sleeps_.end(), 0.5), sleeps_.end());   // bucket reset
  for (const auto& a : api_.server().auth_headers()) EXPECT_EQ(a, "Bot s3cret-token");
  auto t = corpus_->GetThread("discord:100/300");
  ASSERT_TRUE(t.ok() && *t);
  EXPECT_EQ((*t)->kind, "thread");
  EXPECT_EQ((*t)->parent, "discord:100/210");

  // A late reply revives the old thread (an archived thread re-listed), a
  // recent message is edited, another deleted.
  uint64_t late = IdAt("2026-11-04T12:00:00Z");
  api_.AddMessage("300", late, "Late answer: use --resume", "2026-11-04T12:00:00Z");
  std::string ts148 = FormatIsoTime(*ParseIsoTime("2026-10-10T00:00:00Z") + 148 * 4 * 3600);
  std::string ts149 = FormatIsoTime(*ParseIsoTime("2026-10-10T00:00:00Z") + 149 * 4 * 3600);
  api_.Edit("200", IdAt(ts148, 148), "general message 148, corrected", "2026-11-04T13:00:00Z");
  api_.Delete("200", IdAt(ts149, 149));
  SyncOptions o = Options();
  o.now = *ParseIsoTime("2026-11-05T00:00:00Z");
  SyncReport r2;
  s = Sync(*corpus_, *http_, o, &r2);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(r2.deleted, 1);
  EXPECT_TRUE(*corpus_->ChunkByRef("discord:100/300/" + std::to_string(late)));
  auto edited = corpus_->ChunkByRef("discord:100/200/" + std::to_string(IdAt(ts148, 148)));
  ASSERT_TRUE(edited.ok() && *edited);
  EXPECT_EQ((*edited)->text, "general message 148, corrected");
  EXPECT_FALSE(*corpus_->ChunkByRef("discord:100/200/" + std::to_string(IdAt(ts149, 149))));
  EXPECT_EQ(MessageCount(*corpus_), 152);
  // Mentions of #N link to the configured repository's issues.
  EXPECT_EQ(corpus_->LinkedFrom("acme/tinylm#3")->size(), 1u);

  // `show` on a message reads its conversation around it.
  auto around = corpus_->ChunksAround("discord:100/200", (*edited)->date, (*edited)->ref, 3);
  ASSERT_TRUE(around.ok());
  ASSERT_EQ(around->size(), 4u);  // three before, the message, none after (149 is gone)
  EXPECT_EQ((*around)[3].ref, (*edited)->ref);
}

TEST_F(DiscordSyncTest, ACrashResumesAtItsLastPageAndErrorsAreRecorded) {
  for (int i = 0; i < 250; ++i) {
    std::string ts = FormatIsoTime(*ParseIsoTime("2026-01-01T00:00:00Z") + i * 60);
    api_.AddMessage("200", IdAt(ts, i), "message " + std::to_string(i), ts);
  }
  api_.FailAfterPages(1);  // the second page never comes
  SyncReport r;
  Status s = Sync(*corpus_, *http_, Options(), &r);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("HTTP 500"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find("s3cret-token"), std::string::npos);
  EXPECT_EQ(MessageCount(*corpus_), 100);  // the first page committed with its cursor
  auto state = corpus_->GetSyncState("discord:100");
  ASSERT_TRUE(state.ok() && *state);
  EXPECT_NE((*state)->last_error.find("HTTP 500"), std::string::npos);

  api_.FailAfterPages(-1);
  size_t before = api_.server().requests().size();
  SyncReport r2;
  s = Sync(*corpus_, *http_, Options(), &r2);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(MessageCount(*corpus_), 250);
  EXPECT_EQ(r2.messages, 150);
  // It resumed after the 100th message, not from the start.
  auto requests = api_.server().requests();
  std::string first_page;
  for (size_t i = before; i < requests.size(); ++i) {
    if (requests[i].find("/channels/200/messages") != std::string::npos) {
      first_page = requests[i];
      break;
    }
  }
  std::string ts99 = FormatIsoTime(*ParseIsoTime("2026-01-01T00:00:00Z") + 99 * 60);
  EXPECT_NE(first_page.find("after=" + std::to_string(IdAt(ts99, 99))), std::string::npos) << first_page;

  // A rejected token: one clear error, nothing lost.
  SyncOptions bad = Options();
  bad.token = "wrong";
  SyncReport r3;
  s = Sync(*corpus_, *http_, bad, &r3);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("token was rejected"), std::string::npos) << s.message();
  EXPECT_EQ(MessageCount(*corpus_), 250);
  bad.token = "";
  EXPECT_EQ(Sync(*corpus_, *http_, bad, &r3).code(), Code::kInvalidArgument);
}

// The real forum threads, served as the live API would serve them.
TEST(DiscordReplay, RealForumThreadsThroughTheApi) {
  UMWELT_REQUIRE_SHARED_DATA(data);
  std::string dir = data + "/discord/infrahub-qa-forum";
  json forum = json::parse(testing::ReadFileOrEmpty(dir + "/channel_data.json"))[0];
  std::string guild = forum["guild_id"], forum_id = forum["id"];
  std::map<std::string, json> threads;
  std::map<std::string, std::vector<json>> messages;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename() == "channel_data.json") continue;
    for (const auto& dump : json::parse(testing::ReadFileOrEmpty(e.path()))) {
      std::string id = dump["thread"]["id"];
      threads[id] = dump["thread"];
      for (const auto& m : dump["messages"]) messages[id].push_back(m);
    }
  }
  testing::TestServer server;
  auto& s = server.server();
  s.Get("/api/guilds/" + guild + "/channels", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(json::array({forum}).dump(), "application/json");
  });
  auto list = [&](bool archived) {
    json out = {{"threads", json::array()}, {"has_more", false}};
    for (const auto& [id, t] : threads) {
      if (t["thread_metadata"]["archived"].get<bool>() == archived) out["threads"].push_back(t);
    }
    return out.dump();
  };
  s.Get("/api/guilds/" + guild + "/threads/active", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(list(false), "application/json");
  });
  s.Get("/api/channels/" + forum_id + "/threads/archived/public", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(list(true), "application/json");
  });
  s.Get(R"(/api/channels/(\d+)/messages)", [&](const httplib::Request& req, httplib::Response& res) {
    std::string after = req.get_param_value("after");
    auto less = [](const std::string& a, const std::string& b) { return a.size() != b.size() ? a.size() < b.size() : a < b; };
    std::vector<json> page;
    for (const auto& m : messages[req.matches[1]]) {
      if (less(after, m["id"])) page.push_back(m);
    }
    std::sort(page.begin(), page.end(), [&](const json& a, const json& b) { return less(a["id"], b["id"]); });
    if (page.size() > 100) page.resize(100);
    std::reverse(page.begin(), page.end());
    res.set_content(json(page).dump(), "application/json");
  });
  testing::TempDir tmp;
  auto corpus = NewCorpus(tmp);
  auto http = NewCurlHttpClient();
  SyncOptions o;
  o.guild = guild;
  o.api_base = server.base() + "/api";
  o.token = "t";
  o.archived_days = 100000;
  o.now = *ParseIsoTime("2026-08-23T00:00:00Z");
  SyncReport r;
  Status st = Sync(*corpus, *http, o, &r);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(r.channels, 175);
  EXPECT_EQ(MessageCount(*corpus), 1822);  // what the import of the same files stores
  SyncReport again;
  ASSERT_TRUE(Sync(*corpus, *http, o, &again).ok());
  EXPECT_EQ(again.messages, 0);
}

TEST_F(DiscordSyncTest, ARateLimitStormFailsClearlyAndKeepsTheCorpus) {
  api_.AddMessage("200", IdAt("2026-11-01T00:00:00Z"), "kept", "2026-11-01T00:00:00Z");
  SyncReport r;
  ASSERT_TRUE(Sync(*corpus_, *http_, Options(), &r).ok());
  api_.RateLimitAlways(true);
  SyncReport r2;
  Status s = Sync(*corpus_, *http_, Options(), &r2);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("still rate limited after 2 retries"), std::string::npos) << s.message();
  EXPECT_EQ(MessageCount(*corpus_), 1);
}

}  // namespace
}  // namespace umwelt::discord

namespace umwelt::discord {
namespace {

// Issue 14, item 1: a value of an unexpected type — a guild id written as a
// number, a message field swapped for another type — is read or skipped and
// counted, never thrown to the caller.
TEST(DiscordHostile, IdsAsNumbersAndTypeSwappedFieldsNeverAbortAnImport) {
  testing::TempDir dir;
  json e = json::parse(testing::ReadFileOrEmpty(UMWELT_SOURCE_DIR "/examples/discord/training.json"));
  ASSERT_TRUE(e.is_object());
  size_t messages = e["messages"].size();
  ASSERT_GT(messages, 3u);
  // The guild and channel ids as JSON numbers.
  json numeric = e;
  numeric["guild"]["id"] = std::stoull(e["guild"]["id"].get<std::string>());
  numeric["channel"]["id"] = std::stoull(e["channel"]["id"].get<std::string>());
  testing::WriteFile(dir.File("numeric.json"), numeric.dump());
  auto corpus = std::move(Corpus::Open(dir.File("c.db"), Corpus::Mode::kReadWrite)).value();
  ImportReport r;
  Status s = ImportFiles(*corpus, {dir.File("numeric.json")}, {}, &r);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(r.messages + r.skipped, static_cast<int64_t>(messages));
  EXPECT_GT(r.messages, 0);
  // Every field of the first message swapped, in turn, for each other JSON
  // type: the import goes on, the message is stored or skipped and counted.
  json first = e["messages"][0];
  std::vector<json> swaps = {json(nullptr), json(42), json(-1.5), json(true), json("text"), json::array({1, "a"}),
                             json::object({{"k", json::array()}}), json(18446744073709551615ull)};
  int runs = 0;
  for (auto& [key, value] : first.items()) {
    for (const auto& swap : swaps) {
      json mutated = e;
      mutated["messages"][0][key] = swap;
      if (value.is_object()) {  // and each field one level down
        for (auto& [sub, unused] : value.items()) {
          mutated["messages"][1] = e["messages"][1];
          if (mutated["messages"][1].contains(key) && mutated["messages"][1][key].is_object()) {
            mutated["messages"][1][key][sub] = swap;
          }
        }
      }
      testing::WriteFile(dir.File("m.json"), mutated.dump());
      testing::TempDir each;
      auto c = std::move(Corpus::Open(each.File("c.db"), Corpus::Mode::kReadWrite)).value();
      ImportReport mr;
      Status ms = ImportFiles(*c, {dir.File("m.json")}, {}, &mr);
      if (ms.ok()) {
        EXPECT_EQ(mr.messages + mr.skipped, static_cast<int64_t>(messages)) << key << " = " << swap.dump();
      } else {
        EXPECT_NE(ms.message().find("m.json"), std::string::npos) << ms.message();  // one clear error, named
      }
      ++runs;
    }
  }
  EXPECT_GT(runs, 40);
}

// A message nested 200,000 deep is refused with the file named and the
// messages before it kept; the values the import builds are walked
// recursively, so without the limit this overflows the stack.
TEST(DiscordHostile, DeepNestingIsRefusedNotFollowed) {
  testing::TempDir dir;
  json e = json::parse(testing::ReadFileOrEmpty(UMWELT_SOURCE_DIR "/examples/discord/training.json"));
  ASSERT_TRUE(e.is_object());
  std::string text = e.dump();
  size_t last = text.rfind("]}");  // the end of the messages array
  ASSERT_NE(last, std::string::npos);
  std::string deep = ",{\"id\": \"9\", \"content\": " + std::string(200000, '[') + std::string(200000, ']') + "}";
  text.insert(last, deep);
  testing::WriteFile(dir.File("deep.json"), text);
  auto corpus = std::move(Corpus::Open(dir.File("c.db"), Corpus::Mode::kReadWrite)).value();
  ImportReport r;
  Status s = ImportFiles(*corpus, {dir.File("deep.json")}, {}, &r);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("deep.json"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("nested"), std::string::npos) << s.message();
  EXPECT_EQ(r.messages + r.skipped, static_cast<int64_t>(e["messages"].size()));
}

}  // namespace
}  // namespace umwelt::discord
