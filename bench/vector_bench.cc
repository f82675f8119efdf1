// Vector and hybrid search benchmark (issue: Hybrid search), on a corpus made
// by keyword_bench. Modes:
//   vector_bench builtin --corpus DB      train the builtin model, embed every
//                                         chunk, time hybrid search with it
//   vector_bench random --corpus DB [--dim 384]
//                                         store random unit vectors, time the
//                                         vector scan and hybrid search
//   vector_bench child --corpus DB --dim D  (internal) the random-space searches
//                                         in a fresh process, for peak RSS
//   vector_bench lists --corpus DB [--queries N]
//                                         lay the space out in inverted lists;
//                                         recall and time against the exact scan
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "index/ivf.h"
#include "umwelt/vector.h"

namespace {

using Clock = std::chrono::steady_clock;
double Ms(Clock::time_point a) { return std::chrono::duration<double, std::milli>(Clock::now() - a).count(); }

const char* kQueries[] = {"fsdp checkpoint", "float8 training", "tensor parallel", "loss spike", "data loader",
                          "tokenizer", "boundary layer", "heat transfer", "information retrieval", "library catalog",
                          "memory usage", "throughput regression", "flash attention", "rotary embedding",
                          "weight decay", "optimizer state", "distributed checkpoint", "context parallel", "h100",
                          "nccl timeout", "fix typo", "training config", "profiler trace", "gradient norm clipping",
                          "scaling law"};

double Pct(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5))];
}

// Random unit vectors: the timing stand-in for a real 384-d model.
class RandomEmbedder final : public umwelt::Embedder {
 public:
  RandomEmbedder(int dim, std::string model) : dim_(dim), model_(std::move(model)) {}
  std::string model() const override { return model_; }
  int dim() const override { return dim_; }
  umwelt::Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts) override {
    std::vector<std::vector<float>> out;
    for (size_t i = 0; i < texts.size(); ++i) {
      std::vector<float> v(dim_);
      for (auto& x : v) x = dist_(rng_);
      umwelt::Normalize(&v);
      out.push_back(std::move(v));
    }
    return out;
  }

 private:
  int dim_;
  std::string model_;
  std::mt19937 rng_{42};
  std::normal_distribution<float> dist_{0.0f, 1.0f};
};

int Fail(const umwelt::Status& s) {
  std::fprintf(stderr, "vector_bench: %s\n", s.message().c_str());
  return 1;
}

// Times HybridSearch (and the vector scan alone) over the fixed queries.
int TimeSearches(umwelt::Corpus& corpus, std::vector<umwelt::Space>& spaces, const char* label) {
  auto keyword = umwelt::KeywordIndex::Open(corpus);
  if (!keyword.ok()) return Fail(keyword.status());
  std::vector<double> hybrid, scan;
  for (int pass = 0; pass < 3; ++pass) {
    for (const char* q : kQueries) {
      umwelt::HybridOptions o;
      o.search.query = q;
      o.search.k = 50;
      auto t = Clock::now();
      auto r = umwelt::HybridSearch(corpus, **keyword, spaces, o);
      double ms = Ms(t);
      if (!r.ok()) return Fail(r.status());
      auto qv = spaces[0].embedder->Embed({q});
      auto t2 = Clock::now();
      auto near = spaces[0].index->Nearest((*qv)[0], nullptr, 100, false);
      double scan_ms = Ms(t2);
      if (pass == 0) continue;  // warm-up
      hybrid.push_back(ms);
      scan.push_back(scan_ms);
    }
  }
  std::printf("| %s: hybrid search k=50 (keyword + vectors, fused, rows): p50 / p95 | %.1f / %.1f ms |\n", label,
              Pct(hybrid, 0.5), Pct(hybrid, 0.95));
  std::printf("| %s: vector scan alone, top 100: p50 / p95 | %.1f / %.1f ms |\n", label, Pct(scan, 0.5), Pct(scan, 0.95));
  return 0;
}

// What every mode reads from the command line.
struct BenchArgs {
  std::string self;  // this program, to run itself as a child
  std::string db;
  int dim = 384;
  std::string model;
  int queries = 100;
};

