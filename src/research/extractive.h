// Internal to research/: the report `ask` writes without a model, and the
// Markdown helpers it shares with the rest of ask.cc.
#pragma once

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "umwelt/claims.h"
#include "umwelt/research.h"
#include "umwelt/searcher.h"

namespace umwelt::research_internal {

// Corpus text (a title, a name) on one line of Markdown, inert: urls in code
// spans, markup escaped (which covers the | of table cells).
std::string Cell(const std::string& s);
// Text shown as code: backticks cannot close the span early.
std::string CodeSpan(std::string s);
// A term without its separators ("z-loss", "z loss" -> "zloss").
std::string Joined(std::string s);

// A question about what the code does or what a setting is ("What port
// does serve listen on by default?", "Which journal mode does the corpus
// use?").
bool IsCodeQuestion(const std::string& question);

// A line of code on the default branch that states the answer to a code
// question: the line (and the comment just above it), its number, and its
// line permalink (the window's url with "#L<n>").
struct CodeLine {
  const Evidence* window = nullptr;
  int number = 0;
  std::string text, comment, url, path;
  double score = 0;
};
// The lines (at most three, best first) of the code windows in `ev` (lane
// "main") that name most of the question's words and state something (an
// assignment, a literal, a default); none when no line names enough of them.
std::vector<CodeLine> CodeAnswerLines(const std::string& question, const std::vector<Evidence>& ev);
// A code question's own words, each with its stem (lower-case; words every
// code question has, such as "default" or "use", left out).
std::vector<std::pair<std::string, std::string>> CodeQuestionWords(const std::string& question);
// Whether `form` (research::MatchForm) has a word that is `stem` with at
// most three more letters ("timeouts" for "timeout", not "redirect" for
// "redi"), or one whose stem is `stem` ("accumulation" for "accumul").
bool NamesStem(const std::string& form, const std::string& stem);
// The file of a code window's url ("…:src/a.cc#L1-L60" -> "src/a.cc"), ""
// for any other url.
std::string WindowPath(const std::string& url);
// A word of a code question (CodeQuestionWords, four letters of stem or
// more) that no record of `ev` but tests and data files names: a product the
// project never uses. "" when every one is named.
std::string UnnamedCodeWord(const std::string& question, const std::vector<Evidence>& ev);
// The evidence window a code line permalink (`<window url>#L<n>`) falls in.
const Evidence* WindowOfLine(const std::string& url, const std::vector<Evidence>& ev);

// The aspect a record's title names, as a short heading: the run of its
// words with the most that the question (`question`) does not have (then
// the longest), its last four at most. Runs break at function words, the project's names
// (`project`) and the verbs and adjectives of a change ("Add", "Fix",
// "simple"); tags ("[Reland]"), a conventional prefix ("fix:"), references
// (#12) and paths are left out. "Include Kimi style muon learning rate
// scaling (#1084)" -> "Muon learning rate scaling". "" when the title adds
// no word to the question's.
std::string AspectOf(const std::string& title, const std::vector<std::string>& question,
                     const std::vector<std::string>& project);

// The facet on a question's names (key constraints, less the project's
// `widespread` ones): its heading, each name as `question` gives it
// ("macos", not "macos mac os x os x osx"), and its query, each
// alternative as a word ("png|svg" is "png svg"), less one that is a stem
// of another ("rotate|rotat" is "rotate").
struct NamesFacet {
  std::string heading, query;
};
NamesFacet NamesQuery(const std::string& question, const std::vector<std::string>& names,
                      const std::vector<std::string>& widespread);

// A word that frames a question rather than naming its subject ("how did X
// evolve", "when was X added"); and any word under three letters.
bool IsFrameWord(const std::string& word);
// A word that asks about a beginning: first, start(ed), begin, began,
// introduce(d), initial(ly), origin(ally), earliest.
bool IsBeganWord(const std::string& word);
// Every word of a question, lowercased, letters and digits only: "get" and
// "the" among them, which ContentWords drops.
// The question's words in brackets it does not also say outside them: they
// say again what the word before them says ("bidirectional (right-to-left)
// text", "a drop-down (Quake-style) mode"), and are no more of the subject.
// Each word of a hyphened one also apart ("quake-style", "quake", "style").
std::vector<std::string> WordsOnlyInBrackets(const std::string& question);
// `hyphened_whole`: a word joined by hyphens is one ("drop-down", not "drop").
std::vector<std::string> LowerWords(const std::string& question, bool hyphened_whole = false);
// A word that asks how something came to be: add(ed), get, got, gain(ed).
bool IsCameWord(const std::string& word);
// A "when" question about a beginning ("When did fuzzing begin?", "When was
// X first added?"), or about how a thing came ("When did X get Y?", "When
// was Y added?"): its answer is the earliest record on the subject.
bool AsksWhenItBegan(const std::string& question);
// Of those, one that asks how a thing came and says no word of a beginning:
// its subject is a thing the question names, and the answer's record is
// titled by all of it.
bool AsksWhenItCame(const std::string& question);
// Whether a record says that a thing the question names (any of `keys`)
// came: its title, or a sentence of its text, names one beside a word of
// arrival ("add", "introduces", "implemented", "merge", "new",
// "now", a title that begins "Support"), or its title names them and its
// first sentence says one. Records that only mention the thing ("deep
// color / HDR output becomes impossible") do not.
// Whether a title says something came: a word of arrival, or it begins
// "Support"; not a revert.
bool TitleSaysItCame(const std::string& title, bool made = false);
// `made`: a question on when a thing became something, which a record also
// says by making it so or the default ("Make Xwayland its own DDX"). A
// platform among `keys` is where the thing came, not the thing, unless
// `platform_is_thing` ("When was macOS support added?"): then a record says
// it in its words, not in the name of a file it touched ("getentropy_osx.c").
bool SaysItCame(const std::vector<Evidence>& ev, const std::vector<std::string>& keys, bool made = false,
                bool platform_is_thing = false);
// A "when" question on what a thing became: "When did X become the default?".
bool AsksWhenItBecame(const std::string& question);
// A "when" question on a thing that went: "When was X removed?", "dropped",
// "deleted".
bool AsksWhenItWent(const std::string& question);
// For a question that AsksWhenItWent, the records whose title or a sentence
// names the thing beside a word of removal: by a key (less one after "on",
// "in favour of" or "instead of"), or where the question has none, half of
// its subject's stems fewest records say ("build" of "the autotools build"
// tells nothing). None where there is nothing to look for.
std::optional<std::vector<const Evidence*>> RecordsSayingItWent(const std::string& question,
                                                                const std::vector<Evidence>& ev,
                                                                const std::vector<std::string>& keys,
                                                                const std::vector<std::string>& widespread);
// A question that asks when a thing it names came (AsksWhenItCame) or
// became something (AsksWhenItBecame), of which the records say nothing of
// the kind (SaysItCame), or when a thing
// went ("When was X removed?", "dropped", "deleted") where no record's
// title or sentence names it beside such a word: it abstains.
bool CameUnsaid(const std::string& question, const std::vector<Evidence>& ev, const std::vector<std::string>& keys,
                const std::vector<std::string>& widespread);
// Whether `word` is one of `keys` (constraints with their spellings) or
// holds one: "windows" of the key "window".
bool WordOfAKey(const std::string& word, const std::vector<std::string>& keys);
// A word of a question that names its subject: not one that frames it
// (IsFrameWord) nor one that asks when it began or came.
bool IsSubjectWord(const std::string& word);
// A noun for a kind of thing ("mechanism", "feature", "tool"), which a
// question may say where its records name the thing itself.
bool IsGenericNoun(const std::string& word);
// The stems of `text`'s subject words (IsSubjectWord) that are none of
// `keys` (WordOfAKey) nor `also_not`, less the project's names (by `seen`'s
// permalinks and `widespread`), each once.
std::vector<std::string> SubjectStemsBeside(const std::string& text, const std::vector<std::string>& keys,
                                            const std::vector<Evidence>& seen,
                                            const std::vector<std::string>& widespread,
                                            std::string_view also_not = "");
// What such a question says of the thing besides its names (`keys`): the
// stems of the other words of the clause that asks it, less the project's
// names and the words that frame it ("support" among them): "thread
// safety" of "When did X get thread safety on Windows?".
std::vector<std::string> CameBeside(const std::string& question, const std::vector<std::string>& keys,
                                    const std::vector<Evidence>& seen, const std::vector<std::string>& widespread);
// Whether `key` (a constraint, "|"-separated spellings) is a name
// `question` writes as code: camelCase, snake_case or called ("f()"). The
// record that added such a name can list it in its text alone ("New
// functions: XIAllowTouchEvents"), and none names it before it exists.
bool IsCodeName(const std::string& key, const std::string& question);
// Whether `question` writes one of `keys` as code (IsCodeName). The record
// that added a thing the question names is titled by all its names; where
// one is code, that one is the thing, and its record may name any of them
// in its text alone.
bool WritesAsCode(const std::vector<std::string>& keys, const std::string& question);
// Whether `form` (MatchForm) names half of `stems`, rounded down.
bool NamesHalf(const std::string& form, const std::vector<std::string>& stems);
// The earliest `n` records (not code) that `query` finds naming `min_named`
// of `need` (constraints, with their spellings) whose titles name the first
// of them (any of them, where all are needed; all of them with `title_all`)
// and half of `beside` (stems; NamesHalf):
// searched again before the earliest found, until no earlier one names
// them (six rounds at most), within the period `question` names
// (QuestionWindow); with `title_all`, titled by none where WritesAsCode.
// `text_of` gives a hit's whole text. Oldest first.
std::vector<Hit> EarliestNaming(Searcher& searcher, const std::string& query, const std::vector<std::string>& need,
                                size_t min_named, bool title_all, const std::vector<std::string>& beside,
                                const std::function<std::string(const Hit&)>& text_of, size_t n,
                                const std::string& question = "");
// The words of a thing without a name as records are searched for them:
// each as its stem where the stem begins it ("flipping" is found in "Add
// pageflip support"), less a word that joins two others ("pageflipping",
// which EarliestFacet also searches for "page flipping").
std::vector<std::string> ThingWords(const std::vector<std::string>& words);

// Whether every key is a platform's and no word of `searched` (the words
// EarliestFacet searched by) is one of theirs: a thing that came on a
// platform ("launchd support for Mac OS X"), searched for by its own words.
bool CameOnAPlatform(const std::vector<std::string>& keys, const std::vector<std::string>& searched);
// The name of EarliestFacet's facet.
inline constexpr const char* kEarliestFacet = "Earliest records";
// EarliestFacet's facet among `facets`, or null.
inline const Facet* EarliestOf(const std::vector<Facet>& facets) {
  auto it = std::find_if(facets.begin(), facets.end(), [](const Facet& f) { return f.name == kEarliestFacet; });
  return it == facets.end() ? nullptr : &*it;
}
// For a question AsksWhenItBegan, the facet of its subject's earliest
// records and its hits: the subject is the question's names (`names`, less
// the project's own, by `top`'s permalinks and `widespread`), all of them;
// else its words that do not frame it, the rarest and half of them. None
// for any other question, or with no such record.
std::optional<std::pair<Facet, std::vector<Hit>>> EarliestFacet(Searcher& searcher, Corpus& corpus,
                                                                 const std::string& question,
                                                                 const std::vector<std::string>& names,
                                                                 const std::vector<std::string>& widespread,
                                                                 const std::vector<Hit>& top);

// Of a subject's stems, those the fewest of `ev`'s records say (a quarter
// of the records or fewer; the fewest where every stem is said more): the
// words that tell the thing from the rest of the project ("pinch" and
// "swipe" of "pinch and swipe gesture events", not "event").
std::vector<std::string> FewestSaid(const std::vector<std::string>& stems, const std::vector<Evidence>& ev);
// For a question without key constraints that asks when a thing came
// (AsksWhenItCame): the words that tell the thing (FewestSaid of its
// clause's subject stems, less a kind of thing such as "mechanism") where no
// record names half of them — in either spelling (colour, color), two words
// side by side also by their initials ("fds" for "file descriptors"), a doer
// by what it does ("access" for "accessor"). Each as the question says it
// ("gesture"); none where a record names them, or for another question.
std::vector<std::string> UnnamedThing(const std::string& question, const std::vector<Evidence>& ev,
                                      const std::vector<std::string>& widespread);

// The other spelling of a British or American word, or "": colour/color,
// optimise/optimize, analyse/analyze.
std::string OtherSpelling(const std::string& w);
// The short form software writing clips a word (or a stem) to: "man" of
// "manual pages", "config", "repo", "lib"; "" for any other word. A record
// says it as a whole word (SayWords), never as the start of one ("many").
std::string ClippedForm(const std::string& w);
// A word (or a stem) and the other forms records name it by: its other
// spelling, what a doer does ("access" for "accessors", "allocat" for
// "allocator"), and its clipped form (ClippedForm), last.
std::vector<std::string> FormsOf(const std::string& w);
// Whether one of `forms` (MatchForms) says `phrase` as whole words, or its
// last word with an "s".
bool SayWords(const std::vector<std::string>& forms, const std::string& phrase);
// Where a record says `name` (letters only) as two or three words of three
// letters or more, a space apart ("debug level" for "debuglevel"): those
// spellings. `forms` gives the records' MatchForms, read when first needed.
std::vector<std::string> WordsApartIn(const std::string& name,
                                      const std::function<const std::vector<std::string>&()>& forms);

// For a question without key constraints: a word of its subject (its words
// less those that frame it and the project's names, by `seen`'s permalinks
// and `widespread`) that stands before another of them and that no chunk of
// the corpus says in either spelling (colour, color), nor as what it does
// where it is a doer ("access" for "accessors"), where the subject is
// three words or fewer; where it is more, the first of more than half of
// them. "" when the corpus says them.
std::string UnsaidSubjectWord(Searcher& searcher, const std::string& question, const std::vector<Evidence>& seen,
                              const std::vector<std::string>& widespread);

// The word a question puts right after one of its `keys`, saying which of
// the name's things it asks about ("pairing" of "When was Bluetooth pairing
// of wireless tablets added?"), where no chunk of the corpus says it in any
// of its forms (FormsOf): the thing is that word, and the records that say
// the name are not on it; or a generic name no chunk says ("JSON" of "When
// did desktop-file-validate add JSON output?"). "" when there is none or
// the corpus says it.
std::string UnsaidAfterAKey(Searcher& searcher, const std::string& question,
                            const std::vector<std::string>& keys);

// Whether, of a question naming two things or more, a record of `ev` names
// all of them but one that is context: a name some record says, but not
// beside the subject ("Unix" of "abstract Unix sockets on Linux", answered
// by "the abstract socket namespace under Linux"), where the record says
// the subject's other words (two at least): all of two, all but one of
// three or more. A platform is context as well ("launchd support on
// macOS"). The keys that record names, where one does; else nothing.
std::optional<std::vector<std::string>> NamedBesideAContextKey(const std::string& question,
                                                               const std::vector<std::string>& keys,
                                                               const std::vector<Evidence>& ev,
                                                               const std::vector<std::string>& widespread);

// The extractive report: statements quoted from the evidence with their
// authors, dates and links, chosen by the kind of answer the question asks
// for. `found`: whether the corpus holds anything on the question; `keys`:
// its key constraints; `widespread`: the project's names the question gives
// (see WithoutProjectNames); `abstain`: the keys never meet, so the closest
// records appear as related, never as the answer; `came_unsaid`: it abstains
// because records name the thing and none says it came (CameUnsaid).
std::string Extractive(const std::string& question, const std::vector<Facet>& facets, const std::vector<Evidence>& ev,
                       bool found, const std::vector<std::string>& keys, const std::vector<std::string>& widespread,
                       bool abstain, bool came_unsaid = false);

// The question's words that name one of the project's files, as the code
// windows at `urls` say ("pdfunite": utils/pdfunite.cc): names, however they
// are cased, and so key constraints.
std::vector<std::string> FileNameKeys(const std::string& question, const std::vector<std::string>& urls);

// The question's words that name a kind of file by a word its records need
// not say ("pkg-config" of libmd.pc.in, "autotools" of configure.ac).
std::vector<std::string> FileKindWords(const std::string& question);
// `keys` (WithVariants' spellings), each of `kinds` (FileKindWords) among
// them also spelt as a record's file list names a file of that kind
// ("pkg config|pkgconfig|.pc,|.pc |.pc.in").
std::vector<std::string> WithFileKindForms(std::vector<std::string> keys,
                                           const std::vector<std::string>& kinds);

// The clauses of a question: cut at "and", "but", ";" and "?"; none blank.
std::vector<std::string> Clauses(const std::string& question);

// The words most of the hits' permalinks carry ("marin", "community",
// "levanter" in github.com/marin-community/levanter/…): the project's own
// names, which tell no record from another.
std::vector<std::string> ProjectWords(const std::vector<Hit>& hits);

}  // namespace umwelt::research_internal
