// `umwelt ask` pipeline time (issue: ask). Runs a set of questions on a
// bench corpus, extractively and with a local OpenAI-compatible server that
// answers instantly (10 facets with HyDE texts and 3 code searches; a report
// citing the first evidence), and reports the pipeline's own time, LLM calls
// and tokens.
//   ask_bench --corpus /tmp/umwelt-bench/bench-221146.db
#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include <nlohmann/json.hpp>

#include "umwelt/pattern.h"
#include "umwelt/research.h"

namespace {

using json = nlohmann::json;

const char* kQuestions[] = {
    "How is FSDP checkpointing going and what breaks when we resume?",
    "What throughput do we get with float8 training on H100s?",
    "Why did the loss spike and what fixed it?",
    "What is the state of tensor parallel and context parallel support?",
    "How do we handle data loader stalls and tokenizer speed?"};

double Pct(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5))];
}

}  // namespace

int main(int argc, char** argv) {
  std::string db = "/tmp/umwelt-bench/bench-221146.db";
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--corpus") db = argv[++i];
  }
  httplib::Server server;
  server.Post("/v1/chat/completions", [](const httplib::Request& req, httplib::Response& res) {
    json body = json::parse(req.body);
    std::string user = body["messages"].back()["content"];
    std::string content;
    if (body.contains("response_format")) {
      json facets = json::array();
      const char* names[] = {"checkpoint", "fsdp", "float8", "throughput", "loss spike", "tensor parallel",
                             "data loader", "tokenizer", "memory", "profiler"};
      for (const char* n : names) {
        facets.push_back({{"name", n}, {"query", n}, {"hyde", {std::string(n) + " improved throughput by 12%",
                                                                std::string("we fixed ") + n + " in the last release",
                                                                std::string(n) + " regression on H100"}},
                          {"sources", {"github"}}});
      }
      content = json{{"facets", facets}, {"code", {"checkpoint save", "float8 linear", "data loader"}}}.dump();
    } else {
      umwelt::Groups m;
      static const umwelt::Pattern url(R"re(url="([^"]+)")re");
      std::string first = url.Search(user, &m) ? std::string(m[1]) : "";
      content = "# Report\n\n## Short answer\n\nThe evidence is summarised here ([source](" + first + ")).\n";
    }
    int64_t in = static_cast<int64_t>(req.body.size() / 4);
    res.set_content(json{{"choices", json::array({{{"message", {{"role", "assistant"}, {"content", content}}}}})},
                         {"usage", {{"prompt_tokens", in}, {"completion_tokens", content.size() / 4}}}}
                        .dump(),
                    "application/json");
  });
  int port = server.bind_to_any_port("127.0.0.1");
  std::thread t([&] { server.listen_after_bind(); });
  while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));

  for (bool with_llm : {false, true}) {
    std::vector<double> own;
    int calls = 0;
    int64_t tokens = 0;
    size_t facets = 0;
    for (int pass = 0; pass < 2; ++pass) {
      for (const char* q : kQuestions) {
        umwelt::LlmOptions lo;
        lo.spec = "openai:http://127.0.0.1:" + std::to_string(port) + "/v1#bench";
        lo.cache_dir = "-";
        auto llm = umwelt::ChatModel::Open(lo);
        umwelt::AskOptions o;
        o.corpus_path = db;
        o.question = q;
        o.facets = 10;
        if (with_llm) o.llm = llm->get();
        auto r = umwelt::Ask(o);
        if (!r.ok()) {
          std::fprintf(stderr, "ask_bench: %s\n", r.status().message().c_str());
          server.stop();
          t.join();
          return 1;
        }
        if (pass == 0) continue;  // warm-up
        own.push_back(r->seconds - r->usage.seconds);
        calls = std::max(calls, r->usage.calls);
        tokens = std::max(tokens, r->usage.input_tokens);
        facets = std::max(facets, r->facets.size());
      }
    }
    std::printf("| ask, %s, %zu facets: pipeline's own time p50 / max | %.2f / %.2f s | LLM calls %d, input tokens %lld |\n",
                with_llm ? "LLM (local server, instant)" : "extractive", facets, Pct(own, 0.5), Pct(own, 1.0), calls,
                static_cast<long long>(tokens));
  }
  server.stop();
  t.join();
  return 0;
}
