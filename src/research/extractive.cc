// The report `ask` writes without a model (see extractive.h).
#include "extractive.h"

#include <algorithm>
#include <bit>
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
using research::MatchForm;
using research::Neutralize;
using research::Sentences;

// A quote cut, when it must be, at a word boundary with an ellipsis.
std::string Quote(const std::string& text, size_t max) {
  return Neutralize(TruncateAtWord(CollapseWhitespace(text), max));
}

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

std::string Joined(std::string s) {
  s.erase(std::remove_if(s.begin(), s.end(), [](char c) { return c == ' ' || c == '-' || c == '_'; }), s.end());
  return s;
}

std::string CodeSpan(std::string s) {
  std::replace(s.begin(), s.end(), '`', '\'');
  return "`" + CollapseWhitespace(s) + "`";
}

bool NamesStem(const std::string& form, const std::string& stem) {
  auto word_byte = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  // A stem the stemmer ended in "i" is not in the word it came from:
  // "family" is famili, "query" queri. Such a word starts with the rest.
  bool from_y = stem.size() > 3 && stem.back() == 'i';
  std::string_view start = from_y ? std::string_view(stem).substr(0, stem.size() - 1) : std::string_view(stem);
  for (size_t at = form.find(start); at != std::string::npos; at = form.find(start, at + 1)) {
    if (at > 0 && word_byte(form[at - 1])) continue;
    size_t end = at + start.size();
    while (end < form.size() && word_byte(form[end])) ++end;
    std::string_view word(form.data() + at, end - at);
    // A short ending ("gradients"), or a longer one the stemmer takes off
    // ("accumulation" is accumul, as "accumulate" is).
    if ((word.starts_with(stem) && word.size() - stem.size() <= 3) || StemWord(word) == stem) return true;
  }
  return false;
}

bool IsFrameWord(const std::string& t) {
  static const std::set<std::string> frame = {
      "evolve", "evolved", "evolves", "evolution", "history", "timeline", "change", "changed", "changes",
      "develop", "developed", "progress", "progressed", "time", "happen", "happened", "work", "works", "worked",
      "come", "came", "get", "got", "use", "used", "done", "current", "currently", "state", "status", "added",
      "add", "introduced", "handle", "handled", "implemented", "question", "answer", "without", "within",
      "across", "around", "among", "via", "several", "multiple", "various", "different", "another", "one",
      "ones", "every", "single", "ability", "abilities", "capability", "capabilities"};
  return t.size() < 3 || frame.count(t) > 0;
}

namespace {

// The extractive report on one question, a method per section. The records
// with a statement (`prose_`) are ranked once; the sections read them.
class ExtractiveReport {
 public:
  ExtractiveReport(const std::string& question, const std::vector<Facet>& facets, const std::vector<Evidence>& ev,
                   const std::vector<std::string>& keys, const std::vector<std::string>& widespread)
      : question_(question),
        facets_(facets),
        ev_(ev),
        keys_(keys),
        widespread_(widespread),
        texts_(research::EvidenceTexts(ev)),
        terms_(ContentWords(question)),
        type_(research::AnswerTypeOf(question)),
        came_(AsksWhenItCame(question) && !keys.empty()),
        // A thing that came is asked about by its names; without one, as before.
        began_(AsksWhenItBegan(question) && (!keys.empty() || !AsksWhenItCame(question) || EarliestOf(facets))) {
    if (keys_.empty()) FindSubject();
  }

