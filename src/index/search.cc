#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
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

// A feedback term must be rarer than this share of the chunks: the words
// most chunks hold say nothing about the ones that were found.
constexpr double kFeedbackMaxDf = 0.5;

}  // namespace

Result<KeywordTuning> ParseKeywordTuning(std::string_view spec) {
  KeywordTuning t;
  size_t i = 0;
  while (i < spec.size()) {
    size_t comma = spec.find(',', i);
    std::string_view pair = spec.substr(i, comma == std::string_view::npos ? std::string_view::npos : comma - i);
    i = comma == std::string_view::npos ? spec.size() : comma + 1;
    if (pair.empty()) continue;
    size_t eq = pair.find('=');
    std::string name(pair.substr(0, eq));
    std::string value(eq == std::string_view::npos ? "" : pair.substr(eq + 1));
    char* end = nullptr;
    double v = value.empty() ? 0 : std::strtod(value.c_str(), &end);
    if (value.empty() || end != value.c_str() + value.size() || !std::isfinite(v) || v < 0) {
      return Status::Invalid("keyword tuning `" + std::string(pair) + "`: want NAME=NUMBER (a number ≥ 0)");
    }
    if (name == "k1") t.k1 = v;
    else if (name == "b" && v <= 1) t.b = v;
    else if (name == "title") t.title_weight = v;
    else if (name == "title_b" && v <= 1) t.title_b = v;
    else if (name == "expanded") t.expanded_weight = v;
    else if (name == "prf" && v <= 100) t.prf_docs = static_cast<int>(v);
    else if (name == "prf_terms" && v <= 200) t.prf_terms = static_cast<int>(v);
    else if (name == "prf_lambda" && v <= 1) t.prf_lambda = v;
    else if (name == "prox" && v <= 1000) t.prox_docs = static_cast<int>(v);
    else if (name == "prox_weight") t.prox_weight = v;
    else if (name == "compound_part" && v <= 1) t.compound_part = v;
    else {
      return Status::Invalid("keyword tuning `" + std::string(pair) +
                             "`: names are k1, b, title, title_b, expanded, prf, prf_terms, prf_lambda, prox, "
                             "prox_weight, compound_part (b, title_b, prf_lambda and compound_part at most 1)");
    }
  }
  return t;
}

