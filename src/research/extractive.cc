// The report `ask` writes without a model (see extractive.h).
#include "extractive.h"

#include <algorithm>
#include <map>
#include <set>

#include "umwelt/pattern.h"
#include "umwelt/claims.h"
#include "umwelt/source_traits.h"
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

namespace {

// The extractive report on one question, a method per section. The records
// with a statement (`prose_`) are ranked once; the sections read them.
class ExtractiveReport {
 public:
  ExtractiveReport(const std::string& question, const std::vector<Facet>& facets, const std::vector<Evidence>& ev,
                   const std::vector<std::string>& keys)
      : question_(question),
        facets_(facets),
        ev_(ev),
        keys_(keys),
        texts_(research::EvidenceTexts(ev)),
        terms_(ContentWords(question)),
        type_(research::AnswerTypeOf(question)) {}

  std::string Write(bool found, bool abstain) {
    std::string md = "# " + Cell(std::string(TruncateUtf8(question_, 200))) + "\n\n";
    md += "> **Extractive answer.** No language model was used: the statements below are quoted from the corpus "
          "with their authors, dates and links, chosen and ordered by relevance:\n\n";
    if (!found) return md + NothingFound();
    RankStatements();
    md += "## Short answer\n\n";
    if (abstain) return md + Abstention();
    Choose();
    // One section at a time: later ones depend on what earlier ones quoted.
    md += ShortAnswer();
    md += NumbersTable() + "\n";
    md += Timeline();
    std::set<std::string> quoted;
    md += FacetSections(&quoted);
    md += LinkedPages();
    md += FurtherRecords(quoted);
    md += CodeLanes();
    md += OpenQuestions();
    md += "## Caveats\n\n- This answer quotes the corpus and does not reason beyond it; read the linked threads "
          "before relying on a number ([the top source](" + TopUrl() + ")).\n";
    return md;
  }

 private:
  std::string NothingFound() const {
    std::string md = "## Short answer\n\nThe corpus holds nothing that answers this question. Searched:\n\n";
    for (const auto& f : facets_) md += "- " + CodeSpan(f.query) + (f.code ? " (code)" : "") + "\n";
    return md + "\n";
  }

  const std::string& StatementOf(const Evidence* e) const {
    static const std::string kNone;
    auto it = statement_of_.find(e);
    return it == statement_of_.end() ? kNone : it->second;
  }

  // How many of the question's key constraints a record names.
  long NamedHere(const Evidence* e) const {
    std::string form = research::MatchForm(e->author + "\n" + e->title + "\n" + e->text);
    return std::count_if(keys_.begin(), keys_.end(), [&](const std::string& k) { return research::Mentions(form, k); });
  }
  // Whether a record's statement is the kind of answer asked for.
  bool Fits(const Evidence* e) const {
    return type_ != research::AnswerType::kOther && research::AnswerFit(StatementOf(e), type_, terms_) >= 1.5;
  }
  // Whether the quoted statement itself speaks of the question (a long record
  // can name it in one place and say something else in its best sentence).
  bool OnTopic(const Evidence* e) const {
    std::string form = research::MatchForm(StatementOf(e));
    const auto& words = keys_.empty() ? terms_ : keys_;
    return std::any_of(words.begin(), words.end(), [&](const std::string& w) { return research::Mentions(form, w); });
  }
  std::string TopUrl() const { return prose_.empty() ? ev_.front().url : prose_.front()->url; }

