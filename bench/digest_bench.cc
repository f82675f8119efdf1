// `umwelt digest` time (issue: digest). Builds (once, cached) a 221,146-chunk
// corpus of a two-year project — GitHub threads with states, labels and
// epics, comments that mention each other, Discord channels, commits and
// runs, text from ../shared/data — with one busy week of 5,000 chunks; then
// digests the busy week and an ordinary one extractively, and the busy week
// with a local OpenAI-compatible server that answers at once (calls per
// section, and a cached rerun).
//   digest_bench [--work /tmp/umwelt-bench] [--data ../shared/data]
#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "text_pool.h"
#include "umwelt/pattern.h"
#include "umwelt/digest.h"
#include "umwelt/text.h"

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using namespace umwelt;

constexpr int kChunks = 221146;
constexpr int kBusy = 5000;
constexpr int kThreads = 25000;
const char* kBusyWeek = "2024-06-10";

double Since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

Status Build(const std::string& path, const bench::TextPool& pool) {
  UMWELT_ASSIGN_OR_RETURN(auto corpus, Corpus::Open(path, Corpus::Mode::kReadWrite));
  UMWELT_ASSIGN_OR_RETURN(auto batch, corpus->BeginWrite());
  std::mt19937_64 rng(7);
  auto pick = [&](const std::vector<std::string>& v) { return v[rng() % v.size()]; };
  auto sentence = [&] { return pool.sentences.empty() ? std::string("A note about the work.") : pick(pool.sentences); };
  int64_t start = *ParseIsoTime("2023-01-02T00:00:00Z"), span = 728LL * 86400;
  int64_t busy = *ParseIsoTime(std::string(kBusyWeek) + "T00:00:00Z");
  auto when = [&](bool in_busy) {
    return FormatIsoTime(in_busy ? busy + static_cast<int64_t>(rng() % (7 * 86400)) : start + static_cast<int64_t>(rng() % span));
  };
  const std::vector<std::string> labels = {"bug", "enhancement", "data", "eval", "infra", "tokenizer", "training",
                                           "checkpointing", "docs", "performance", "moe", "rl", "inference", "ci"};
  const std::vector<std::string> people = {"ann", "bo", "cy", "dee", "eve", "fay", "gus", "hal", "ivy", "jo",
                                           "kai", "lee", "max", "ned", "oz", "pia"};
  const std::string repo = "acme/big";
  // Threads: 100 epics, a fifth of the rest their sub-issues; 300 change
  // state in the busy week.
  for (int n = 1; n <= kThreads; ++n) {
    Thread t;
    t.ref = repo + "#" + std::to_string(n);
    t.source = "github";
    t.kind = n % 3 == 0 ? "pr" : "issue";
    t.url = "https://github.com/" + repo + (t.kind == "pr" ? "/pull/" : "/issues/") + std::to_string(n);
    t.title = std::string(TruncateUtf8(sentence(), 80));
    t.author = pick(people);
    t.author_association = n % 40 == 0 ? "CONTRIBUTOR" : "MEMBER";
    bool busy_thread = n % 83 == 0;
    t.created = when(busy_thread && n % 2 == 0);
    t.updated = t.created;
    t.labels = {pick(labels)};
    if (n <= 100) t.labels.push_back("epic");
    if (n > 100 && n % 5 == 0) t.parent = repo + "#" + std::to_string(1 + rng() % 100);
    if (busy_thread) {
      std::string at = when(true);
      if (t.kind == "pr") t.merged = t.closed = at, t.state = "merged";
      else t.closed = at, t.state = "closed";
    } else {
      t.state = rng() % 3 ? "closed" : "open";
      if (t.state == "closed") t.closed = when(false);
    }
    UMWELT_RETURN_IF_ERROR(batch->PutThread(t));
    if (!t.parent.empty()) UMWELT_RETURN_IF_ERROR(batch->LinkChildThread("github", t.parent, t.ref));
  }
  for (int c = 1; c <= 20; ++c) {
    Thread t;
    t.ref = "discord:1/" + std::to_string(c);
    t.source = "discord";
    t.kind = "text";
    t.title = c == 20 ? "#introductions" : "#channel-" + std::to_string(c);
    t.url = "https://discord.com/channels/1/" + std::to_string(c);
    UMWELT_RETURN_IF_ERROR(batch->PutThread(t));
  }
  for (int i = 0; i < kChunks; ++i) {
    bool in_busy = i < kBusy;
    Chunk ch;
    ch.date = when(in_busy);
    ch.author = pick(people);
    int r = static_cast<int>(rng() % 100);
    std::string text = sentence() + " " + sentence();
    if (rng() % 3 == 0) text += " See #" + std::to_string(1 + rng() % kThreads) + ".";
    if (rng() % 50 == 0) text += " Paper: https://arxiv.org/abs/24" + std::to_string(1000 + rng() % 9000) + ".01234";
    if (r < 62) {
      int n = 1 + static_cast<int>(rng() % kThreads);
      ch.source = "github";
      ch.kind = "comment";
      ch.parent = repo + "#" + std::to_string(n);
      ch.ref = ch.parent + "/c" + std::to_string(i);
      ch.url = "https://github.com/" + repo + "/issues/" + std::to_string(n) + "#issuecomment-" + std::to_string(i);
    } else if (r < 84) {
      int c = 1 + static_cast<int>(rng() % 20);
      ch.source = "discord";
      ch.kind = "message";
      ch.parent = "discord:1/" + std::to_string(c);
      ch.ref = ch.parent + "/" + std::to_string(100000 + i);
      ch.url = "https://discord.com/channels/1/" + std::to_string(c) + "/" + std::to_string(100000 + i);
      if (rng() % 10 == 0) text += "\nReactions: 🔥 " + std::to_string(1 + rng() % 9);
    } else if (r < 96) {
      ch.source = "git";
      ch.kind = "commit";
      ch.ref = repo + "/commit/" + std::to_string(i);
      ch.parent = ch.ref;
      ch.url = "https://github.com/" + repo + "/commit/" + std::to_string(i);
    } else {
      ch.source = "wandb";
      ch.kind = "run";
      ch.ref = ch.parent = "wandb:acme/big/run-" + std::to_string(i);
      ch.url = "https://wandb.ai/acme/big/runs/run-" + std::to_string(i);
      text = "Run run-" + std::to_string(i) + ", finished\nSummary: loss " + std::to_string(2 + rng() % 100 / 100.0);
      Thread t;
      t.ref = ch.ref;
      t.source = "wandb";
      t.kind = "run";
      t.state = "finished";
      t.title = "run-" + std::to_string(i);
      t.url = ch.url;
      t.created = t.updated = ch.date;
      UMWELT_RETURN_IF_ERROR(batch->PutThread(t));
    }
    ch.title = "t";
    ch.text = text;
    UMWELT_ASSIGN_OR_RETURN(bool changed, batch->PutRecord({ch}));
    (void)changed;
    UMWELT_RETURN_IF_ERROR(batch->PutLinks(ch.ref, FindLinks(ch.ref, text, repo, ch.parent)));
  }
  return batch->Commit();
}

}  // namespace

