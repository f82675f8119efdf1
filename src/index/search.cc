#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "umwelt/search.h"
#include "umwelt/text.h"

namespace umwelt {
namespace {

constexpr size_t kSnippetBytes = 240;

// A window of `text` around the first query word it contains, whitespace
// collapsed, cut at UTF-8 boundaries, with "…" where it was cut.
std::string Snippet(const std::string& text, const std::vector<std::string>& words) {
  std::string lower = ToLower(text);
  size_t best = std::string::npos;
  for (const auto& w : words) {
    size_t p = 0;
    while ((p = lower.find(w, p)) != std::string::npos) {
      bool left_ok = p == 0 || !std::isalnum(static_cast<unsigned char>(lower[p - 1]));
      if (left_ok) break;
      ++p;
    }
    if (p != std::string::npos && p < best) best = p;
  }
  size_t start = 0;
  if (best != std::string::npos && best > kSnippetBytes / 3) {
    start = best - kSnippetBytes / 3;
    while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
    size_t space = text.find_first_of(" \n", start);
    if (space != std::string::npos && space < best) start = space + 1;
  }
  std::string_view window = TruncateUtf8(std::string_view(text).substr(start), kSnippetBytes * 2);
  std::string out = CollapseWhitespace(window);
  bool cut_end = start + window.size() < text.size();
  out = std::string(TruncateUtf8(out, kSnippetBytes));
  if (start > 0) out = "…" + out;
  if (cut_end || out.size() < CollapseWhitespace(window).size()) out += "…";
  return out;
}

}  // namespace

Result<std::vector<Hit>> Search(Corpus& corpus, const KeywordIndex& index, const SearchOptions& o) {
  if (o.k <= 0) return Status::Invalid("-k must be positive, got " + std::to_string(o.k));
  UMWELT_ASSIGN_OR_RETURN(auto ranked, index.Rank(o, static_cast<size_t>(o.k)));
  return LoadHits(corpus, ranked, o.query);
}

Result<std::vector<Hit>> LoadHits(Corpus& corpus, const std::vector<ScoredDoc>& ranked, const std::string& query) {
  std::vector<int64_t> ids;
  ids.reserve(ranked.size());
  for (const auto& r : ranked) ids.push_back(r.chunk_id);
  UMWELT_ASSIGN_OR_RETURN(auto chunks, corpus.ChunksById(ids));
  std::unordered_map<int64_t, size_t> pos;
  for (size_t i = 0; i < chunks.size(); ++i) pos[chunks[i].id] = i;
  std::vector<std::string> words = Tokenize(query);
  std::vector<Hit> hits;
  hits.reserve(ranked.size());
  for (const auto& r : ranked) {
    auto it = pos.find(r.chunk_id);
    if (it == pos.end()) continue;  // removed since the index was built
    Chunk& c = chunks[it->second];
    Hit h;
    h.chunk_id = c.id;
    h.source = std::move(c.source);
    h.kind = std::move(c.kind);
    h.ref = std::move(c.ref);
    h.parent = std::move(c.parent);
    h.title = std::move(c.title);
    h.author = std::move(c.author);
    h.date = std::move(c.date);
    h.url = std::move(c.url);
    h.snippet = Snippet(c.text.empty() ? h.title : c.text, words);
    h.score = r.score;
    h.via = {r.exact ? "keyword" : "keyword-expanded"};
    hits.push_back(std::move(h));
  }
  return hits;
}

}  // namespace umwelt
