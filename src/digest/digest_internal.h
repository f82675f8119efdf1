// Internal to digest/: helpers shared by its files.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "umwelt/digest.h"

namespace umwelt::digest_internal {

// "2026-11-16" -> epoch seconds of its midnight UTC; nullopt when malformed.
std::optional<int64_t> DayStart(std::string_view date);
std::string DayString(int64_t epoch);
// "November 16, 2026".
std::string LongDate(const std::string& date);

inline bool Http(const std::string& url) { return url.rfind("https://", 0) == 0 || url.rfind("http://", 0) == 0; }
// A url a digest may cite: http(s), or a local repository's git+file://
// permalink (which show, the server and the citation check resolve).
inline bool Citable(const std::string& url) { return Http(url) || url.rfind("git+file://", 0) == 0; }

// Corpus text on one line of Markdown, inert.
std::string Inline(std::string_view text, size_t max_bytes);

// The per-day activity strip of a section: a small inline SVG, stacked bars
// by category, labelled for screen readers.
std::string ActivityStripSvg(const std::vector<DayActivity>& days, const std::string& from);
// Weekly totals over time for the index page: `weeks` oldest first.
struct WeekTotal {
  std::string period, label;
  DayActivity total{};
};
std::string WeeklyChartSvg(const std::vector<WeekTotal>& weeks);
// The legend under a strip.
std::string ActivityLegendHtml();

// areas.cc: what a change works on, named as a person would.
// A name's key: lower case, runs of other characters one "_" ("[Simple-FSDP]"
// and simple_fsdp/ meet).
std::string AreaKey(std::string_view name);
// The area a path is in: its module under the package ("models" for
// src/levanter/models/llama.py), the project inside a folder of projects
// (experiments/rl/… is "rl"), tests, docs, config, ci, agents (.claude/,
// CLAUDE.md), dev_environment, tooling (other dot-folders); "" for the
// repository's own top-level files.
std::string AreaOfPath(std::string_view path, const std::string& package);
// A path's folders and file stem as keys, to match a title's tag against.
std::vector<std::string> PathComponents(std::string_view path);
// Tags that name no area: change types, workflow markers ([ez], [WIP],
// [reland], [1/n]), the project's own name and owner.
bool NoiseTag(const std::string& key, const std::string& project);
struct TitleTag {
  std::string key, shown;  // "rl", "RL"
};
// The area tags a title opens with: "[ez] [RL] …" -> RL; "fix(ckpt): …" ->
// ckpt; noise dropped.
std::vector<TitleTag> TitleTags(std::string_view title, const std::string& project);
// An area's heading: the capitalised spelling the project writes
// (`spellings`, from tags and folders), else its words with acronyms
// upper-cased ("simple_fsdp" -> "Simple FSDP"); tool folders by what they
// hold ("Agent instructions (.claude)").
std::string AreaName(const std::string& key, const std::vector<std::string>& spellings);
// A title without its trailing "(#N)" (and its leading tags, unless kept),
// at most `max_bytes`, shortened at a word boundary (never inside a word)
// with an ellipsis.
std::string ShortTitle(std::string_view title, size_t max_bytes, bool drop_tags = true);
// Whether a path is generated, vendored or a lock file: its lines say
// little of the work.
bool GeneratedPath(std::string_view path);

// sentences.cc: what a digest may quote.
// Whether it reads as a whole sentence: a capital (or digit, quote) first,
// an end mark last, brackets closed; 25 to 400 bytes.
bool WholeSentence(std::string_view sentence);
// Whether most of its words are the title's (tags and "(#N)" aside).
bool RepeatsTitle(std::string_view sentence, std::string_view title);
// The measures it states, each a quantity's name with its value ("mfu
// 28.56%", "loss 2.41"); numbers without a name are not measures.
std::vector<std::string> Measures(std::string_view sentence);
// Whether it states a decision ("we decided", "root cause", "going with").
bool Decision(std::string_view text);
// Whether it states a result, a decision or a measure.
bool SaysSomething(std::string_view sentence);
// Whether a line credits a tool or a co-author rather than sharing a link
// to read ("Generated with [Claude Code](…)", "Co-authored-by:").
bool Attribution(std::string_view line);
// Badges, licences, contribution guides: links no one shares to be read.
bool BoilerplateLink(std::string_view url);

// gather.cc: the period's activity into `d`'s sections, evidence ranked
// (quiet when there is none).
Status Gather(Corpus& corpus, const DigestOptions& options, Digest* d);
// write.cc: the tiers.
void WriteAllExtractive(Digest* d, const DigestConfig& config);
// One model call per section, then S and XS; fails naming the section whose
// call failed (what was written is in the model's cache).
Status WriteAllWithModel(Digest* d, ChatModel& llm, const DigestConfig& config);

// A link fit to publish (public http(s) host, credentials stripped), or ""
// when it is not (see gather.cc).
std::string ShareableUrl(const std::string& url, const std::string& project);
// The provenance block after the <!--provenance--> marker: the data's
// extent, notes, and the shared links the page lists without fetching.
std::string Provenance(const Digest& d);

// The Markdown links and bare urls of `md`, in order (duplicates kept).
std::vector<std::string> MarkdownLinks(std::string_view md);

}  // namespace umwelt::digest_internal
