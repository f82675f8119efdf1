// `search` and `search-multi`: keyword, or hybrid when the corpus has vector
// spaces (unless --fts-only).
#include <unistd.h>

#include <cstdio>
#include <map>


#include <memory>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "params_cli.h"
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
  auto s = std::make_unique<Searcher>(path, std::move(configs),
                                      SearcherOptions{.keyword_only = a.fts_only, .one_shot = true});
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
  PrintNotes(path, r.notes);
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
  UMWELT_ASSIGN_OR_RETURN(auto searcher, OpenSearcher(path, a));
  UMWELT_ASSIGN_OR_RETURN(MultiSearchResponse out, searcher->SearchMulti(queries, a, total));
  PrintNotes(path, out.notes);
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
  PrintNotes(path, p.notes);
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
    if ((*v)->lists() > 0) {
      std::printf("space %s: %zu vectors in %zu lists; a search reads the lists nearest its query (--exact: every one)\n",
                  c.space.c_str(), (*v)->size(), (*v)->lists());
    }
  }
  return Status::Ok();
}

void AddSearchVerbs(const VerbContext& v) {
  struct Args {
    SearchArgs sa;  // the CLI's own: --json, --embedder, --rerank, --rerank-top
    std::shared_ptr<ParamTexts> search = std::make_shared<ParamTexts>();
    std::shared_ptr<ParamTexts> multi = std::make_shared<ParamTexts>();
    std::shared_ptr<ParamTexts> context = std::make_shared<ParamTexts>();
    IndexArgs ia;
  };
  auto args = std::make_shared<Args>();
  SearchArgs& sa = args->sa;
  IndexArgs& ia = args->ia;
  // The flags only the CLI has; the parameters every front door shares come
  // from the capability's table (umwelt/params.h).
  auto add_cli_flags = [&sa](CLI::App* cmd) {
    cmd->add_option("--embedder", sa.embedders, "SPACE=PROVIDER (repeatable; else $UMWELT_EMBEDDERS)");
    cmd->add_flag("--json", sa.json, "Emit JSON");
    cmd->add_option("--rerank", sa.rerank,
                    "Rerank the top hits through a model server: openai-compatible:<base-url>#<model> (else $UMWELT_RERANK)");
    cmd->add_option("--rerank-top", sa.rerank_top, "Hits the reranker reorders")->default_val(50)->check(CLI::Range(0, 1000));
  };
  auto* search = v.app.add_subcommand("search", "Search: keyword, fused with vectors when the corpus has them");
  AddParamFlags(search, SearchParams(), args->search);
  add_cli_flags(search);
  auto* multi = v.app.add_subcommand("search-multi", "Several queries at once, merged and de-duplicated");
  AddParamFlags(multi, SearchMultiParams(), args->multi);
  add_cli_flags(multi);
  auto* context = v.app.add_subcommand(
      "context", "Search, expand the best hits to whole threads, follow references, and pack it with permalinks");
  AddParamFlags(context, ContextParams(), args->context);
  add_cli_flags(context);

  auto* index = v.app.add_subcommand("index", "Embed new and changed chunks into the vector spaces");
  index->add_option("--embedder", ia.embedders, "SPACE=PROVIDER (default prose=builtin, or $UMWELT_EMBEDDERS)");
  index->add_flag("--retrain", ia.retrain, "Train the builtin model again (re-embeds its space)");
  index->add_option("--builtin", ia.builtin, "The builtin model trained: lsa (latent semantic analysis) or fasttext")
      ->default_val("lsa")
      ->check(CLI::IsMember({"lsa", "fasttext"}));
  index->add_option("--dim", ia.dim, "Builtin model dimension")->default_val(100)->check(CLI::Range(8, 1024));
  index->add_option("--epochs", ia.epochs, "Builtin fastText training epochs")->default_val(5)->check(CLI::Range(1, 100));
  // The request as parsed, with the CLI's own flags beside it.
  auto with_cli_flags = [args](const SearchRequest& r) {
    SearchArgs a = args->sa;
    int rerank_top = a.rerank_top;
    static_cast<SearchRequest&>(a) = r;
    a.rerank_top = rerank_top;
    return a;
  };
  search->callback([v, args, with_cli_flags] {
    *v.run = [v, args, with_cli_flags]() -> Status {
      UMWELT_ASSIGN_OR_RETURN(SearchRequest r, SearchParams().FromTexts(TextsOf(args->search)));
      return CmdSearch(v.corpus, with_cli_flags(r));
    };
  });
  multi->callback([v, args, with_cli_flags] {
    *v.run = [v, args, with_cli_flags]() -> Status {
      UMWELT_ASSIGN_OR_RETURN(MultiSearchRequest m, SearchMultiParams().FromTexts(TextsOf(args->multi)));
      return CmdSearchMulti(v.corpus, m.queries, with_cli_flags(m.base), m.total);
    };
  });
  context->callback([v, args, with_cli_flags] {
    *v.run = [v, args, with_cli_flags]() -> Status {
      UMWELT_ASSIGN_OR_RETURN(ContextRequest r, ContextParams().FromTexts(TextsOf(args->context)));
      return CmdContext(v.corpus, r, with_cli_flags(r.search));
    };
  });
  index->callback([v, args] {
    *v.run = [v, args]() -> Status {
      return CmdIndex(v.corpus, args->ia);
    };
  });
}

}  // namespace umwelt::cli
