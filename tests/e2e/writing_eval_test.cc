// Issue 16: what umwelt writes, judged on real histories. The levanter export
// in ../shared/data is replayed into a git repository; its questions (three
// of them unanswerable) and four real weeks are scored with `eval answers`
// and `eval digest`, this project's own history with its own questions (two
// sets, each at its own commit), and another project's Q&A forum with
// questions written before any run on it. The histories replayed from
// Debian's changelogs are in debian_histories_test.cc; this file keeps the
// test of the tool that reads those changelogs.
#include "writing_eval.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "history_replay.h"
#include "test_util.h"
#include "umwelt/text.h"

namespace umwelt {
namespace {

using json = nlohmann::json;
using testing::ExpectAnswersHold;
using testing::Umwelt;

TEST(WritingEval, LevanterAnswersAndWeeksHoldUp) {
  UMWELT_REQUIRE_SHARED_DATA(data);
  testing::TempDir dir;
  std::string repo = dir.File("levanter"), error;
  ASSERT_TRUE(testing::ReplayHistory(data + "/marin-community-levanter-history/commits.jsonl", repo, &error)) << error;
  std::string db = dir.File("c.db");
  auto sync = Umwelt({"--corpus", db, "sync", "git", repo});
  ASSERT_EQ(sync.code, 0) << sync.err;
  ExpectAnswersHold(db, UMWELT_SOURCE_DIR "/evals/levanter/questions", 0.8);
  for (const char* week : {"2025-03-17", "2025-05-12", "2025-07-21", "2025-09-15"}) {
    const std::string expect = UMWELT_SOURCE_DIR "/evals/levanter/weeks.json";
    auto r = Umwelt({"--corpus", db, "eval", "digest", "--week", week, "--expect", expect, "--json"});
    EXPECT_EQ(r.code, 0) << week << "\n" << r.out << r.err;  // every check, and every expected PR in M
    json d = json::parse(r.out, nullptr, false);
    ASSERT_TRUE(d.is_object()) << r.out;
    const json& w = d["digests"][0];
    EXPECT_EQ(w["landed_in_m"], w["landed"]) << week;
    EXPECT_EQ(w["top_in_s"], w["top"]) << week;
    EXPECT_GT(w["landed"].get<int>(), 0) << week;
  }
}

// A project of another kind, never tuned on before its questions were
// written: the Infrahub Q&A forum (Discord threads), where the answer to a
// question is a reply in its thread.
TEST(WritingEval, AForumOfAnotherProject) {
  UMWELT_REQUIRE_SHARED_DATA(data);
  testing::TempDir dir;
  std::vector<std::string> args = {"--corpus", dir.File("c.db"), "import", "discord"};
  for (const auto& e : std::filesystem::directory_iterator(data + "/discord/infrahub-qa-forum")) {
    if (e.path().filename() != "channel_data.json") args.push_back(e.path());
  }
  auto r = Umwelt(args);
  ASSERT_EQ(r.code, 0) << r.err;
  ExpectAnswersHold(dir.File("c.db"), UMWELT_SOURCE_DIR "/evals/infrahub-forum/questions", 0.8);
}

// The commits gitlog-to-jsonl.mjs reads from `log`, one JSON object each;
// empty, with a failure, where the tool fails.
std::vector<nlohmann::json> GitlogToJsonl(const std::string& log) {
  testing::TempDir dir;
  testing::WriteFile(dir.File("changelog"), log);
  testing::RunResult r =
      testing::RunShell("node " + testing::Quote(UMWELT_SOURCE_DIR "/tests/tools/gitlog-to-jsonl.mjs") + " " +
                        testing::Quote(dir.File("changelog")) + " o/r");
  EXPECT_EQ(r.code, 0) << r.err;
  std::vector<nlohmann::json> out;
  if (r.code != 0) return out;
  for (const auto& line : SplitList(r.out, '\n')) out.push_back(nlohmann::json::parse(line));
  return out;
}

// A changelog written with --date=short gives each day's commits noon, then
// a second earlier each in the log's order (newest first), beside git's
// default dates and --date=iso's; a tab may follow "Date:" (Nemo's log).
TEST(GitlogToJsonl, ReadsDatesInEachFormAChangelogWritesThem) {
  if (testing::RunShell("node --version").code != 0) GTEST_SKIP() << "node is not installed";
  std::vector<std::string> dates;
  for (const auto& c : GitlogToJsonl(
           "commit 3333333333333333333333333333333333333333\nAuthor: A <a@example.com>\nDate:   2022-01-17\n\n"
           "    Release 2\n\ncommit 2222222222222222222222222222222222222222\nAuthor: A <a@example.com>\n"
           "Date:\t2022-01-17\n\n    Fix the build\n\ncommit 1111111111111111111111111111111111111111\n"
           "Author: B <b@example.org>\nDate:   Thu Dec 1 21:19:03 2021 +0100\n\n    Start\n\n"
           "commit 0000000000000000000000000000000000000000\nAuthor: B <b@example.org>\n"
           "Date:   2021-11-30 08:00:01 -0500\n\n    Before\n")) {
    dates.push_back(c["authored_date"]);
  }
  EXPECT_EQ(dates, (std::vector<std::string>{"2022-01-17T12:00:00+00:00", "2022-01-17T11:59:59+00:00",
                                             "2021-12-01T21:19:03+01:00", "2021-11-30T08:00:01-05:00"}));
}

// --pretty=fuller names the author and committer apart, each with a date:
// a commit is the author's, at the author's date.
// A GNU ChangeLog (gitlog-to-changelog's, or one kept by hand) has no
// shas: one date and author head a day's commits, each a subject and its
// "* file" lines; a trailer or a run-on explanation after them is the same
// commit's, a short line after them the next commit's subject.
TEST(GitlogToJsonl, SplitsAGnuChangeLogIntoItsCommits) {
  if (testing::RunShell("node --version").code != 0) GTEST_SKIP() << "node is not installed";
  std::vector<nlohmann::json> commits = GitlogToJsonl(
      "2021-03-02  Ann Writer  <ann@example.com>\n"
      "\t    Bo Helper  <bo@example.org>\n\n"
      "\tTeach the parser tabs.\n"
      "\t* src/parse.c (skip_space): Accept a tab.\n\n"
      "\tReported-by: Cy Tester <cy@example.net>\n\n"
      "\tKeep the old reader.\n"
      "\tThe old reader stays for one release because two downstream tools\n"
      "\tstill call it.\n"
      "\t* src/read.c: Restore read_old.\n\n"
      "\tWhat follows explains the restore at more length than any subject\n"
      "\twould, and runs on.\n\n"
      "2020-12-31  Bo Helper  <bo@example.org>\n\n"
      "\t* src/main.c (main): Exit with 2 on a bad flag, as the\n"
      "\tmanual says.\n"
      "\t* doc/tool.texi: Say so.\n");
  ASSERT_EQ(commits.size(), 3u);
  EXPECT_EQ(commits[0]["subject"], "Teach the parser tabs.");
  EXPECT_EQ(commits[0]["author_name"], "Ann Writer");
  EXPECT_EQ(commits[0]["author_email_domain"], "example.com");
  EXPECT_NE(commits[0]["body"].get<std::string>().find("Reported-by: Cy"), std::string::npos);
  EXPECT_EQ(commits[1]["subject"], "Keep the old reader.");
  EXPECT_NE(commits[1]["body"].get<std::string>().find("two downstream tools"), std::string::npos);
  EXPECT_NE(commits[1]["body"].get<std::string>().find("runs on."), std::string::npos);
  EXPECT_EQ(commits[0]["authored_date"], "2021-03-02T12:00:00+00:00");
  EXPECT_EQ(commits[1]["authored_date"], "2021-03-02T11:59:59+00:00");
  // A hand-kept entry's subject is its first item's sentence.
  EXPECT_EQ(commits[2]["subject"], "* src/main.c (main): Exit with 2 on a bad flag, as the manual says.");
  EXPECT_EQ(commits[2]["body"], "* doc/tool.texi: Say so.");
  EXPECT_EQ(commits[2]["sha"].get<std::string>().size(), 40u);
  EXPECT_NE(commits[2]["sha"], commits[1]["sha"]);
  EXPECT_TRUE(commits[2]["files"].empty());
}

TEST(GitlogToJsonl, ReadsTheFullerFormsAuthorAndItsDate) {
  if (testing::RunShell("node --version").code != 0) GTEST_SKIP() << "node is not installed";
  std::vector<nlohmann::json> commits =
      GitlogToJsonl("commit 3333333333333333333333333333333333333333\nAuthor:     A B <ab@example.com>\n"
                    "AuthorDate: Tue Oct 16 09:53:18 2018 -0700\nCommit:     C <c@example.org>\n"
                    "CommitDate: Fri Oct 19 13:23:16 2018 -0700\n\n    Release\n\n NEWS | 3 ++-\n"
                    " 1 file changed, 2 insertions(+), 1 deletion(-)\n\n"
                    "commit 2222222222222222222222222222222222222222\nAuthor:     <x@example.net>\n"
                    "AuthorDate: Mon Oct 13 19:57:09 2014 -0700\nCommit:     C <c@example.org>\n"
                    "CommitDate: Mon Oct 13 19:57:09 2014 -0700\n\n    Nameless\n");
  ASSERT_EQ(commits.size(), 2u);
  EXPECT_EQ(commits[1]["author_name"], "");  // a name can be empty
  EXPECT_EQ(commits[1]["author_email_domain"], "example.net");
  EXPECT_EQ(commits[0]["author_name"], "A B");
  EXPECT_EQ(commits[0]["author_email_domain"], "example.com");
  EXPECT_EQ(commits[0]["authored_date"], "2018-10-16T09:53:18-07:00");
  EXPECT_EQ(commits[0]["subject"], "Release");
  EXPECT_EQ(commits[0]["files"].size(), 1u);
}

// The history is pinned: later commit messages talk about these very
// questions (an unanswerable one's words among them), so the live history
// would judge a different corpus with every commit.
constexpr const char* kOwnHistoryPin = "5f5f229ddee8293da282cffad0c08e5a8a87d167";
// The second set's, written at this commit before any run on it.
constexpr const char* kOwnHistoryPin2 = "255e6b1bfcdbfdcb8b794e17b271829c66c0552e";

// This repository cloned at `pin` into `dir` and synced into a corpus; its
// path, or "" when the source tree holds no such commit (`skip` says why).
std::string OwnHistoryAt(const char* pin, testing::TempDir& dir, std::string* skip) {
  std::string repo = dir.File("umwelt");
  auto git = [&](const std::string& args) {
    std::string cmd = "env GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 git " + args + " >/dev/null 2>&1";
    return std::system(cmd.c_str()) == 0;
  };
  if (!git("-C " + testing::Quote(UMWELT_SOURCE_DIR) + " cat-file -e " + pin + "^{commit}")) {
    *skip = std::string("the source tree is not a git checkout holding commit ") + pin;
    return "";
  }
  EXPECT_TRUE(git("clone -q --no-checkout " + testing::Quote(UMWELT_SOURCE_DIR) + " " + testing::Quote(repo)));
  EXPECT_TRUE(git("-C " + testing::Quote(repo) + " checkout -q -B main " + pin));
  std::string db = dir.File("c.db");
  auto sync = Umwelt({"--corpus", db, "sync", "git", repo});
  EXPECT_EQ(sync.code, 0) << sync.err;
  return db;
}

TEST(WritingEval, ThisProjectsOwnHistory) {
  testing::TempDir dir;
  std::string skip, db = OwnHistoryAt(kOwnHistoryPin, dir, &skip);
  if (db.empty()) GTEST_SKIP() << skip;
  ExpectAnswersHold(db, UMWELT_SOURCE_DIR "/evals/umwelt/questions", 0.0, /*all_facts=*/true);
}

// Questions whose must-haves are commits (this history has no pull
// requests), on subjects the first set never asked about.
TEST(WritingEval, ThisProjectsOwnHistoryByItsCommits) {
  testing::TempDir dir;
  std::string skip, db = OwnHistoryAt(kOwnHistoryPin2, dir, &skip);
  if (db.empty()) GTEST_SKIP() << skip;
  ExpectAnswersHold(db, UMWELT_SOURCE_DIR "/evals/umwelt-history/questions", 0.9);
}

}  // namespace
}  // namespace umwelt
