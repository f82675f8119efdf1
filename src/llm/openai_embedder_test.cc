#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <nlohmann/json.hpp>

#include "fake_embeddings.h"
#include "test_util.h"
#include "umwelt/embed.h"

namespace umwelt {
namespace {

using json = nlohmann::json;

OpenAiEmbedderOptions Options(const std::string& base) {
  OpenAiEmbedderOptions o;
  o.base_url = base;
  o.model = "BAAI/bge-small-en-v1.5";
  o.batch = 2;
  o.backoff_seconds = 0.01;
  o.max_retries = 2;
  return o;
}

TEST(OpenAiEmbedder, BatchesAndNormalizes) {
  testing::FakeEmbeddings fake;
  auto o = Options(fake.base());
  o.api_key = "sk-test-secret";
  auto e = NewOpenAiEmbedder(o);
  auto v = e->Embed({"abc", "a", "abcd"});
  ASSERT_TRUE(v.ok()) << v.status().message();
  ASSERT_EQ(v->size(), 3u);
  EXPECT_EQ(fake.calls_, 2);  // batches of two
  EXPECT_EQ(e->dim(), 3);
  EXPECT_EQ(e->model(), "BAAI/bge-small-en-v1.5");
  EXPECT_EQ(fake.model_, "BAAI/bge-small-en-v1.5");
  EXPECT_EQ(fake.auth_, "Bearer sk-test-secret");
  EXPECT_NEAR((*v)[0][0], 3 / std::sqrt(10.0), 1e-6);  // unit length
}

TEST(OpenAiEmbedder, RetriesThenGivesUp) {
  testing::FakeEmbeddings fake;
  fake.failures_ = {429, 503};
  auto e = NewOpenAiEmbedder(Options(fake.base()));
  ASSERT_TRUE(e->Embed({"x"}).ok());
  EXPECT_EQ(fake.calls_, 3);
  fake.failures_ = {500, 500, 500, 500};
  auto r = e->Embed({"x"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("gave up after 3 attempts"), std::string::npos) << r.status().message();
  fake.failures_ = {401};
  auto denied = e->Embed({"x"});
  ASSERT_FALSE(denied.ok());
  EXPECT_NE(denied.status().message().find("HTTP 401"), std::string::npos);
}

TEST(OpenAiEmbedder, BadAnswersAreErrors) {
  testing::FakeEmbeddings fake;
  fake.malformed_ = true;
  auto e = NewOpenAiEmbedder(Options(fake.base()));
  auto r = e->Embed({"x"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no `data`"), std::string::npos);
  fake.malformed_ = false;
  fake.wrong_dim_ = true;
  auto dims = NewOpenAiEmbedder(Options(fake.base()))->Embed({"a", "b"});
  ASSERT_FALSE(dims.ok());
  EXPECT_NE(dims.status().message().find("4-d vectors after 3-d"), std::string::npos) << dims.status().message();
  auto down = NewOpenAiEmbedder(Options("http://127.0.0.1:1/v1"))->Embed({"x"});
  EXPECT_FALSE(down.ok());
}

}  // namespace
}  // namespace umwelt
