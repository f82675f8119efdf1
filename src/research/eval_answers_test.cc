// `umwelt eval answers` on a project whose history is commits alone: a
// must-have names a commit by its sha.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <sstream>
#include <nlohmann/json.hpp>

#include "corpus_fixtures.h"
#include "test_util.h"
#include "umwelt/corpus.h"
#include "umwelt/research.h"
#include "umwelt/text.h"

namespace umwelt {
namespace {

using nlohmann::json;

// A repository at dir/repo of the journal's commit, `journal_subject`, and
// one about something else; their shas, oldest first.
std::vector<std::string> JournalAndPortCommits(testing::TempDir& dir, const std::string& journal_subject) {
  std::string repo = dir.File("repo");
  std::filesystem::create_directories(repo);
  testing::WriteFile(repo + "/store.cc", "void Open() {}\n");
  testing::WriteFile(repo + "/flags.cc", "int port = 80;\n");
  testing::RunResult git = testing::RunShell(
      "cd " + testing::Quote(repo) + " && export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 && "
      "git init -q -b main . && git add store.cc && "
      "git -c user.name=T -c user.email=t@example.com commit -q -m " + testing::Quote(journal_subject) +
      " && git add flags.cc && "
      "git -c user.name=T -c user.email=t@example.com commit -q -m 'Flags: the listening port can be set' && "
      "git rev-parse HEAD~1 HEAD");
  EXPECT_EQ(git.code, 0) << git.err;
  std::vector<std::string> shas;
  std::istringstream lines(git.out);
  for (std::string line; std::getline(lines, line);) shas.push_back(line);
  EXPECT_EQ(shas.size(), 2u) << git.out;
  return shas;
}

// The score of "Why does the store keep a write-ahead journal?" with the
// must-haves `must_have`, asked of dir/repo synced into a corpus.
AnswerScore JournalScore(testing::TempDir& dir, const std::vector<std::string>& must_have) {
  std::string path = dir.File("c.db");
  EXPECT_TRUE(testing::SyncGitInto(dir.File("repo"), path));
  std::string qdir = dir.File("questions");
  std::filesystem::create_directories(qdir);
  testing::WriteFile(qdir + "/journal.json",
                     json{{"question", "Why does the store keep a write-ahead journal?"},
                          {"citations", {{"must_have", must_have}}}}
                         .dump());
  AskOptions o;
  o.corpus_path = path;
  o.now = *ParseIsoTime("2026-11-25T00:00:00Z");
  auto scores = EvalAnswers(qdir, o);
  EXPECT_TRUE(scores.ok()) << scores.status().message();
  EXPECT_EQ(scores.ok() ? scores->size() : 0, 1u);
  return scores.ok() && !scores->empty() ? scores->front() : AnswerScore{};
}

TEST(EvalAnswersOfCommits, AMustHaveCommitIsNamedByItsShaAndCountedWhenCited) {
  testing::TempDir dir;
  std::vector<std::string> shas =
      JournalAndPortCommits(dir, "Store: a write-ahead journal, so readers never wait for the writer");
  ASSERT_EQ(shas.size(), 2u);
  // The sha in capitals and at full length: the first seven digits name it.
  std::string journal = "commit:" + shas[0];
  std::transform(journal.begin(), journal.end(), journal.begin(), [](unsigned char c) { return std::toupper(c); });
  journal.replace(0, 7, "commit:");
  AnswerScore s = JournalScore(dir, {journal, "commit:" + shas[1].substr(0, 9)});
  EXPECT_FALSE(s.abstained);
  EXPECT_EQ(s.must_have, 2);
  EXPECT_GE(s.must_have_retrieved, 1);
  EXPECT_EQ(s.must_have_cited, 1) << "the journal's commit, through its git+file permalink; not the port's";
  EXPECT_EQ(s.hallucinated, 0);
}

// A subject ending "(#12)" lands the commit as pull request #12 (the squash
// merge's convention), though in many histories the number is a bug
// tracker's: the commit cited is still the commit asked for, and the PR.
TEST(EvalAnswersOfCommits, ACommitThatLandedAPullRequestIsCitedAsBoth) {
  testing::TempDir dir;
  std::vector<std::string> shas =
      JournalAndPortCommits(dir, "Store: a write-ahead journal, so readers never wait for the writer (#12)");
  ASSERT_EQ(shas.size(), 2u);
  AnswerScore s = JournalScore(dir, {"commit:" + shas[0].substr(0, 12), "#12"});
  EXPECT_FALSE(s.abstained);
  EXPECT_EQ(s.must_have_retrieved, 2);
  EXPECT_EQ(s.must_have_cited, 2) << "the commit by its sha and the pull request it landed";
}

}  // namespace
}  // namespace umwelt