  // Each record's statement: the sentence that best answers this kind of
  // question. Ranked: records naming more of the question's key constraints
  // first, then those whose statement speaks of the question, then those
  // whose statement is the kind of answer asked for (a number near the
  // question's words, a dated event), then close-outs, then the best-ranked
  // statements.
  void RankStatements() {
    for (const auto& e : ev_) {
      if (!e.lane.empty() || !e.superseded_by.empty()) continue;
      std::string s = BestSentence(e.text, terms_, type_);
      if (s.empty()) continue;
      prose_.push_back(&e);
      statement_of_[&e] = std::move(s);
    }
    std::stable_sort(prose_.begin(), prose_.end(), [&](const Evidence* a, const Evidence* b) {
      auto na = NamedHere(a), nb = NamedHere(b);
      if (na != nb) return na > nb;
      bool ta = OnTopic(a), tb = OnTopic(b);
      if (ta != tb) return ta;
      bool fa = Fits(a), fb = Fits(b);
      if (fa != fb) return fa;
      return a->closeout != b->closeout ? a->closeout : a->score > b->score;
    });
  }

  // The key constraints never meet: the closest records, as related only.
  std::string Abstention() const {
    std::vector<std::string> named;
    for (const auto& m : keys_) named.push_back(CodeSpan(research::Shown(m)));
    std::string list;
    for (size_t i = 0; i < named.size(); ++i) list += (i ? (i + 1 == named.size() ? " and " : ", ") : "") + named[i];
    std::string md = "The corpus does not state this. No record mentions " + list +
                     " together; the closest records follow, and none of them answers the question:\n\n";
    md += "## Related records (not an answer)\n\n";
    for (size_t i = 0; i < prose_.size() && i < 6; ++i) {
      const Evidence& e = *prose_[i];
      md += QuoteLine(StatementOf(&e), 320, Cite(e) + " · " + Cell(std::string(TruncateUtf8(e.title, 90))));
    }
    md += "## Caveats\n\n- The search looked for records naming all of the question's key terms together and found "
          "none; a record may say it in other words ([the closest record](" + TopUrl() + ")).\n";
    return md;
  }

