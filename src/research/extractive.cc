// The report `ask` writes without a model (see extractive.h).
#include "extractive.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "umwelt/pattern.h"
#include "umwelt/search.h"
#include "umwelt/vector.h"
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

bool IsCodeQuestion(const std::string& question) {
  static const Pattern asks(R"(^\W*(what|which|where|how|is|are|does|do)\b)", Pattern::kIgnoreCase);
  static const Pattern cue(
      R"(\b(default|defaults|setting|settings|configured|configuration|config|option|options|flag|flags|constant|)"
      R"(port|mode|timeout|timeouts|limit|limits|defined|define|defines|function|method|variable|parameter|)"
      R"(environment variable|env var|pragma|the code|in code|set to|is set|hard-coded|hardcoded)\b)",
      Pattern::kIgnoreCase);
  return asks.Search(question) && cue.Search(question);
}

namespace {

// "path#L12-L71" -> path, 12; 0 when the url names no line range.
int WindowStart(const std::string& url, std::string* base) {
  static const Pattern range(R"(^(.*)#L([0-9]{1,9})-L[0-9]{1,9}$)");
  Groups g;
  if (!range.Matches(url, &g)) return 0;
  *base = std::string(g[1]);
  return std::stoi(std::string(g[2]));
}

std::string PathOf(const std::string& base) {
  static const Pattern local(R"(^git\+file://[^:]*:(.+)$)");
  static const Pattern github(R"(^https://github\.com/[^/]+/[^/]+/blob/[^/]+/(.+)$)");
  Groups g;
  if (local.Matches(base, &g) || github.Matches(base, &g)) return std::string(g[1]);
  return base;
}

bool IsDocPath(const std::string& path) {
  static const Pattern doc(R"(\.(md|markdown|rst|txt|adoc)$)", Pattern::kIgnoreCase);
  return doc.Search(path);
}

bool IsComment(std::string_view line) {
  size_t a = line.find_first_not_of(" \t");
  if (a == std::string_view::npos) return false;
  line.remove_prefix(a);
  for (std::string_view open : {"//", "#", "*", "/*", "--", ";"}) {
    if (line.substr(0, open.size()) == open) return true;
  }
  return false;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  for (size_t p = 0; p <= text.size();) {
    size_t nl = text.find('\n', p);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(p, nl - p));
    p = nl + 1;
  }
  return lines;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> CodeQuestionWords(const std::string& question) {
  // Stems, so "uses" and "use" meet; words every code question has say
  // nothing about which line answers it.
  static const std::set<std::string> generic = {"code", "use", "used", "doe", "does", "set", "valu", "what",
                                                "which", "where", "how", "default", "defin", "function", "method",
                                                "configur", "config", "configuration", "set", "option", "flag",
                                                "constant", "paramet", "variabl", "support", "hardcod"};
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& w : ContentWords(question)) {
    // "fine-tuning" is two words, as research::MatchForm reads a record.
    std::string lower = ToLower(w);
    std::replace(lower.begin(), lower.end(), '-', ' ');
    std::replace(lower.begin(), lower.end(), '_', ' ');
    for (const auto& word : SplitList(lower, ' ')) {
      std::string stem = StemWord(word);
      bool seen = std::any_of(out.begin(), out.end(), [&](const auto& p) { return p.second == stem; });
      if (stem.size() >= 3 && !generic.count(stem) && !seen) out.emplace_back(word, stem);
    }
  }
  return out;
}

bool NamesStem(const std::string& form, const std::string& stem) {
  auto word_byte = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  for (size_t at = form.find(stem); at != std::string::npos; at = form.find(stem, at + 1)) {
    if (at > 0 && word_byte(form[at - 1])) continue;
    size_t end = at + stem.size();
    while (end < form.size() && word_byte(form[end])) ++end;
    if (end - at - stem.size() <= 3) return true;
  }
  return false;
}

std::string WindowPath(const std::string& url) {
  std::string base;
  return WindowStart(url, &base) > 0 ? PathOf(base) : "";
}

const Evidence* WindowOfLine(const std::string& url, const std::vector<Evidence>& ev) {
  static const Pattern line(R"(^(.*)#L([0-9]{1,9})$)");
  Groups g;
  if (!line.Matches(url, &g)) return nullptr;
  std::string base(g[1]);
  int n = std::stoi(std::string(g[2]));
  for (const auto& e : ev) {
    std::string b;
    int first = WindowStart(e.url, &b);
    if (first <= 0 || b != base) continue;
    int count = static_cast<int>(std::count(e.text.begin(), e.text.end(), '\n')) + 1;
    if (n >= first && n < first + count) return &e;
  }
  return nullptr;
}

