// A question without key constraints is about the words of its subject
// (extractive.cc, FindSubject): a record names it when it says half of them,
// in any of their forms.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "corpus_fixtures.h"
#include "test_util.h"
#include "umwelt/research.h"
#include "umwelt/text.h"

namespace umwelt {
namespace {

// The stemmer ends "library" and "query" in an i (librari, queri), which
// neither word holds: a record that says them in the singular still names
// them. Here it is the answer, and the only record that says two of them.
TEST(SubjectTest, AWordWhoseStemEndsInIIsNamedInTheSingular) {
  testing::TempDir dir;
  std::string repo = dir.File("repo");
  std::filesystem::create_directories(repo);
  std::string script = "cd " + testing::Quote(repo) +
                       " && export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 && git init -q -b main . && "
                       "c() { echo \"$1\" >> notes.txt && git add -A && "
                       "git -c user.name=T -c user.email=t@example.com commit -q -m \"$1\"; } && "
                       "c 'Pin a query from its library' && "
                       "c 'Users can save dashboards' && "
                       "c 'Fix the sign-in page on narrow screens' && "
                       "c 'Speed up the export of large tables'";
  testing::RunResult git = testing::RunShell(script);
  ASSERT_EQ(git.code, 0) << git.err;
  std::string db = dir.File("c.db");
  ASSERT_TRUE(testing::SyncGitInto(repo, db));
  AskOptions o;
  o.corpus_path = db;
  o.question = "When could users pin a saved query to a dashboard library?";
  o.now = *ParseIsoTime("2026-11-25T00:00:00Z");
  auto r = Ask(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::string md = r->markdown;
  std::string answer = md.substr(std::min(md.find("## Short answer"), md.size()));
  answer = answer.substr(0, answer.find("\n## ", 3));
  EXPECT_NE(answer.find("Pin a query from its library"), std::string::npos) << md;
  EXPECT_EQ(answer.find("sign-in page"), std::string::npos) << md;
}

// A subject's words are not all alike: most records here say "keyboard
// shortcuts", two say "rupee". Those two lead the answer, however often the
// others turn up among the facets the records' titles make.
TEST(SubjectTest, TheSubjectsRareWordLeadsTheAnswer) {
  testing::TempDir dir;
  std::string repo = dir.File("repo");
  std::filesystem::create_directories(repo);
  std::string script = "cd " + testing::Quote(repo) +
                       " && export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 && git init -q -b main . && "
                       "c() { echo \"$1\" >> notes.txt && git add -A && "
                       "git -c user.name=T -c user.email=t@example.com commit -q -m \"$1\"; } && "
                       "c 'Keyboard shortcuts for the rupee sign' && "
                       "c 'Revert the keyboard shortcuts for the rupee sign: they clash with the dead keys'";
  for (const char* what : {"accented vowels", "the euro sign", "Greek letters", "arrows", "fractions", "dashes",
                           "quotation marks", "the section sign", "superscripts", "currency symbols"}) {
    script += std::string(" && c 'Keyboard shortcuts for ") + what + ", and their sequences sorted'";
  }
  testing::RunResult git = testing::RunShell(script);
  ASSERT_EQ(git.code, 0) << git.err;
  std::string db = dir.File("c.db");
  ASSERT_TRUE(testing::SyncGitInto(repo, db));
  AskOptions o;
  o.corpus_path = db;
  o.question = "What happened to the keyboard shortcuts for the rupee sign?";
  o.now = *ParseIsoTime("2026-11-25T00:00:00Z");
  auto r = Ask(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::string md = r->markdown;
  std::string answer = md.substr(std::min(md.find("## Short answer"), md.size()));
  answer = answer.substr(0, answer.find("\n## ", 3));
  std::vector<std::string> lines;  // the answer's first two
  std::istringstream in(answer);
  for (std::string line; std::getline(in, line) && lines.size() < 2;) {
    if (line.starts_with("- ")) lines.push_back(line);
  }
  ASSERT_EQ(lines.size(), 2u) << md;
  for (const auto& line : lines) EXPECT_NE(line.find("rupee"), std::string::npos) << line << "\n" << md;
  std::string lead = lines[0] + lines[1];
  EXPECT_EQ(lead.find("euro"), std::string::npos) << md;
}

// "When did X begin?" asks for the earliest record on X. Here seventy later
// commits say "sandbox" more often and more briefly than the first one,
// whose long message says it once: ranked by relevance it is not among the
// records read at all.
TEST(SubjectTest, WhenItBeganIsAnsweredByTheEarliestRecord) {
  testing::TempDir dir;
  std::string repo = dir.File("repo");
  std::filesystem::create_directories(repo);
  std::string body;
  for (int i = 0; i < 40; ++i) body += "The loader reads the manifest, checks its version and lists the entry points. ";
  std::string script = "cd " + testing::Quote(repo) +
                       " && export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 && git init -q -b main . && "
                       "c() { echo \"$2\" >> notes.txt && git add -A && GIT_AUTHOR_DATE=\"$1\" GIT_COMMITTER_DATE=\"$1\" "
                       "git -c user.name=T -c user.email=t@example.com commit -q -m \"$2\"; } && "
                       "c 2021-03-01T10:00:00Z 'Add a sandbox for plugins\n\n" + body + "'";
  for (int i = 0; i < 70; ++i) {
    script += " && c 2023-01-" + std::string(i % 28 < 9 ? "0" : "") + std::to_string(i % 28 + 1) +
              "T10:00:00Z 'Sandbox: sandbox profile " + std::to_string(i) + " for the sandbox runner'";
  }
  testing::RunResult git = testing::RunShell(script);
  ASSERT_EQ(git.code, 0) << git.err;
  std::string db = dir.File("c.db");
  ASSERT_TRUE(testing::SyncGitInto(repo, db));
  AskOptions o;
  o.corpus_path = db;
  o.question = "When did the sandbox first appear?";
  o.now = *ParseIsoTime("2026-11-25T00:00:00Z");
  auto r = Ask(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::string md = r->markdown;
  std::string answer = md.substr(std::min(md.find("## Short answer"), md.size()));
  size_t first = answer.find("\n- ");
  ASSERT_NE(first, std::string::npos) << md;
  std::string line = answer.substr(first + 1, answer.find('\n', first + 1) - first - 1);
  EXPECT_NE(line.find("Add a sandbox for plugins"), std::string::npos) << line << "\n" << md;
  EXPECT_NE(line.find("2021-03-01"), std::string::npos) << line;
  EXPECT_NE(md.find("Sub-queries: "), std::string::npos);
}

}  // namespace
}  // namespace umwelt
