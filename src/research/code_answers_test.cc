// Code questions (code_answers.cc): a question about what the code does or
// what a setting is, answered from the lines that state it.
#include <gtest/gtest.h>

#include <filesystem>

#include "corpus_fixtures.h"
#include "research/extractive.h"
#include "test_util.h"
#include "umwelt/claims.h"
#include "umwelt/publish.h"
#include "umwelt/research.h"
#include "umwelt/text.h"

namespace umwelt {
namespace {

// Issue 34, item 4: a question about what the code does or what a setting
// is gets the line that states it, with its line permalink, or no answer.
class CodeAskTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string repo = dir_.File("repo");
    std::filesystem::create_directories(repo + "/src");
    std::filesystem::create_directories(repo + "/tests");
    std::string store = "// The record store.\n#include <sqlite3.h>\n\n";
    for (int i = 0; i < 30; ++i) store += "int helper_" + std::to_string(i) + "() { return " + std::to_string(i) + "; }\n";
    store += "void Store::Open() {\n  // Readers never wait for the writer.\n  Exec(\"PRAGMA journal_mode=WAL\");\n}\n";
    testing::WriteFile(repo + "/src/store.cc", store);
    testing::WriteFile(repo + "/src/server.py",
                       "import os\n\n# Where the server listens unless --port says otherwise.\nDEFAULT_PORT = 8765\n\n"
                       "def listen(port=DEFAULT_PORT):\n    return port\n");
    testing::WriteFile(repo + "/tests/server_test.py", "def test_port():\n    assert listen(port=9999) == 9999\n");
    testing::RunResult git = testing::RunShell(
        "cd " + testing::Quote(repo) + " && export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 && "
        "git init -q -b main . && git add -A && git -c user.name=T -c user.email=t@example.com commit -q -m 'Start'");
    ASSERT_EQ(git.code, 0) << git.err;
    path_ = dir_.File("c.db");
    ASSERT_TRUE(testing::SyncGitInto(repo, path_));
  }
  Result<AskResult> AskOf(const std::string& q) {
    AskOptions o;
    o.corpus_path = path_;
    o.question = q;
    o.now = *ParseIsoTime("2026-11-25T00:00:00Z");
    return Ask(o);
  }
  testing::TempDir dir_;
  std::string path_;
};

TEST_F(CodeAskTest, ASettingIsAnsweredWithTheLineThatStatesItAndItsPermalink) {
  auto r = AskOf("Which journal mode does the store use?");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const std::string& md = r->markdown;
  size_t answer = md.find("The code on the default branch states it:");
  ASSERT_NE(answer, std::string::npos) << md;
  EXPECT_NE(md.find("- `Exec(\"PRAGMA journal_mode=WAL\");` — [src/store.cc, line 36]("), answer) << md;
  EXPECT_NE(md.find(":src/store.cc#L36)"), std::string::npos) << "a line permalink";
  EXPECT_NE(md.find("// Readers never wait for the writer."), std::string::npos) << "the comment above it";
  EXPECT_TRUE(r->removed.empty()) << r->removed.front();
  EXPECT_EQ(md.find("no record names"), std::string::npos) << md;
  // The page passes the citation check: the line is in a mirrored file.
  auto corpus = Corpus::Open(path_, Corpus::Mode::kReadOnly);
  auto page = Publish(md, PublishOptions{}, corpus->get());
  ASSERT_TRUE(page.ok());
  EXPECT_FALSE(page->has_errors());

  auto port = AskOf("What port does the server listen on by default?");
  ASSERT_TRUE(port.ok()) << port.status().message();
  size_t line = port->markdown.find("`DEFAULT_PORT = 8765` — [src/server.py, line 4](");
  EXPECT_NE(line, std::string::npos) << port->markdown;
  EXPECT_EQ(port->markdown.find("tests/server_test.py, line"), std::string::npos) << "a test is not what the code does";
}

TEST_F(CodeAskTest, ACodeQuestionNoLineAnswersIsNotAnsweredFromCode) {
  auto r = AskOf("What timeout does the uploader use for retries?");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->markdown.find("The code on the default branch states it:"), std::string::npos) << r->markdown;
}

TEST(CodeQuestions, WhatAsksAboutCode) {
  for (const char* q : {"What port does serve listen on by default?", "Which journal mode does the corpus use?",
                        "Where is the retry limit set?", "How is the timeout configured?"}) {
    EXPECT_TRUE(research_internal::IsCodeQuestion(q)) << q;
  }
  for (const char* q : {"What MFU do we get on H100s?", "When did we add FlexAttention?", "Who reviewed the FSDP change?",
                        "How did the renderer's font hinting options evolve?", "What is the history of the port setting?"}) {
    EXPECT_FALSE(research_internal::IsCodeQuestion(q)) << q;
  }
}

TEST(CodeQuestions, ALinePermalinkCitesTheWindowItFallsIn) {
  std::vector<Evidence> ev(1);
  ev[0].url = "git+file:///r@abc:src/a.cc#L10-L12";
  ev[0].text = "int a = 1;\nint b = 2;\nint c = 3;";
  ev[0].lane = "main";
  EXPECT_EQ(research_internal::WindowOfLine("git+file:///r@abc:src/a.cc#L11", ev), &ev[0]);
  EXPECT_EQ(research_internal::WindowOfLine("git+file:///r@abc:src/a.cc#L13", ev), nullptr) << "past the window";
  EXPECT_EQ(research_internal::WindowOfLine("git+file:///r@abc:src/b.cc#L11", ev), nullptr) << "another file";
  // Verify keeps a claim citing a line whose numbers the window states, and
  // removes one whose number it does not.
  auto v = research::VerifyClaims("- `int b = 2;` is 2 ([a.cc, line 11](git+file:///r@abc:src/a.cc#L11))\n"
                                  "- b is 7 ([a.cc, line 11](git+file:///r@abc:src/a.cc#L11))\n", ev);
  EXPECT_NE(v.markdown.find("is 2"), std::string::npos);
  EXPECT_EQ(v.markdown.find("b is 7"), std::string::npos);
  ASSERT_EQ(v.removed.size(), 1u);
}

}  // namespace
}  // namespace umwelt
