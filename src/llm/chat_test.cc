#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include <nlohmann/json.hpp>

#include "test_util.h"
#include "umwelt/llm.h"

namespace umwelt {
namespace {

using json = nlohmann::json;

// An OpenAI-compatible /v1/chat/completions and an Anthropic /v1/messages
// server whose answers the test scripts.
class FakeLlm {
 public:
  FakeLlm() {
    server_.server().Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
      last_ = json::parse(req.body);
      auth_ = req.get_header_value("Authorization");
      Answer(res, json{{"choices", json::array({{{"message", {{"role", "assistant"}, {"content", reply_}}}}})},
                       {"usage", {{"prompt_tokens", 120}, {"completion_tokens", 30}}}});
    });
    server_.server().Post("/v1/messages", [this](const httplib::Request& req, httplib::Response& res) {
      last_ = json::parse(req.body);
      auth_ = req.get_header_value("x-api-key");
      Answer(res, json{{"content", json::array({{{"type", "text"}, {"text", reply_}}})},
                       {"usage", {{"input_tokens", 100}, {"output_tokens", 20}}}});
    });
  }
  void Answer(httplib::Response& res, const json& ok) {
    ++requests_;
    if (!faults_.empty()) {
      std::string f = faults_.front();
      faults_.erase(faults_.begin());
      if (f == "429") {
        res.status = 429;
        res.set_header("Retry-After", "1.5");
      } else if (f == "500") {
        res.status = 500;
      } else if (f == "truncated") {
        res.set_content(ok.dump().substr(0, 30), "application/json");
      } else if (f == "slow") {
        std::this_thread::sleep_for(std::chrono::milliseconds(2500));
        res.set_content(ok.dump(), "application/json");
      } else if (f == "400") {
        res.status = 400;
        res.set_content(R"({"error": {"message": "context too long"}})", "application/json");
      }
      return;
    }
    res.set_content(ok.dump(), "application/json");
  }
  testing::TestServer server_;
  std::string reply_ = "hello";
  std::vector<std::string> faults_;
  std::atomic<int> requests_{0};
  json last_;
  std::string auth_;
};

class ChatTest : public ::testing::Test {
 protected:
  LlmOptions Options(const std::string& spec) {
    LlmOptions o;
    o.spec = spec;
    o.cache_dir = dir_.File("cache");
    o.api_key = "sk-test";
    o.backoff_seconds = 0.01;
    o.max_retries = 2;
    o.usd_per_million_input = 1;
    o.usd_per_million_output = 10;
    o.sleep = [this](double s) { sleeps_.push_back(s); };
    return o;
  }
  ChatRequest Ask(const std::string& q, bool as_json = false) {
    ChatRequest r;
    r.messages = {{"system", "be brief"}, {"user", q}};
    r.json = as_json;
    return r;
  }
  testing::TempDir dir_;
  FakeLlm llm_;
  std::vector<double> sleeps_;
};

TEST_F(ChatTest, OpenAiAnswersAreCountedCachedAndReplayed) {
  auto m = ChatModel::Open(Options("openai:" + llm_.server_.base() + "/v1#tiny-model"));
  ASSERT_TRUE(m.ok()) << m.status().message();
  llm_.reply_ = "{\"facets\": [\"a\"]}";
  auto r = (*m)->Complete(Ask("split this", true));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->text, "{\"facets\": [\"a\"]}");
  EXPECT_EQ(llm_.last_["model"], "tiny-model");
  EXPECT_EQ(llm_.last_["response_format"]["type"], "json_object");
  EXPECT_EQ(llm_.auth_, "Bearer sk-test");
  // The same request again comes from the cache: nothing sent, no cost.
  auto again = (*m)->Complete(Ask("split this", true));
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->cached);
  EXPECT_EQ(llm_.requests_, 1);
  LlmUsage u = (*m)->usage();
  EXPECT_EQ(u.calls, 2);
  EXPECT_EQ(u.cache_hits, 1);
  EXPECT_EQ(u.input_tokens, 120);
  EXPECT_NEAR(u.cost_usd, 120 * 1e-6 + 30 * 10e-6, 1e-12);
  // Replay: a hit answers, a miss fails without calling out.
  LlmOptions ro = Options("openai:" + llm_.server_.base() + "/v1#tiny-model");
  ro.replay = true;
  auto replay = ChatModel::Open(ro);
  ASSERT_TRUE((*replay)->Complete(Ask("split this", true)).ok());
  auto miss = (*replay)->Complete(Ask("something new"));
  EXPECT_FALSE(miss.ok());
  EXPECT_NE(miss.status().message().find("--replay"), std::string::npos);
  EXPECT_EQ(llm_.requests_, 1);
}

