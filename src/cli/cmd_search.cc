#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli.h"

namespace umwelt::cli {

Status CmdSearch(const std::string& path, const SearchOptions& options, bool json) {
  UMWELT_ASSIGN_OR_RETURN(auto corpus, OpenCorpus(path, Corpus::Mode::kReadOnly));
  UMWELT_ASSIGN_OR_RETURN(auto index, KeywordIndex::Open(*corpus));
  UMWELT_ASSIGN_OR_RETURN(auto hits, Search(*corpus, *index, options));
  if (json) {
    nlohmann::json out;
    out["query"] = options.query;
    out["k"] = options.k;
    out["hits"] = nlohmann::json::array();
    for (const auto& h : hits) {
      out["hits"].push_back({{"source", h.source}, {"kind", h.kind}, {"ref", h.ref},
                             {"parent", h.parent}, {"title", h.title}, {"author", h.author},
                             {"date", h.date}, {"url", h.url}, {"snippet", h.snippet},
                             {"score", h.score}, {"via", h.via}});
    }
    std::string text = out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fputc('\n', stdout);
    return Status::Ok();
  }
  if (hits.empty()) {
    std::printf("no hits for \"%s\"\n", options.query.c_str());
    return Status::Ok();
  }
  for (size_t i = 0; i < hits.size(); ++i) {
    const Hit& h = hits[i];
    std::string when = h.date.substr(0, 10);
    std::printf("%2zu. [%s/%s] %s\n    %s%s%s\n    %s\n    %s\n", i + 1, h.source.c_str(),
                h.kind.c_str(), h.title.empty() ? h.ref.c_str() : h.title.c_str(), h.author.c_str(),
                h.author.empty() || when.empty() ? "" : " · ", when.c_str(), h.url.c_str(),
                h.snippet.c_str());
  }
  return Status::Ok();
}

}  // namespace umwelt::cli