  std::string Write(bool found, bool abstain, bool came_unsaid) {
    std::string md = "# " + Cell(TruncateAtWord(question_, 200)) + "\n\n";
    md += "> **Extractive answer.** No language model was used: the statements below are quoted from the corpus "
          "with their authors, dates and links, chosen and ordered by relevance:\n\n";
    std::vector<CodeLine> code = CodeAnswerLines(question_, ev_);
    if (!code.empty()) return md + CodeAnswer(code);
    if (!found) return md + NothingFound();
    RankStatements();
    md += "## Short answer\n\n";
    if (abstain) return md + Abstention(came_unsaid);
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
  // Counted once per record: the ordering asks at every comparison.
  long NamedHere(const Evidence* e) const {
    auto [it, fresh] = named_here_.try_emplace(e, 0);
    if (fresh) {
      std::string form = research::MatchForm(e->author + "\n" + e->title + "\n" + e->text);
      it->second = std::count_if(keys_.begin(), keys_.end(), [&](const std::string& k) { return research::Mentions(form, k); });
    }
    return it->second;
  }
  // The question's rare words beside its key constraints: "steered" in
  // "How can a Hugging Face model be steered?", where many records name
  // Hugging Face and few name steering. Stems of the words no key holds, less
  // the project's names and the words that frame a question, each named by
  // fewer records than every key and by at most a third of them (a word many
  // records say, "model" in an eval harness, "support" beside "Muon", is
  // context, not the subject).
  void FindBeside() {
    if (prose_.empty()) return;
    std::vector<std::string> forms;
    for (const Evidence* e : prose_) forms.push_back(FormOf(e));
    auto weigh = [&](size_t df) {
      return std::log((static_cast<double>(forms.size()) + 1) / (static_cast<double>(df) + 0.5));
    };
    if (keys_.empty()) {
      // A subject's rare word tells as a key would: "rouble" beside
      // "compose sequences", which most of the records say.
      for (const auto& s : subject_) {
        weight_[s] =
            weigh(std::count_if(forms.begin(), forms.end(), [&](const std::string& f) { return NamesStem(f, s); }));
      }
      return;
    }
    size_t rarest_key = forms.size();
    for (const auto& k : keys_) {
      rarest_key = std::min<size_t>(rarest_key, std::count_if(forms.begin(), forms.end(), [&](const std::string& f) {
                                      return research::Mentions(f, k);
                                    }));
    }
    for (const auto& t : research::WithoutProjectNames(terms_, ev_, widespread_)) {
      std::string word = MatchForm(t);
      bool in_key = std::any_of(keys_.begin(), keys_.end(), [&](const std::string& k) { return k.find(word) != std::string::npos; });
      if (FrameWord(t) || in_key) continue;
      std::string stem = StemWord(Joined(t));
      if (stem.size() < 4 || std::find(beside_.begin(), beside_.end(), stem) != beside_.end()) continue;
      size_t df = std::count_if(forms.begin(), forms.end(), [&](const std::string& f) { return NamesStem(f, stem); });
      if (df > 0 && df < rarest_key && df * 3 <= forms.size()) beside_.push_back(stem);
    }
    // How much naming each key or rare word tells: the rarer among the
    // records, the more.
    for (const auto& k : keys_) {
      weight_[k] = weigh(std::count_if(forms.begin(), forms.end(), [&](const std::string& f) { return research::Mentions(f, k); }));
    }
    for (const auto& b : beside_) {
      weight_[b] = weigh(std::count_if(forms.begin(), forms.end(), [&](const std::string& f) { return NamesStem(f, b); }));
    }
  }
  // What the keys and rare words a record names tell, summed.
  // Made once per record: the ordering asks for it at every comparison.
  double Weight(const Evidence* e) const {
    auto [it, fresh] = weight_of_.try_emplace(e, 0.0);
    if (!fresh) return it->second;
    const std::string& form = FormOf(e);
    double& sum = it->second;
    for (const auto& k : keys_) sum += research::Mentions(form, k) ? weight_.at(k) : 0;
    for (const auto& b : beside_) sum += NamesStem(form, b) ? weight_.at(b) : 0;
    if (keys_.empty()) {
      for (const auto& s : subject_) sum += NamesStem(form, s) ? weight_.at(s) : 0;
    }
    return sum;
  }
  bool SaysBeside(const std::string& form) const {
    return std::any_of(beside_.begin(), beside_.end(), [&](const std::string& b) { return NamesStem(form, b); });
  }
  // How many of the question's key constraints a record names, and one more
  // when it names a rare word beside them.
  long Named(const Evidence* e) const {
    return NamedHere(e) + (!beside_.empty() && SaysBeside(FormOf(e)));
  }
  // A record's title and text as research::MatchForm reads them, made once:
  // the ordering asks for it at every comparison.
  const std::string& FormOf(const Evidence* e) const {
    auto [it, fresh] = form_of_.try_emplace(e);
    if (fresh) it->second = MatchForm(e->title + "\n" + e->text);
    return it->second;
  }
  // Whether a record's statement is the kind of answer asked for.
  bool Fits(const Evidence* e) const {
    return type_ != research::AnswerType::kOther && research::AnswerFit(StatementOf(e), type_, terms_) >= 1.5;
  }
  // Whether the quoted statement itself speaks of the question (a long record
  // can name it in one place and say something else in its best sentence):
  // a key constraint, else a word of the subject (the project's own name,
  // which every record says, is none).
  bool OnTopic(const Evidence* e) const {
    std::string form = research::TitleForm(StatementOf(e));
    if (keys_.empty() && !subject_.empty()) return SaysSubject(form, true);
    if (SaysBeside(form)) return true;
    const auto& words = keys_.empty() ? terms_ : keys_;
    return std::any_of(words.begin(), words.end(), [&](const std::string& w) { return research::Mentions(form, w); });
  }
  // Whether a record's title names the question's subject: the record is
  // about it ("Support gradient accumulation"), not one that mentions it in
  // passing.
  bool TitleSays(const Evidence* e) const {
    std::string form = research::TitleForm(e->title);
    if (!keys_.empty()) {
      return std::any_of(keys_.begin(), keys_.end(), [&](const std::string& k) { return research::Mentions(form, k); });
    }
    return !subject_.empty() && SaysSubject(form, false);
  }
  // Whether a record names the question's subject: one of its key
  // constraints (any spelling, or an acronym or expansion the corpus pairs
  // with it), or, for a question without any, the words of its subject
  // (FindSubject): one or two words where they stand together (within eight
  // words: "context parallelism", "parallel context"), two of three
  // together, half of four or more anywhere; or the subject's acronym.
  bool NamesSubject(const Evidence& e) const {
    if (!keys_.empty()) return Named(&e) > 0;
    return SaysSubject(MatchForm(e.author + "\n" + e.text) + "\n" + research::TitleForm(e.title), false, !e.lane.empty());
  }
  // `loosely`: one of the subject's words is enough (a quoted sentence that
  // goes on about it). `code`: a window of code, long and full of words,
  // names three in four of a long subject's words, not half.
  bool SaysSubject(const std::string& form, bool loosely, bool code = false) const {
    std::vector<std::string> words;  // "[cp]" is the word cp
    for (size_t i = 0; i < form.size();) {
      size_t e = i;
      while (e < form.size() && std::isalnum(static_cast<unsigned char>(form[e]))) ++e;
      if (e > i) words.push_back(form.substr(i, e - i));
      i = e + 1;
    }
    auto whole = [&](const std::string& w) {
      return std::find(words.begin(), words.end(), w) != words.end();
    };
    for (const auto& a : SplitList(subject_acronym_, '|')) {
      if (whole(a)) return true;
    }
    size_t n = subject_.size();
    if (n == 0) {  // a question of frame words only: two of them
      int hits = 0;
      for (const auto& t : terms_) hits += form.find(t) != std::string::npos;
      return hits >= std::min<int>(loosely ? 1 : 2, static_cast<int>(terms_.size()));
    }
    std::vector<uint32_t> at(words.size(), 0);  // which of the subject's stems each word is
    size_t hits = 0;
    uint32_t all = 0;
    for (size_t j = 0; j < n && j < 32; ++j) {
      all |= 1u << j;
      bool any = false;
      for (size_t i = 0; i < words.size(); ++i) {
        if (NamesStem(words[i], subject_[j])) at[i] |= 1u << j, any = true;
      }
      hits += any;
    }
    if (loosely) return hits > 0;
    if (n > 3) return hits >= (code ? (3 * n + 3) / 4 : (n + 1) / 2);
    int need = n <= 2 ? static_cast<int>(n) : 2;
    for (size_t i = 0; i < words.size(); ++i) {
      uint32_t seen = 0;
      for (size_t k = i; k < words.size() && k < i + 8; ++k) seen |= at[k];
      if (std::popcount(seen & all) >= need) return true;
    }
    return false;
  }
  // Whether a quoted statement speaks of the subject at all.
  bool StatementSays(const std::string& statement) const {
    if (!filter_) return true;
    std::string form = MatchForm(statement);
    if (!keys_.empty()) {
      return std::any_of(keys_.begin(), keys_.end(), [&](const std::string& k) { return research::Mentions(form, k); });
    }
    return SaysSubject(form, true);
  }
  // The subject of a question without key constraints: its words' stems,
  // less the project's names and the words that frame a question ("how did
  // X evolve"); and the acronym the corpus gives them ("Context
  // Parallelism (CP)"), when it gives one.
  // Of "when did X begin?", "begin" too.
  bool FrameWord(const std::string& t) const { return IsFrameWord(t) || (began_ && IsBeganWord(t)); }
  void FindSubject() {
    std::string words, stems;
    for (const auto& t : research::WithoutProjectNames(terms_, ev_, widespread_)) {
      if (FrameWord(t)) continue;
      // "micro-batches" as a record's words read it: microbatch (MatchForm
      // adds every compound's joined form).
      std::string stem = StemWord(Joined(t));
      if (stem.size() < 3 || std::find(subject_.begin(), subject_.end(), stem) != subject_.end()) continue;
      subject_.push_back(stem);
      words += (words.empty() ? "" : " ") + t;
      stems += (stems.empty() ? "" : " ") + stem;
    }
    if (subject_.size() < 2 || subject_.size() > 4) return;
    // Only an acronym learned from the records: the words themselves are
    // matched one by one.
    for (const auto& phrase : {words, stems}) {
      std::string joined = Joined(phrase);
      for (const auto& alt : SplitList(research::WithVariants({phrase}, texts_).front(), '|')) {
        bool known = ("|" + subject_acronym_ + "|").find("|" + alt + "|") != std::string::npos;
        if (alt.find(' ') == std::string::npos && alt.size() <= 6 && alt != joined && !known) {
          subject_acronym_ += (subject_acronym_.empty() ? "" : "|") + alt;
        }
      }
    }
  }
  // Whether a record belongs in the answer at all: it names the subject, or
  // a vector leg found it among the closest to the question's own words (it
  // says it in other words). Any other record found its way in through a
  // title's words and says something else.
  // When no record names the subject so (a question in words its records
  // do not use), every record the search found may appear.
  bool Relevant(const Evidence& e) const { return !filter_ || e.near || NamesSubject(e); }
  // The best-ranked statement's record that belongs in the answer.
  std::string TopUrl() const {
    auto top = std::find_if(prose_.begin(), prose_.end(), [&](const Evidence* e) { return Relevant(*e); });
    if (top != prose_.end()) return (*top)->url;
    auto named = std::find_if(ev_.begin(), ev_.end(), [&](const Evidence& e) { return e.lane.empty() && Relevant(e); });
    return named == ev_.end() ? ev_.front().url : named->url;
  }

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
    FindBeside();
    // A record that names the question's keys, if not in a statement ("Add
    // FooBar"), still means the others are off the subject.
    filter_ = std::any_of(prose_.begin(), prose_.end(), [&](const Evidence* e) { return Relevant(*e); }) ||
              (!keys_.empty() && std::any_of(ev_.begin(), ev_.end(), [&](const Evidence& e) {
                 return e.lane.empty() && NamedHere(&e) == static_cast<long>(keys_.size());
               }));
    std::stable_sort(prose_.begin(), prose_.end(), [&](const Evidence* a, const Evidence* b) {
      auto na = Named(a), nb = Named(b);
      if (na != nb) return na > nb;
      bool ta = OnTopic(a), tb = OnTopic(b);
      if (ta != tb) return ta;
      double wa = Weight(a), wb = Weight(b);
      if (std::abs(wa - wb) > 0.5) return wa > wb;
      bool sa = TitleSays(a), sb = TitleSays(b);
      if (sa != sb) return sa;
      bool fa = Fits(a), fb = Fits(b);
      if (fa != fb) return fa;
      return a->closeout != b->closeout ? a->closeout : a->score > b->score;
    });
  }