namespace {

// Term proximity over the top exact matches: for each pair of distinct query
// stems, the closest their occurrences come in the chunk's title and text
// (tokens apart), scored idf_a·idf_b/(1 + gap) summed over pairs, added at
// `prox_weight` to the chunk's score; the matches are then re-sorted. Chunks
// outside the top N, and expansion-only ones, keep their place.
Status AddProximity(Corpus& corpus, const KeywordIndex& index, const SearchOptions& o, std::vector<ScoredDoc>* ranked) {
  const KeywordTuning& t = o.tuning;
  std::vector<std::string> stems;
  for (const auto& w : Tokenize(o.query)) {
    std::string s = StemWord(w);
    if (std::find(stems.begin(), stems.end(), s) == stems.end()) stems.push_back(std::move(s));
    if (stems.size() == 16) break;
  }
  if (stems.size() < 2) return Status::Ok();
  const double n = static_cast<double>(index.num_docs());
  std::vector<double> idf;
  for (const auto& s : stems) {
    double df = static_cast<double>(index.DocFrequency(s));
    idf.push_back(std::max(0.0, std::log((n - df + 0.5) / (df + 0.5))));
  }
  size_t top = 0;
  while (top < ranked->size() && top < static_cast<size_t>(t.prox_docs) && (*ranked)[top].exact) ++top;
  if (top < 2) return Status::Ok();
  std::vector<int64_t> ids;
  for (size_t i = 0; i < top; ++i) ids.push_back((*ranked)[i].chunk_id);
  UMWELT_ASSIGN_OR_RETURN(auto chunks, corpus.ChunksById(ids));
  std::unordered_map<int64_t, double> bonus;
  for (const auto& c : chunks) {
    std::vector<std::vector<int>> at(stems.size());
    int pos = 0;
    for (const auto& tok : Tokenize(c.title + " \n " + c.text)) {
      std::string s = StemWord(tok);
      for (size_t k = 0; k < stems.size(); ++k) {
        if (s == stems[k]) at[k].push_back(pos);
      }
      ++pos;
    }
    double b = 0;
    for (size_t x = 0; x < stems.size(); ++x) {
      for (size_t y = x + 1; y < stems.size(); ++y) {
        int gap = std::numeric_limits<int>::max();
        size_t i = 0, j = 0;  // both lists ascending: one merge pass finds the closest pair
        while (i < at[x].size() && j < at[y].size()) {
          gap = std::min(gap, std::abs(at[x][i] - at[y][j]));
          if (at[x][i] < at[y][j]) ++i;
          else ++j;
        }
        if (gap != std::numeric_limits<int>::max()) b += idf[x] * idf[y] / (1.0 + gap);
      }
    }
    bonus[c.id] = b;
  }
  for (size_t i = 0; i < top; ++i) (*ranked)[i].score += t.prox_weight * bonus[(*ranked)[i].chunk_id];
  std::stable_sort(ranked->begin(), ranked->begin() + static_cast<long>(top),
                   [](const ScoredDoc& a, const ScoredDoc& b) { return a.score > b.score; });
  return Status::Ok();
}

Result<std::vector<ScoredDoc>> RankWithFeedback(Corpus& corpus, const KeywordIndex& index, const SearchOptions& o,
                                                size_t limit) {
  const KeywordTuning& t = o.tuning;
  if (t.prf_docs <= 0 || t.prf_terms <= 0 || t.prf_lambda >= 1) return index.Rank(o, limit);
  UMWELT_ASSIGN_OR_RETURN(auto first, index.Rank(o, std::max(limit, static_cast<size_t>(t.prf_docs))));
  std::vector<int64_t> ids;
  double total_score = 0;
  for (size_t i = 0; i < first.size() && ids.size() < static_cast<size_t>(t.prf_docs); ++i) {
    if (!first[i].exact) break;  // expansion-only matches are too loose to learn from
    ids.push_back(first[i].chunk_id);
    total_score += first[i].score;
  }
  if (ids.empty() || total_score <= 0) {
    if (first.size() > limit) first.resize(limit);
    return first;
  }
  UMWELT_ASSIGN_OR_RETURN(auto chunks, corpus.ChunksById(ids));
  std::unordered_map<int64_t, double> score_of;
  for (const auto& d : first) score_of.emplace(d.chunk_id, d.score / total_score);
  // The relevance model: each term's share of each chunk, weighted by the
  // chunk's share of the scores.
  std::unordered_map<std::string, double> model;
  for (const auto& c : chunks) {
    std::vector<std::string> tokens = Tokenize(c.title + "\n" + c.text);
    if (tokens.empty()) continue;
    double w = score_of[c.id] / static_cast<double>(tokens.size());
    for (const auto& tok : tokens) model[StemWord(tok)] += w;
  }
  const double max_df = kFeedbackMaxDf * static_cast<double>(index.num_docs());
  // Candidates in order of weight times idf, so that the words every text
  // uses ("the", "of") do not crowd out the ones these chunks are about.
  struct Candidate {
    std::string term;
    double weight, rank;
  };
  std::vector<Candidate> candidates;
  const double n = static_cast<double>(index.num_docs());
  for (auto& [term, weight] : model) {
    double df = static_cast<double>(index.DocFrequency(term));
    if (df < 2 || df > max_df) continue;  // in one chunk only (nothing to find), or in most
    candidates.push_back({term, weight, weight * std::log(n / df)});
  }
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return a.rank != b.rank ? a.rank > b.rank : a.term < b.term;
  });
  if (candidates.size() > static_cast<size_t>(t.prf_terms)) candidates.resize(static_cast<size_t>(t.prf_terms));
  SearchOptions expanded = o;
  double kept = 0;
  for (auto& c : candidates) {
    expanded.extra_terms.emplace_back(c.term, c.weight);
    kept += c.weight;
  }
  if (kept <= 0) {
    if (first.size() > limit) first.resize(limit);
    return first;
  }
  // Interpolate: the original query keeps `prf_lambda` of the weight (its
  // words count one each), the feedback terms share the rest.
  const double words = static_cast<double>(Tokenize(o.query).size());
  const double lambda = std::max(t.prf_lambda, 0.05);
  const double scale = (1 - lambda) / lambda * words / kept;
  for (auto& [term, weight] : expanded.extra_terms) weight *= scale;
  return index.Rank(expanded, limit);
}

}  // namespace

