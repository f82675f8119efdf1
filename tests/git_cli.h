// Test-only: a git repository built with the git command line, with pinned
// dates and authors, and a corpus to sync it into, for the git source's tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "test_util.h"
#include "umwelt/git.h"
#include "umwelt/text.h"

namespace umwelt::testing {

class GitCliTest : public ::testing::Test {
 protected:
  // Creates the repository `repo_` (branch main, no remote).
  void InitRepo(const std::string& name = "tinylm") {
    repo_ = dir_.File(name);
    std::filesystem::create_directories(repo_);
    Git("init -q -b main .");
  }
  void Git(const std::string& args, const std::string& env = "") {
    std::string cmd = "cd " + Quote(repo_) + " && env GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 " + env +
                      " git -c user.name=T -c user.email=t@example.com " + args + " >/dev/null 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  void Write(const std::string& rel, const std::string& content) {
    std::filesystem::create_directories(std::filesystem::path(repo_ + "/" + rel).parent_path());
    WriteFile(repo_ + "/" + rel, content);
  }
  static std::string Env(const std::string& date, const std::string& who) {
    return "GIT_AUTHOR_DATE=" + date + " GIT_COMMITTER_DATE=" + date + " GIT_AUTHOR_NAME=" + who +
           " GIT_COMMITTER_NAME=" + who;
  }
  void Commit(const std::string& message, const std::string& date, const std::string& who) {
    WriteFile(dir_.File("msg"), message);
    Git("add -A", Env(date, who));
    Git("commit -q -F " + Quote(dir_.File("msg")), Env(date, who));
  }
  // A merge commit (--no-ff) of `branches` (several: an octopus) with `message`.
  void Merge(const std::string& branches, const std::string& message, const std::string& date, const std::string& who) {
    WriteFile(dir_.File("msg"), message);
    Git("merge -q --no-ff --no-edit -F " + Quote(dir_.File("msg")) + " " + branches, Env(date, who));
  }
  std::string Sha(const std::string& rev) {
    std::string out = dir_.File("sha");
    EXPECT_EQ(std::system(("cd " + Quote(repo_) + " && git rev-parse " + rev + " > " + Quote(out)).c_str()), 0);
    return ReadFileOrEmpty(out).substr(0, 40);
  }
  std::string Head() { return Sha("HEAD"); }
  // Syncs `repo_` into `corpus_` on a pinned day.
  git::SyncReport Sync() {
    git::SyncOptions o;
    o.path = repo_;
    o.now = *ParseIsoTime("2026-11-25T00:00:00Z");
    git::SyncReport r;
    Status s = git::Sync(*corpus_, o, &r);
    EXPECT_TRUE(s.ok()) << s.message();
    return r;
  }

  TempDir dir_;
  std::string repo_;
  std::unique_ptr<Corpus> corpus_;
};

}  // namespace umwelt::testing
