// Tool-call latency of `umwelt mcp` over stdio, as an agent sees it: one
// warm session (the corpus and indexes stay open), `search` calls one after
// another, each timed from writing the request to reading its response.
//
//   build/bench/mcp_bench --corpus /tmp/umwelt-bench/bench-221146.db [--calls 300]
//
// The corpus is keyword_bench's (run it first to make one).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

using Clock = std::chrono::steady_clock;

const char* kQueries[] = {"fsdp checkpoint", "float8 training", "tensor parallel", "loss spike", "data loader",
                          "tokenizer",       "heat transfer",   "flash attention", "h100",       "nccl timeout",
                          "training config", "scaling law",     "float8Linear",    "memory usage", "discord bot"};

struct Child {
  pid_t pid;
  FILE* to;
  FILE* from;
};

Child Spawn(const std::string& binary, const std::string& corpus) {
  int in[2], out[2];
  if (pipe(in) != 0 || pipe(out) != 0) std::perror("pipe"), std::exit(1);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    close(in[1]);
    close(out[0]);
    execl(binary.c_str(), binary.c_str(), "--corpus", corpus.c_str(), "mcp", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  return {pid, fdopen(in[1], "w"), fdopen(out[0], "r")};
}

std::string Call(Child& c, const std::string& line) {
  std::fputs(line.c_str(), c.to);
  std::fputc('\n', c.to);
  std::fflush(c.to);
  std::string reply;
  for (int ch; (ch = std::fgetc(c.from)) != EOF && ch != '\n';) reply += static_cast<char>(ch);
  return reply;
}

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

}  // namespace

int main(int argc, char** argv) {
  std::string corpus = "/tmp/umwelt-bench/bench-221146.db", binary = UMWELT_BINARY;
  int calls = 300;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--corpus")) corpus = argv[i + 1];
    else if (!std::strcmp(argv[i], "--calls")) calls = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--umwelt")) binary = argv[i + 1];
  }
  if (access(corpus.c_str(), R_OK) != 0) {
    std::fprintf(stderr, "mcp_bench: %s does not exist (build/bench/keyword_bench makes it)\n", corpus.c_str());
    return 1;
  }
  auto t0 = Clock::now();
  Child c = Spawn(binary, corpus);
  std::string init = Call(c, R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}})");
  double startup = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  if (init.find("\"result\"") == std::string::npos) {
    std::fprintf(stderr, "mcp_bench: initialize failed: %s\n", init.c_str());
    return 1;
  }
  std::fputs("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n", c.to);
  std::vector<double> ms;
  size_t hits = 0;
  for (int i = 0; i < calls; ++i) {
    nlohmann::json req = {{"jsonrpc", "2.0"}, {"id", i + 1}, {"method", "tools/call"},
                          {"params", {{"name", "search"}, {"arguments", {{"query", kQueries[i % 15]}, {"k", 10}, {"fts_only", true}}}}}};
    auto t = Clock::now();
    std::string reply = Call(c, req.dump());
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t).count());
    auto j = nlohmann::json::parse(reply, nullptr, false);
    if (j.is_discarded() || !j.contains("result")) {
      std::fprintf(stderr, "mcp_bench: call %d failed: %.300s\n", i, reply.c_str());
      return 1;
    }
    hits += j["result"]["structuredContent"]["hits"].size();
  }
  std::fclose(c.to);
  int status = 0;
  waitpid(c.pid, &status, 0);
  std::printf("mcp search over stdio, %d calls (k=10, keyword), %zu hits: start + initialize %.1f ms; "
              "per call p50 %.2f ms, p95 %.2f ms, max %.2f ms\n",
              calls, hits, startup, Percentile(ms, 0.5), Percentile(ms, 0.95), Percentile(ms, 1.0));
  return 0;
}
