// `search` and `search-multi`: keyword, or hybrid when the corpus has vector
// spaces (unless --fts-only).
#include <unistd.h>

#include <cstdio>
#include <map>


#include <memory>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "umwelt/context.h"
#include "umwelt/searcher.h"
#include "umwelt/text.h"
#include "umwelt/vector.h"

namespace umwelt::cli {
namespace {


void PrintHits(const std::vector<Hit>& hits, size_t first_number) {
  for (size_t i = 0; i < hits.size(); ++i) {
    const Hit& h = hits[i];
    std::string when = h.date.substr(0, 10);
    std::string via;
    for (const auto& v : h.via) via += (via.empty() ? "" : "+") + v;
    std::printf("%2zu. [%s/%s] %s\n    %s%s%s · via %s\n    %s\n    %s\n", first_number + i, h.source.c_str(),
                h.kind.c_str(), h.title.empty() ? h.ref.c_str() : h.title.c_str(), h.author.c_str(),
                h.author.empty() || when.empty() ? "" : " · ", when.c_str(), via.c_str(), h.url.c_str(),
                h.snippet.c_str());
  }
}

void Print(const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fputc('\n', stdout);
}

std::vector<std::string> EmbedderSpecs(const SearchArgs& a) {
  std::vector<std::string> specs = a.embedders;
  if (specs.empty()) {
    if (const char* env = std::getenv("UMWELT_EMBEDDERS"); env && *env) specs.push_back(env);
  }
  return specs;
}

// The process's one Searcher: the corpus, its keyword index and (unless
// --fts-only) its vector spaces, opened once for every query.
Result<std::unique_ptr<Searcher>> OpenSearcher(const std::string& path, const SearchArgs& a) {
  std::vector<SpaceConfig> configs;
  if (!a.fts_only) {
    UMWELT_ASSIGN_OR_RETURN(configs, ParseSpaceConfigs(EmbedderSpecs(a)));
  }
  auto s = std::make_unique<Searcher>(path, std::move(configs), a.fts_only);
  std::string rerank = a.rerank;
  if (const char* env = std::getenv("UMWELT_RERANK"); rerank.empty() && env) rerank = env;
  if (!rerank.empty()) {
    UMWELT_ASSIGN_OR_RETURN(RerankOptions ro, ParseRerankSpec(rerank));
    s->SetReranker(std::make_shared<Reranker>(std::move(ro)));
  }
  UMWELT_RETURN_IF_ERROR(s->Refresh());
  return s;
}

}  // namespace

Status CmdSearch(const std::string& path, const SearchArgs& a) {
  UMWELT_ASSIGN_OR_RETURN(auto searcher, OpenSearcher(path, a));
  UMWELT_ASSIGN_OR_RETURN(SearchResponse out, searcher->Search(a));
  const HybridResult& r = out.result;
  for (const auto& n : r.notes) std::fprintf(stderr, "umwelt: note: %s\n", n.c_str());
  if (a.json) {
    Print(SearchResponseJson(a, out));
    return Status::Ok();
  }
  if (r.hits.empty()) std::printf("no hits for \"%s\"\n", a.search.query.c_str());
  if (out.grouped) {
    for (size_t i = 0; i < out.threads.size(); ++i) {
      const ThreadGroup& g = out.threads[i];
      std::printf("%2zu. %s (%s, %zu hit%s shown)\n    %s\n", i + 1, g.title.empty() ? g.thread.c_str() : g.title.c_str(),
                  g.thread.c_str(), g.hits.size(), g.hits.size() == 1 ? "" : "s", g.url.c_str());
      for (const auto& h : g.hits) {
        std::printf("      - [%s/%s] %s%s%s\n        %s\n        %s\n", h.source.c_str(), h.kind.c_str(),
                    h.author.c_str(), h.author.empty() ? "" : " · ", h.date.substr(0, 10).c_str(), h.url.c_str(),
                    h.snippet.c_str());
      }
    }
  } else {
    PrintHits(r.hits, 1);
  }
  if (!r.code_main.empty()) {
    std::printf("\ncode on the default branch:\n");
    PrintHits(r.code_main, 1);
  }
  if (!r.code_branches.empty()) {
    std::printf("\ncode in flight on branches (not what main does):\n");
    PrintHits(r.code_branches, 1);
  }
  return Status::Ok();
}

Status CmdSearchMulti(const std::string& path, const std::vector<std::string>& queries, const SearchArgs& a,
                      int total) {
  if (queries.empty()) return Status::Invalid("search-multi needs at least one query");
  if (total <= 0) return Status::Invalid("--total must be positive");
  UMWELT_ASSIGN_OR_RETURN(auto searcher, OpenSearcher(path, a));
  UMWELT_ASSIGN_OR_RETURN(MultiSearchResponse out, searcher->SearchMulti(queries, a, total));
  for (const auto& n : out.notes) std::fprintf(stderr, "umwelt: note: %s\n", n.c_str());
  if (a.json) {
    Print(SearchMultiJson(out.queries, out.total, out.hits, out.notes));
    return Status::Ok();
  }
  for (size_t i = 0; i < out.hits.size(); ++i) {
    const MultiHit& m = out.hits[i];
    std::string found;
    for (const auto& q : m.queries) found += (found.empty() ? "\"" : ", \"") + q + "\"";
    std::printf("%2zu. [%s/%s] %s\n    %s\n    found by %s\n    %s\n", i + 1, m.hit.source.c_str(), m.hit.kind.c_str(),
                m.hit.title.c_str(), m.hit.url.c_str(), found.c_str(), m.hit.snippet.c_str());
  }
  return Status::Ok();
}

Status CmdContext(const std::string& path, const ContextRequest& request, const SearchArgs& a) {
  UMWELT_ASSIGN_OR_RETURN(auto searcher, OpenSearcher(path, a));
  ContextRequest r = request;
  r.search = a;
  UMWELT_ASSIGN_OR_RETURN(ContextPack p, BuildContext(*searcher, r));
  for (const auto& n : p.notes) std::fprintf(stderr, "umwelt: note: %s\n", n.c_str());
  Print(a.json ? ContextJson(p) : p.text);
  std::fprintf(stderr, "umwelt context: %zu threads, %zu characters (~%zu tokens)%s\n", p.threads.size(), p.text.size(),
               p.text.size() / 4, p.truncated ? ", cut at --max-chars" : "");
  return Status::Ok();
}

Status CmdIndex(const std::string& path, const IndexArgs& a) {
  UMWELT_ASSIGN_OR_RETURN(auto corpus, OpenCorpus(path, Corpus::Mode::kReadWrite));
  std::vector<std::string> specs = a.embedders;
  if (specs.empty()) {
    const char* env = std::getenv("UMWELT_EMBEDDERS");
    specs.push_back(env && *env ? env : "prose=builtin");
  }
  UMWELT_ASSIGN_OR_RETURN(auto configs, ParseSpaceConfigs(specs));
  IndexOptions o;
  o.retrain = a.retrain;
  o.builtin.method = a.builtin;
  o.builtin.dim = a.dim;
  o.builtin.epoch = a.epochs;
  Progress progress("index");
  o.progress = [&](const std::string& space, int64_t done, int64_t total) { progress.Update(done, total, space); };
  IndexReport report;
  Status s = IndexSpaces(*corpus, configs, o, &report);
  progress.Done();
  for (const auto& sp : report.spaces) {
    std::printf("space %s (%s): %lld chunks embedded in %.1f s\n", sp.space.c_str(), sp.model.c_str(),
                static_cast<long long>(sp.embedded), sp.seconds);
  }
  UMWELT_RETURN_IF_ERROR(s);
  for (const auto& c : configs) {
    auto v = VectorIndex::Open(*corpus, c.space);  // build the side file now, not at the first search
    if (!v.ok()) return v.status();
  }
  return Status::Ok();
}

void AddSearchVerbs(const VerbContext& v) {
  struct Args {
    SearchArgs sa;
    std::string source_list;
    std::string kind_list;
    std::vector<std::string> multi_queries;
    int multi_total = 60;
    std::string group;
    IndexArgs ia;
    ContextRequest cr;
  };
  auto args = std::make_shared<Args>();
  SearchArgs& sa = args->sa;
  std::string& source_list = args->source_list;
  std::string& kind_list = args->kind_list;
  std::vector<std::string>& multi_queries = args->multi_queries;
  int& multi_total = args->multi_total;
  IndexArgs& ia = args->ia;
  auto* search = v.app.add_subcommand("search", "Search: keyword, fused with vectors when the corpus has them");
  auto add_search_flags = [&sa, &source_list, &kind_list](CLI::App* cmd) {
    cmd->add_option("-k", sa.search.k, "Hits to return")->default_val(50)->check(CLI::PositiveNumber);
    cmd->add_option("--source", source_list, "Only these sources (comma-separated)");
    cmd->add_option("--kind", kind_list, "Only these kinds (comma-separated)");
    cmd->add_option("--since", sa.search.since, "Only chunks dated on or after (ISO date)");
    cmd->add_option("--until", sa.search.until, "Only chunks dated on or before (ISO date)");
    cmd->add_option("--author", sa.search.author, "Only chunks by this author");
    cmd->add_flag("--fts-only", sa.fts_only, "Keyword leg only");
    cmd->add_flag("--vec-only", sa.vec_only, "Vector legs only");
    cmd->add_option("--vec-text", sa.vec_texts, "Hypothetical answer text for the vector leg (repeatable)");
    cmd->add_option("--embedder", sa.embedders, "SPACE=PROVIDER (repeatable; else $UMWELT_EMBEDDERS)");
    cmd->add_option("--vec-weight", sa.vec_weight, "Fusion weight of each vector leg (keyword: 1)")->default_val(kDefaultVectorWeight);
    cmd->add_flag("--json", sa.json, "Emit JSON");
    cmd->add_option("--rerank", sa.rerank,
                    "Rerank the top hits through a model server: openai-compatible:<base-url>#<model> (else $UMWELT_RERANK)");
    cmd->add_option("--rerank-top", sa.rerank_top, "Hits the reranker reorders")->default_val(50)->check(CLI::Range(0, 1000));
    cmd->add_flag_function(
        "--feedback",
        [&sa](int64_t) { sa.search.tuning.prf_docs = kFeedbackDocs; },
        "Pseudo-relevance feedback in the keyword leg: expand the query with the top ten chunks' terms (≈ +1.7 ms)");
  };
  search->add_option("query", sa.search.query, "What to look for")->required();
  add_search_flags(search);
  search->add_option("--group", args->group, "thread: k threads, each with its best hits (default none)");
  auto* multi = v.app.add_subcommand("search-multi", "Several queries at once, merged and de-duplicated");
  multi->add_option("queries", multi_queries, "The sub-queries")->required();
  multi->add_option("--total", multi_total, "Hits to return in all")->default_val(60)->check(CLI::PositiveNumber);
  add_search_flags(multi);

  auto* context = v.app.add_subcommand(
      "context", "Search, expand the best hits to whole threads, follow references, and pack it with permalinks");
  ContextRequest& cr = args->cr;
  context->add_option("queries", cr.queries, "What to look for (several: merged)")->required();
  add_search_flags(context);
  context->get_option("-k")->default_val(20)->description("Candidates per query");
  context->add_option("--expand", cr.expand, "Threads to expand from the top hits")->default_val(12);
  context->add_option("--follow-links", cr.follow_links, "Then the threads they reference, one hop (0 or 1)")
      ->default_val(0);
  context->add_option("--per-thread-chars", cr.per_thread_chars, "Each thread at most (its opening and close-out kept)")
      ->default_val(12000);
  context->add_option("--tail", cr.tail, "Only the last N records of each thread")->default_val(0);
  context->add_option("--around", cr.around, "A chat message: this many messages either side")->default_val(12);
  context->add_flag("--toc", cr.toc, "A thread index first");
  context->add_option("--max-chars", cr.max_chars, "The whole pack at most")->default_val(400000);

  auto* index = v.app.add_subcommand("index", "Embed new and changed chunks into the vector spaces");
  index->add_option("--embedder", ia.embedders, "SPACE=PROVIDER (default prose=builtin, or $UMWELT_EMBEDDERS)");
  index->add_flag("--retrain", ia.retrain, "Train the builtin model again (re-embeds its space)");
  index->add_option("--builtin", ia.builtin, "The builtin model trained: lsa (latent semantic analysis) or fasttext")
      ->default_val("lsa")
      ->check(CLI::IsMember({"lsa", "fasttext"}));
  index->add_option("--dim", ia.dim, "Builtin model dimension")->default_val(100)->check(CLI::Range(8, 1024));
  index->add_option("--epochs", ia.epochs, "Builtin fastText training epochs")->default_val(5)->check(CLI::Range(1, 100));
  search->callback([v, args] {
    *v.run = [v, args]() -> Status {
      args->sa.search.sources = SplitList(args->source_list);
      args->sa.search.kinds = SplitList(args->kind_list);
      if (args->sa.fts_only && args->sa.vec_only) return Status::Invalid("--fts-only and --vec-only exclude each other");
      UMWELT_RETURN_IF_ERROR(ParseSearchGroup(args->group, &args->sa).WithContext("--group"));
      return CmdSearch(v.corpus, args->sa);
    };
  });
  multi->callback([v, args] {
    *v.run = [v, args]() -> Status {
      args->sa.search.sources = SplitList(args->source_list);
      args->sa.search.kinds = SplitList(args->kind_list);
      if (args->sa.fts_only && args->sa.vec_only) return Status::Invalid("--fts-only and --vec-only exclude each other");
      return CmdSearchMulti(v.corpus, args->multi_queries, args->sa, args->multi_total);
    };
  });
  context->callback([v, args] {
    *v.run = [v, args]() -> Status {
      args->sa.search.sources = SplitList(args->source_list);
      args->sa.search.kinds = SplitList(args->kind_list);
      args->cr.k = args->sa.search.k;
      if (args->sa.fts_only && args->sa.vec_only) return Status::Invalid("--fts-only and --vec-only exclude each other");
      return CmdContext(v.corpus, args->cr, args->sa);
    };
  });
  index->callback([v, args] {
    *v.run = [v, args]() -> Status {
      return CmdIndex(v.corpus, args->ia);
    };
  });
}

}  // namespace umwelt::cli
