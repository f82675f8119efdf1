// Keyword search benchmark (issue: Foundation). Builds a corpus of N chunks
// from real text, then reports import rate, FTS5 and keyword-index build
// times, database size, in-process query latency (ours and FTS5's bm25()),
// whole-process `umwelt search --json` time, and peak RSS.
//
//   keyword_bench [--chunks 221146] [--data ../shared/data] [--dir /tmp/umwelt-bench]
//                 [--umwelt build/src/cli/umwelt] [--reuse] [--import-only]
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "text_pool.h"
#include "umwelt/corpus.h"
#include "umwelt/search.h"
#include "umwelt/text.h"

namespace {

using Clock = std::chrono::steady_clock;
double Ms(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// Fifty queries of the kinds people type: subsystem names, numbers, identifiers.
const char* kQueries[] = {
    "fsdp checkpoint",        "float8 training",          "tensor parallel",        "pipeline schedule",
    "activation checkpointing", "learning rate warmup",   "MoE router load balance", "torch compile",
    "loss spike",             "data loader",              "tokenizer",              "gradient accumulation",
    "boundary layer",         "heat transfer",            "supersonic flow",        "information retrieval",
    "library catalog",        "citation analysis",        "mixed precision bf16",   "memory usage",
    "throughput regression",  "evaluation harness",       "discord bot",            "welcome",
    "flash attention",        "rotary embedding",         "weight decay",           "optimizer state",
    "distributed checkpoint", "async checkpointing",      "context parallel",       "expert parallel",
    "llama3 8b",              "h100",                     "mxfp8",                  "nccl timeout",
    "fix typo",               "readme",                   "unit test failure",      "ci",
    "training config",        "seed",                     "profiler trace",         "garbage collection",
    "gradient norm clipping", "sharding spec",            "jax pjit",               "haliax named axes",
    "scaling law",            "float8Linear",
};

struct Args {
  size_t chunks = 221146;
  std::string data = UMWELT_SOURCE_DIR "/../shared/data";
  std::string dir = "/tmp/umwelt-bench";
  std::string umwelt = UMWELT_BINARY;
  bool reuse = false;
  bool import_only = false;  // stop after the import (the scale run times the rest by itself)
};

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  size_t i = std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5));
  return v[i];
}

long PeakRssMb(int who) {
  struct rusage ru;
  getrusage(who, &ru);
  return ru.ru_maxrss / 1024;
}

// Generates `n` chunks deterministically: mostly short comments and messages,
// some medium comments, a few long bodies split into parts.
umwelt::Status Generate(umwelt::Corpus& corpus, const umwelt::bench::TextPool& pool, size_t n) {
  std::mt19937_64 rng(20261130);
  auto pick = [&](const std::vector<std::string>& v) -> const std::string& { return v[rng() % v.size()]; };
  static const char* kinds[] = {"comment", "comment", "comment", "message", "message", "review-comment", "issue", "pr", "commit"};
  size_t made = 0, record = 0;
  const int64_t t0 = 1672531200;  // 2023-01-01
  while (made < n) {
    auto batch = corpus.BeginWrite();
    if (!batch.ok()) return batch.status();
    for (int i = 0; i < 10000 && made < n; ++i, ++record) {
      umwelt::Chunk c;
      const char* kind = kinds[rng() % 9];
      c.kind = kind;
      c.source = c.kind == "message" ? "discord" : c.kind == "commit" ? "code" : "github";
      size_t thread = record / 7;
      c.parent = "bench/repo#" + std::to_string(thread);
      c.ref = c.parent + "/" + std::to_string(record);
      c.title = pool.sentences[(thread * 2654435761u) % pool.sentences.size()].substr(0, 80);
      c.author = "user" + std::to_string(rng() % 300);
      c.date = umwelt::FormatIsoTime(t0 + static_cast<int64_t>(rng() % (2 * 365 * 86400)));
      c.url = "https://github.com/bench/repo/issues/" + std::to_string(thread) + "#c" + std::to_string(record);
      int r = static_cast<int>(rng() % 100);
      if (c.kind == "issue" || c.kind == "pr" || r < 3) {
        int paras = 2 + static_cast<int>(rng() % (r < 3 ? 12 : 4));
        for (int p = 0; p < paras; ++p) c.text += pick(pool.paragraphs) + "\n\n";
      } else {
        int sentences = c.kind == "message" ? 1 + static_cast<int>(rng() % 2) : 1 + static_cast<int>(rng() % (r < 30 ? 8 : 3));
        for (int s = 0; s < sentences; ++s) c.text += pick(pool.sentences) + " ";
      }
      auto parts = umwelt::SplitIntoParts(c);
      if (made + parts.size() > n) parts.resize(n - made);
      auto put = (*batch)->PutRecord(parts);
      if (!put.ok()) return put.status();
      made += parts.size();
    }
    UMWELT_RETURN_IF_ERROR((*batch)->Commit());
  }
  return umwelt::Status::Ok();
}