// Trains the builtin space, embeds every chunk, then times searches.
int Builtin(umwelt::Corpus& c, const BenchArgs&) {
  auto t = Clock::now();
  umwelt::IndexOptions o;
  o.retrain = true;
  umwelt::IndexReport report;
  umwelt::Status s = umwelt::IndexSpaces(c, {{"prose", "builtin"}}, o, &report);
  if (!s.ok()) return Fail(s);
  double index_s = Ms(t) / 1000;
  auto vt = Clock::now();
  auto v = umwelt::VectorIndex::Open(c, "prose");
  if (!v.ok()) return Fail(v.status());
  std::printf("| builtin (%s): train + embed %lld chunks + vector file | %.1f s (+ %.1f s) |\n",
              report.spaces[0].model.c_str(), static_cast<long long>(report.spaces[0].embedded), index_s,
              Ms(vt) / 1000);
  std::vector<std::string> notes;
  auto spaces = umwelt::LoadSpaces(c, {}, &notes);
  if (!spaces.ok()) return Fail(spaces.status());
  return TimeSearches(c, *spaces, "builtin 100-d");
}

// Times searches on an already indexed corpus.
int SearchOnly(umwelt::Corpus& c, const BenchArgs&) {
  std::vector<std::string> notes;
  auto spaces = umwelt::LoadSpaces(c, {}, &notes);
  if (!spaces.ok()) return Fail(spaces.status());
  if (spaces->empty()) return Fail(umwelt::Status::NotFound("no usable space (run builtin first)"));
  return TimeSearches(c, *spaces, "builtin 100-d");
}

// The prose space's vectors, read from the corpus, and the exact answer.
struct SpaceRows {
  std::vector<int64_t> ids;
  std::vector<float> rows;
  int d = 0;

  umwelt::Status Read(umwelt::Corpus& c) {
    return c.ForEachVector("prose", [&](int64_t id, const float* v, int n) {
      d = n;
      ids.push_back(id);
      rows.insert(rows.end(), v, v + n);
    });
  }
  // The ids of the `k` rows nearest `x` by an exact float32 scan, best first.
  std::vector<int64_t> Top(const std::vector<float>& x, size_t k) const {
    std::vector<std::pair<float, int64_t>> exact;
    for (size_t i = 0; i < ids.size(); ++i) {
      float dot = 0;
      for (int j = 0; j < d; ++j) dot += x[j] * rows[i * d + j];
      exact.emplace_back(dot, ids[i]);
    }
    k = std::min(k, exact.size());
    std::partial_sort(exact.begin(), exact.begin() + static_cast<long>(k), exact.end(), std::greater<>());
    std::vector<int64_t> top;
    for (size_t i = 0; i < k; ++i) top.push_back(exact[i].second);
    return top;
  }
};

// Recall@50 of the 4-bit scan + float rescoring against an exact float32 scan.
int Recall(umwelt::Corpus& c, const BenchArgs&) {
  SpaceRows space;
  if (umwelt::Status s = space.Read(c); !s.ok()) return Fail(s);
  const int d = space.d;
  auto v = umwelt::VectorIndex::Open(c, "prose");
  if (!v.ok()) return Fail(v.status());
  RandomEmbedder gen(d, "q");
  double total = 0;
  const int kQueriesN = 25, kK = 50;
  for (int q = 0; q < kQueriesN; ++q) {
    auto qv = gen.Embed({"x"});
    const std::vector<float>& x = (*qv)[0];
    const std::vector<int64_t> top = space.Top(x, kK);
    auto near = (*v)->Nearest(x, nullptr, kK, false);
    if (!near.ok()) return Fail(near.status());
    const std::set<int64_t> truth(top.begin(), top.end());
    int found = 0;
    for (const auto& n : *near) found += truth.count(n.chunk_id);
    total += static_cast<double>(found) / kK;
  }
  std::printf("| %d-d: recall@50 of the 4-bit scan + float rescoring against an exact float32 scan | %.4f |\n", d,
              total / kQueriesN);
  return 0;
}

