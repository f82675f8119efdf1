// Freshness benchmark (issue: fresh within seconds). Builds a corpus of N
// chunks from real text (keyword index and the builtin vector space), serves
// it with `umwelt serve --github-webhook-secret-file`, and measures:
//   - idle search latency (p50/p99, hybrid, one client);
//   - event -> searchable: signed `issues` deliveries sent one at a time,
//     1.2 s apart (isolated events, outside the server's batch gap), each
//     timed from the POST to a keyword search finding its unique word (the
//     delivery is applied only once the vector space has it too);
//   - a Discord message -> searchable: the server also follows a scripted
//     gateway on loopback (`--discord-follow`, tests/discord_gateway_fake.h);
//     MESSAGE_CREATE events sent one at a time, 1.2 s apart, each timed
//     from the frame's send to a keyword search finding its unique word;
//   - a sustained burst at --rate deliveries a minute: how many were
//     refused, search p99 during it (a client searching all along) against
//     idle, and when the last delivery became searchable.
//
//   freshness_bench [--chunks 20000] [--singles 30] [--discord-singles 20] [--burst 300] [--rate 1000]
//                   [--data ../shared/data] [--dir /tmp/umwelt-fresh] [--umwelt build/src/cli/umwelt]
#include <httplib.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "discord_gateway_fake.h"
#include "text_pool.h"
#include "umwelt/corpus.h"
#include "umwelt/file.h"
#include "umwelt/http.h"
#include "umwelt/text.h"

namespace {

using Clock = std::chrono::steady_clock;
using json = nlohmann::json;

double Ms(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5))];
}

struct Args {
  size_t chunks = 20000;
  int singles = 30, discord_singles = 20, burst = 300, rate = 1000;
  std::string data = UMWELT_SOURCE_DIR "/../shared/data";
  std::string dir = "/tmp/umwelt-fresh";
  std::string umwelt = UMWELT_BINARY;
};

const char* kSecret = "freshness-bench-secret";
const char* kDiscordToken = "freshness-bench-discord-token";
const char* kQueries[] = {"checkpoint", "learning rate", "data loader", "memory usage", "tokenizer",
                          "loss spike",  "throughput",    "evaluation",  "optimizer",    "gradient"};

// `n` comment chunks in threads of ten, real sentences, one repository.
umwelt::Status Generate(umwelt::Corpus& corpus, const umwelt::bench::TextPool& pool, size_t n) {
  std::mt19937_64 rng(20261203);
  auto batch = corpus.BeginWrite();
  if (!batch.ok()) return batch.status();
  for (size_t i = 0; i < n; ++i) {
    umwelt::Chunk c;
    c.source = "github";
    c.kind = "comment";
    c.parent = "acme/fresh#" + std::to_string(i / 10 + 1);
    c.ref = c.parent + "/c" + std::to_string(i + 1);
    c.title = pool.sentences[(i / 10) % pool.sentences.size()].substr(0, 80);
    c.date = umwelt::FormatIsoTime(1700000000 + static_cast<int64_t>(i) * 60);
    c.url = "https://github.com/acme/fresh/issues/" + std::to_string(i / 10 + 1) + "#issuecomment-" + std::to_string(i + 1);
    for (int s = 0; s < 1 + static_cast<int>(rng() % 4); ++s) c.text += pool.sentences[rng() % pool.sentences.size()] + " ";
    auto put = (*batch)->PutRecord(umwelt::SplitIntoParts(c));
    if (!put.ok()) return put.status();
  }
  umwelt::SyncState st;
  st.source = "github:acme/fresh";
  UMWELT_RETURN_IF_ERROR((*batch)->PutSyncState(st));
  return (*batch)->Commit();
}

std::string Delivery(int number, const std::string& word) {
  std::string n = std::to_string(number);
  json issue = {{"url", "https://api.github.com/repos/acme/fresh/issues/" + n},
                {"html_url", "https://github.com/acme/fresh/issues/" + n},
                {"number", number},
                {"title", "Fresh report " + n},
                {"user", {{"login", "bench"}}},
                {"state", "open"},
                {"created_at", "2026-12-03T09:00:00Z"},
                {"updated_at", "2026-12-03T09:00:00Z"},
                {"body", "The " + word + " run stalls after the checkpoint is written."}};
  json p = {{"action", "opened"},
            {"issue", issue},
            {"repository", {{"full_name", "acme/fresh"}, {"html_url", "https://github.com/acme/fresh"}}}};
  return p.dump();
}

// A word no other delivery or chunk shares: letters only, since search
// splits letters from digits ("word12" would find "word13").
std::string UniqueWord(int n) {
  std::string w = "zq";
  for (int i = 0; i < 5; ++i, n /= 26) w += static_cast<char>('a' + n % 26);
  return w + "xv";
}