int main(int argc, char** argv) {
  std::string work = "/tmp/umwelt-bench", data = UMWELT_SOURCE_DIR "/../shared/data";
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--work") work = argv[++i];
    if (std::string(argv[i]) == "--data") data = argv[++i];
  }
  std::filesystem::create_directories(work);
  std::string db = work + "/digest-221146.db";
  if (!std::filesystem::exists(db)) {
    auto t = Clock::now();
    bench::TextPool pool = bench::LoadTextPool(data);
    Status s = Build(db + ".tmp", pool);
    if (!s.ok()) {
      std::fprintf(stderr, "build: %s\n", s.message().c_str());
      return 1;
    }
    std::filesystem::rename(db + ".tmp", db);
    std::printf("built %s in %.1f s\n", db.c_str(), Since(t));
  }
  int64_t now = *ParseIsoTime("2025-01-06T00:00:00Z");
  for (const char* week : {kBusyWeek, "2024-03-04"}) {
    std::vector<double> times;
    Digest last;
    for (int pass = 0; pass < 5; ++pass) {
      DigestOptions o;
      o.corpus_path = db;
      o.period = *WeekOf(week);
      o.now = now;
      auto t = Clock::now();
      auto d = BuildDigest(o);
      times.push_back(Since(t));
      if (!d.ok()) {
        std::fprintf(stderr, "digest: %s\n", d.status().message().c_str());
        return 1;
      }
      last = std::move(*d);
    }
    auto corpus = Corpus::Open(db, Corpus::Mode::kReadOnly);
    std::string site = work + "/digest-site";
    auto t = Clock::now();
    auto page = WriteDigestSite(last, {site, "", now}, corpus->get());
    double site_s = Since(t);
    auto check = CheckDigest(last, **corpus);
    std::printf("extractive %s: %d chunks in the week, %zu sections, p50 %.3f s (min %.3f); site %.3f s%s; "
                "links %d bad %zu, coverage %d/%d\n",
                week, last.stats.chunks, last.sections.size(), Median(times), *std::min_element(times.begin(), times.end()),
                site_s, page.ok() ? "" : (" FAILED: " + page.status().message()).c_str(), check->links,
                check->bad_links.size(), check->covered, check->notable);
  }

  // The LLM path against an instant local server.
  httplib::Server server;
  server.Post("/v1/chat/completions", [](const httplib::Request& req, httplib::Response& res) {
    json body = json::parse(req.body);
    std::string system = body["messages"][0]["content"], user = body["messages"].back()["content"];
    std::string content;
    if (system.find("one section") != std::string::npos) {
      umwelt::Groups m;
      static const umwelt::Pattern url(R"re(url="([^"]+)")re");
      std::string first = url.Search(user, &m) ? std::string(m[1]) : "";
      content = json{{"heading", "Work"}, {"body", "Work moved ([source](" + first + "))."}}.dump();
    } else if (system.find("bullets") != std::string::npos) {
      int n = 0;
      for (size_t p = 0; (p = user.find("Section ", p)) != std::string::npos; ++p) ++n;
      content = json{{"bullets", json(std::vector<std::string>(n, "Work moved"))}}.dump();
    } else {
      content = json{{"xs", "A busy week."}}.dump();
    }
    res.set_content(json{{"choices", json::array({{{"message", {{"role", "assistant"}, {"content", content}}}}})},
                         {"usage", {{"prompt_tokens", req.body.size() / 4}, {"completion_tokens", content.size() / 4}}}}
                        .dump(),
                    "application/json");
  });
  int port = server.bind_to_any_port("127.0.0.1");
  std::thread th([&] { server.listen_after_bind(); });
  while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::string cache = work + "/digest-llm-cache";
  std::filesystem::remove_all(cache);
  for (int pass = 0; pass < 2; ++pass) {
    LlmOptions lo;
    lo.spec = "openai:http://127.0.0.1:" + std::to_string(port) + "/v1#bench";
    lo.cache_dir = cache;
    auto llm = ChatModel::Open(lo);
    DigestOptions o;
    o.corpus_path = db;
    o.period = *WeekOf(kBusyWeek);
    o.now = now;
    o.llm = llm->get();
    auto t = Clock::now();
    auto d = BuildDigest(o);
    double s = Since(t);
    if (!d.ok()) {
      std::fprintf(stderr, "llm digest: %s\n", d.status().message().c_str());
      return 1;
    }
    LlmUsage u = (*llm)->usage();
    std::printf("llm %s: %zu sections, %d calls (%d from the cache, %d sent), %lld input tokens, %.3f s\n",
                pass == 0 ? "first run" : "rerun", d->sections.size(), u.calls, u.cache_hits, u.calls - u.cache_hits,
                static_cast<long long>(u.input_tokens), s);
  }
  server.stop();
  th.join();
  return 0;
}