  // The best four, and up to eight when each names every key constraint in
  // a statement on the question: one statement per thread, chosen by maximal
  // marginal relevance (rank against overlap with the statements already
  // chosen), so the answer spans what the threads say rather than repeating
  // one thing.
  void Choose() {
    std::vector<std::set<std::string>> words;
    for (const Evidence* e : prose_) {  // what a statement adds beyond the question's own words
      words.emplace_back();
      for (auto& w : ContentWords(StatementOf(e))) {
        if (std::find(terms_.begin(), terms_.end(), w) == terms_.end()) words.back().insert(std::move(w));
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
      size_t pick = prose_.size();
      long tier = -1;  // diversity chooses within the best tier left, never across tiers
      for (size_t i = 0; i < prose_.size(); ++i) {
        const Evidence* e = prose_[i];
        if (answer_threads_.count(e->thread)) continue;
        if (picked.size() >= 4 && (keys_.empty() || NamedHere(e) < static_cast<long>(keys_.size()) || !OnTopic(e))) continue;
        long t = NamedHere(e) * 2 + OnTopic(e);
        if (tier < 0) tier = t;  // prose is sorted, so the first candidate has the best tier
        if (t < tier) break;
        double redundancy = 0;
        for (size_t j : picked) redundancy = std::max(redundancy, overlap(i, j));
        double mmr = 0.7 * (1.0 - static_cast<double>(i) / static_cast<double>(prose_.size())) - 0.3 * redundancy;
        if (mmr > best) {
          best = mmr;
          pick = i;
        }
      }
      if (pick == prose_.size()) break;
      picked.push_back(pick);
      answer_threads_.insert(prose_[pick]->thread);
      chosen_.push_back(prose_[pick]);
    }
  }

  // The chosen statements; a "when" question reads in date order, the
  // earliest event first.
  std::string ShortAnswer() {
    std::string md;
    if (type_ == research::AnswerType::kWhen) {
      std::stable_sort(chosen_.begin(), chosen_.end(), [](const Evidence* a, const Evidence* b) { return a->date < b->date; });
      md += "In date order, earliest first:\n\n";
    }
    for (const Evidence* e : chosen_) {
      md += "- " + Quote(StatementOf(e), 320) + " — " + Cite(*e) + (e->closeout ? " (the thread's close-out)" : "") + "\n";
    }
    return md;
  }

  // Numbers near the question's words, in statements only: any that can
  // answer a quantity question, those with a unit otherwise; none for "when".
  std::string NumbersTable() const {
    if (type_ == research::AnswerType::kWhen) return "";
    std::string table;
    int rows = 0;
    for (const auto* e : prose_) {
      for (const auto& s : Sentences(e->text)) {
        if (rows >= 12) break;
        if (!research::IsStatement(s)) continue;
        std::string lower = ToLower(s);
        if (std::none_of(terms_.begin(), terms_.end(), [&](const std::string& t) { return lower.find(t) != std::string::npos; })) {
          continue;
        }
        std::string value;
        for (const auto& n : research::AnsweringNumbers(s, terms_)) {
          if (type_ == research::AnswerType::kQuantity || !research::UnitOf(n).empty()) {
            value = n;
            break;
          }
        }
        if (value.empty()) continue;
        table += "| " + Cell(value) + " | " + Quote(s, 160) + " | " + Cite(*e) + " |\n";
        ++rows;
      }
    }
    return table.empty() ? "" : "\n| value | statement | source |\n|---|---|---|\n" + table;
  }

  // "When / how did X evolve?": the records on X in date order, one per thread.
  std::string Timeline() const {
    static const Pattern evolve(
        R"(\b(evolve[sd]?|evolution|history|timeline|over time|changed over|progress(ed)?|came about|developed)\b)",
        Pattern::kIgnoreCase);
    if (!evolve.Search(question_)) return "";
    std::vector<const Evidence*> dated;
    std::set<std::string> seen_threads;
    for (const auto& e : ev_) {
      if (!e.lane.empty() || e.date.empty()) continue;
      std::string lower = ToLower(e.author + "\n" + e.title + "\n" + e.text);
      int hits = 0;
      for (const auto& t : terms_) hits += lower.find(t) != std::string::npos;
      bool on_topic = keys_.empty() ? hits >= std::min<int>(2, static_cast<int>(terms_.size())) : NamedHere(&e) > 0;
      if (on_topic && seen_threads.insert(e.thread).second) dated.push_back(&e);
    }
    std::stable_sort(dated.begin(), dated.end(), [](const Evidence* a, const Evidence* b) { return a->date < b->date; });
    if (dated.size() < 2) return "";
    std::string md = "## Timeline\n\n";
    for (size_t i = 0; i < dated.size() && i < 15; ++i) {
      const Evidence& e = *dated[i];
      md += "- " + e.date.substr(0, 10) + " — [" + Cell(std::string(TruncateUtf8(e.title.empty() ? e.thread : e.title, 120))) +
            "](" + e.url + ")" + (e.author.empty() ? "" : " (" + Cell(e.author) + ")") + "\n";
    }
    return md + "\n";
  }

  // One section per facet: its best statements, quoted; a facet no record
  // answers (its own key constraints never together) shows them as related.
  // `quoted`: the records quoted, filled in.
  std::string FacetSections(std::set<std::string>* quoted) const {
    std::string md;
    for (const auto& f : facets_) {
      if (f.code) continue;
      std::string section;
      int n = 0;
      std::vector<std::string> keys = research::WithVariants(
          research::WithoutProjectNames(research::KeyConstraints(f.name + " " + f.query), ev_), texts_);
      bool answered = keys.empty();
      for (const auto& e : ev_) {
        if (e.facet != f.name || !e.lane.empty() || n >= 3 || quoted->count(e.url)) continue;
        std::string statement = BestSentence(e.text, terms_, type_);
        if (statement.empty()) continue;
        quoted->insert(e.url);
        answered |= research::MentionsAll(e.author + "\n" + e.title + "\n" + e.text, keys);
        section += QuoteLine(statement, 400,
                             Cite(e) + (e.thread_state.empty() ? "" : " · thread " + e.thread_state) +
                                 (e.superseded_by.empty() ? "" : " · superseded by [a later statement](" + e.superseded_by + ")"));
        ++n;
      }
      if (!section.empty()) md += "## " + Cell(f.name) + (answered ? "" : " (related records)") + "\n\n" + section;
    }
    return md;
  }

  std::string LinkedPages() const {
    std::string linked;
    for (const auto& e : ev_) {
      if (e.facet == "Linked pages" && linked.size() < 3000) {
        std::string statement = BestSentence(e.text, terms_, type_);
        if (!statement.empty()) linked += QuoteLine(statement, 400, "[" + Cell(e.title) + "](" + e.url + ")");
      }
    }
    return linked.empty() ? "" : "## Linked pages\n\n" + linked;
  }

  // The rest of what the search found, one line per thread, so a reader can
  // follow every record the answer rests on.
  std::string FurtherRecords(const std::set<std::string>& quoted) const {
    std::string further;
    std::set<std::string> shown_threads;
    for (const auto& e : ev_) {
      if (quoted.count(e.url)) shown_threads.insert(e.thread);
    }
    shown_threads.insert(answer_threads_.begin(), answer_threads_.end());
    int further_n = 0;
    for (const auto& e : ev_) {  // in rank order; a record with no statement still has a title
      if (!e.lane.empty() || further_n >= 12 || e.facet == "Linked pages" || !shown_threads.insert(e.thread).second) continue;
      further += "- [" + Cell(std::string(TruncateUtf8(e.title.empty() ? e.thread : e.title, 120))) + "](" + e.url + ") — " +
                 Cell(e.author) + ", " + e.date.substr(0, 10) + "\n";
      ++further_n;
    }
    return further.empty() ? "" : "## Further records\n\n" + further + "\n";
  }

  std::string CodeLanes() const {
    std::string main, branch;
    for (const auto& e : ev_) {
      if (e.lane == "main" && main.size() < 2000) main += "- [" + Cell(e.title) + "](" + e.url + ")\n";
      if (e.lane == "branch" && branch.size() < 2000) {
        branch += "- [" + Cell(e.title) + "](" + e.url + ") by " + Cell(e.author) + ", " + e.date.substr(0, 10) + "\n";
      }
    }
    std::string md;
    if (!main.empty()) md += "## Code on the default branch\n\n" + main + "\n";
    if (!branch.empty()) md += "## In flight on branches (not what main does)\n\n" + branch + "\n";
    return md;
  }

  std::string OpenQuestions() const {
    std::string open;
    std::set<std::string> threads;
    for (const auto& e : ev_) {
      const SourceTraits* source = TraitsOf(e.source);
      if (e.thread_state == "open" && source && source->tracker && threads.insert(e.thread).second &&
          threads.size() <= 8) {
        open += "- " + Cell(e.title) + " — open ([" + Cell(e.thread) + "](" + e.url + "))\n";
      }
    }
    return open.empty() ? "" : "## Open questions\n\nThese threads are still open:\n\n" + open + "\n";
  }

  const std::string& question_;
  const std::vector<Facet>& facets_;
  const std::vector<Evidence>& ev_;
  const std::vector<std::string>& keys_;
  std::vector<std::string> texts_;  // what was found, to learn acronyms from
  const std::vector<std::string> terms_;
  const research::AnswerType type_;
  std::vector<const Evidence*> prose_;  // records with a statement, best first
  std::map<const Evidence*, std::string> statement_of_;
  std::vector<const Evidence*> chosen_;  // the short answer's records
  std::set<std::string> answer_threads_;
};

}  // namespace

std::string Extractive(const std::string& question, const std::vector<Facet>& facets, const std::vector<Evidence>& ev,
                       bool found, const std::vector<std::string>& keys, bool abstain) {
  return ExtractiveReport(question, facets, ev, keys).Write(found, abstain);
}

}  // namespace umwelt::research_internal
