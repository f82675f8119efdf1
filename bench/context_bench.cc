// `umwelt context` in-process, as the CLI and MCP run it: one warm Searcher
// (the corpus and keyword index open), BuildContext per query with the
// defaults (k 20, 12 threads expanded, 12,000 characters a thread, 400,000 in
// all), timed whole; plus the same with one hop of references followed.
//
//   build/bench/context_bench --corpus /tmp/umwelt-bench/bench-221146.db [--rounds 3]
//
// The corpus is keyword_bench's (run it first to make one).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "umwelt/context.h"

namespace {

using Clock = std::chrono::steady_clock;

const char* kQueries[] = {"fsdp checkpoint", "float8 training", "tensor parallel", "loss spike", "data loader",
                          "tokenizer",       "flash attention", "h100",            "nccl timeout", "scaling law"};

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

}  // namespace

int main(int argc, char** argv) {
  std::string corpus = "/tmp/umwelt-bench/bench-221146.db";
  int rounds = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--corpus")) corpus = argv[i + 1];
    else if (!std::strcmp(argv[i], "--rounds")) rounds = std::atoi(argv[i + 1]);
  }
  if (access(corpus.c_str(), R_OK) != 0) {
    std::fprintf(stderr, "context_bench: %s does not exist (build/bench/keyword_bench makes it)\n", corpus.c_str());
    return 1;
  }
  umwelt::Searcher searcher(corpus, {}, {.keyword_only = true});
  auto t0 = Clock::now();
  if (auto s = searcher.Refresh(); !s.ok()) {
    std::fprintf(stderr, "context_bench: %s\n", s.message().c_str());
    return 1;
  }
  double open_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  for (bool follow : {false, true}) {
    std::vector<double> ms;
    size_t threads = 0, chars = 0, n = 0;
    for (int r = 0; r < rounds; ++r) {
      for (const char* q : kQueries) {
        umwelt::ContextRequest req;
        req.queries = {q};
        req.search.fts_only = true;
        req.follow_links = follow;
        auto t = Clock::now();
        auto pack = umwelt::BuildContext(searcher, req);
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t).count());
        if (!pack.ok()) {
          std::fprintf(stderr, "context_bench: %s: %s\n", q, pack.status().message().c_str());
          return 1;
        }
        threads += pack->threads.size();
        chars += pack->text.size();
        ++n;
      }
    }
    std::printf("context (k 20, expand 12%s), %zu calls: %.1f threads and %.0f characters a pack; "
                "p50 %.1f ms, p95 %.1f ms, max %.1f ms (open %.0f ms)\n",
                follow ? ", follow-links 1" : "", n, static_cast<double>(threads) / n, static_cast<double>(chars) / n,
                Percentile(ms, 0.5), Percentile(ms, 0.95), Percentile(ms, 1.0), open_ms);
  }
  return 0;
}
