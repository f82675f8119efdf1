// A published page in a real browser: headless Chromium dumps the DOM after
// the page's script has run and takes screenshots at desktop and phone widths
// (kept under build/test-artifacts/).
#include <gtest/gtest.h>

#include <filesystem>

#include "corpus_fixtures.h"
#include "test_util.h"
#include "umwelt/publish.h"

namespace umwelt {
namespace {

std::string Chromium() {
  if (const char* c = std::getenv("UMWELT_CHROMIUM"); c && *c) return c;
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"}) {
    if (std::filesystem::exists(p)) return p;
  }
  return "";
}

std::string RunChromium(const std::string& chromium, const std::string& flags, const std::string& url,
                        const std::string& profile, std::string* err) {
  testing::TempDir tmp;
  std::string cmd = "timeout 90 " + chromium +
                    " --headless --no-sandbox --disable-gpu --disable-background-networking"
                    " --disable-component-update --disable-sync --no-first-run --disable-quic"
                    " --hide-scrollbars --enable-logging=stderr --v=0 --user-data-dir=" + profile + " " + flags +
                    " " + url + " >" + tmp.File("out") + " 2>" + tmp.File("err");
  (void)std::system(cmd.c_str());
  *err = testing::ReadFileOrEmpty(tmp.File("err"));
  return testing::ReadFileOrEmpty(tmp.File("out"));
}

TEST(Browser, PublishedPageRendersWithCardsClockAndNoScriptErrors) {
  std::string chromium = Chromium();
  if (chromium.empty()) GTEST_SKIP() << "chromium is not installed (apt-get install chromium); browser test skipped";
  testing::TempDir dir;
  auto corpus = Corpus::Open(dir.File("c.db"), Corpus::Mode::kReadWrite);
  ASSERT_TRUE(corpus.ok());
  {
    auto b = (*corpus)->BeginWrite();
    Thread t = testing::GithubThread("o/r#7", "pr", "merged", "Overlap all-gather with compute", "omar",
                                     "Prefetch the next layer's parameters.");
    ASSERT_TRUE((*b)->PutThread(t).ok());
    ASSERT_TRUE((*b)->PutRecord({testing::GithubChunk("o/r#7", "o/r#7", "pr", t.url, t.description)}).ok());
    ASSERT_TRUE((*b)->Commit().ok());
  }
  std::string md =
      "---\nauthor: ann\nquestion: What raised MFU?\n---\n# What raised MFU\n\n## Short answer\n\n"
      "**Overlapping the all-gather** raised MFU from 31% to 38.5% ([#7](https://github.com/o/r/pull/7)).\n\n"
      "| run | MFU |\n|---|---:|\n| before | 31% |\n| after | 38.5% |\n\n"
      "::: sidenote\nMeasured on 64 GPUs ([#7](https://github.com/o/r/pull/7)).\n:::\n\n"
      "Details in the PR[^1].\n\n[^1]: [The PR](https://github.com/o/r/pull/7)\n\n"
      "<!--provenance-->\nQuery: \"what raised MFU\"\n";
  PublishOptions o;
  o.generated_at = 1577836800;  // 2020-01-01: the clock must move off it
  auto r = Publish(md, o, corpus->get());
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r->has_errors());
  std::string page = dir.File("page.html");
  testing::WriteFile(page, r->html);

  std::string err;
  std::string dom = RunChromium(chromium, "--virtual-time-budget=3000 --dump-dom", "file://" + page,
                                dir.File("profile-dom"), &err);
  ASSERT_FALSE(dom.empty()) << "chromium printed no DOM: " << err.substr(0, 2000);
  EXPECT_NE(dom.find("class=\"card\""), std::string::npos);
  EXPECT_NE(dom.find("Overlap all-gather with compute"), std::string::npos);
  EXPECT_NE(dom.find("class=\"sidenote\""), std::string::npos);
  size_t clock = dom.find("<span id=\"viewing\">");
  ASSERT_NE(clock, std::string::npos);
  std::string shown = dom.substr(clock + 19, 23);
  EXPECT_EQ(shown.find("2020-01-01 00:00"), std::string::npos) << "the live clock did not run: " << shown;
  EXPECT_NE(shown.find(" UTC"), std::string::npos) << shown;
  EXPECT_EQ(err.find("Uncaught"), std::string::npos) << err.substr(0, 2000);
  EXPECT_EQ(err.find(":ERROR:CONSOLE"), std::string::npos) << err.substr(0, 2000);

  std::string artifacts = UMWELT_ARTIFACT_DIR;
  std::filesystem::create_directories(artifacts);
  for (int width : {1280, 390}) {
    std::string shot = artifacts + "/report-" + std::to_string(width) + ".png";
    std::filesystem::remove(shot);
    RunChromium(chromium, "--window-size=" + std::to_string(width) + ",1600 --screenshot=" + shot,
                "file://" + page, dir.File("profile-" + std::to_string(width)), &err);
    ASSERT_TRUE(std::filesystem::exists(shot)) << "no screenshot at " << width << "px: " << err.substr(0, 2000);
    EXPECT_GT(std::filesystem::file_size(shot), 10000u);
  }
}

}  // namespace
}  // namespace umwelt