  // The key constraints never meet: the closest records, as related only.
  std::string Abstention(bool mentioned) const {
    std::vector<std::string> named;
    for (const auto& m : keys_) named.push_back(CodeSpan(research::Shown(m)));
    std::string list;
    for (size_t i = 0; i < named.size(); ++i) list += (i ? (i + 1 == named.size() ? " and " : ", ") : "") + named[i];
    // `mentioned`: records name the thing and none says it came or went (CameUnsaid).
    const bool went = AsksWhenItWent(question_);
    std::string md = "The corpus does not state this. ";
    md += mentioned ? "Records mention " + (list.empty() ? std::string("its subject") : list) +
                          (went ? ", but none says it was removed"
                           : AsksWhenItBecame(question_) ? ", but none says it was made so"
                                                         : ", but none says when it was added or came")
                    : "No record mentions " + list + (named.size() > 1 ? " together" : "");
    md += "; the closest records follow, and none of them answers the question:\n\n";
    md += "## Related records (not an answer)\n\n";
    int quoted = 0;
    for (size_t i = 0; i < prose_.size() && quoted < 6; ++i) {
      const Evidence& e = *prose_[i];
      // A statement whose first 320 bytes are a command line or a log says
      // nothing as quoted.
      if (!research::IsStatement(TruncateAtWord(CollapseWhitespace(StatementOf(&e)), 320))) continue;
      md += QuoteLine(StatementOf(&e), 320, Cite(e) + " · " + Cell(TruncateAtWord(e.title, 90)));
      ++quoted;
    }
    md += "## Caveats\n\n- The search looked for ";
    md += mentioned ? "a record saying the question's subject was " +
                          std::string(went ? "removed or dropped, " : "added, introduced or merged, ") + "and found none"
                    : std::string("records naming all of the question's key terms together and found none");
    md += "; a record may say it in other words ([the closest record](" + TopUrl() + ")).\n";
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
    std::vector<std::string> bare;  // a statement's letters and digits, less a "(#N)"
    for (const Evidence* e : prose_) {
      std::string s = StatementOf(e), out;
      if (size_t at = s.rfind("(#"); at != std::string::npos && s.find(')', at) != std::string::npos) {
        s.erase(at, s.find(')', at) - at + 1);
      }
      for (char c : s) {
        if (std::isalnum(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      }
      bare.push_back(std::move(out));
    }
    auto overlap = [&](size_t a, size_t b) {
      size_t both = 0;
      for (const auto& w : words[a]) both += words[b].count(w);
      size_t either = words[a].size() + words[b].size() - both;
      return either ? static_cast<double>(both) / static_cast<double>(either) : 1.0;
    };
    std::vector<size_t> picked;
    bool on_it = false;  // a record on the question was picked
    while (picked.size() < 8) {
      double best = -1e9;
      size_t pick = prose_.size();
      long tier = -1;  // diversity chooses within the best tier left, never across tiers
      for (size_t i = 0; i < prose_.size(); ++i) {
        const Evidence* e = prose_[i];
        if (answer_threads_.count(e->thread) || !Relevant(*e)) continue;
        if (picked.size() >= 4 && (keys_.empty() || NamedHere(e) < static_cast<long>(keys_.size()) || !OnTopic(e))) continue;
        double redundancy = 0;
        for (size_t j : picked) redundancy = std::max(redundancy, overlap(i, j));
        // The same statement again (a PR's branch commit and its squash) says nothing new.
        bool again = std::any_of(picked.begin(), picked.end(), [&](size_t j) { return bare[i] == bare[j]; });
        if (again || redundancy >= 0.8) continue;
        long t = Named(e) * 4 + OnTopic(e) * 2 + (OnTopic(e) && TitleSays(e));
        // Once a record on the question is in, one whose title and text say
        // none of its words is not: "Add AC_DEFINE_DIR calls" beside
        // "Support installing systemd unit file".
        if (t == 0 && on_it && Weight(e) <= 0) continue;
        if (tier < 0) tier = t;  // prose is sorted, so the first candidate has the best tier
        if (t < tier) break;
        double mmr = 0.7 * (1.0 - static_cast<double>(i) / static_cast<double>(prose_.size())) - 0.3 * redundancy;
        if (mmr > best) {
          best = mmr;
          pick = i;
        }
      }
      if (pick == prose_.size()) break;
      on_it |= tier > 0;
      picked.push_back(pick);
      answer_threads_.insert(prose_[pick]->thread);
      chosen_.push_back(prose_[pick]);
    }
    // "When was X removed?" is answered by the records that say it went;
    // those that name X, or remove something else, stay out where one does.
    if (auto went = AsksWhenItWent(question_) ? RecordsSayingItWent(question_, ev_, keys_, widespread_) : std::nullopt;
        went && !went->empty()) {
      auto said = [&](const Evidence* e) { return std::find(went->begin(), went->end(), e) != went->end(); };
      for (const Evidence* e : chosen_) {
        if (!said(e)) answer_threads_.erase(e->thread);
      }
      std::erase_if(chosen_, [&](const Evidence* e) { return !said(e); });
      for (const Evidence* e : *went) {
        if (chosen_.size() < 4 && !e->title.empty() && answer_threads_.insert(e->thread).second) chosen_.push_back(e);
      }
    }
    // "When did X begin?" is answered by the earliest record on X: it is in
    // the answer, whatever outranked it.
    if (!began_) return;
    // The search for them (EarliestFacet) names the subject's word fewest
    // of the corpus's records say first.
    const Facet* earliest = EarliestOf(facets_);
    if (!earliest) return;
    const std::vector<std::string> searched = ThingWords(SplitList(earliest->query, ' '));
    if (searched.empty()) return;
    std::string rarest = research::WithVariants({searched.front()}, {}).front();
    // A thing that came without a name is every word it was searched by;
    // one that came on a platform, the rarest of them.
    std::vector<std::string> thing;
    const bool on_a_platform = AsksWhenItCame(question_) && CameOnAPlatform(keys_, searched);
    if ((keys_.empty() && AsksWhenItCame(question_)) || on_a_platform) thing = searched;
    std::vector<std::string> came_beside;
    if (came_) came_beside = CameBeside(question_, keys_, ev_, widespread_);
    const bool code = came_ && WritesAsCode(keys_, question_);  // then titled by any of them
    const Evidence* first = nullptr;
    const Evidence* first_came = nullptr;  // the earliest of those whose title says it came
    const bool asks_came = AsksWhenItCame(question_);
    for (const Evidence* e : prose_) {
      // Its title names the subject: without keys, the thing that came, else
      // the subject's rarest word (so too a thing that came on a platform);
      // with them, a key, and the record all.
      std::string title = research::TitleForm(e->title);
      auto titled = [&](const std::vector<std::string>& all) {
        return std::all_of(all.begin(), all.end(), [&](const std::string& k) { return research::Mentions(title, k); });
      };
      bool on_it = on_a_platform                                    ? research::Mentions(title, rarest)
                   : !thing.empty()                                 ? titled(thing)
                   : keys_.empty()                                  ? research::Mentions(title, rarest)
                   : NamedHere(e) < static_cast<long>(keys_.size()) ? false
                   : came_ ? (code || titled(keys_)) && NamesHalf(FormOf(e), came_beside)
                           : TitleSays(e);
      if ((Relevant(*e) || !thing.empty()) && on_it && !e->date.empty() && (!first || e->date < first->date)) first = e;
      if ((Relevant(*e) || !thing.empty()) && on_it && !e->date.empty() && asks_came && TitleSaysItCame(e->title) &&
          (!first_came || e->date < first_came->date)) {
        first_came = e;
      }
    }
    if (!first) return;
    // What was chosen from before the subject's earliest record is not on it.
    std::erase_if(chosen_, [&](const Evidence* e) { return !e->date.empty() && e->date < first->date; });
    // Of a series landed the same day, also the one whose title says the
    // thing came: "Add pageflip/exchange support" beside the wakeup handler
    // for pageflip events committed minutes before it.
    for (const Evidence* e : {first_came, first}) {
      if (!e || (e == first_came && e->date.compare(0, 10, first->date, 0, 10) != 0)) continue;
      if (answer_threads_.count(e->thread)) continue;
      if (chosen_.size() >= 8) chosen_.pop_back();
      answer_threads_.insert(e->thread);
      chosen_.insert(chosen_.begin(), e);
    }
  }

  // The chosen statements; a "when" question reads in date order, the
  // earliest event first.
  std::string ShortAnswer() {
    std::string md;
    auto by_date = [](const Evidence* a, const Evidence* b) { return a->date < b->date; };
    if (chosen_.empty()) {  // the records that name it, if none says it in a sentence ("auto_ptr -> unique_ptr")
      std::vector<const Evidence*> named;
      for (const auto& e : ev_) {
        if (e.lane.empty() && !keys_.empty() && NamedHere(&e) == static_cast<long>(keys_.size()) && named.size() < 4 &&
            answer_threads_.insert(e.thread).second) {
          named.push_back(&e);
        }
      }
      if (type_ == research::AnswerType::kWhen) std::stable_sort(named.begin(), named.end(), by_date);
      md += named.empty() ? "No record found states it in a sentence; the records on it follow.\n"
                          : std::string("No record found states it in a sentence; the records that name it") +
                                (type_ == research::AnswerType::kWhen ? ", earliest first" : "") + ":\n\n";
      for (const Evidence* e : named) {
        md += "- [" + Cell(TruncateAtWord(e->title.empty() ? e->thread : e->title, 120)) + "](" + e->url + ") — " +
              Cell(e->author) + ", " + e->date.substr(0, 10) + "\n";
      }
      return md;
    }
    if (type_ == research::AnswerType::kWhen) {
      std::stable_sort(chosen_.begin(), chosen_.end(), by_date);
      md += "In date order, earliest first:\n\n";
    }
    for (const Evidence* e : chosen_) {
      if (Reply r = AnswerIn(e); r.e) {  // a question is answered by its reply
        const std::string& who = r.asked->author;
        md += "- " + Quote(r.statement, kShortQuote) + " — " + Cite(*r.e) + ", answering [" + (who.empty() ? "the" : Cell(who) + "'s") +
              " question](" + r.asked->url + ")\n";
        continue;
      }
      if (StatementOf(e).empty()) {  // a record that says it went in no sentence ("Delete speedo"): its title
        md += "- [" + Cell(TruncateAtWord(e->title, 120)) + "](" + e->url + ") — " + Cell(e->author) + ", " +
              e->date.substr(0, 10) + "\n";
        continue;
      }
      md += "- " + Quote(StatementOf(e), kShortQuote) + " — " + Cite(*e) + (e->closeout ? " (the thread's close-out)" : "") + "\n";
    }
    return md;
  }

  // A record that asks (a statement that is a question, the post that
  // opened a forum thread) is answered in its thread: by the reply after it
  // whose best sentence (one that tells, not asks) says most of the words of
  // the question, the thread's title and the asker's statement; someone
  // else's before the asker's own, the earliest on a tie. Any record of a
  // forum thread whose opening post the evidence holds is read as that
  // thread's answer: the reply that says most, which may be another than the
  // record itself (a side remark).
  struct Reply {
    const Evidence* e = nullptr;  // the reply; null for none
    std::string statement;
    const Evidence* asked = nullptr;
  };
  static bool OpensThread(const Evidence& e) {  // its id is its thread's ("discord:G/T/T")
    size_t slash = e.thread.rfind('/');
    return slash != std::string::npos && e.ref == e.thread + e.thread.substr(slash);
  }
  Reply AnswerIn(const Evidence* e) const {
    auto opening = std::find_if(ev_.begin(), ev_.end(), [&](const Evidence& o) { return o.thread == e->thread && OpensThread(o); });
    if (opening != ev_.end()) return ReplyTo(&*opening);
    return research::Asks(StatementOf(e)) ? ReplyTo(e) : Reply{};
  }
  Reply ReplyTo(const Evidence* asked) const {
    std::vector<std::string> stems;
    for (const auto& w : ContentWords(question_ + "\n" + asked->title + "\n" + StatementOf(asked))) {
      std::string s = StemWord(w);
      if (s.size() >= 3 && !FrameWord(w) && std::find(stems.begin(), stems.end(), s) == stems.end()) stems.push_back(s);
    }
    Reply best;
    best.asked = asked;
    size_t best_n = 0;
    for (const auto& e : ev_) {
      if (e.thread != asked->thread || &e == asked || !e.lane.empty() || e.date < asked->date) continue;
      std::string s = BestSentence(e.text, stems, type_, /*tells_only=*/true);
      std::string form = MatchForm(s);  // what the quoted sentence says, not the thread's shared title
      size_t said = std::count_if(stems.begin(), stems.end(), [&](const std::string& st) { return NamesStem(form, st); });
      if (said == 0) continue;
      size_t n = said + (e.author != asked->author ? 1000 : 0);  // the asker's own follow-ups last
      if (n < best_n || (n == best_n && e.date >= best.e->date)) continue;
      best.e = &e;
      best.statement = std::move(s);
      best_n = n;
    }
    if (best.e) best.statement = WholeIfShort(best.e->text, WithItsAntecedent(best.e->text, best.statement));
    return best;
  }
  // A short reply is quoted whole: "I think it is left-over data. Are you
  // able to delete `InternalExternalIdentity`?" answers with both sentences,
  // the one that tells and the one that says what to do. A question back
  // ("Which proxy do you run?", "Can you share the logs?") is not part of
  // the answer, nor are fields ("Reactions: 👍 2") or a bare link.
  static std::string WholeIfShort(const std::string& text, const std::string& sentence) {
    static const Pattern field(R"(^[A-Z][A-Za-z-]*: )");
    static const Pattern suggests(R"(^(are you able to|have you tried|did you try|could you try|can you try|try)\b)",
                                  Pattern::kIgnoreCase);
    std::string whole;
    int n = 0;
    for (const auto& s : research::ProseSentences(text)) {
      if (field.Search(s) || !research::IsStatement(s) || (research::Asks(s) && !suggests.Search(s))) continue;
      whole += (whole.empty() ? "" : " ") + s;
      ++n;
    }
    return n > 1 && whole.size() <= kShortQuote && whole.find(sentence) != std::string::npos ? whole : sentence;
  }
  static constexpr size_t kShortQuote = 320;  // where the short answer cuts a quote
  // "Which seems to be the case for MinIO." says nothing without the
  // sentence before it: a sentence that opens by pointing back is quoted
  // with the one it points to, when that one is a statement too.
  static std::string WithItsAntecedent(const std::string& text, const std::string& sentence) {
    static const Pattern points_back(R"(^(which|this|that|these|those|it|so|then)\b)", Pattern::kIgnoreCase);
    if (!points_back.Search(sentence)) return sentence;
    std::vector<std::string> all = research::ProseSentences(text);
    for (size_t i = 1; i < all.size(); ++i) {
      if (all[i] == sentence && research::IsStatement(all[i - 1]) && !research::Asks(all[i - 1])) {
        return all[i - 1] + " " + sentence;
      }
    }
    return sentence;
  }

  // The quantity a question asks for: "What MFU …" -> "mfu", "How many
  // tokens …" -> "tokens"; "" when it names none ("how fast …").
  std::string QuantityAsked() const {
    static const Pattern what(
        R"(\bwhat( is| was| were| are| did)?( the)?( final| peak| best| highest| lowest| average| typical)? )"
        R"((mfu|loss|throughput|speed|speedup|accuracy|latency|perplexity|score|rate|size|percentage|memory|cost)\b)",
        Pattern::kIgnoreCase);
    static const Pattern how(R"(\bhow (many|much) ([a-z][a-z0-9/-]*))", Pattern::kIgnoreCase);
    Groups g;
    if (what.Search(question_, &g)) return ToLower(std::string(g[4]));
    if (how.Search(question_, &g) && !research::ContentWords(std::string(g[2])).empty()) {
      return ToLower(std::string(g[2]));
    }
    return "";
  }

  // What a "how many" question counts: the last word of the words after it,
  // up to the first that is not part of the thing (a word ContentWords
  // drops: "How many CPU cores and how much RAM …" -> "core"), as a stem;
  // "" for a rate ("how many tokens per second") and any other question.
  std::string CountedNoun() const {
    std::string lower = ToLower(question_);
    size_t at = lower.find("how many ");
    if (at == std::string::npos) return "";
    std::string head;
    std::vector<std::string> words = Tokenize(lower.substr(at + 9));
    size_t i = 0;
    for (; i < words.size() && i < 4 && words[i] != "per" && !ContentWords(words[i]).empty(); ++i) head = words[i];
    if (i < words.size() && words[i] == "per") return "";  // a rate ("tokens per second") is written with its unit
    return head.empty() ? "" : StemWord(head);
  }

  // A question that asks for a quantity gets a table of its values: those
  // next to the quantity's name (any of the question's words when it names
  // none) in statements, in the unit most of them give, so a loss never
  // stands among MFUs. Any other question gets none.
  std::string NumbersTable() const {
    if (type_ != research::AnswerType::kQuantity) return "";
    std::string quantity = QuantityAsked(), counted = CountedNoun();
    std::vector<std::string> near = quantity.empty() ? terms_ : std::vector<std::string>{quantity};
    struct Row {
      std::vector<std::string> values;
      std::string sentence;
      const Evidence* e;
    };
    std::vector<Row> rows;
    std::map<std::string, int> units;
    for (const auto* e : prose_) {
      for (const auto& s : Sentences(e->text)) {
        if (rows.size() >= 24) break;
        if (!research::IsStatement(s)) continue;
        std::vector<std::string> values =  // a count is "6 CPU cores", never "CPU perf: 814"
            counted.empty() ? research::AnsweringNumbers(s, near) : research::CountsOf(s, counted);
        if (values.empty()) continue;
        std::set<std::string> seen;
        for (const auto& v : values) {
          if (seen.insert(research::UnitOf(v)).second) ++units[research::UnitOf(v)];
        }
        rows.push_back({std::move(values), s, e});
      }
    }
    std::string unit;
    int most = 0;
    for (const auto& [u, n] : units) {
      if (n > most || (n == most && unit.empty())) unit = u, most = n;  // a unit before none among equals
    }
    std::string table;
    int shown = 0;
    for (const auto& r : rows) {
      auto v = std::find_if(r.values.begin(), r.values.end(),
                            [&](const std::string& x) { return research::UnitOf(x) == unit; });
      if (v == r.values.end() || shown >= 12) continue;
      table += "| " + Cell(*v) + " | " + Quote(r.sentence, 160) + " | " + Cite(*r.e) + " |\n";
      ++shown;
    }
    return table.empty() ? "" : "\n| value | statement | source |\n|---|---|---|\n" + table;
  }

  // "When / how did X evolve?": the records on X in date order, one per thread.
  std::string Timeline() const {
    static const Pattern evolve(
        R"(\b(evolve[sd]?|evolution|history|timeline|over time|changed over|progress(ed)?|came about|developed)\b)",
        Pattern::kIgnoreCase);
    if (!evolve.Search(question_)) return "";
    // Merging the default branch into a topic branch changes nothing on main
    // ("Merge branch 'main' into yarn"); merging the topic branch does.
    static const Pattern sync(
        R"(^Merge (remote-tracking )?branch '([^'/]+/)?(main|master|trunk|develop)' into )");
    std::vector<const Evidence*> dated;
    std::set<std::string> seen_threads;
    for (const auto& e : ev_) {
      if (!e.lane.empty() || e.date.empty() || sync.Search(e.title)) continue;
      if (NamesSubject(e) && seen_threads.insert(e.thread).second) dated.push_back(&e);
    }
    std::stable_sort(dated.begin(), dated.end(), [](const Evidence* a, const Evidence* b) { return a->date < b->date; });
    if (dated.size() < 2) return "";
    std::string md = "## Timeline\n\n";
    static const Pattern trailing_number(R"(\s*\(#([0-9]{1,9})\)\s*$)");
    for (size_t i = 0; i < dated.size() && i < 15; ++i) {
      const Evidence& e = *dated[i];
      // Its number ("#655", from the thread or the title's "(#655)") before its title.
      std::string title = e.title.empty() ? e.thread : e.title, number;
      Groups g;
      if (trailing_number.Search(title, &g)) number = std::string(g[1]), title = trailing_number.ReplaceAll(title, "");
      size_t hash = e.thread.rfind('#');
      if (number.empty() && hash != std::string::npos && hash + 1 < e.thread.size() &&
          e.thread.find_first_not_of("0123456789", hash + 1) == std::string::npos) {
        number = e.thread.substr(hash + 1);
      }
      md += "- " + e.date.substr(0, 10) + " — " + (number.empty() ? "" : "#" + number + " ") + "[" +
            Cell(TruncateAtWord(title, 120)) + "](" + e.url + ")" +
            (e.author.empty() ? "" : " (" + Cell(e.author) + ")") + "\n";
    }
    return md + "\n";
  }

  // One section per aspect: its best statements, quoted. Only records that
  // belong in the answer (Relevant); under a facet planned from a record's
  // title, only those that also name what its aspect adds to the question. A question's own facet no
  // record answers (its key constraints never together) shows its records
  // as related. Facets of one aspect share a section.
  // `quoted`: the records quoted, filled in.
  std::string FacetSections(std::set<std::string>* quoted) const {
    std::vector<std::string> headings;
    std::map<std::string, std::string> sections;
    std::map<std::string, int> counts;
    std::set<std::string> done;
    for (const auto& f : facets_) {
      if (f.code || !done.insert(f.name).second) continue;
      std::vector<std::string> aspect;
      if (f.from_record) {
        for (const auto& w : ContentWords(f.name)) {  // the words it adds to the question's
          bool asked = std::any_of(terms_.begin(), terms_.end(), [&](const std::string& t) {
            return t == w || StemWord(t) == StemWord(w);
          });
          if (w.size() >= 3 && !asked) aspect.push_back(w);
        }
      }
      std::vector<std::string> keys = research::WithVariants(
          research::WithoutProjectNames(research::KeyConstraints(f.name + " " + f.query), ev_, widespread_), texts_);
      bool answered = f.from_record || keys.empty();
      std::string section;
      int& n = counts[Cell(f.name)];
      for (const auto& e : ev_) {
        if (e.facet != f.name || !e.lane.empty() || n >= 3 || quoted->count(e.url) || !Relevant(e)) continue;
        if (!aspect.empty()) {
          std::string form = MatchForm(e.title + "\n" + e.text);
          if (std::none_of(aspect.begin(), aspect.end(), [&](const std::string& w) {
                return form.find(w) != std::string::npos || NamesStem(form, StemWord(w));
              })) {
            continue;
          }
        }
        std::string statement = BestSentence(e.text, terms_, type_);
        if (statement.empty() || !StatementSays(statement)) continue;
        quoted->insert(e.url);
        answered |= research::MentionsAll(e.author + "\n" + e.title + "\n" + e.text, keys);
        section += QuoteLine(statement, 400,
                             Cite(e) + (e.thread_state.empty() ? "" : " · thread " + e.thread_state) +
                                 (e.superseded_by.empty() ? "" : " · superseded by [a later statement](" + e.superseded_by + ")"));
        ++n;
      }
      if (section.empty()) continue;
      std::string heading = Cell(f.name) + (answered ? "" : " (related records)");
      if (!sections.count(heading)) headings.push_back(heading);
      sections[heading] += section;
    }
    std::string md;
    for (const auto& h : headings) md += "## " + h + "\n\n" + sections[h];
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
      if (!e.lane.empty() || further_n >= 12 || e.facet == "Linked pages" || !Relevant(e) ||
          !shown_threads.insert(e.thread).second) {
        continue;
      }
      further += "- [" + Cell(TruncateAtWord(e.title.empty() ? e.thread : e.title, 120)) + "](" + e.url + ") — " +
                 Cell(e.author) + ", " + e.date.substr(0, 10) + "\n";
      ++further_n;
    }
    return further.empty() ? "" : "## Further records\n\n" + further + "\n";
  }

  // The code the search found, one line per file (its windows overlap;
  // the best ranked stands for them), only files that name the subject.
  std::string CodeLanes() const {
    std::string main, branch;
    std::set<std::string> files;
    // Source first, then tests; data files (fixtures, an eval's questions) not at all.
    std::vector<const Evidence*> code;
    for (const auto& e : ev_) {
      if (!e.lane.empty() && FileClass(WindowPath(e.url)) < 2) code.push_back(&e);
    }
    std::stable_sort(code.begin(), code.end(), [](const Evidence* a, const Evidence* b) {
      return FileClass(WindowPath(a->url)) < FileClass(WindowPath(b->url));
    });
    for (const Evidence* c : code) {
      const Evidence& e = *c;
      if (filter_ && !NamesSubject(e)) continue;
      std::string path = WindowPath(e.url);
      if (!path.empty() && !files.insert(e.lane + ":" + path).second) continue;
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
      if (e.thread_state == "open" && source && source->tracker && Relevant(e) && threads.insert(e.thread).second &&
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
  const std::vector<std::string>& widespread_;  // the project's names the question gives
  std::vector<std::string> texts_;  // what was found, to learn acronyms from
  const std::vector<std::string> terms_;
  std::vector<std::string> subject_;  // stems, for a question without key constraints (FindSubject)
  std::vector<std::string> beside_;   // rare stems beside the key constraints (FindBeside)
  std::map<std::string, double> weight_;  // of each key and rare stem: log(records / records naming it)
  mutable std::map<const Evidence*, std::string> form_of_;  // FormOf's
  mutable std::map<const Evidence*, long> named_here_;      // NamedHere's
  mutable std::map<const Evidence*, double> weight_of_;     // Weight's
  std::string subject_acronym_;       // "cp", "|"-separated, as research::Mentions reads it
  bool filter_ = true;                // whether records off the subject are left out (Relevant)
  const research::AnswerType type_;
  const bool came_;   // it asks when a thing it names came (AsksWhenItCame)
  const bool began_;  // it asks when its subject began or came (AsksWhenItBegan, with a name where it came)
  std::vector<const Evidence*> prose_;  // records with a statement, best first
  std::map<const Evidence*, std::string> statement_of_;
  std::vector<const Evidence*> chosen_;  // the short answer's records
  std::set<std::string> answer_threads_;
};

}  // namespace

std::string Extractive(const std::string& question, const std::vector<Facet>& facets, const std::vector<Evidence>& ev,
                       bool found, const std::vector<std::string>& keys, const std::vector<std::string>& widespread,
                       bool abstain, bool came_unsaid) {
  return ExtractiveReport(question, facets, ev, keys, widespread).Write(found, abstain, came_unsaid);
}

}  // namespace umwelt::research_internal