// Runs `umwelt --corpus db search --json q -k 50` and returns its wall time.
double TimeProcess(const Args& a, const std::string& db, const std::string& q) {
  // posix_spawn, not fork: a forked child would be charged the bench's own
  // resident pages in RUSAGE_CHILDREN before it execs.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  std::vector<std::string> args = {"umwelt", "--corpus", db, "search", "--json", "-k", "50", q};
  std::vector<char*> argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  auto start = Clock::now();
  pid_t pid;
  if (posix_spawn(&pid, a.umwelt.c_str(), &actions, nullptr, argv.data(), environ) != 0) return -1;
  int st;
  waitpid(pid, &st, 0);
  double ms = Ms(start, Clock::now());
  posix_spawn_file_actions_destroy(&actions);
  return ms;
}

// A fresh corpus of `a.chunks` chunks at `db`, generated from the text pool;
// `import_ms`: how long the import took.
umwelt::Status MakeCorpus(const Args& a, const std::string& db, double* import_ms) {
  for (const char* ext : {"", "-wal", "-shm", ".kwidx"}) std::filesystem::remove(db + ext);
  auto pool = umwelt::bench::LoadTextPool(a.data);
  if (pool.sentences.empty()) return umwelt::Status::NotFound("no text under " + a.data + " (is ../shared/data there?)");
  std::fprintf(stderr, "text pool: %zu sentences, %zu paragraphs\n", pool.sentences.size(), pool.paragraphs.size());
  auto corpus = umwelt::Corpus::Open(db, umwelt::Corpus::Mode::kReadWrite);
  if (!corpus.ok()) return corpus.status();
  auto t = Clock::now();
  UMWELT_RETURN_IF_ERROR(Generate(**corpus, pool, a.chunks));
  *import_ms = Ms(t, Clock::now());
  return umwelt::Status::Ok();
}

// In-process latencies (ms) of each stage and of FTS5, per query.
struct Latencies {
  std::vector<double> ours, ours_rank, ours_plain, ours_prf, fts;
  // Ranking alone, pruned (MaxScore) and exhaustive, at k = 50 and k = 10.
  std::vector<double> rank50, full50, rank10, full10;
};

// Warm: one pass to warm up, then three measured passes of every query.
umwelt::Status MeasureInProcess(umwelt::Corpus& corpus, const umwelt::KeywordIndex& index, Latencies* l) {
  sqlite3* raw = corpus.raw_handle();
  for (int pass = 0; pass < 4; ++pass) {
    for (const char* q : kQueries) {
      umwelt::SearchOptions o;
      o.query = q;
      o.k = 50;
      auto t1 = Clock::now();
      auto hits = umwelt::Search(corpus, index, o);
      auto t2 = Clock::now();
      auto ranked = index.Rank(o, 50);
      auto t3 = Clock::now();
      auto r0 = Clock::now();
      auto full50 = index.RankExhaustive(o, 50);
      auto r1 = Clock::now();
      auto rank10 = index.Rank(o, 10);
      auto r2 = Clock::now();
      auto full10 = index.RankExhaustive(o, 10);
      auto r3 = Clock::now();
      if (!ranked.ok() || !full50.ok() || !rank10.ok() || !full10.ok()) return umwelt::Status::Io(std::string(q) + ": rank failed");
      // The keyword leg without and with pseudo-relevance feedback, whatever
      // the default is: what the feedback stage costs.
      umwelt::SearchOptions plain = o, prf = o;
      plain.tuning.prf_docs = 0;
      prf.tuning.prf_docs = umwelt::kFeedbackDocs;
      auto t3a = Clock::now();
      auto plain_hits = umwelt::Search(corpus, index, plain);
      auto t3b = Clock::now();
      auto prf_hits = umwelt::Search(corpus, index, prf);
      auto t3c = Clock::now();
      if (!plain_hits.ok() || !prf_hits.ok()) return umwelt::Status::Io(std::string(q) + ": search failed");
      if (!hits.ok()) return hits.status();
      // FTS5's own ranking: an OR of the query's words, top 200 by bm25().
      std::string match;
      for (const auto& w : umwelt::Tokenize(q)) match += (match.empty() ? "\"" : " OR \"") + w + "\"";
      sqlite3_stmt* st;
      sqlite3_prepare_v2(raw, "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?1 ORDER BY bm25(chunks_fts) LIMIT 200",
                         -1, &st, nullptr);
      sqlite3_bind_text(st, 1, match.c_str(), -1, SQLITE_TRANSIENT);
      auto t4 = Clock::now();
      while (sqlite3_step(st) == SQLITE_ROW) {
      }
      auto t5 = Clock::now();
      sqlite3_finalize(st);
      if (pass == 0) continue;
      l->ours.push_back(Ms(t1, t2));
      l->ours_rank.push_back(Ms(t2, t3));
      l->rank50.push_back(Ms(t2, t3));
      l->full50.push_back(Ms(r0, r1));
      l->rank10.push_back(Ms(r1, r2));
      l->full10.push_back(Ms(r2, r3));
      l->ours_plain.push_back(Ms(t3a, t3b));
      l->ours_prf.push_back(Ms(t3b, t3c));
      l->fts.push_back(Ms(t4, t5));
    }
  }
  return umwelt::Status::Ok();
}

