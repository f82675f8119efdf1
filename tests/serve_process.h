// Test-only: `umwelt serve` (or any umwelt verb) as a child process, and
// the example project's corpus made through the CLI.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "test_util.h"
#include "umwelt/pattern.h"

namespace umwelt::testing {

// A running `umwelt serve`, its stderr in a file.
class ServeProcess {
 public:
  ServeProcess(const std::vector<std::string>& args, const std::string& log) : log_(log) {
    pid_ = ::fork();
    if (pid_ == 0) {
      int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      ::dup2(fd, 2);
      ::dup2(fd, 1);
      std::vector<char*> argv;
      std::string bin = UMWELT_BINARY;
      argv.push_back(bin.data());
      std::vector<std::string> copy = args;
      for (auto& a : copy) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(bin.c_str(), argv.data());
      ::_exit(127);
    }
  }
  ~ServeProcess() {
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  // The port from "listening on 127.0.0.1:PORT", or 0 after 20 s.
  int WaitForPort() {
    static const Pattern re(R"(listening on [^ ]+:(\d+))");
    for (int i = 0; i < 400; ++i) {
      std::string text = ReadFileOrEmpty(log_);
      Groups m;
      if (re.Search(text, &m)) return std::stoi(std::string(m[1]));
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return 0;
  }
  void Signal(int sig) { ::kill(pid_, sig); }
  // The exit status, or -1 when it did not exit within `seconds`.
  int Wait(int seconds) {
    for (int i = 0; i < seconds * 20; ++i) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        reaped_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return -1;
  }

 private:
  std::string log_;
  pid_t pid_ = -1;
  bool reaped_ = false;
};

inline std::string ExampleCorpus(TempDir& dir) {
  std::string db = dir.File("c.db");
  std::vector<std::string> import = {"--corpus", db, "import", "github"};
  for (const auto& e : std::filesystem::directory_iterator(UMWELT_SOURCE_DIR "/examples/github")) import.push_back(e.path());
  EXPECT_EQ(Umwelt(import).code, 0);
  EXPECT_EQ(Umwelt({"--corpus", db, "import", "discord", UMWELT_SOURCE_DIR "/examples/discord/training.json", "--repo",
                    "acme/tinylm"}).code, 0);
  EXPECT_EQ(Umwelt({"--corpus", db, "import", "wandb", UMWELT_SOURCE_DIR "/examples/wandb/runs.json", "--repo",
                    "acme/tinylm"}).code, 0);
  return db;
}

// Records a failed sync of source wandb:acme/tinylm in `db` (an API that
// refuses the key at once, so nothing is retried).
inline void RecordFailingSource(const std::string& db) {
  TestServer wandb;
  wandb.server().Post("/graphql", [](const httplib::Request&, httplib::Response& res) {
    res.status = 401;
    res.set_content(R"({"errors":[{"message":"invalid api key"}]})", "application/json");
  });
  EXPECT_NE(Umwelt({"--corpus", db, "sync", "wandb", "acme/tinylm", "--api-base", wandb.base()}, "WANDB_API_KEY=x").code, 0);
}

}  // namespace umwelt::testing
