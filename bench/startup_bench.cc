// Whole-process start-up benchmark (issue: one path per capability). Spawns
// the umwelt binary the way a shell or an agent does and reports wall time
// per command, next to /bin/true (the cost of a process at all) and the number
// of shared libraries the binary loads at start.
//
//   startup_bench --corpus /tmp/umwelt-bench/bench-221146.db
//                 [--hybrid-corpus CORPUS_WITH_A_VECTOR_SPACE] [--runs 200]
//                 [--embedder-corpus CORPUS_WITH_A_RANDOM_SPACE --dim 384]
//                 [--umwelt build/src/cli/umwelt] [--baseline OTHER_BUILD]
// --embedder-corpus takes a copy that `vector_bench random --dim D` filled:
// its hybrid searches embed the query through an OpenAI-compatible
// /v1/embeddings this program serves on loopback, as a corpus built with a
// model server is searched. --baseline times another build beside this one,
// run for run, for a comparison a noisy machine cannot tilt.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <random>
#include <thread>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

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

// --baseline: another build of umwelt, timed run for run beside this one.
std::string baseline;

// `runs` timings of make(i), after three warm-up runs. With a baseline, a
// command of umwelt's is run with each build in turn, and each gets its row.
template <typename Make>
void Report(const char* what, int runs, Make make) {
  const bool pair = !baseline.empty() && make(0)[0] != "/bin/true";
  auto other = [&](int i) {
    auto args = make(i);
    args[0] = baseline;
    return args;
  };
  for (int i = 0; i < 3; ++i) {
    if (pair) TimeOnce(other(i));
    TimeOnce(make(i));
  }
  std::vector<double> ms, base;
  for (int i = 0; i < runs; ++i) {
    if (pair) base.push_back(TimeOnce(other(i)));
    ms.push_back(TimeOnce(make(i)));
  }
  if (pair)
    std::printf("| %s, baseline | %.2f / %.2f ms |\n", what, Percentile(base, 0.5), Percentile(base, 0.95));
  std::printf("| %s | %.2f / %.2f ms |\n", what, Percentile(ms, 0.5), Percentile(ms, 0.95));
}

// An OpenAI-compatible /v1/embeddings on loopback: each input gets a unit
// vector of `dim` drawn from a generator seeded by its text, after `delay_ms`
// (what a model's own forward pass takes; 0: none).
class LoopbackEmbedder {
 public:
  LoopbackEmbedder(int dim, int delay_ms) : dim_(dim) {
    server_.Post("/v1/embeddings", [this, delay_ms](const httplib::Request& req, httplib::Response& res) {
      if (delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      auto body = nlohmann::json::parse(req.body, nullptr, false);
      nlohmann::json data = nlohmann::json::array();
      int i = 0;
      for (const auto& t : body.value("input", nlohmann::json::array())) {
        std::mt19937 rng(static_cast<uint32_t>(std::hash<std::string>()(t.is_string() ? t.get<std::string>() : "")));
        std::normal_distribution<float> normal;
        std::vector<float> v(static_cast<size_t>(dim_));
        float norm = 0;
        for (float& x : v) {
          x = normal(rng);
          norm += x * x;
        }
        for (float& x : v) x /= std::sqrt(norm);
        data.push_back({{"index", i++}, {"embedding", v}, {"object", "embedding"}});
      }
      // With the charset named, cpp-httplib leaves the body uncompressed, as
      // local model servers (vLLM, TEI, Ollama) send theirs: it would
      // otherwise answer libcurl's Accept-Encoding with Brotli at its
      // slowest setting, about 10 ms of the server's time a request here.
      res.set_content(nlohmann::json({{"data", data}, {"model", body.value("model", "")}}).dump(),
                      "application/json; charset=utf-8");
    });
    server_.set_tcp_nodelay(true);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~LoopbackEmbedder() {
    server_.stop();
    thread_.join();
  }
  int port() const { return port_; }

 private:
  int dim_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace

int main(int argc, char** argv) {
  std::string umwelt = UMWELT_BINARY, corpus, hybrid, embedded;
  int runs = 200, dim = 384, delay_ms = 0;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    std::string v = i + 1 < argc ? argv[i + 1] : "";
    if (k == "--corpus") corpus = v, ++i;
    else if (k == "--hybrid-corpus") hybrid = v, ++i;
    else if (k == "--embedder-corpus") embedded = v, ++i;
    else if (k == "--dim") dim = std::max(1, std::atoi(v.c_str())), ++i;
    else if (k == "--embedder-delay-ms") delay_ms = std::max(0, std::atoi(v.c_str())), ++i;
    else if (k == "--runs") runs = std::max(1, std::atoi(v.c_str())), ++i;
    else if (k == "--umwelt") umwelt = v, ++i;
    else if (k == "--baseline")
      baseline = v, ++i;
    else {
      std::fprintf(stderr,
                   "usage: startup_bench --corpus DB [--hybrid-corpus DB] "
                   "[--embedder-corpus DB --dim D [--embedder-delay-ms MS]] [--runs N] "
                   "[--umwelt BIN] [--baseline BIN]\n");
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
  if (!embedded.empty()) {
    LoopbackEmbedder server(dim, delay_ms);
    const std::string embedder = "prose=openai:http://127.0.0.1:" + std::to_string(server.port()) +
                                 "/v1#bench-random-" + std::to_string(dim);
    const std::string what = "`umwelt search --json -k 10 Q`, hybrid, " + std::to_string(dim) +
                             "-d through a loopback `/v1/embeddings`" +
                             (delay_ms > 0 ? " answering after " + std::to_string(delay_ms) + " ms" : std::string());
    Report(what.c_str(), runs, [&](int i) {
      return std::vector<std::string>{umwelt, "--corpus", embedded, "search", "--json", "-k", "10", "--embedder",
                                      embedder, kQueries[i % std::size(kQueries)]};
    });
  }
  std::printf("| shared libraries at start (`ldd umwelt \\| wc -l`) | %s |\n", libs.c_str());
  return 0;
}
