// The server's session stores alone: their bounds, expiry and ownership.
#include "sessions.h"

#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace umwelt::server_internal {
namespace {

TEST(SignIns, ASessionHoldsItsTokenUntilItExpiresOrIsRemoved) {
  SignIns s(10, 5, 100);
  std::string id = s.Add("ann", "tok-a", 1000);
  EXPECT_EQ(id.size(), 32u);
  EXPECT_EQ(s.TokenOf(id, 1050), "tok-a");
  EXPECT_EQ(s.TokenOf(id, 1100), "");  // expired
  EXPECT_EQ(s.TokenOf("unknown", 1050), "");
  std::string other = s.Add("bob", "tok-b", 1000);
  s.Remove(other);
  EXPECT_EQ(s.TokenOf(other, 1001), "");
  s.Add("cat", "tok-c", 2000);  // a sign-in drops the expired
  EXPECT_EQ(s.size(), 1u);
}

TEST(SignIns, ALoginKeepsItsNewestAndAllTogetherTheNewest) {
  SignIns s(6, 3, 1000);
  std::vector<std::string> ann;
  for (int i = 0; i < 5; ++i) ann.push_back(s.Add("ann", "a" + std::to_string(i), 100 + i));
  EXPECT_EQ(s.size(), 3u);  // ann's two oldest went
  EXPECT_EQ(s.TokenOf(ann[0], 200), "");
  EXPECT_EQ(s.TokenOf(ann[1], 200), "");
  EXPECT_EQ(s.TokenOf(ann[4], 200), "a4");
  std::vector<std::string> others;
  for (int i = 0; i < 4; ++i) others.push_back(s.Add("u" + std::to_string(i), "t", 110 + i));
  EXPECT_EQ(s.size(), 6u);  // past 6 in all, the oldest of anyone's went first: ann's
  EXPECT_EQ(s.TokenOf(ann[2], 200), "");
  EXPECT_EQ(s.TokenOf(ann[3], 200), "a3");
  EXPECT_EQ(s.TokenOf(others[3], 200), "t");
}

std::shared_ptr<mcp::Session> NewSession() { return std::make_shared<mcp::Session>(mcp::Options{}); }

TEST(McpSessions, OnlyItsOwnerUsesOrEndsASession) {
  McpSessions m(10, 10);
  auto s = NewSession();
  std::string id = m.Add(s, "ann");
  EXPECT_EQ(m.Find(id, "ann"), s);
  EXPECT_EQ(m.Find(id, "bob"), nullptr);
  EXPECT_FALSE(m.Remove(id, "bob"));
  EXPECT_EQ(m.Find(id, "ann"), s);
  EXPECT_TRUE(m.Remove(id, "ann"));
  EXPECT_EQ(m.Find(id, "ann"), nullptr);
  EXPECT_FALSE(m.Remove(id, "ann"));
}

TEST(McpSessions, AFloodEvictsTheFloodersOwnSessionsThenTheOldest) {
  McpSessions m(8, 2);
  std::string bob = m.Add(NewSession(), "bob");
  std::vector<std::string> flood;
  for (int i = 0; i < 50; ++i) flood.push_back(m.Add(NewSession(), "mallory"));
  EXPECT_EQ(m.size(), 3u);  // bob's one and mallory's newest two
  EXPECT_NE(m.Find(bob, "bob"), nullptr);
  EXPECT_EQ(m.Find(flood[47], "mallory"), nullptr);
  EXPECT_NE(m.Find(flood[49], "mallory"), nullptr);
  // Without a share (no auth: one anonymous login), the oldest of all go.
  McpSessions open(3, 3);
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(open.Add(NewSession(), ""));
  EXPECT_EQ(open.size(), 3u);
  EXPECT_EQ(open.Find(ids[1], ""), nullptr);
  EXPECT_NE(open.Find(ids[2], ""), nullptr);
}

TEST(McpSessions, ConcurrentAddsKeepTheBound) {
  McpSessions m(100, 100);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&m, t] {
      for (int i = 0; i < 200; ++i) {
        std::string id = m.Add(NewSession(), "login" + std::to_string(t));
        m.Find(id, "login" + std::to_string(t));
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(m.size(), 100u);
}

}  // namespace
}  // namespace umwelt::server_internal