// Stores random vectors of --dim dimensions, then times searches in a child.
int Random(umwelt::Corpus& c, const BenchArgs& a) {
  auto t = Clock::now();
  {
    auto b = c.BeginWrite();
    if (!b.ok()) return Fail(b.status());
    if (!(*b)->ClearSpace("prose").ok() ||
        !(*b)->PutMeta("spaces", "{\"prose\":{\"model\":\"" + a.model + "\",\"dim\":" + std::to_string(a.dim) + "}}").ok() ||
        !(*b)->Commit().ok()) {
      return Fail(umwelt::Status::Io("resetting the space"));
    }
  }
  std::vector<int64_t> ids;
  umwelt::Status s = c.ForEachText("prose", true, [](std::string_view) { return true; },
                                            [&](const umwelt::Corpus::TextRow& r) { ids.push_back(r.id); });
  if (!s.ok()) return Fail(s);
  RandomEmbedder gen(a.dim, a.model);
  for (size_t i = 0; i < ids.size(); i += 20000) {
    auto b = c.BeginWrite();
    std::vector<std::string> dummy(std::min<size_t>(20000, ids.size() - i));
    auto vecs = gen.Embed(dummy);
    for (size_t j = 0; j < dummy.size(); ++j) {
      if (!(*b)->PutEmbedding(ids[i + j], "prose", (*vecs)[j]).ok()) return Fail(umwelt::Status::Io("put"));
    }
    if (!(*b)->Commit().ok()) return Fail(umwelt::Status::Io("commit"));
  }
  double store_s = Ms(t) / 1000;
  auto vt = Clock::now();
  auto v = umwelt::VectorIndex::Open(c, "prose");
  if (!v.ok()) return Fail(v.status());
  double matrix_mb = static_cast<double>(ids.size()) * a.dim * 4 / 1048576.0;
  std::printf("| random %d-d: store %zu vectors / build the vector file | %.1f s / %.1f s |\n", a.dim, ids.size(), store_s,
              Ms(vt) / 1000);
  // The searches again in a fresh process, for its peak RSS.
  std::string cmd = std::string("'") + a.self + "' child --corpus '" + a.db + "' --dim " + std::to_string(a.dim);
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char line[512];
    while (std::fgets(line, sizeof line, p)) std::fputs(line, stdout);
    pclose(p);
  }
  std::printf("| random %d-d: float32 matrix | %.0f MB |\n", a.dim, matrix_mb);
  return 0;
}

// The searches over the random space, with this process's memory.
int Child(umwelt::Corpus& c, const BenchArgs& a) {
  std::vector<umwelt::Space> spaces;
  auto v = umwelt::VectorIndex::Open(c, "prose");
  if (!v.ok()) return Fail(v.status());
  spaces.push_back({"prose", std::make_unique<RandomEmbedder>(a.dim, a.model), std::move(v).value()});
  int rc = TimeSearches(c, spaces, ("random " + std::to_string(a.dim) + "-d").c_str());
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  std::printf("| random %d-d: peak RSS of a searching process | %ld MB |\n", a.dim, ru.ru_maxrss / 1024);
  // How much of it is the process's own memory, and how much mapped file
  // pages (shared with the page cache, dropped under pressure).
  if (FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f)) {
      if (std::strncmp(line, "RssAnon:", 8) == 0 || std::strncmp(line, "RssFile:", 8) == 0) {
        long kb = std::atol(line + 8);
        std::printf("| random %d-d: at exit, %.7s | %ld MB |\n", a.dim, line, kb / 1024);
      }
    }
    std::fclose(f);
  }
  return rc;
}

