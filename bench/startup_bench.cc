// Whole-process start-up benchmark (issue: one path per capability). Spawns
// the umwelt binary the way a shell or an agent does and reports wall time
// per command, next to /bin/true (the cost of a process at all) and the number
// of shared libraries the binary loads at start.
//
//   startup_bench --corpus /tmp/umwelt-bench/bench-221146.db
//                 [--hybrid-corpus CORPUS_WITH_A_VECTOR_SPACE] [--runs 200]
//                 [--umwelt build/src/cli/umwelt]
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

const char* kQueries[] = {"fsdp checkpoint", "float8 training", "tensor parallel", "loss spike", "tokenizer",
                          "flash attention", "nccl timeout", "scaling law", "data loader", "mixed precision bf16"};

// Runs argv once with stdout and stderr to /dev/null; its wall time in ms.
double TimeOnce(const std::vector<std::string>& args) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  for (auto& s : copy) argv.push_back(s.data());
  argv.push_back(nullptr);
  auto start = Clock::now();
  pid_t pid;
  int st = 0;
  bool ok = posix_spawn(&pid, copy[0].c_str(), &actions, nullptr, argv.data(), environ) == 0 &&
            waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
  double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  posix_spawn_file_actions_destroy(&actions);
  if (!ok) {
    std::fprintf(stderr, "startup_bench: %s ... failed (exit %d)\n", args[0].c_str(), WEXITSTATUS(st));
    std::exit(1);
  }
  return ms;
}

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
}

// `runs` timings of make(i), after three warm-up runs.
template <typename Make>
void Report(const char* what, int runs, Make make) {
  for (int i = 0; i < 3; ++i) TimeOnce(make(i));
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) ms.push_back(TimeOnce(make(i)));
  std::printf("| %s | %.2f / %.2f ms |\n", what, Percentile(ms, 0.5), Percentile(ms, 0.95));
}

}  // namespace

int main(int argc, char** argv) {
  std::string umwelt = UMWELT_BINARY, corpus, hybrid;
  int runs = 200;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    std::string v = i + 1 < argc ? argv[i + 1] : "";
    if (k == "--corpus") corpus = v, ++i;
    else if (k == "--hybrid-corpus") hybrid = v, ++i;
    else if (k == "--runs") runs = std::max(1, std::atoi(v.c_str())), ++i;
    else if (k == "--umwelt") umwelt = v, ++i;
    else {
      std::fprintf(stderr, "usage: startup_bench --corpus DB [--hybrid-corpus DB] [--runs N] [--umwelt BIN]\n");
      return 2;
    }
  }
  if (corpus.empty()) {
    std::fprintf(stderr, "startup_bench: --corpus is required (a corpus with a keyword index, e.g. keyword_bench's)\n");
    return 2;
  }
  std::string libs = "?";
  if (FILE* p = popen(("ldd '" + umwelt + "' | wc -l").c_str(), "r")) {
    char buf[32] = "";
    if (std::fgets(buf, sizeof buf, p)) libs = std::string(buf, std::strlen(buf) - (buf[0] ? 1 : 0));
    pclose(p);
  }
  std::printf("| whole process, %d runs each | p50 / p95 |\n|---|---|\n", runs);
  Report("`/bin/true` (the cost of any process)", runs, [](int) { return std::vector<std::string>{"/bin/true"}; });
  Report("`umwelt --version`", runs, [&](int) { return std::vector<std::string>{umwelt, "--version"}; });
  Report("`umwelt search --fts-only --json -k 10 Q`", runs, [&](int i) {
    return std::vector<std::string>{umwelt, "--corpus", corpus, "search", "--fts-only", "--json", "-k", "10",
                                    kQueries[i % std::size(kQueries)]};
  });
  if (!hybrid.empty()) {
    Report("`umwelt search --json -k 10 Q`, hybrid (builtin vectors)", runs, [&](int i) {
      return std::vector<std::string>{umwelt, "--corpus", hybrid, "search", "--json", "-k", "10",
                                      kQueries[i % std::size(kQueries)]};
    });
  }
  std::printf("| shared libraries at start (`ldd umwelt \\| wc -l`) | %s |\n", libs.c_str());
  return 0;
}