Result<std::vector<ScoredDoc>> RankKeyword(Corpus& corpus, const KeywordIndex& index, const SearchOptions& o,
                                           size_t limit) {
  if (o.tuning.prox_docs <= 0) return RankWithFeedback(corpus, index, o, limit);
  // Rescore the top `prox_docs`, however few the caller keeps.
  UMWELT_ASSIGN_OR_RETURN(auto ranked,
                          RankWithFeedback(corpus, index, o, std::max(limit, static_cast<size_t>(o.tuning.prox_docs))));
  UMWELT_RETURN_IF_ERROR(AddProximity(corpus, index, o, &ranked));
  if (ranked.size() > limit) ranked.resize(limit);
  return ranked;
}

Result<std::vector<Hit>> Search(Corpus& corpus, const KeywordIndex& index, const SearchOptions& o) {
  if (o.k <= 0) return Status::Invalid("-k must be positive, got " + std::to_string(o.k));
  UMWELT_ASSIGN_OR_RETURN(auto ranked, RankKeyword(corpus, index, o, static_cast<size_t>(o.k)));
  return LoadHits(corpus, ranked, o.query);
}

std::vector<ThreadGroup> GroupByThread(const std::vector<Hit>& hits, size_t limit, size_t per_thread) {
  std::vector<ThreadGroup> groups;
  std::unordered_map<std::string, size_t> index;
  std::vector<double> weight;  // what the thread's next hit counts
  for (size_t rank = 0; rank < hits.size(); ++rank) {
    const Hit& h = hits[rank];
    const std::string& thread = h.parent.empty() ? h.ref : h.parent;
    auto [it, fresh] = index.emplace(thread, groups.size());
    if (fresh) {
      ThreadGroup g;
      g.thread = thread;
      g.title = h.title;
      g.url = h.url.substr(0, h.url.find('#'));
      groups.push_back(std::move(g));
      weight.push_back(1.0);
    }
    ThreadGroup& g = groups[it->second];
    g.score += weight[it->second] / (60.0 + static_cast<double>(rank + 1));
    weight[it->second] /= 2;
    if (h.ref == thread) g.url = h.url, g.title = h.title.empty() ? g.title : h.title;  // the opening post names it
    if (g.hits.size() < per_thread) g.hits.push_back(h);
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const ThreadGroup& a, const ThreadGroup& b) { return a.score > b.score; });
  if (groups.size() > limit) groups.resize(limit);
  return groups;
}

Result<std::vector<Hit>> LoadHits(Corpus& corpus, const std::vector<ScoredDoc>& ranked, const std::string& query) {
  std::vector<int64_t> ids;
  ids.reserve(ranked.size());
  for (const auto& r : ranked) ids.push_back(r.chunk_id);
  UMWELT_ASSIGN_OR_RETURN(auto chunks, corpus.ChunksById(ids));
  std::unordered_map<int64_t, size_t> pos;
  for (size_t i = 0; i < chunks.size(); ++i) pos[chunks[i].id] = i;
  // The query's words and their stems: "checkpoints" finds its snippet at
  // "Checkpointer" as the ranking did.
  std::vector<std::string> words = Tokenize(query);
  for (size_t i = 0, n = words.size(); i < n; ++i) {
    std::string stem = StemWord(words[i]);
    if (stem != words[i] && stem.size() >= 3) words.push_back(std::move(stem));
  }
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
