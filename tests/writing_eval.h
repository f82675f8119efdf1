// Test helpers for the writing evaluations (issues 16 and 34): a question
// set scored with `eval answers` against a corpus, and a project's history
// replayed from the upstream changelog Debian ships and scored so.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "test_util.h"

namespace umwelt::testing {

// `all_facts`: every answerable question's facts must be in its answer (this
// project's own questions: code constants among them, answered from the code).
// `known_abstention_errors`: questions whose abstention is known to be
// wrong (answerable ones the report abstains on, unanswerable ones it
// answers), each with its reason where the caller lists it; any other wrong
// abstention fails.
inline void ExpectAnswersHold(const std::string& db, const std::string& questions, double min_recall_share,
                              bool all_facts = false,
                              const std::set<std::string>& known_abstention_errors = {}) {
  auto r = Umwelt({"--corpus", db, "eval", "answers", "--questions", questions, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json scores = nlohmann::json::parse(r.out);
  ASSERT_TRUE(scores.is_array());
  int cited = 0, retrieved = 0, unanswerable = 0;
  for (const auto& s : scores) {
    std::string id = s["id"];
    EXPECT_TRUE(s["error"].get<std::string>().empty()) << id << ": " << s["error"];
    if (!known_abstention_errors.count(id)) {
      EXPECT_NE(s["abstained"].get<bool>(), s["answerable"].get<bool>()) << id << ": abstention wrong";
    }
    EXPECT_EQ(s["junk"], 0) << id;
    EXPECT_EQ(s["check_problems"], 0) << id;
    EXPECT_EQ(s["hallucinated"], 0) << id;
    if (all_facts && s["answerable"].get<bool>()) {
      EXPECT_EQ(s["facts_found"], s["facts"]) << id << ": a fact is missing";
    }
    cited += s["must_have_cited"].get<int>();
    retrieved += s["must_have_retrieved"].get<int>();
    unanswerable += !s["answerable"].get<bool>();
  }
  EXPECT_GE(unanswerable, 2);
  if (min_recall_share > 0) {
    EXPECT_GT(retrieved, 0) << "no must-have found: are they named as the corpus names them?";
  }
  EXPECT_GE(cited, min_recall_share * retrieved)
      << cited << " of " << retrieved << " retrieved must-haves cited";
}

// A project's history as Debian ships it: the upstream changelog of
// `package` (`git log --stat` text: messages, people, dates, diffstats),
// turned into a commit export and replayed as the other histories are,
// synced into a corpus, and asked `questions`. The questions name the
// replayed commits, so a changelog of another release (another Debian)
// skips.
inline void ExpectDebianChangelogHistoryHolds(const std::string& package, const std::string& sha256,
                                              const std::string& repo, const std::string& questions,
                                              double min_recall_share = 0.9,
                                              const std::set<std::string>& known_abstention_errors = {}) {
  // Installed, or taken out of its package by scripts/install-deps.sh --tests
  // (an installed package of another release leaves the one taken out).
  std::string log;
  for (std::string at :
       {"/usr/share/doc/" + package, std::string(UMWELT_SOURCE_DIR "/build-changelogs/") + package}) {
    testing::RunResult sum =
        testing::RunShell("sha256sum " + testing::Quote(at + "/changelog.gz") + " 2>/dev/null");
    if (sum.code == 0 && sum.out.rfind(sha256, 0) == 0) {
      log = at + "/changelog.gz";
      break;
    }
  }
  if (log.empty()) {
    GTEST_SKIP()
        << package << "'s changelog.gz is absent or not Debian 12's (sha256 " << sha256
        << "): the questions name its replay (scripts/install-deps.sh --tests writes build-changelogs/)";
  }
  if (testing::RunShell("node --version").code != 0) GTEST_SKIP() << "node is not installed";
  testing::TempDir dir;
  std::string tools = UMWELT_SOURCE_DIR "/tests/tools/";
  testing::RunResult replay = testing::RunShell(
      "node " + testing::Quote(tools + "gitlog-to-jsonl.mjs") + " " + testing::Quote(log) + " " + repo +
      " > " + testing::Quote(dir.File("commits.jsonl")) +
      " && GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 node " +
      testing::Quote(tools + "replay-history.mjs") + " " + testing::Quote(dir.File("commits.jsonl")) + " " +
      testing::Quote(dir.File("history")));
  ASSERT_EQ(replay.code, 0) << replay.err;
  std::string db = dir.File("c.db");
  auto sync = Umwelt({"--corpus", db, "sync", "git", dir.File("history")});
  ASSERT_EQ(sync.code, 0) << sync.err;
  ExpectAnswersHold(db, questions, min_recall_share, false, known_abstention_errors);
}

}  // namespace umwelt::testing
