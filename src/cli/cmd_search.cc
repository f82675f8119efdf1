// `search` and `search-multi`: keyword, or hybrid when the corpus has vector
// spaces (unless --fts-only).
#include <unistd.h>

#include <cstdio>
#include <map>


#include "cli.h"
#include "umwelt/searcher.h"
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
    Print(SearchJson(a.search.query, a.search.k, out.hybrid, r));
    return Status::Ok();
  }
  if (r.hits.empty()) std::printf("no hits for \"%s\"\n", a.search.query.c_str());
  PrintHits(r.hits, 1);
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

}  // namespace umwelt::cli
