// The aspect a record's title names (extractive.h, AspectOf): the short
// heading of a facet of the extractive report.
#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>

#include "extractive.h"
#include "umwelt/claims.h"
#include "umwelt/search.h"
#include "umwelt/text.h"

namespace umwelt::research_internal {

using research::ContentWords;
using research::MatchForm;

std::string AspectOf(const std::string& title, const std::vector<std::string>& question,
                     const std::vector<std::string>& project) {
  // Words that say a change happened, not what it is about.
  static const std::set<std::string> change = {
      "add", "adds", "added", "adding", "fix", "fixes", "fixed", "fixing", "include", "includes", "support",
      "supports", "supported", "update", "updates", "updated", "use", "uses", "using", "implement", "implements",
      "implemented", "remove", "removes", "removed", "allow", "allows", "make", "makes", "enable", "enables",
      "simple", "new", "initial", "basic", "better", "improve", "improves", "improved", "refactor", "refactors",
      "bump", "bumps", "introduce", "introduces", "switch", "move", "moves", "clean", "cleanup", "tweak", "tweaks",
      "minor", "small", "various", "misc", "wip", "try", "get", "revert", "reland", "merge", "branch", "pull",
      "request", "commit", "pr", "first", "another", "bunch", "stuff", "thing", "things", "way", "ways", "work"};
  std::set<std::string> asked;
  for (const auto& q : question) {
    for (const auto& w : SplitList(MatchForm(q), ' ')) {
      asked.insert(StemWord(w));
      asked.insert(w);
    }
    asked.insert(Joined(MatchForm(q)));
  }
  std::string t = CollapseWhitespace(title);
  if (t.rfind("Merge pull request", 0) == 0 || t.rfind("Merge branch", 0) == 0) return "";
  while (!t.empty() && t.front() == '[') {  // "[Reland] [BE] Add X"
    size_t close = t.find(']');
    if (close == std::string::npos) break;
    t = CollapseWhitespace(t.substr(close + 1));
  }
  // "fix: x", "feat(scope): x": the prefix is the kind of change.
  if (size_t colon = t.find(": "); colon != std::string::npos && colon <= 24 &&
                                   t.substr(0, colon).find(' ') == std::string::npos) {
    t = t.substr(colon + 2);
  }
  // A commit message's subject can run on: its first clause names it.
  for (std::string_view cut : {" (", "; ", " — ", " - ", ". "}) {
    if (size_t at = t.find(cut); at != std::string::npos && at > 0) t.resize(at);
  }
  std::vector<std::vector<std::string>> runs(1);
  std::vector<int> news;  // each run's words that are not the question's
  for (const auto& raw : SplitList(t, ' ')) {
    std::string w = raw;
    auto punct = [](char c) { return std::string_view(",.;:!?\"'()[]{}`*").find(c) != std::string_view::npos; };
    bool ends_clause = !w.empty() && std::string_view(",;:!?)").find(w.back()) != std::string_view::npos;
    while (!w.empty() && punct(w.front())) w.erase(w.begin());
    while (!w.empty() && punct(w.back())) w.pop_back();
    std::string lower = ToLower(w);
    std::string joined = Joined(lower);
    bool has_letter = std::any_of(lower.begin(), lower.end(), [](char c) {
      return std::isalpha(static_cast<unsigned char>(c)) != 0;
    });
    bool breaks = !has_letter || lower.find('/') != std::string::npos || lower.find('#') != std::string::npos ||
                  lower.find('.') != std::string::npos || ContentWords(lower).empty() || change.count(lower) ||
                  std::find(project.begin(), project.end(), lower) != project.end();
    if (breaks) {
      if (!runs.back().empty()) runs.emplace_back();
      continue;
    }
    runs.back().push_back(w);
    news.resize(runs.size());
    news.back() += !(asked.count(lower) || asked.count(joined) || asked.count(StemWord(lower)));
    if (ends_clause) runs.emplace_back();
  }
  news.resize(runs.size());
  // The run with the most words the question does not have, then the
  // longest ("pipeline parallelism" before "tensor"); the first of equals.
  size_t best = runs.size();
  for (size_t i = 0; i < runs.size(); ++i) {
    if (news[i] > 0 && (best == runs.size() || news[i] > news[best] ||
                        (news[i] == news[best] && runs[i].size() > runs[best].size()))) {
      best = i;
    }
  }
  if (best == runs.size()) return "";
  const std::vector<std::string>* run = &runs[best];
  // The head of an English noun phrase comes last: keep the last four.
  size_t from = run->size() > 4 ? run->size() - 4 : 0;
  std::string out;
  for (size_t i = from; i < run->size(); ++i) out += (out.empty() ? "" : " ") + (*run)[i];
  if (std::islower(static_cast<unsigned char>(out[0]))) {
    out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  }
  return out;
}

NamesFacet NamesQuery(const std::string& question, const std::vector<std::string>& names,
                      const std::vector<std::string>& widespread) {
  NamesFacet out;
  const std::string lower = ToLower(question);
  for (const std::string& n : names) {
    if (std::find(widespread.begin(), widespread.end(), n) != widespread.end()) continue;
    std::vector<std::string> alts = SplitList(n, '|');
    // The alternatives the question says ("png svg"), less one inside
    // another ("rotat" of "rotate") or sharing a word with it ("os x" of
    // "mac os x").
    std::string given = " ";
    for (const auto& a : alts) {
      std::vector<std::string> words = SplitList(a, ' ');
      bool shares =
          given.find(a) != std::string::npos || std::any_of(words.begin(), words.end(), [&](const auto& w) {
            return given.find(" " + w + " ") != std::string::npos;
          });
      if (lower.find(a) != std::string::npos && !shares) given += a + " ";
    }
    given = given.size() > 1 ? given.substr(1, given.size() - 2) : "";
    out.heading += (out.heading.empty() ? "" : " ") + (given.empty() ? alts.front() : given);
    for (const auto& a : alts) {
      bool stem = std::any_of(alts.begin(), alts.end(), [&](const auto& o) { return o != a && o.starts_with(a); });
      if (!stem) out.query += (out.query.empty() ? "" : " ") + a;
    }
  }
  return out;
}

}  // namespace umwelt::research_internal
