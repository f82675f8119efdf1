#include "umwelt/suggest.h"

#include <gtest/gtest.h>

#include <string>

namespace umwelt {
namespace {

TEST(Suggest, TheNearestNameWithinASlipsReach) {
  const std::vector<std::string> verbs = {"search", "search-multi", "show", "status", "sync", "serve"};
  EXPECT_EQ(Nearest("serach", verbs), "search");  // two letters swapped: one edit
  EXPECT_EQ(Nearest("SEARCH", {"search"}), "");    // the same name is no suggestion
  EXPECT_EQ(Nearest("Serch", verbs), "search");    // case aside, one letter dropped
  EXPECT_EQ(Nearest("stauts", verbs), "status");
  EXPECT_EQ(Nearest("shw", verbs), "show");
  EXPECT_EQ(Nearest("frobnicate", verbs), "");     // nothing near
  EXPECT_EQ(Nearest("", verbs), "");
  EXPECT_EQ(Nearest("ab", {"xy"}), "");            // a short word allows one edit only
  EXPECT_EQ(Nearest("gitlab", {"github"}), "");    // another name, not a slip
  EXPECT_EQ(Nearest("serach-multi", verbs), "search-multi");
  EXPECT_EQ(Nearest("--kindd", {"--kind", "--k"}), "--kind");
  EXPECT_EQ(Nearest(std::string(100, 's'), verbs), "");  // too long to be a slip
  EXPECT_EQ(DidYouMean("gitub", {"github", "git"}), "; did you mean `github`?");
  EXPECT_EQ(DidYouMean("zzz", {"github"}), "");
}

}  // namespace
}  // namespace umwelt