// Pruned against exhaustive ranking on `n` random queries of one to six
// words drawn from the corpus's own sentences, at k = 10 and 50: how many
// agree exactly (documents, order, scores, tiers).
int Agreement(const umwelt::KeywordIndex& index, const umwelt::bench::TextPool& pool, int n) {
  std::mt19937_64 rng(33);
  int same = 0;
  for (int q = 0; q < n; ++q) {
    auto words = umwelt::Tokenize(pool.sentences[rng() % pool.sentences.size()]);
    if (words.empty()) {
      ++same;
      continue;
    }
    umwelt::SearchOptions o;
    size_t want = 1 + rng() % 6;
    for (size_t w = 0; w < want; ++w) o.query += words[rng() % words.size()] + " ";
    size_t k = q % 2 ? 10 : 50;
    auto a = index.Rank(o, k);
    auto b = index.RankExhaustive(o, k);
    bool eq = a.ok() && b.ok() && a->size() == b->size();
    for (size_t i = 0; eq && i < a->size(); ++i) {
      eq = (*a)[i].chunk_id == (*b)[i].chunk_id && (*a)[i].score == (*b)[i].score && (*a)[i].exact == (*b)[i].exact;
    }
    if (!eq) std::fprintf(stderr, "keyword_bench: pruned and exhaustive differ on `%s` (k=%zu)\n", o.query.c_str(), k);
    same += eq;
  }
  return same;
}

