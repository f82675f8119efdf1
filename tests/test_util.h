// Helpers shared by the tests: temporary folders, the real data in
// ../shared/data, and a scripted HTTP server on loopback.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cctype>
#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace umwelt::testing {

// Kilobytes of the file at `path` mapped into this process's page table now
// (the Rss of its mappings in /proc/self/smaps; 0 when it is not mapped).
inline size_t MappedRssKb(const std::string& path) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool ours = false;
  size_t kb = 0;
  while (std::getline(smaps, line)) {
    const size_t dash = line.find('-'), space = line.find(' ');
    if (dash != std::string::npos && dash < space && std::isxdigit(static_cast<unsigned char>(line[0]))) {
      // A mapping's first line: "start-end perms offset dev inode path".
      ours = line.size() >= path.size() && line.compare(line.size() - path.size(), path.size(), path) == 0 &&
             line[line.size() - path.size() - 1] == ' ';
    } else if (ours && line.rfind("Rss:", 0) == 0) {
      kb += std::strtoul(line.c_str() + 4, nullptr, 10);
    }
  }
  return kb;
}

// A fresh folder under $TMPDIR, removed with the object.
class TempDir {
 public:
  // Named by digits alone: a corpus keeps its sources' paths in its
  // permalinks, and random letters (mkdtemp's) once spelled a word a test
  // asks about ("umwelt-test-gPU0Ra" said "gpu").
  TempDir() {
    static std::atomic<unsigned> next{0};
    std::string base = (std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + std::string("/umwelt-test-") +
                       std::to_string(::getpid()) + "-";
    do {
      path_ = base + std::to_string(next++);
    } while (::mkdir(path_.c_str(), 0700) != 0 && errno == EEXIST);
  }
  ~TempDir() { (void)std::system(("rm -rf '" + path_ + "'").c_str()); }
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline void WriteFile(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  out << content;
}

inline std::string ReadFileOrEmpty(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The result of running the umwelt binary.
struct RunResult {
  int code = -1;
  std::string out, err;
};

inline std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs a shell command and captures everything.
inline RunResult RunShell(const std::string& command) {
  testing::TempDir dir;
  int rc = std::system((command + " >" + dir.File("out") + " 2>" + dir.File("err") + " </dev/null").c_str());
  RunResult r;
  r.code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.out = testing::ReadFileOrEmpty(dir.File("out"));
  r.err = testing::ReadFileOrEmpty(dir.File("err"));
  return r;
}

// Runs umwelt with `args` (and extra environment) and captures everything.
inline RunResult Umwelt(const std::vector<std::string>& args, const std::string& env = "") {
  testing::TempDir dir;
  std::string cmd = "env -u UMWELT_CORPUS -u GITHUB_TOKEN -u GH_TOKEN -u DISCORD_TOKEN -u WANDB_API_KEY HOME=" + Quote(dir.path()) + " " + env + " " +
                    Quote(UMWELT_BINARY);
  for (const auto& a : args) cmd += " " + Quote(a);
  cmd += " >" + dir.File("out") + " 2>" + dir.File("err") + " </dev/null";
  int rc = std::system(cmd.c_str());
  RunResult r;
  r.code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.out = testing::ReadFileOrEmpty(dir.File("out"));
  r.err = testing::ReadFileOrEmpty(dir.File("err"));
  return r;
}

// ../shared/data (or $UMWELT_SHARED_DATA), or "" when absent.
inline std::string SharedData() {
  std::string dir;
  if (const char* e = std::getenv("UMWELT_SHARED_DATA"); e && *e) dir = e;
  else dir = UMWELT_SOURCE_DIR "/../shared/data";
  struct stat st;
  return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) ? dir : "";
}

#define UMWELT_REQUIRE_SHARED_DATA(var)                                                   \
  std::string var = ::umwelt::testing::SharedData();                                      \
  if (var.empty()) GTEST_SKIP() << "../shared/data is absent (set UMWELT_SHARED_DATA to "  \
                                   "run this test on the real recordings)"

// Waits until `done` holds, checking it every few milliseconds, for at most
// `seconds`; whether it came to hold. For what a test cannot be told of
// directly (another process's state, a socket closed by the peer).
inline bool WaitUntil(const std::function<bool()>& done, double seconds = 30) {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!done()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// A one-time event between threads: Notify once, Wait (or WaitFor) any
// number of times.
class Notification {
 public:
  void Notify() {
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
    cv_.notify_all();
  }
  void Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return done_; });
  }
  bool WaitFor(double seconds) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::duration<double>(seconds), [&] { return done_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
};

// An HTTP server on 127.0.0.1 with a random port, serving handlers the test
// installs, in a background thread. Records every request's target.
class TestServer {
 public:
  TestServer() {
    server_.set_logger([this](const httplib::Request& req, const httplib::Response&) {
      std::lock_guard<std::mutex> lock(mu_);
      std::string target = req.path;
      if (!req.params.empty()) {
        target += "?";
        bool first = true;
        for (const auto& [k, v] : req.params) {
          target += (first ? "" : "&") + k + "=" + v;
          first = false;
        }
      }
      log_.push_back(target);
      auth_.push_back(req.get_header_value("Authorization"));
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~TestServer() {
    server_.stop();
    thread_.join();
  }
  httplib::Server& server() { return server_; }
  std::string base() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }
  std::vector<std::string> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return log_;
  }
  std::vector<std::string> auth_headers() {
    std::lock_guard<std::mutex> lock(mu_);
    return auth_;
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::vector<std::string> log_;
  std::vector<std::string> auth_;
};

}  // namespace umwelt::testing
