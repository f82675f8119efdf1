#include "umwelt/http.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace umwelt {
namespace {

TEST(LinkHeader, ParsesGithubStyle) {
  std::string h =
      "<https://api.github.com/x?page=2>; rel=\"next\", <https://api.github.com/x?page=7>; rel=\"last\"";
  auto links = ParseLinkHeader(h);
  ASSERT_EQ(links.size(), 2u);
  EXPECT_EQ(FindLinkRel(h, "next"), "https://api.github.com/x?page=2");
  EXPECT_EQ(FindLinkRel(h, "last"), "https://api.github.com/x?page=7");
  EXPECT_EQ(FindLinkRel(h, "prev"), "");
}

TEST(LinkHeader, ToleratesGarbage) {
  EXPECT_TRUE(ParseLinkHeader("").empty());
  EXPECT_TRUE(ParseLinkHeader("<unterminated").empty());
  EXPECT_TRUE(ParseLinkHeader("no brackets; rel=next").empty());
  EXPECT_EQ(FindLinkRel("<u>; rel=next", "next"), "u");
  EXPECT_EQ(FindLinkRel("<u>; rel=\"prev next\"", "next"), "u");
}

TEST(Redact, HidesSecrets) {
  EXPECT_EQ(Redact("Bearer ghp_secret123 used", {"ghp_secret123"}), "Bearer *** used");
}

TEST(CurlClient, TalksToLoopbackAndReportsStatus) {
  testing::TestServer server;
  server.server().Get("/ok", [](const httplib::Request&, httplib::Response& res) {
    res.set_header("ETag", "\"abc\"");
    res.set_content("{\"a\":1}", "application/json");
  });
  server.server().Get("/missing", [](const httplib::Request&, httplib::Response& res) {
    res.status = 404;
    res.set_content("{\"message\":\"Not Found\"}", "application/json");
  });
  auto client = NewCurlHttpClient();
  auto ok = client->Send({"GET", server.base() + "/ok", {}, "", 10});
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(ok->Header("etag"), "\"abc\"");
  EXPECT_EQ(ok->body, "{\"a\":1}");
  auto missing = client->Send({"GET", server.base() + "/missing", {}, "", 10});
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(missing->status, 404);
  HttpRequest big{"GET", server.base() + "/ok", {}, "", 10, 3};
  EXPECT_FALSE(client->Send(big).ok());  // over max_body_bytes
  auto refused = client->Send({"GET", "http://127.0.0.1:1/", {}, "", 5});
  EXPECT_FALSE(refused.ok());
}

}  // namespace
}  // namespace umwelt