TEST_F(ChatTest, RetriesRateLimitsServerErrorsAndTruncatedAnswers) {
  auto m = ChatModel::Open(Options("openai:" + llm_.server_.base() + "/v1#m"));
  llm_.faults_ = {"429", "truncated"};
  auto r = (*m)->Complete(Ask("q1"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->text, "hello");
  EXPECT_EQ(sleeps_.front(), 1.5);  // Retry-After
  EXPECT_EQ((*m)->usage().retries, 2);
  llm_.faults_ = {"500", "500", "500"};
  auto down = (*m)->Complete(Ask("q2"));
  ASSERT_FALSE(down.ok());
  EXPECT_NE(down.status().message().find("HTTP 500 after 3 attempts"), std::string::npos) << down.status().message();
  EXPECT_EQ(down.status().message().find("sk-test"), std::string::npos);
  // A slow provider: the request times out and the retry answers.
  LlmOptions slow = Options("openai:" + llm_.server_.base() + "/v1#m");
  slow.timeout_seconds = 1;
  auto sm = ChatModel::Open(slow);
  llm_.faults_ = {"slow"};
  auto late = (*sm)->Complete(Ask("q-slow"));
  ASSERT_TRUE(late.ok()) << late.status().message();
  EXPECT_EQ((*sm)->usage().retries, 1);
  llm_.faults_ = {"400"};
  auto bad = (*m)->Complete(Ask("q3"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("context too long"), std::string::npos);
}

TEST_F(ChatTest, AnthropicMessagesApiAndSpecs) {
  LlmOptions o = Options("anthropic:claude-test");
  o.base_url = llm_.server_.base();
  auto m = ChatModel::Open(o);
  ASSERT_TRUE(m.ok());
  llm_.reply_ = "from claude";
  auto r = (*m)->Complete(Ask("hi", true));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->text, "from claude");
  EXPECT_EQ(llm_.auth_, "sk-test");
  EXPECT_NE(llm_.last_["system"].get<std::string>().find("be brief"), std::string::npos);
  EXPECT_EQ(llm_.last_["messages"].size(), 1u);  // the system prompt is not a message
  for (const char* bad : {"gpt-4", "openai:#m", "openai:http://h/v1", "openai:ftp://h#m", "anthropic:"}) {
    EXPECT_FALSE(ChatModel::Open(Options(bad)).ok()) << bad;
  }
  EXPECT_EQ(*ExtractJsonObject("Sure! ```json\n{\"a\": {\"b\": \"}\"}}\n``` done"), "{\"a\": {\"b\": \"}\"}}");
  EXPECT_FALSE(ExtractJsonObject("no json here { broken").ok());
  EXPECT_EQ(*ExtractJsonObject("{ unclosed, then {\"a\": 1}"), "{\"a\": 1}");
}

// Issue 14: a provider's body in any wrong shape is one error naming what
// is missing, never an exception.
TEST(ChatAnswer, WrongShapesAreErrorsNotCrashes) {
  auto ok = ParseChatAnswer("openai", R"({"choices": [{"message": {"content": "hi"}}],
                                         "usage": {"prompt_tokens": 1e300, "completion_tokens": -2}})");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->text, "hi");
  EXPECT_EQ(ok->input_tokens, 0);  // not a whole number within range: absent
  for (const char* bad : {"", "[]", "null", R"({"choices": "x"})", R"({"choices": [7]})", R"({"choices": [{"message": "m"}]})",
                          R"({"choices": [{"message": {"content": null}}]})", R"({"choices": []})"}) {
    auto r = ParseChatAnswer("openai", bad);
    EXPECT_FALSE(r.ok()) << bad;
  }
  auto a = ParseChatAnswer("anthropic", R"({"content": [7, {"type": "text", "text": 5}, {"type": "text", "text": "yes"},
                                                        {"type": ["text"]}], "usage": "many"})");
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->text, "yes");
  EXPECT_FALSE(ParseChatAnswer("anthropic", R"({"content": {"type": "text"}})").ok());
}

}  // namespace
}  // namespace umwelt