// The space laid out in inverted lists (built now unless it is): recall@10
// and @50 of a search through the nearest lists against an exact float32
// scan, and its time against the exact scan's, in this process. The queries
// are the vectors of chunks drawn at random (the space's own distribution;
// each finds itself) and, for a builtin space, the bench's queries embedded.
int Lists(umwelt::Corpus& c, const BenchArgs& a) {
  SpaceRows space;
  if (umwelt::Status s = space.Read(c); !s.ok()) return Fail(s);
  const std::vector<int64_t>& ids = space.ids;
  const std::vector<float>& rows = space.rows;
  const int d = space.d;
  auto v = umwelt::VectorIndex::Open(c, "prose");
  if (!v.ok()) return Fail(v.status());
  if ((*v)->lists() == 0) {
    auto t = Clock::now();
    std::string path = a.db + ".vec-prose";  // scanned whole: built again in lists
    std::remove(path.c_str());
    v = umwelt::VectorIndex::Open(c, "prose", {.ivf_min_rows = 0});
    if (!v.ok()) return Fail(v.status());
    std::printf("| %zu vectors, %d-d: build the vector file in %zu lists (%s multiplies) | %.1f s |\n", ids.size(), d,
                (*v)->lists(), umwelt::ivf::FastestMultiplier().c_str(), Ms(t) / 1000);
  }
  std::vector<std::vector<float>> queries;
  std::mt19937_64 rng(7);
  for (int q = 0; q < a.queries; ++q) {
    size_t i = rng() % ids.size();
    queries.emplace_back(rows.begin() + static_cast<long>(i * d), rows.begin() + static_cast<long>((i + 1) * d));
  }
  const size_t sampled = queries.size();
  std::vector<std::string> notes;
  auto spaces = umwelt::LoadSpaces(c, {}, &notes);
  if (spaces.ok() && !spaces->empty()) {
    for (const char* text : kQueries) {
      auto qv = (*spaces)[0].embedder->Embed({text});
      if (qv.ok() && umwelt::Normalize(&(*qv)[0])) queries.push_back((*qv)[0]);
    }
  }
  std::vector<double> lists_ms, exact_ms;
  double r10[2] = {0, 0}, r50[2] = {0, 0};
  for (size_t q = 0; q < queries.size(); ++q) {
    const std::vector<float>& x = queries[q];
    const std::vector<int64_t> top = space.Top(x, 50);
    auto t = Clock::now();
    auto near = (*v)->Nearest(x, nullptr, 100, false);
    lists_ms.push_back(Ms(t));
    t = Clock::now();
    auto all = (*v)->Nearest(x, nullptr, 100, true);
    exact_ms.push_back(Ms(t));
    if (!near.ok()) return Fail(near.status());
    for (int at : {10, 50}) {
      std::set<int64_t> truth, got;
      for (int i = 0; i < at; ++i) truth.insert(top[static_cast<size_t>(i)]);
      for (size_t i = 0; i < std::min<size_t>(near->size(), at); ++i) got.insert((*near)[i].chunk_id);
      int found = 0;
      for (int64_t id : got) found += truth.count(id);
      (at == 10 ? r10 : r50)[q < sampled ? 0 : 1] += static_cast<double>(found) / at;
    }
  }
  const double texts = static_cast<double>(queries.size() - sampled);
  std::printf("| %zu lists: recall@10 / @50 against an exact float32 scan, %zu chunks' vectors as queries | %.4f / %.4f |\n",
              (*v)->lists(), sampled, r10[0] / sampled, r50[0] / sampled);
  if (texts > 0) {
    std::printf("| the same, the bench's %.0f queries embedded | %.4f / %.4f |\n", texts, r10[1] / texts, r50[1] / texts);
  }
  std::printf("| nearest 100 through the lists / exact scan of every vector: p50 / p95 | %.2f / %.2f ms; %.2f / %.2f ms |\n",
              Pct(lists_ms, 0.5), Pct(lists_ms, 0.95), Pct(exact_ms, 0.5), Pct(exact_ms, 0.95));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  BenchArgs a;
  a.self = argv[0];
  a.db = "/tmp/umwelt-bench/bench-221146.db";
  for (int i = 2; i + 1 < argc; ++i) {
    std::string k = argv[i];
    if (k == "--corpus") a.db = argv[++i];
    else if (k == "--dim") a.dim = std::stoi(argv[++i]);
    else if (k == "--queries") a.queries = std::stoi(argv[++i]);
  }
  a.model = "bench-random-" + std::to_string(a.dim);
  auto corpus = umwelt::Corpus::Open(a.db, umwelt::Corpus::Mode::kReadWrite);
  if (!corpus.ok()) return Fail(corpus.status());
  if (mode == "builtin") return Builtin(**corpus, a);
  if (mode == "search") return SearchOnly(**corpus, a);
  if (mode == "recall") return Recall(**corpus, a);
  if (mode == "random") return Random(**corpus, a);
  if (mode == "child") return Child(**corpus, a);
  if (mode == "lists") return Lists(**corpus, a);
  std::fprintf(stderr, "usage: vector_bench builtin|search|recall|random|lists --corpus DB [--dim N] [--queries N]\n");
  return 2;
}
