// Source adapter benchmarks (issue: sources beyond GitHub). Modes:
//   sources_bench git --repo PATH        sync a clone of a real repository
//                                        (history and code), then re-sync
//                                        after one new commit
//   sources_bench history --commits N [--data DIR]
//                                        a repository of N commits whose
//                                        messages and file paths come from
//                                        the real commit histories in
//                                        ../shared/data, written with `git
//                                        fast-import`, then synced
//   sources_bench discord --messages N   a DiscordChatExporter export of N
//                                        messages imported in a child
//                                        process, for its peak RSS
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "umwelt/discord.h"
#include "umwelt/git.h"

namespace {

using Clock = std::chrono::steady_clock;
using json = nlohmann::json;
namespace fs = std::filesystem;

double Seconds(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

int Fail(const std::string& m) {
  std::fprintf(stderr, "sources_bench: %s\n", m.c_str());
  return 1;
}

int Sh(const std::string& cmd) {
  std::string full = "env GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 sh -c '" + cmd + "' >/dev/null 2>&1";
  return std::system(full.c_str());
}

std::unique_ptr<umwelt::Corpus> FreshCorpus(const std::string& path) {
  fs::remove(path);
  fs::remove(path + "-wal");
  fs::remove(path + "-shm");
  auto c = umwelt::Corpus::Open(path, umwelt::Corpus::Mode::kReadWrite);
  return c.ok() ? std::move(c).value() : nullptr;
}

// Full sync, then one new commit and a re-sync.
int TimeGit(const std::string& repo, const std::string& label, const std::string& work) {
  auto corpus = FreshCorpus(work + "/git.db");
  if (!corpus) return Fail("cannot create " + work + "/git.db");
  umwelt::git::SyncOptions o;
  o.path = repo;
  umwelt::git::SyncReport r;
  auto t = Clock::now();
  umwelt::Status s = umwelt::git::Sync(*corpus, o, &r);
  double full = Seconds(t);
  if (!s.ok()) return Fail(s.message());
  std::printf("| %s: full sync: %lld commits, %lld files as %lld windows, %lld branches | %.2f s (%.0f commits/s, "
              "%.0f windows/s) |\n",
              label.c_str(), static_cast<long long>(r.commits), static_cast<long long>(r.files),
              static_cast<long long>(r.windows), static_cast<long long>(r.branches), full, r.commits / full,
              r.windows / full);
  if (Sh("cd " + repo + " && echo \"# bench $(date +%s%N)\" >> BENCH_NOTE.md && git add BENCH_NOTE.md && "
         "git -c user.name=bench -c user.email=b@example.com commit -q -m \"Bench commit (#1)\"") != 0) {
    return Fail("cannot commit in " + repo);
  }
  umwelt::git::SyncReport r2;
  t = Clock::now();
  s = umwelt::git::Sync(*corpus, o, &r2);
  double again = Seconds(t);
  if (!s.ok()) return Fail(s.message());
  std::printf("| %s: re-sync after one new commit (%lld commit, %lld file) | %.3f s |\n", label.c_str(),
              static_cast<long long>(r2.commits), static_cast<long long>(r2.files), again);
  return 0;
}

int History(int commits, const std::string& data, const std::string& work) {
  std::vector<json> real;
  for (const char* f : {"/pytorch-torchtitan-history/commits.jsonl", "/marin-community-levanter-history/commits.jsonl"}) {
    std::ifstream in(data + f);
    std::string line;
    while (std::getline(in, line)) {
      json j = json::parse(line, nullptr, false);
      if (j.is_object()) real.push_back(std::move(j));
    }
  }
  if (real.empty()) return Fail("no commit histories under " + data + " (pass --data)");
  std::string repo = work + "/history";
  fs::remove_all(repo);
  if (Sh("git init -q -b main " + repo) != 0) return Fail("git init failed");
  std::string stream_path = work + "/history.fi";
  {
    std::ofstream fi(stream_path, std::ios::binary);
    int64_t when = 1600000000;
    for (int i = 0; i < commits; ++i) {
      const json& c = real[static_cast<size_t>(i) % real.size()];
      std::string msg = c.value("subject", "") + "\n\n" + (c["body"].is_string() ? c["body"].get<std::string>() : "");
      std::string path = "src/file" + std::to_string(i % 400) + ".py";
      if (c.contains("files") && c["files"].is_array() && !c["files"].empty() && c["files"][0].contains("path")) {
        path = c["files"][0]["path"].get<std::string>();
      }
      std::string content;
      for (int l = 0; l < 80; ++l) content += "def f" + std::to_string(l) + "_" + std::to_string(i) + "():\n    return " + std::to_string(l) + "\n";
      std::string who = c.value("author_name", "dev");
      fi << "commit refs/heads/main\nmark :" << i + 1 << "\n";
      fi << "author " << who << " <dev@example.com> " << when << " +0000\n";
      fi << "committer " << who << " <dev@example.com> " << when << " +0000\n";
      fi << "data " << msg.size() << "\n" << msg << "\n";
      if (i > 0) fi << "from :" << i << "\n";
      fi << "M 100644 inline " << path << "\ndata " << content.size() << "\n" << content << "\n";
      when += 600;
    }
  }
  auto t = Clock::now();
  if (Sh("cd " + repo + " && git fast-import --quiet < " + stream_path + " && git checkout -q main") != 0) {
    return Fail("git fast-import failed");
  }
  std::printf("| history: %d commits written with git fast-import | %.1f s |\n", commits, Seconds(t));
  return TimeGit(repo, std::to_string(commits) + "-commit history", work);
}

int Discord(int64_t messages, const std::string& work, bool child) {
  std::string path = work + "/export-" + std::to_string(messages) + ".json";
  if (!child) {
    std::ofstream out(path, std::ios::binary);
    out << R"({"guild": {"id": "100", "name": "Bench"}, "channel": {"id": "200", "type": "GuildTextChat", "name": "general"},)"
        << "\n\"messages\": [\n";
    const char* words[] = {"loss", "spike", "checkpoint", "resume", "fp8", "throughput", "tokenizer", "eval", "mfu", "h100"};
    for (int64_t i = 0; i < messages; ++i) {
      std::string text;
      for (int w = 0; w < 24; ++w) text += std::string(words[(i * 7 + w * 3) % 10]) + " ";
      json m = {{"id", std::to_string(1000000000000000000LL + i)},
                {"type", "Default"},
                {"timestamp", "2026-01-01T00:00:00+00:00"},
                {"timestampEdited", nullptr},
                {"content", text + "#" + std::to_string(i % 5000)},
                {"author", {{"id", std::to_string(i % 300)}, {"name", "user" + std::to_string(i % 300)}}},
                {"attachments", json::array()},
                {"embeds", json::array()},
                {"reactions", json::array()},
                {"mentions", json::array()}};
      out << (i ? ",\n" : "") << m.dump();
    }
    out << "\n], \"messageCount\": " << messages << "}\n";
    out.close();
    std::string self = fs::read_symlink("/proc/self/exe").string();
    std::string cmd = "'" + self + "' discord --messages " + std::to_string(messages) + " --work '" + work + "' --child";
    std::printf("| discord: export of %lld messages | %.0f MB |\n", static_cast<long long>(messages),
                fs::file_size(path) / 1048576.0);
    std::fflush(stdout);
    return std::system(cmd.c_str()) == 0 ? 0 : 1;
  }
  auto corpus = FreshCorpus(work + "/discord.db");
  umwelt::discord::ImportOptions o;
  o.repo = "acme/tinylm";
  umwelt::discord::ImportReport r;
  auto t = Clock::now();
  umwelt::Status s = umwelt::discord::ImportFiles(*corpus, {path}, o, &r);
  double secs = Seconds(t);
  if (!s.ok()) return Fail(s.message());
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::printf("| discord: import %lld messages (streamed) | %.1f s, %.0f messages/s, peak RSS %ld MB |\n",
              static_cast<long long>(r.messages), secs, r.messages / secs, ru.ru_maxrss / 1024);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  std::string repo, data = UMWELT_SOURCE_DIR "/../shared/data", work = "/tmp/umwelt-bench/sources";
  int commits = 10000;
  int64_t messages = 1000000;
  bool child = false;
  for (int i = 2; i < argc; ++i) {
    std::string k = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (k == "--repo") repo = next();
    else if (k == "--data") data = next();
    else if (k == "--work") work = next();
    else if (k == "--commits") commits = std::stoi(next());
    else if (k == "--messages") messages = std::stoll(next());
    else if (k == "--child") child = true;
  }
  fs::create_directories(work);
  if (mode == "git" && !repo.empty()) {
    std::string clone = work + "/clone";
    fs::remove_all(clone);
    if (Sh("git clone -q --no-local " + repo + " " + clone) != 0) return Fail("cannot clone " + repo);
    return TimeGit(clone, fs::path(repo).filename().string(), work);
  }
  if (mode == "history") return History(commits, data, work);
  if (mode == "discord") return Discord(messages, work, child);
  std::fprintf(stderr,
               "usage: sources_bench git --repo PATH | history [--commits N] [--data DIR] | discord [--messages N]\n");
  return 2;
}
