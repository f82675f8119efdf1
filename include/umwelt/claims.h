// umwelt/claims.h — text helpers for evidence and the claims made from it,
// shared by `ask` and `digest`: words, sentences, numbers with units, quoting
// corpus text inertly into Markdown, and the check every written claim passes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "umwelt/research.h"

namespace umwelt::research {

// The question's content words: lower-case, stop words and short words out,
// de-duplicated, in order.
std::vector<std::string> ContentWords(std::string_view text);
// Sentences of a text (split at . ! ? and line breaks), trimmed, non-empty.
std::vector<std::string> Sentences(std::string_view text);
// The sentences of a text as written: a paragraph's wrapped lines joined;
// headings, tables, code, quoted lines and html left out; list items and
// fields ("Changed: …", "Co-authored-by: …") apart.
std::vector<std::string> ProseSentences(std::string_view text);
// Numbers with their units ("38.5%", "451k", "64 H100s", "14 minutes");
// years, dates, #refs and numbers inside urls are not numbers here.
std::vector<std::string> Numbers(std::string_view text);
// Quoted corpus text made inert for Markdown: credentials redacted
// (RedactSecrets), urls in code spans (no autolinks), backticks replaced,
// markup characters (and < >) escaped with backslashes, a leading heading or
// list marker defused.
std::string Neutralize(std::string_view text);
// Whether `haystack` holds the number `digits` whole ("45" is not in "451k").
bool ContainsNumber(std::string_view haystack, std::string_view digits);
// The targets of a Markdown text's links ("](target)"), then its bare
// http(s) urls, in order.
std::vector<std::string> MarkdownLinks(std::string_view md);
// Whether `text` states `number` (as Numbers() gives it: "45%", "451k",
// "2.41"): the same unit, and a value that rounds to it at the precision it
// is written with ("38%" is grounded by "38.4%", not by "38.5 ms" nor
// "45%").
bool Grounded(const std::string& number, std::string_view text);
// Whether a sentence speaks of a target, goal or plan rather than a result.
bool SpeaksOfTarget(std::string_view sentence);
// The unit of a number Numbers() found ("38.5%" -> "%", "64 H100s" ->
// "h100s"), lower-case; "" for a bare number.
std::string UnitOf(const std::string& number);

// Whether a sentence is prose someone said, fit to quote as a statement: not
// a shell command, code, a stack trace, a table row, a file list or diff
// stat, a checklist item, test-runner output, a heading, or the body of a
// version bump or bot; and not our own annotations (Files:, Changed:,
// Attachments:, Reactions:, Reply to:, Embed:, trailers).
bool IsStatement(std::string_view sentence);
// Whether a sentence asks rather than tells: it ends in a question mark, or
// opens as a request for help does ("I was wondering if…", "Is there a way
// to…", "Does anyone know…"). In a thread, its answer is a reply.
bool Asks(std::string_view sentence);

// How many quoted lines of a report or digest ("> …" or "- …" before their
// " — [" attribution) are not statements: junk quoted as if said.
int CountJunkQuotes(std::string_view markdown);

// The kind of answer a question asks for: a date ("when did…", "which
// version…"), a quantity ("how many…", "how fast…", "what loss…"), named
// things ("which models…", "who…"), or anything else (how, why).
enum class AnswerType { kWhen, kQuantity, kNamed, kOther };
AnswerType AnswerTypeOf(std::string_view question);

// The period a question names, as search bounds (YYYY-MM-DD, each end
// inclusive, "" for open): "in 2016" and "during March 2021" (that year or
// month), "since"/"from", "after", "before", "until", "between 2015 and
// 2017", "from 2015 to 2017". `said` is how the question put it ("in
// 2016"); all empty where it names none. Several periods are their span
// ("in 2016 and in 2018"); periods on both sides ("before 2010 or after
// 2015") are none. A four-digit number is a year only from 1970 to 2099
// and where it ends its phrase ("in 2048 tokens" is none).
struct DateWindow {
  std::string since, until, said;
};
DateWindow QuestionWindow(std::string_view question);
// What a search within `w` searched, for a report's notes: "searched only
// the records dated from 2016-01-01 to 2016-12-31, the period the question
// names ("in 2016")".
std::string Searched(const DateWindow& w);

// The numbers of a sentence that can answer a quantity question about
// `terms`: within six words of one of the terms, or with a unit a term names
// ("tokens" asks for "tokens/s"); never a version ("4.55.0"), a year, a
// date or a #ref.
std::vector<std::string> AnsweringNumbers(std::string_view sentence, const std::vector<std::string>& terms);

// The counts a sentence gives of `noun` (a stem: "core"): numbers written
// right before it, at most two words between and no punctuation ("6 CPU
// cores", "8 H100 GPUs"), never one before another measure ("12 GB of
// RAM", "5000 IOPS") or after the noun ("cpu: 1024").
std::vector<std::string> CountsOf(std::string_view sentence, std::string_view noun);

// How well a sentence gives the kind of answer asked for, 0 to 2: for a
// quantity, numbers near the question's terms (2) or any number (0.5); for a
// date, an event (added, landed, switched…) and a date or version; for named
// things, the names it gives that the question does not.
double AnswerFit(std::string_view sentence, AnswerType type, const std::vector<std::string>& terms);

// The statement of `text` that best says something: most of `terms`, then
// the best fit to the answer type (numbers preferred when none is given);
// "" when no sentence is a statement (IsStatement). `tells_only`: a
// sentence that asks (Asks) is never the one.
std::string BestSentence(std::string_view text, const std::vector<std::string>& terms,
                         AnswerType type = AnswerType::kOther, bool tells_only = false);

// The question's key constraints: the names and measures an answer must
// mention together ("MFU", "H200", "v5p", "Olmo2"): words with digits and
// letters, acronyms, and capitalized words inside the sentence; generic ones
// (GPUs, PR, API) left out. Lower-case, a plural's s dropped.
std::vector<std::string> KeyConstraints(std::string_view question);
// The generic names KeyConstraints leaves out that the question writes in
// capitals ("json" of "add JSON output"), lower-case: they tell no record
// from another where records say them, and only there.
std::vector<std::string> GenericNames(std::string_view question);
// A key that names a platform or a toolchain (macOS, MSVC), which a question
// names as the place of its subject ("launchd support on macOS").
bool IsPlatformKey(const std::string& key);
// Whether a text (its MatchForm) names an operating system `key` does not
// name ("the abstract socket namespace under Linux", of macOS).
bool NamesAnotherPlatform(std::string_view match_form, const std::string& key);
// The constraints left once the project's own names are dropped: those most
// of the evidence's permalinks carry ("levanter" in
// github.com/marin-community/levanter/…), and those in `widespread` (names a
// third of the corpus says, as a Discord server's name, which its permalinks
// never carry). Such a name tells no record from another.
std::vector<std::string> WithoutProjectNames(std::vector<std::string> constraints, const std::vector<Evidence>& evidence,
                                             const std::vector<std::string>& widespread = {});
// Text as constraints are looked for in it: lower-case, `-` and `_` read as
// spaces, whitespace collapsed, and the joined forms of its compounds
// ("Z-Loss" reads "z loss … zloss"; "use_z_loss" also "zloss") after a
// mark, where Mentions finds a name only from a joined form's start.
std::string MatchForm(std::string_view text);
// A title's match form (MatchForm) that also says the words of its names
// in code apart: "Support XIScrollClass" says "scroll" and "class", as a
// title about scroll classes would. For titles and the one sentence a
// report quotes: in a record's whole text such names are as often what the
// change touched as what it is about (all-sets runs put those first).
std::string TitleForm(std::string_view title);
// A constraint with its other spellings, "|"-separated: the words as
// written ("mixture of expert"), joined ("mixtureofexpert"), and the
// acronym or expansion `texts` (what retrieval found) pair with it
// ("Mixture of Experts (MoE)", "FSDP (fully sharded data parallel)").
std::vector<std::string> WithVariants(const std::vector<std::string>& keys, const std::vector<std::string>& texts);
// Each record's title and text, for WithVariants.
std::vector<std::string> EvidenceTexts(const std::vector<Evidence>& evidence);
// Whether a MatchForm text holds one of a constraint's spellings.
bool Mentions(std::string_view match_form, const std::string& key);
// A constraint as the question wrote it (its first spelling).
std::string Shown(const std::string& key);
// The constraints with each short name (up to four letters) that begins
// another word of the question said only where a word ends after it: "DRI"
// of "When did the driver add DRI support?" is not in "driver" (but is in
// "DRI2").
std::vector<std::string> WithShortNamesApart(std::vector<std::string> keys, const std::string& question);
// Whether `text` mentions every constraint (any of its spellings).
bool MentionsAll(std::string_view text, const std::vector<std::string>& constraints);

struct VerifiedClaims {
  std::string markdown;
  std::vector<std::string> removed;  // each removed line, " — " and why
};
// Every link must be an evidence url; every number in a line that cites must
// appear, whole, in what it cites, and as a result when the line reports one.
// Lines that fail are removed and listed; a claim resting on a superseded
// statement gets a link to what replaced it.
VerifiedClaims VerifyClaims(const std::string& markdown, const std::vector<Evidence>& evidence);

}  // namespace umwelt::research
