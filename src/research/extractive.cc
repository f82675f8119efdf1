// The report `ask` writes without a model (see extractive.h).
#include "extractive.h"

#include <algorithm>
#include <regex>
#include <set>

#include "umwelt/claims.h"
#include "umwelt/text.h"

namespace umwelt::research_internal {
namespace {

using research::BestSentence;
using research::ContentWords;
using research::Neutralize;
using research::Sentences;

std::string Quote(const std::string& text, size_t max) { return Neutralize(std::string(TruncateUtf8(CollapseWhitespace(text), max))); }

std::string Cite(const Evidence& e) {
  std::string who = e.author.empty() ? e.source : e.author;
  return "[" + Cell(who) + ", " + e.date.substr(0, 10) + "](" + e.url + ")";
}

// A statement quoted with its attribution in one paragraph (the check reads
// a paragraph and its citation together).
std::string QuoteLine(const std::string& statement, size_t max, const std::string& attribution) {
  return "> " + Quote(statement, max) + " — " + attribution + "\n\n";
}

}  // namespace

std::string Cell(const std::string& s) { return Neutralize(CollapseWhitespace(s)); }

std::string CodeSpan(std::string s) {
  std::replace(s.begin(), s.end(), '`', '\'');
  return "`" + CollapseWhitespace(s) + "`";
}

std::string Extractive(const std::string& question, const std::vector<Facet>& facets, const std::vector<Evidence>& ev,
                       bool found, const std::vector<std::string>& keys, bool abstain) {
  std::vector<std::string> terms = ContentWords(question);
  std::string md = "# " + Cell(std::string(TruncateUtf8(question, 200))) + "\n\n";
  md += "> **Extractive answer.** No language model was used: the statements below are quoted from the corpus "
        "with their authors, dates and links, chosen and ordered by relevance:\n\n";
  if (!found) {
    md += "## Short answer\n\nThe corpus holds nothing that answers this question. Searched:\n\n";
    for (const auto& f : facets) md += "- " + CodeSpan(f.query) + (f.code ? " (code)" : "") + "\n";
    md += "\n";
    return md;
  }
  const research::AnswerType type = research::AnswerTypeOf(question);
  // Each record's statement: the sentence that best answers this kind of question.
  std::vector<const Evidence*> prose;
  std::map<const Evidence*, std::string> statement_of;
  for (const auto& e : ev) {
    if (!e.lane.empty() || !e.superseded_by.empty()) continue;
    std::string s = BestSentence(e.text, terms, type);
    if (s.empty()) continue;
    prose.push_back(&e);
    statement_of[&e] = std::move(s);
  }
  // Short answer: records naming more of the question's key constraints
  // first, then those whose statement speaks of the question, then those
  // whose statement is the kind of answer asked for (a
  // number near the question's words, a dated event), then close-outs, then
  // the best-ranked statements.
  auto named_here = [&](const Evidence* e) {
    std::string lower = ToLower(e->author + "\n" + e->title + "\n" + e->text);
    return std::count_if(keys.begin(), keys.end(), [&](const std::string& k) { return lower.find(k) != std::string::npos; });
  };
  auto fits = [&](const Evidence* e) {
    return type != research::AnswerType::kOther && research::AnswerFit(statement_of[e], type, terms) >= 1.5;
  };
  // Whether the quoted statement itself speaks of the question (a long record
  // can name it in one place and say something else in its best sentence).
  auto on_topic = [&](const Evidence* e) {
    std::string lower = ToLower(statement_of[e]);
    const auto& words = keys.empty() ? terms : keys;
    return std::any_of(words.begin(), words.end(), [&](const std::string& w) { return lower.find(w) != std::string::npos; });
  };
  std::stable_sort(prose.begin(), prose.end(), [&](const Evidence* a, const Evidence* b) {
    auto na = named_here(a), nb = named_here(b);
    if (na != nb) return na > nb;
    bool ta = on_topic(a), tb = on_topic(b);
    if (ta != tb) return ta;
    bool fa = fits(a), fb = fits(b);
    if (fa != fb) return fa;
    return a->closeout != b->closeout ? a->closeout : a->score > b->score;
  });
  md += "## Short answer\n\n";
  if (abstain) {
    std::vector<std::string> named;
    for (const auto& m : keys) named.push_back(CodeSpan(m));
    std::string list;
    for (size_t i = 0; i < named.size(); ++i) list += (i ? (i + 1 == named.size() ? " and " : ", ") : "") + named[i];
    md += "The corpus does not state this. No record mentions " + list +
          " together; the closest records follow, and none of them answers the question:\n\n";
    md += "## Related records (not an answer)\n\n";
    for (size_t i = 0; i < prose.size() && i < 6; ++i) {
      const Evidence& e = *prose[i];
      md += QuoteLine(statement_of[&e], 320, Cite(e) + " · " + Cell(std::string(TruncateUtf8(e.title, 90))));
    }
    md += "## Caveats\n\n- The search looked for records naming all of the question's key terms together and found "
          "none; a record may say it in other words ([the closest record](" +
          (prose.empty() ? ev.front().url : prose.front()->url) + ")).\n";
    return md;
  }
  // The best four, and up to eight when each names every key constraint in
  // a statement on the question:
  // one statement per thread, chosen by maximal marginal relevance (rank
  // against overlap with the statements already chosen), so the answer spans
  // what the threads say rather than repeating one thing.
  std::set<std::string> answer_threads;
  std::vector<const Evidence*> chosen;
  {
    std::vector<std::set<std::string>> words;
    for (const Evidence* e : prose) {  // what a statement adds beyond the question's own words
      words.emplace_back();
      for (auto& w : ContentWords(statement_of[e])) {
        if (std::find(terms.begin(), terms.end(), w) == terms.end()) words.back().insert(std::move(w));
      }
    }
    auto overlap = [&](size_t a, size_t b) {
      size_t both = 0;
      for (const auto& w : words[a]) both += words[b].count(w);
      size_t either = words[a].size() + words[b].size() - both;
      return either ? static_cast<double>(both) / static_cast<double>(either) : 1.0;
    };
    std::vector<size_t> picked;
    while (picked.size() < 8) {
      double best = -1e9;
      size_t pick = prose.size();
      long tier = -1;  // diversity chooses within the best tier left, never across tiers
      for (size_t i = 0; i < prose.size(); ++i) {
        const Evidence* e = prose[i];
        if (answer_threads.count(e->thread)) continue;
        if (picked.size() >= 4 && (keys.empty() || named_here(e) < static_cast<long>(keys.size()) || !on_topic(e))) continue;
        long t = named_here(e) * 2 + on_topic(e);
        if (tier < 0) tier = t;  // prose is sorted, so the first candidate has the best tier
        if (t < tier) break;
        double redundancy = 0;
        for (size_t j : picked) redundancy = std::max(redundancy, overlap(i, j));
        double mmr = 0.7 * (1.0 - static_cast<double>(i) / static_cast<double>(prose.size())) - 0.3 * redundancy;
        if (mmr > best) {
          best = mmr;
          pick = i;
        }
      }
      if (pick == prose.size()) break;
      picked.push_back(pick);
      answer_threads.insert(prose[pick]->thread);
      chosen.push_back(prose[pick]);
    }
  }
  // A "when" question reads in date order: the earliest event first.
  if (type == research::AnswerType::kWhen) {
    std::stable_sort(chosen.begin(), chosen.end(), [](const Evidence* a, const Evidence* b) { return a->date < b->date; });
    md += "In date order, earliest first:\n\n";
  }
  for (const Evidence* e : chosen) {
    md += "- " + Quote(statement_of[e], 320) + " — " + Cite(*e) + (e->closeout ? " (the thread's close-out)" : "") + "\n";
  }
  // Numbers near the question's words, in statements only: any that can
  // answer a quantity question, those with a unit otherwise; none for "when".
  std::string table;
  int rows = 0;
  for (const auto* e : prose) {
    if (type == research::AnswerType::kWhen) break;
    for (const auto& s : Sentences(e->text)) {
      if (rows >= 12) break;
      if (!research::IsStatement(s)) continue;
      std::string lower = ToLower(s);
      if (std::none_of(terms.begin(), terms.end(), [&](const std::string& t) { return lower.find(t) != std::string::npos; })) {
        continue;
      }
      std::string value;
      for (const auto& n : research::AnsweringNumbers(s, terms)) {
        if (type == research::AnswerType::kQuantity || !research::UnitOf(n).empty()) {
          value = n;
          break;
        }
      }
      if (value.empty()) continue;
      table += "| " + Cell(value) + " | " + Quote(s, 160) + " | " + Cite(*e) + " |\n";
      ++rows;
    }
  }
  if (!table.empty()) md += "\n| value | statement | source |\n|---|---|---|\n" + table;
  md += "\n";
  // "When / how did X evolve?": the records on X in date order, one per thread.
  static const std::regex evolve(
      R"(\b(evolve[sd]?|evolution|history|timeline|over time|changed over|progress(ed)?|came about|developed)\b)",
      std::regex::icase);
  if (std::regex_search(question, evolve)) {
    std::vector<const Evidence*> dated;
    std::set<std::string> seen_threads;
    for (const auto& e : ev) {
      if (!e.lane.empty() || e.date.empty()) continue;
      std::string lower = ToLower(e.author + "\n" + e.title + "\n" + e.text);
      int hits = 0;
      for (const auto& t : terms) hits += lower.find(t) != std::string::npos;
      bool on_topic = keys.empty() ? hits >= std::min<int>(2, static_cast<int>(terms.size())) : named_here(&e) > 0;
      if (on_topic && seen_threads.insert(e.thread).second) dated.push_back(&e);
    }
    std::stable_sort(dated.begin(), dated.end(), [](const Evidence* a, const Evidence* b) { return a->date < b->date; });
    if (dated.size() >= 2) {
      md += "## Timeline\n\n";
      for (size_t i = 0; i < dated.size() && i < 15; ++i) {
        const Evidence& e = *dated[i];
        md += "- " + e.date.substr(0, 10) + " — [" + Cell(std::string(TruncateUtf8(e.title.empty() ? e.thread : e.title, 120))) +
              "](" + e.url + ")" + (e.author.empty() ? "" : " (" + Cell(e.author) + ")") + "\n";
      }
      md += "\n";
    }
  }
  // One section per facet: its best statements, quoted; a facet no record
  // answers (its own key constraints never together) shows them as related.
  std::set<std::string> quoted;
  for (const auto& f : facets) {
    if (f.code) continue;
    std::string section;
    int n = 0;
    std::vector<std::string> keys = research::WithoutProjectNames(research::KeyConstraints(f.name + " " + f.query), ev);
    bool answered = keys.empty();
    for (const auto& e : ev) {
      if (e.facet != f.name || !e.lane.empty() || n >= 3 || quoted.count(e.url)) continue;
      std::string statement = BestSentence(e.text, terms, type);
      if (statement.empty()) continue;
      quoted.insert(e.url);
      answered |= research::MentionsAll(e.author + "\n" + e.title + "\n" + e.text, keys);
      section += QuoteLine(statement, 400,
                           Cite(e) + (e.thread_state.empty() ? "" : " · thread " + e.thread_state) +
                               (e.superseded_by.empty() ? "" : " · superseded by [a later statement](" + e.superseded_by + ")"));
      ++n;
    }
    if (!section.empty()) md += "## " + Cell(f.name) + (answered ? "" : " (related records)") + "\n\n" + section;
  }
  std::string linked;
  for (const auto& e : ev) {
    if (e.facet == "Linked pages" && linked.size() < 3000) {
      std::string statement = BestSentence(e.text, terms, type);
      if (!statement.empty()) linked += QuoteLine(statement, 400, "[" + Cell(e.title) + "](" + e.url + ")");
    }
  }
  if (!linked.empty()) md += "## Linked pages\n\n" + linked;
  // The rest of what the search found, one line per thread, so a reader can
  // follow every record the answer rests on.
  std::string further;
  std::set<std::string> shown_threads;
  for (const auto& e : ev) {
    if (quoted.count(e.url)) shown_threads.insert(e.thread);
  }
  shown_threads.insert(answer_threads.begin(), answer_threads.end());
  int further_n = 0;
  for (const auto& e : ev) {  // in rank order; a record with no statement still has a title
    if (!e.lane.empty() || further_n >= 12 || e.facet == "Linked pages" || !shown_threads.insert(e.thread).second) continue;
    further += "- [" + Cell(std::string(TruncateUtf8(e.title.empty() ? e.thread : e.title, 120))) + "](" + e.url + ") — " +
               Cell(e.author) + ", " + e.date.substr(0, 10) + "\n";
    ++further_n;
  }
  if (!further.empty()) md += "## Further records\n\n" + further + "\n";
  std::string main, branch;
  for (const auto& e : ev) {
    if (e.lane == "main" && main.size() < 2000) main += "- [" + Cell(e.title) + "](" + e.url + ")\n";
    if (e.lane == "branch" && branch.size() < 2000) {
      branch += "- [" + Cell(e.title) + "](" + e.url + ") by " + Cell(e.author) + ", " + e.date.substr(0, 10) + "\n";
    }
  }
  if (!main.empty()) md += "## Code on the default branch\n\n" + main + "\n";
  if (!branch.empty()) md += "## In flight on branches (not what main does)\n\n" + branch + "\n";
  std::string open;
  std::set<std::string> threads;
  for (const auto& e : ev) {
    if (e.thread_state == "open" && (e.source == "github") && threads.insert(e.thread).second && threads.size() <= 8) {
      open += "- " + Cell(e.title) + " — open ([" + Cell(e.thread) + "](" + e.url + "))\n";
    }
  }
  if (!open.empty()) md += "## Open questions\n\nThese threads are still open:\n\n" + open + "\n";
  md += "## Caveats\n\n- This answer quotes the corpus and does not reason beyond it; read the linked threads "
        "before relying on a number ([the top source](" + (prose.empty() ? ev.front().url : prose.front()->url) + ")).\n";
  return md;
}


}  // namespace umwelt::research_internal