std::vector<CodeLine> CodeAnswerLines(const std::string& question, const std::vector<Evidence>& ev) {
  std::vector<CodeLine> out;
  if (!IsCodeQuestion(question)) return out;
  std::vector<std::string> stems;
  for (const auto& [word, stem] : CodeQuestionWords(question)) stems.push_back(stem);
  bool wants_default = false;
  for (const auto& w : ContentWords(question)) wants_default |= StemWord(ToLower(w)) == "default";
  if (stems.empty()) return out;
  double need = std::min<double>(2, static_cast<double>(stems.size()));
  // A literal or a constant given as the value ("= 8765", "=WAL", "default_val(64").
  static const Pattern value(R"(((^|[^=!<>])=|:|default_val\(|default\()\s*("|'|-?[0-9]|[A-Z][A-Z0-9_]+\b))");
  // A word few windows hold says more about which line answers than one
  // most of them hold ("journal" against "mode").
  std::map<std::string, double> weight;
  {
    std::vector<std::string> forms;
    for (const auto& e : ev) {
      if (e.lane == "main") forms.push_back(research::MatchForm(e.text));
    }
    for (const auto& st : stems) {
      double df = static_cast<double>(std::count_if(forms.begin(), forms.end(), [&](const std::string& f) {
        return f.find(st) != std::string::npos;
      }));
      weight[st] = std::log((static_cast<double>(forms.size()) + 1) / (df + 0.5)) + 0.5;
    }
  }
  for (const auto& e : ev) {
    if (e.lane != "main") continue;
    std::string base;
    int first = WindowStart(e.url, &base);
    if (first <= 0) continue;
    std::string path = PathOf(base);
    int file_class = FileClass(path);
    if (file_class >= 2) continue;  // data files (an eval's own questions, fixtures) state nothing
    std::string path_form = research::MatchForm(path);
    std::vector<std::string> lines = Lines(e.text);
    for (size_t i = 0; i < lines.size(); ++i) {
      const std::string& line = lines[i];
      if (line.size() > 400 || CollapseWhitespace(line).size() < 4) continue;
      std::string form = research::MatchForm(line);
      std::string comment = i > 0 && IsComment(lines[i - 1]) && !IsComment(line) ? lines[i - 1] : "";
      std::string comment_form = research::MatchForm(comment);
      // Each word counts whole in the line, half in the comment above it
      // or in the file's path.
      double in_line = 0, named = 0, weighed = 0;
      for (const auto& s : stems) {
        if (form.find(s) != std::string::npos) in_line += 1, named += 1, weighed += weight[s];
        else if (comment_form.find(s) != std::string::npos || path_form.find(s) != std::string::npos) {
          named += 0.5, weighed += 0.5 * weight[s];
        }
      }
      // A line answers when it names the question's words (with its comment
      // and file) and states a value, or is a comment that names them all.
      if (in_line < 1 || named < need || named < 0.6 * static_cast<double>(stems.size())) continue;
      bool states_value = value.Search(line);
      if (!states_value && !(IsComment(line) && in_line == static_cast<double>(stems.size()))) continue;
      CodeLine c;
      c.window = &e;
      c.number = first + static_cast<int>(i);
      c.text = line;
      c.comment = comment;
      c.url = base + "#L" + std::to_string(c.number);
      c.path = path;
      c.score = weighed + (wants_default && form.find("default") != std::string::npos ? 1 : 0) -
                (IsComment(line) ? 0.25 : 0) - (file_class == 1 ? 1.5 : 0) - (IsDocPath(path) ? 0.75 : 0);
      out.push_back(std::move(c));
    }
  }
  // Best first; one line per place (overlapping windows repeat lines).
  std::stable_sort(out.begin(), out.end(), [](const CodeLine& a, const CodeLine& b) { return a.score > b.score; });
  std::vector<CodeLine> best;
  std::set<std::string> seen;
  for (auto& c : out) {
    if (best.size() >= 3 || (!best.empty() && c.score < 0.8 * best.front().score)) break;
    if (seen.insert(c.url).second) best.push_back(std::move(c));
  }
  return best;
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
    std::vector<CodeLine> code = CodeAnswerLines(question_, ev_);
    if (!code.empty()) return md + CodeAnswer(code);
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
  // A code question the default branch's code answers: its lines, each
  // with its line permalink, then the records around it.
  std::string CodeAnswer(const std::vector<CodeLine>& lines) const {
    std::string md = "## Short answer\n\nThe code on the default branch states it:\n\n";
    for (const auto& c : lines) {
      md += "- " + CodeSpan(c.text) + " — [" + Cell(c.path) + ", line " + std::to_string(c.number) + "](" + c.url +
            ")\n";
    }
    md += "\n## The code\n\n";
    for (const auto& c : lines) {
      md += "[" + Cell(c.path) + ", line " + std::to_string(c.number) + "](" + c.url + "):\n\n~~~~\n";
      for (const std::string* l : {&c.comment, &c.text}) {
        if (l->empty()) continue;
        std::string text = *l;
        // A fence inside the quoted code cannot close the block early.
        for (size_t at = text.find("~~~"); at != std::string::npos; at = text.find("~~~", at)) text.replace(at, 3, "~ ~ ~");
        md += text + "\n";
      }
      md += "~~~~\n\n";
    }
    std::set<std::string> quoted;
    md += FurtherRecords(quoted);
    md += "## Caveats\n\n- This answer quotes the code as it is on the default branch; a branch in flight or a "
          "setting given at run time can change it ([the line](" + lines.front().url + ")).\n";
    return md;
  }

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
                     (named.size() > 1 ? " together" : "") +
                     "; the closest records follow, and none of them answers the question:\n\n";
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
