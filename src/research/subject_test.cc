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

}  // namespace
}  // namespace umwelt