// `keyword_bench --rss-of BIN ARGS...`: runs BIN from this small process and
// prints its peak RSS in MB, free of the big bench process's pages.
int RssOf(int argc, char** argv) {
  pid_t pid = fork();
  if (pid == 0) {
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    execv(argv[2], argv + 3);  // argv[3] is the child's argv[0]
    _exit(127);
  }
  int st;
  struct rusage ru;
  wait4(pid, &st, 0, &ru);
  std::printf("%ld\n", ru.ru_maxrss / 1024);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 && std::string(argv[1]) == "--rss-of") return RssOf(argc, argv);
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (k == "--chunks") a.chunks = std::stoull(next());
    else if (k == "--data") a.data = next();
    else if (k == "--dir") a.dir = next();
    else if (k == "--umwelt") a.umwelt = next();
    else if (k == "--reuse") a.reuse = true;
    else if (k == "--import-only") a.import_only = true;
    else {
      std::fprintf(stderr, "usage: keyword_bench [--chunks N] [--data DIR] [--dir DIR] [--umwelt BIN] [--reuse]"
                           " [--import-only]\n");
      return 2;
    }
  }
  std::filesystem::create_directories(a.dir);
  std::string db = a.dir + "/bench-" + std::to_string(a.chunks) + ".db";
  double import_ms = 0;
  if (!a.reuse || !std::filesystem::exists(db)) {
    if (umwelt::Status gs = MakeCorpus(a, db, &import_ms); !gs.ok()) {
      return std::fprintf(stderr, "keyword_bench: %s\n", gs.message().c_str()), 1;
    }
  }
  long import_rss = PeakRssMb(RUSAGE_SELF);
  if (a.import_only) {
    std::printf("| import of %zu chunks (PutRecord, FTS5 indexed at each commit): time; peak RSS"
                " | %.1f s, %.0f chunks/s; %ld MB |\n",
                a.chunks, import_ms / 1000, a.chunks / (import_ms / 1000), import_rss);
    return 0;
  }
  auto corpus = umwelt::Corpus::Open(db, umwelt::Corpus::Mode::kReadWrite);
  if (!corpus.ok()) return std::fprintf(stderr, "%s\n", corpus.status().message().c_str()), 1;
  sqlite3* raw = (*corpus)->raw_handle();

  // FTS5 rebuild from scratch (what the import's triggers did incrementally).
  auto t = Clock::now();
  sqlite3_exec(raw, "INSERT INTO chunks_fts(chunks_fts) VALUES('rebuild')", nullptr, nullptr, nullptr);
  double fts_ms = Ms(t, Clock::now());

  std::string idx_path = umwelt::KeywordIndex::PathFor(**corpus);
  std::filesystem::remove(idx_path);
  t = Clock::now();
  auto built = umwelt::KeywordIndex::Open(**corpus);
  double kw_build_ms = Ms(t, Clock::now());
  if (!built.ok()) return std::fprintf(stderr, "%s\n", built.status().message().c_str()), 1;
  auto& index = **built;

  Latencies lat;
  if (umwelt::Status ls = MeasureInProcess(**corpus, index, &lat); !ls.ok()) {
    return std::fprintf(stderr, "%s\n", ls.message().c_str()), 1;
  }
  umwelt::bench::TextPool pool = umwelt::bench::LoadTextPool(a.data);
  int agree = Agreement(index, pool, 1000);
  // Whole process: the first run after the index is built, then warm runs.
  std::vector<double> proc;
  double cold = TimeProcess(a, db, kQueries[0]);
  for (int i = 0; i < 3; ++i) {
    for (const char* q : kQueries) proc.push_back(TimeProcess(a, db, q));
  }
  long child_rss = 0;
  for (const char* q : {kQueries[0], kQueries[4], kQueries[20]}) {
    std::string cmd = std::string("'") + argv[0] + "' --rss-of '" + a.umwelt + "' umwelt --corpus '" + db +
                      "' search --json -k 50 '" + q + "'";
    if (FILE* p = popen(cmd.c_str(), "r")) {
      long mb = 0;
      if (std::fscanf(p, "%ld", &mb) == 1) child_rss = std::max(child_rss, mb);
      pclose(p);
    }
  }
  struct stat st;
  ::stat(db.c_str(), &st);
  double db_mb = st.st_size / 1048576.0;
  ::stat(idx_path.c_str(), &st);
  double idx_mb = st.st_size / 1048576.0;

  std::printf("| measure (%zu chunks, %zu docs indexed) | value |\n|---|---|\n", a.chunks, index.num_docs());
  if (import_ms > 0) {
    std::printf("| import (PutRecord, FTS5 indexed at each commit) | %.1f s, %.0f chunks/s |\n", import_ms / 1000, a.chunks / (import_ms / 1000));
  }
  std::printf("| FTS5 rebuild from scratch | %.1f s |\n", fts_ms / 1000);
  std::printf("| keyword index build | %.1f s |\n", kw_build_ms / 1000);
  if (import_ms > 0) std::printf("| import + keyword index | %.1f s |\n", (import_ms + kw_build_ms) / 1000);
  std::printf("| corpus file / keyword index | %.0f MB / %.0f MB |\n", db_mb, idx_mb);
  std::printf("| keyword search, k=50, with rows and snippets: p50 / p95 | %.2f ms / %.2f ms |\n", Percentile(lat.ours, 0.5), Percentile(lat.ours, 0.95));
  std::printf("| keyword ranking only: p50 / p95 | %.2f ms / %.2f ms |\n", Percentile(lat.ours_rank, 0.5), Percentile(lat.ours_rank, 0.95));
  std::printf("| ranking k=50, pruned / exhaustive: p50 | %.3f ms / %.3f ms |\n", Percentile(lat.rank50, 0.5),
              Percentile(lat.full50, 0.5));
  std::printf("| ranking k=10, pruned / exhaustive: p50 | %.3f ms / %.3f ms |\n", Percentile(lat.rank10, 0.5),
              Percentile(lat.full10, 0.5));
  std::printf("| pruned = exhaustive on 1,000 random queries | %d / 1000 |\n", agree);
  std::printf("| keyword search without feedback: p50 / p95 | %.2f ms / %.2f ms |\n", Percentile(lat.ours_plain, 0.5),
              Percentile(lat.ours_plain, 0.95));
  std::printf("| keyword search with feedback (RM3): p50 / p95 | %.2f ms / %.2f ms |\n", Percentile(lat.ours_prf, 0.5),
              Percentile(lat.ours_prf, 0.95));
  std::printf("| FTS5 bm25() OR-query top 200: p50 / p95 | %.2f ms / %.2f ms |\n", Percentile(lat.fts, 0.5), Percentile(lat.fts, 0.95));
  std::printf("| whole process `umwelt search --json`: first / warm p50 / p95 | %.0f ms / %.0f ms / %.0f ms |\n", cold,
              Percentile(proc, 0.5), Percentile(proc, 0.95));
  std::printf("| peak RSS: bench (import+build) / `umwelt search` | %ld MB / %ld MB |\n", std::max(import_rss, PeakRssMb(RUSAGE_SELF)), child_rss);
  return 0;
}
