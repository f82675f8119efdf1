// `eval retrieval`: quality of keyword, FTS5, vector and hybrid rankings on a
// test collection, or citation recall on question files.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include <memory>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "umwelt/eval.h"
#include "umwelt/source_traits.h"
#include "umwelt/vector.h"

namespace umwelt::cli {
namespace {

using json = nlohmann::json;

std::string ThreadCitation(const Hit& h) { return CitationOfThread(h.parent.empty() ? h.ref : h.parent); }

Status EvalQuestions(const std::string& corpus_path, const EvalArgs& a) {
  UMWELT_ASSIGN_OR_RETURN(auto questions, LoadQuestions(a.questions));
  UMWELT_ASSIGN_OR_RETURN(auto corpus, OpenCorpus(corpus_path, Corpus::Mode::kReadOnly));
  UMWELT_ASSIGN_OR_RETURN(auto keyword, KeywordIndex::Open(*corpus));
  std::vector<std::string> notes;
  UMWELT_ASSIGN_OR_RETURN(auto configs, ParseSpaceConfigs(a.embedders));
  UMWELT_ASSIGN_OR_RETURN(auto spaces, LoadSpaces(*corpus, configs, &notes));
  for (const auto& n : notes) std::fprintf(stderr, "umwelt: note: %s\n", n.c_str());
  json rows = json::array();
  double sums[3] = {0, 0, 0};
  int counted = 0;
  UMWELT_ASSIGN_OR_RETURN(KeywordTuning tuning, ParseKeywordTuning(a.bm25));
  for (const auto& q : questions) {
    HybridOptions o;
    o.search.tuning = tuning;
    o.search.query = q.question;
    o.search.k = a.group == "thread" ? 50 * 4 : 50;
    o.vector_weight = a.vec_weight;
    UMWELT_ASSIGN_OR_RETURN(auto r, HybridSearch(*corpus, *keyword, spaces, o));
    std::vector<std::string> threads;
    if (a.group == "thread") {
      for (const auto& g : GroupByThread(r.hits, 50)) threads.push_back(ThreadCitation(g.hits.front()));
    } else {
      for (const auto& h : r.hits) threads.push_back(ThreadCitation(h));
    }
    const auto& must = q.must_cite;
    double r10 = CitationRecall(threads, must, 10), r20 = CitationRecall(threads, must, 20),
           r50 = CitationRecall(threads, must, 50);
    rows.push_back({{"id", q.id}, {"must_have", must.size()}, {"recall@10", r10}, {"recall@20", r20}, {"recall@50", r50}});
    if (!must.empty()) {
      sums[0] += r10, sums[1] += r20, sums[2] += r50;
      ++counted;
    }
  }
  json out = {{"questions", rows}, {"mean", {{"recall@10", counted ? sums[0] / counted : 0},
                                             {"recall@20", counted ? sums[1] / counted : 0},
                                             {"recall@50", counted ? sums[2] / counted : 0}}}};
  if (a.json) {
    std::printf("%s\n", out.dump(2).c_str());
    return Status::Ok();
  }
  std::printf("| question | must-have | recall@10 | recall@20 | recall@50 |\n|---|---:|---:|---:|---:|\n");
  for (const auto& r : rows) {
    std::printf("| %s | %d | %.2f | %.2f | %.2f |\n", r["id"].get<std::string>().c_str(), r["must_have"].get<int>(),
                r["recall@10"].get<double>(), r["recall@20"].get<double>(), r["recall@50"].get<double>());
  }
  std::printf("| mean (%d with must-haves) | | %.2f | %.2f | %.2f |\n", counted, out["mean"]["recall@10"].get<double>(),
              out["mean"]["recall@20"].get<double>(), out["mean"]["recall@50"].get<double>());
  return Status::Ok();
}

// Keeps the tuning half (odd positions) or the held-out half (even) of the
// queries; parameters are chosen on one and reported on the other.
Status KeepHalf(const std::string& half, TestCollection* c) {
  if (half == "all") return Status::Ok();
  if (half != "tune" && half != "held-out") {
    return Status::Invalid("--half must be all, tune or held-out, got `" + half + "`");
  }
  size_t keep = half == "tune" ? 0 : 1;
  std::vector<TestCollection::Query> kept;
  std::map<std::string, std::map<std::string, int>> qrels;
  for (size_t i = 0; i < c->queries.size(); ++i) {
    if (i % 2 != keep) continue;
    if (auto it = c->qrels.find(c->queries[i].id); it != c->qrels.end()) qrels[it->first] = std::move(it->second);
    kept.push_back(std::move(c->queries[i]));
  }
  c->queries = std::move(kept);
  c->qrels = std::move(qrels);  // metrics average over the judged queries kept
  return Status::Ok();
}

// Stores the collection's documents as web pages, one chunk each.
Status StoreCollection(const TestCollection& c, Corpus& corpus) {
  UMWELT_ASSIGN_OR_RETURN(auto batch, corpus.BeginWrite());
  const SourceTraits* pages = FirstWithRole(Role::kPage);
  for (const auto& d : c.docs) {
    Chunk ch;
    ch.source = pages->name;
    ch.kind = KindsWithRole(Role::kPage).front();
    ch.ref = ch.parent = c.name + ":" + d.id;
    ch.title = d.title;
    ch.text = d.text;
    ch.url = "https://" + c.name + ".eval.invalid/" + d.id;
    UMWELT_ASSIGN_OR_RETURN(bool changed, batch->PutRecord({ch}));
    (void)changed;
  }
  return batch->Commit();
}

// Trains the builtin prose space on the evaluation corpus and loads it.
Result<std::vector<Space>> TrainEvalSpace(Corpus& corpus, const EvalArgs& a, IndexReport* report) {
  IndexOptions io;
  io.builtin.method = a.builtin;
  io.builtin.epoch = a.epochs;
  io.builtin.dim = a.dim;
  io.builtin.threads = 1;  // fastText is deterministic on one thread: the table reproduces (LSA always is)
  UMWELT_RETURN_IF_ERROR(IndexSpaces(corpus, {{"prose", "builtin"}}, io, report));
  std::vector<std::string> notes;
  UMWELT_ASSIGN_OR_RETURN(auto spaces, LoadSpaces(corpus, {}, &notes));
  if (spaces.empty()) return Status::Unavailable("the builtin space did not load");
  return spaces;
}

}  // namespace

Status CmdEvalRetrieval(const std::string& corpus_path, const EvalArgs& a) {
  if (!a.group.empty() && a.group != "thread") return Status::Invalid("--group must be thread, got `" + a.group + "`");
  if (!a.questions.empty()) return EvalQuestions(corpus_path, a);
  Result<TestCollection> loaded = Status::Invalid("--collection must be cranfield or cisi, got `" + a.collection + "`");
  std::string data = a.data.empty() ? std::string(UMWELT_DEFAULT_DATA) : a.data;
  if (a.collection == "cranfield") loaded = LoadCranfield(data + "/cranfield");
  else if (a.collection == "cisi") loaded = LoadCisi(data + "/cisi");
  UMWELT_ASSIGN_OR_RETURN(TestCollection c, std::move(loaded));
  UMWELT_ASSIGN_OR_RETURN(KeywordTuning tuning, ParseKeywordTuning(a.bm25));
  UMWELT_RETURN_IF_ERROR(KeepHalf(a.half, &c));
  if (a.fusion != "rrf" && a.fusion != "scores") return Status::Invalid("--fusion must be rrf or scores, got `" + a.fusion + "`");

  std::string work = a.work;
  bool temporary = work.empty();
  if (temporary) {
    char tmpl[] = "/tmp/umwelt-eval-XXXXXX";
    if (!::mkdtemp(tmpl)) return Status::Io("cannot make a temporary folder");
    work = tmpl;
  }
  std::filesystem::create_directories(work);
  std::string db = work + "/" + c.name + ".db";
  for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(db + ext);
  UMWELT_ASSIGN_OR_RETURN(auto corpus, OpenCorpus(db, Corpus::Mode::kReadWrite));
  UMWELT_RETURN_IF_ERROR(StoreCollection(c, *corpus));
  UMWELT_ASSIGN_OR_RETURN(auto keyword, KeywordIndex::Open(*corpus));
  std::vector<Space> spaces;
  IndexReport report;
  if (!a.keyword_only) {
    UMWELT_ASSIGN_OR_RETURN(spaces, TrainEvalSpace(*corpus, a, &report));
  }


  auto doc_of = [&](int64_t chunk_id) -> std::string {
    auto rows = corpus->ChunksById({chunk_id});
    if (!rows.ok() || rows->empty()) return "";
    const std::string& ref = (*rows)[0].ref;
    return ref.substr(ref.find(':') + 1);
  };
  std::map<int64_t, std::string> id_to_doc;
  auto doc = [&](int64_t id) {
    auto it = id_to_doc.find(id);
    if (it != id_to_doc.end()) return it->second;
    return id_to_doc[id] = doc_of(id);
  };
  std::vector<std::string> methods = {"fts5-bm25", "keyword", "vector", "hybrid"};
  if (a.keyword_only) methods.resize(2);
  std::map<std::string, std::map<std::string, std::vector<std::string>>> runs;
  std::map<std::string, std::map<std::string, std::vector<double>>> scores;
  for (const auto& q : c.queries) {
    SearchOptions so;
    so.query = q.text;
    so.k = 100;
    so.tuning = tuning;
    auto add = [&](const std::string& m, int64_t id, double score) {
      runs[m][q.id].push_back(doc(id));
      scores[m][q.id].push_back(score);
    };
    UMWELT_ASSIGN_OR_RETURN(auto fts, corpus->Fts5Rank(Tokenize(q.text), 100));
    for (size_t i = 0; i < fts.size(); ++i) add("fts5-bm25", fts[i], -static_cast<double>(i));
    auto kw = RankKeyword(*corpus, *keyword, so, 100);
    if (kw.ok()) {
      for (const auto& d : *kw) add("keyword", d.chunk_id, d.score);
    }
    if (a.keyword_only) continue;
    auto qv = spaces[0].embedder->Embed({q.text});
    if (qv.ok() && Normalize(&(*qv)[0])) {
      UMWELT_ASSIGN_OR_RETURN(auto near, spaces[0].index->Nearest((*qv)[0], nullptr, 100, false));
      for (const auto& d : near) add("vector", d.chunk_id, d.score);
    }
    HybridOptions ho;
    ho.search = so;
    ho.vector_weight = a.vec_weight;
    ho.fusion = a.fusion == "rrf" ? Fusion::kRrf : Fusion::kScores;
    ho.code_k = 0;
    UMWELT_ASSIGN_OR_RETURN(auto hy, HybridSearch(*corpus, *keyword, spaces, ho));
    for (const auto& h : hy.hits) add("hybrid", h.chunk_id, h.score);
  }
  if (!a.run.empty()) {
    std::ofstream out(a.run, std::ios::trunc);
    for (const auto& m : methods) {
      for (const auto& [qid, docs] : runs[m]) {
        for (size_t i = 0; i < docs.size(); ++i) {
          out << qid << " Q0 " << docs[i] << " " << (i + 1) << " " << scores[m][qid][i] << " umwelt-" << m << "\n";
        }
      }
    }
    if (!out) return Status::Io(a.run + ": write failed");
  }
  json table = json::array();
  for (const auto& m : methods) {
    RetrievalMetrics r = Evaluate(runs[m], c.qrels);
    table.push_back({{"method", m}, {"ndcg@10", r.ndcg10}, {"map", r.map}, {"recall@100", r.recall100}, {"queries", r.queries}});
  }
  if (temporary) std::filesystem::remove_all(work);
  if (a.json) {
    std::printf("%s\n", json({{"collection", c.name}, {"docs", c.docs.size()}, {"half", a.half},
                              {"queries", c.queries.size()}, {"vector_weight", a.vec_weight},
                             {"model", report.spaces.empty() ? "" : report.spaces[0].model}, {"results", table}})
                            .dump(2)
                            .c_str());
    return Status::Ok();
  }
  std::printf("%s: %zu documents, %zu judged queries (%s)\n\n| method | nDCG@10 | MAP | recall@100 |\n|---|---:|---:|---:|\n",
              c.name.c_str(), c.docs.size(), c.queries.size(),
              a.half == "all" ? "all" : a.half == "tune" ? "tuning half" : "held-out half");
  for (const auto& r : table) {
    std::printf("| %s | %.4f | %.4f | %.4f |\n", r["method"].get<std::string>().c_str(), r["ndcg@10"].get<double>(),
                r["map"].get<double>(), r["recall@100"].get<double>());
  }
  return Status::Ok();
}

void AddEvalRetrievalVerb(const VerbContext& v, CLI::App& eval) {
  struct Args {
    EvalArgs ea;
  };
  auto args = std::make_shared<Args>();
  EvalArgs& ea = args->ea;
  auto* eval_retrieval = eval.add_subcommand("retrieval", "Ranking quality on a test collection, or citation recall on question files");
  eval_retrieval->add_option("--collection", ea.collection, "cranfield or cisi");
  eval_retrieval->add_option("--data", ea.data, "Folder holding cranfield/ and cisi/ (default ../shared/data)");
  eval_retrieval->add_option("--questions", ea.questions, "Question files (a folder or one file) instead of a collection");
  eval_retrieval->add_option("--embedder", ea.embedders, "SPACE=PROVIDER for --questions");
  eval_retrieval->add_option("--run", ea.run, "Also write the rankings in TREC run format");
  eval_retrieval->add_option("--work", ea.work, "Keep the evaluation corpus in this folder");
  eval_retrieval->add_option("--vec-weight", ea.vec_weight, "Fusion weight of the vector leg")->default_val(kDefaultVectorWeight);
  eval_retrieval->add_option("--builtin", ea.builtin, "The builtin model trained: lsa or fasttext")
      ->default_val("lsa")
      ->check(CLI::IsMember({"lsa", "fasttext"}));
  eval_retrieval->add_option("--dim", ea.dim, "Builtin model dimension")->default_val(100)->check(CLI::Range(8, 1024));
  eval_retrieval->add_option("--epochs", ea.epochs, "Builtin fastText training epochs")->default_val(10);
  eval_retrieval->add_option("--half", ea.half,
                             "Which queries: all, tune (the 1st, 3rd, … in file order) or held-out (the 2nd, 4th, …)")
      ->default_val("all");
  eval_retrieval->add_option("--bm25", ea.bm25,
                             "Keyword tuning, e.g. k1=1.6,b=0.75,title=5,title_b=0.5,expanded=0.3,prf=10,prf_terms=10,"
                             "prf_lambda=0.7,prox=50,prox_weight=0.3,compound_part=0.5");
  eval_retrieval->add_option("--fusion", ea.fusion, "rrf or scores")->default_val("scores");
  eval_retrieval->add_option("--group", ea.group, "thread: with --questions, rank threads (search --group thread)");
  eval_retrieval->add_flag("--keyword-only", ea.keyword_only, "Only FTS5 and keyword (no vector space to train)");
  eval_retrieval->add_flag("--json", ea.json, "Emit JSON");
  eval_retrieval->callback([v, args] {
    *v.run = [v, args]() -> Status {
      if (args->ea.collection.empty() == args->ea.questions.empty()) {
        return Status::Invalid("eval retrieval needs exactly one of --collection and --questions");
      }
      return CmdEvalRetrieval(v.corpus, args->ea);
    };
  });
}

}  // namespace umwelt::cli