int Post(httplib::Client& c, const std::string& id, const std::string& body) {
  httplib::Headers h = {{"X-GitHub-Event", "issues"},
                        {"X-GitHub-Delivery", id},
                        {"X-Hub-Signature-256", "sha256=" + umwelt::HmacSha256Hex(kSecret, body)}};
  auto r = c.Post("/hooks/github", h, body, "application/json");
  return r ? r->status : 0;
}

// Whether a keyword search has a hit for `word` (the answer echoes the
// query, so its hits are counted, not its text searched).
bool Finds(httplib::Client& c, const std::string& word) {
  auto r = c.Get("/api/search?fts_only=1&q=" + word);
  if (!r || r->status != 200) return false;
  json j = json::parse(r->body, nullptr, false);
  return j.is_object() && j["hits"].is_array() && !j["hits"].empty();
}

// One hybrid search's latency in ms (-1 when it failed).
double SearchMs(httplib::Client& c, int i) {
  auto t0 = Clock::now();
  auto r = c.Get(std::string("/api/search?k=20&q=") + umwelt::UrlEncode(kQueries[i % 10]));
  return r && r->status == 200 ? Ms(t0, Clock::now()) : -1;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--chunks") a.chunks = std::stoul(v);
    else if (k == "--singles") a.singles = std::stoi(v);
    else if (k == "--discord-singles") a.discord_singles = std::stoi(v);
    else if (k == "--burst") a.burst = std::stoi(v);
    else if (k == "--rate") a.rate = std::stoi(v);
    else if (k == "--data") a.data = v;
    else if (k == "--dir") a.dir = v;
    else if (k == "--umwelt") a.umwelt = v;
    else {
      std::fprintf(stderr, "freshness_bench: unknown option %s\n", k.c_str());
      return 2;
    }
  }
  std::filesystem::remove_all(a.dir);
  std::filesystem::create_directories(a.dir);
  std::string db = a.dir + "/fresh.db";
  auto pool = umwelt::bench::LoadTextPool(a.data);
  if (pool.sentences.empty()) {
    std::fprintf(stderr, "freshness_bench: no text under %s\n", a.data.c_str());
    return 1;
  }
  {
    auto corpus = umwelt::Corpus::Open(db, umwelt::Corpus::Mode::kReadWrite);
    if (!corpus.ok() || !Generate(**corpus, pool, a.chunks).ok()) {
      std::fprintf(stderr, "freshness_bench: cannot build the corpus\n");
      return 1;
    }
  }
  auto t_index = Clock::now();
  std::string index = a.umwelt + " --corpus " + db + " -q index >/dev/null 2>&1";
  if (std::system(index.c_str()) != 0) return 1;
  std::printf("corpus: %zu chunks, keyword index and builtin vectors in %.1f s\n", a.chunks, Ms(t_index, Clock::now()) / 1000);

  std::string secret_file = a.dir + "/secret";
  if (!umwelt::WriteFileAtomic(secret_file, kSecret).ok()) return 1;
  ::chmod(secret_file.c_str(), 0600);
  std::string log = a.dir + "/serve.log";
  // A Discord guild on loopback for the server to follow: one channel.
  const json channels = json::array({{{"id", "200"}, {"type", 0}, {"guild_id", "100"}, {"name", "general"}}});
  umwelt::testing::FakeGateway gateway(kDiscordToken, "100", channels);
  gateway.set_heartbeat_ms(41250);  // Discord's own interval
  umwelt::testing::FakeDiscordRest rest(kDiscordToken, "100", channels, gateway);
  std::fflush(stdout);
  pid_t pid = ::fork();
  if (pid == 0) {
    std::freopen(log.c_str(), "w", stderr);
    std::freopen("/dev/null", "w", stdout);
    ::setenv("DISCORD_TOKEN", kDiscordToken, 1);
    ::execl(a.umwelt.c_str(), "umwelt", "--corpus", db.c_str(), "serve", "--port", "0", "--github-webhook-secret-file",
            secret_file.c_str(), "--discord-follow", "100", "--discord-api-base", rest.base().c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int port = 0;
  for (int i = 0; i < 400 && !port; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::ifstream in(log);
    std::string line;
    while (std::getline(in, line)) {
      if (size_t at = line.find("listening on "); at != std::string::npos) port = std::stoi(line.substr(line.rfind(':') + 1));
    }
  }
  if (!port) {
    std::fprintf(stderr, "freshness_bench: the server did not start (%s)\n", log.c_str());
    ::kill(pid, SIGKILL);
    return 1;
  }
  httplib::Client client("127.0.0.1", port), searcher("127.0.0.1", port);
  client.set_read_timeout(60, 0);
  searcher.set_read_timeout(60, 0);

  // Idle search latency.
  std::vector<double> idle;
  for (int i = 0; i < 200; ++i) {
    if (double ms = SearchMs(searcher, i); ms >= 0) idle.push_back(ms);
  }
  std::printf("idle hybrid search: p50 %.1f ms, p99 %.1f ms (%zu searches)\n", Percentile(idle, 0.5),
              Percentile(idle, 0.99), idle.size());

  // One delivery at a time: POST -> searchable.
  std::vector<double> lag;
  int number = 100000;
  for (int i = 0; i < a.singles; ++i, ++number) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1200));  // an event on its own
    std::string word = UniqueWord(number);
    auto t0 = Clock::now();
    if (Post(client, "s-" + std::to_string(number), Delivery(number, word)) != 202) {
      std::fprintf(stderr, "freshness_bench: a delivery was refused\n");
      continue;
    }
    while (!Finds(client, word) && Ms(t0, Clock::now()) < 60000) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    lag.push_back(Ms(t0, Clock::now()));
  }
  std::printf("event -> searchable, one at a time: p50 %.0f ms, p95 %.0f ms, max %.0f ms (%zu deliveries)\n",
              Percentile(lag, 0.5), Percentile(lag, 0.95), Percentile(lag, 1.0), lag.size());

  // One Discord message at a time: the gateway's frame -> searchable.
  if (a.discord_singles > 0) {
    // The first session's catch-up (an incremental REST sync) comes first.
    bool ready = umwelt::testing::FakeGateway::WaitUntil(
        [&] {
          auto st = client.Get("/api/status");
          json d = st ? json::parse(st->body, nullptr, false)["hooks"]["discord"] : json();
          return d.is_object() && d.value("applied", 0) >= 1;
        },
        120);
    if (!ready) {
      std::fprintf(stderr, "freshness_bench: the server did not follow the gateway (%s)\n", log.c_str());
    } else {
      std::vector<double> discord_lag;
      const uint64_t first_id = (uint64_t{1763632800000} - 1420070400000) << 22;
      for (int i = 0; i < a.discord_singles; ++i, ++number) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1200));
        std::string word = UniqueWord(number);
        auto t0 = Clock::now();
        gateway.Dispatch("MESSAGE_CREATE", umwelt::testing::FakeGateway::Message(std::to_string(first_id + i), "100",
                                                                                 "200", "the run " + word + " diverged"));
        while (!Finds(client, word) && Ms(t0, Clock::now()) < 60000) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        discord_lag.push_back(Ms(t0, Clock::now()));
      }
      std::printf("discord message -> searchable, one at a time: p50 %.0f ms, p95 %.0f ms, max %.0f ms (%zu messages)\n",
                  Percentile(discord_lag, 0.5), Percentile(discord_lag, 0.95), Percentile(discord_lag, 1.0),
                  discord_lag.size());
    }
  }

  // A sustained burst while a client searches.
  std::atomic<bool> burst_done{false};
  std::vector<double> during;
  int failed_searches = 0;
  std::thread load([&] {
    for (int i = 0; !burst_done; ++i) {
      double ms = SearchMs(searcher, i);
      if (ms < 0) ++failed_searches;
      else during.push_back(ms);
    }
  });
  int refused = 0;
  const double gap_ms = 60000.0 / a.rate;
  auto t_burst = Clock::now();
  std::string last_word;
  for (int i = 0; i < a.burst; ++i, ++number) {
    auto due = t_burst + std::chrono::microseconds(static_cast<int64_t>(i * gap_ms * 1000));
    std::this_thread::sleep_until(due);
    last_word = UniqueWord(number);
    if (Post(client, "b-" + std::to_string(number), Delivery(number, last_word)) != 202) ++refused;
  }
  double sent_s = Ms(t_burst, Clock::now()) / 1000;
  while (!Finds(client, last_word) && Ms(t_burst, Clock::now()) < 600000) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  double all_s = Ms(t_burst, Clock::now()) / 1000;
  burst_done = true;
  load.join();
  auto status = client.Get("/api/status");
  json hooks = status ? json::parse(status->body, nullptr, false)["hooks"]["github"] : json();
  std::printf("burst: %d deliveries at %d/min sent in %.1f s, %d refused; the last searchable %.1f s after the first was sent\n",
              a.burst, a.rate, sent_s, refused, all_s);
  std::printf("search during the burst: p50 %.1f ms, p99 %.1f ms (%zu searches, %d failed); p99 %.2fx idle\n",
              Percentile(during, 0.5), Percentile(during, 0.99), during.size(), failed_searches,
              Percentile(during, 0.99) / std::max(0.001, Percentile(idle, 0.99)));
  std::printf("status: %s\n", hooks.dump().c_str());
  ::kill(pid, SIGTERM);
  ::waitpid(pid, nullptr, 0);
  return 0;
}
