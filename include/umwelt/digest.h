// umwelt/digest.h — `umwelt digest`: the weekly summary of a project's
// activity, by workstream, in three lengths (XS headline, S bullets, M
// sections), published as a static site with an Atom feed and fed back into
// the corpus as `narrative` chunks.
//
// The pipeline: gather every chunk dated in the period and the threads that
// changed in it; group them into workstreams (epics with their sub-issues and
// what links to them, clusters of the rest by shared links, labels and
// channel) and fixed sections (maintenance, outside contributors, Discord,
// introductions, shared reading, runs); rank each section's evidence (state
// changes, close-outs, numbers, decisions); write each section with an LLM
// (one call each, then one for S and one for XS, every link, #N and number
// checked against the section's evidence) or extractively without one.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "umwelt/corpus.h"
#include "umwelt/llm.h"
#include "umwelt/params.h"
#include "umwelt/research.h"
#include "umwelt/status.h"

namespace umwelt {

// A period of whole UTC days, both ends inclusive ("YYYY-MM-DD").
struct Period {
  std::string from, to;
  std::string id() const { return from + "_" + to; }  // "2026-11-16_2026-11-22"
  int days() const;
};
// The Monday–Sunday week holding `date` ("YYYY-MM-DD"); fails on a bad date.
Result<Period> WeekOf(const std::string& date);
// The last week that ended before `now` (epoch seconds).
Period LastCompleteWeek(int64_t now);
// Parses "YYYY-MM-DD_YYYY-MM-DD", a single week's Monday, or a from/to pair.
Result<Period> ParsePeriod(const std::string& from, const std::string& to);

struct DigestConfig {
  std::string project;                      // the title's name; default: the corpus's main repository
  std::vector<std::string> epic_labels = {"epic"};
  std::vector<std::string> maintenance_labels = {"dependencies", "ci", "chore", "maintenance", "build",
                                                 "cleanup", "tech-debt"};
  std::vector<std::string> members;         // logins counted as the project's own, whatever GitHub says
  std::string introductions_channel = "introductions";
  int max_workstreams = 10;                 // clusters beyond this go to "Other activity"
  int quotes_per_section = 3;               // extractive quotes under each section's lead
  int max_evidence = 30;                    // evidence items handed to the model per section
};

// What to summarize and how to name it: the digest's parameters (the CLI's
// `digest` and `eval digest` flags come from DigestParams).
struct DigestRequest {
  std::string week, from, to;  // a day of the week, or a custom period; neither: the last complete week
  int weeks = 1;               // this many weeks ending with `week`
  std::vector<std::string> tiers = {"xs", "s", "m"};  // which to print (all are written)
  DigestConfig config;
};
const ParamTable<DigestRequest>& DigestParams();
// The weeks (or the one custom period) a request names, oldest first; `now`
// for the default, the last complete week.
Result<std::vector<Period>> DigestPeriods(const DigestRequest& request, int64_t now);

// How many activity categories the SVG strips draw: the sources' categories
// (ActivityCategories, umwelt/source_traits.h), in their order.
inline constexpr int kActivityKinds = 6;
using DayActivity = std::array<int, kActivityKinds>;

struct SectionThread {
  std::string ref, url, title, state;
  std::string label;       // "#123" in the project, else the ref or title
};

// A change that landed in the period: a merged pull request, or a commit
// that went to the default branch on its own. Sizes are -1 when unknown.
struct LandedChange {
  std::string label;   // "#917", or a commit's short sha
  std::string title, url, author, date;
  int64_t files = -1, added = -1, removed = -1;
  int discussion = 0;  // comments and reviews on it in the period
  int links = 0;       // other threads of the period that reference it
  std::string area;    // the area it works in, as a heading names it ("" none)
  double generated = 0;  // the share of its files that are generated, vendored or lock files
  std::string summary; // its description's first sentences, when it says more than the title
  int64_t size() const { return added < 0 ? -1 : added + removed; }
};

struct DigestSection {
  std::string slug;        // stable within and across periods: "epic-acme-tinylm-101", "maintenance", ...
  std::string kind;        // epic, workstream, other, maintenance, outside, discord, introductions, reading, runs
  std::string heading;     // the topic
  std::string body;        // M: Markdown paragraphs
  std::string bullet;      // S: the line after the bold topic
  std::vector<SectionThread> threads;  // the threads the section covers, busiest first
  std::vector<LandedChange> landed;    // what landed, biggest first
  std::vector<Evidence> evidence;      // what it may cite, best first
  std::vector<DayActivity> days;       // one per day of the period
  int activity = 0;
  std::string previous;    // last period's body of the same section, for continuity
};

struct DigestStats {
  int chunks = 0, threads = 0, contributors = 0;
  int opened = 0, merged = 0, closed = 0, messages = 0, channels = 0, commits = 0, runs = 0;
};

struct Digest {
  Period period;
  std::string project, title;   // "acme/tinylm: week of November 16, 2026"
  std::string xs;               // ≤ 280 characters
  std::vector<DigestSection> sections;
  DigestStats stats;
  bool extractive = true;
  bool quiet = false;           // nothing happened
  bool partial = false;         // the period has not ended yet
  std::vector<std::string> notes;    // fallbacks, partial week, missing metadata
  std::vector<std::string> removed;  // model claims the checks took out, and why
  std::vector<std::string> shared_links;  // web links of shared reading (for the provenance)
  LlmUsage usage;
  double seconds = 0;
};

struct DigestOptions {
  std::string corpus_path;
  Period period;
  DigestConfig config;
  ChatModel* llm = nullptr;     // null: extractive
  int64_t now = 0;              // epoch seconds; 0 = the clock
  std::function<void(const std::string& stage, const std::string& detail)> progress;
};

// Gathers, groups, ranks and writes one period. A period with no activity is a
// quiet digest, not an error; a period that has not begun is an error. With a
// model, a section whose call fails after retries fails the digest naming
// it; the sections already written stay in the model's cache, so a rerun
// resumes where it stopped.
Result<Digest> BuildDigest(const DigestOptions& options);

// The tiers as Markdown: XS (one line), S (one bullet per M section, in
// order), M (`##` sections).
std::string DigestXs(const Digest& d);
std::string DigestS(const Digest& d);
std::string DigestM(const Digest& d);

// The site, in the reference system's layout (its client finds the pages
// by the index's links): summaries/summary-<from>_<to>.html (the publish
// renderer, with an inline SVG activity strip per section), .md beside it
// (M, with S and XS in .s.md and .xs.md), .json (what the index and feed are
// rebuilt from); at the root index.html (newest first, XS headlines, a chart
// of weekly activity, links `summaries/summary-….html`) and feed.xml (Atom);
// and the previous and next pages' links. Pages of a site written flat by an
// older umwelt move into summaries/. `site_url` (the site's root) makes the
// feed's links absolute. Fails, writing nothing, when the page does not pass
// the citation check. Returns the page's path.
inline constexpr const char* kPagesFolder = "summaries";
// A period's page relative to the site root: "summaries/summary-<id>.html".
std::string SitePagePath(const std::string& period);
struct SiteOptions {
  std::string out_dir;
  std::string site_url;
  int64_t generated_at = 0;
};
Result<std::string> WriteDigestSite(const Digest& d, const SiteOptions& options, Corpus* corpus);

// Feeds the digest back: one `narrative` chunk (kind `summary`) per section
// plus an overview (XS and S), under the thread "narrative:<from>_<to>",
// replacing an earlier digest of the same period. `page_url` is where the
// page lives (its sections are anchors on it).
Status StoreDigest(Corpus& corpus, const Digest& d, const std::string& page_url);

// Reading stored digests back (`umwelt summaries`).
struct SummaryInfo {
  std::string period;   // "2026-11-16_2026-11-22"
  std::string title, xs, url;
};
Result<std::vector<SummaryInfo>> ListSummaries(Corpus& corpus);  // newest first
// The text of one period ("latest" for the newest): title, XS, S, M.
Result<std::string> SummaryText(Corpus& corpus, const std::string& period);
// The outbound links of one period's M sections, de-duplicated, in order.
Result<std::vector<std::string>> SummaryLinks(Corpus& corpus, const std::string& period);
// The summaries as `summaries --json`, /api/summaries and MCP give them:
// for `period` "" the list [{period, title, xs, url}], newest first; else
// one period ("latest" for the newest) as {period, text, links}.
Result<nlohmann::json> SummariesValue(Corpus& corpus, const std::string& period);
Result<std::string> SummariesJson(Corpus& corpus, const std::string& period);

// Posts XS, then S and M as follow-up messages, to a Discord webhook
// (`kind` "discord", messages ≤ 2,000 characters) or a Slack incoming webhook
// ("slack"). The url is a secret: errors never show it.
Status PostDigest(const Digest& d, const std::string& kind, const std::string& webhook_url);

// A period's digest written whole, as `umwelt digest` and the server's
// weekly round both do: built, its site written (when `site.out_dir` is
// set), fed back into the corpus (when `store`, and the corpus is umwelt's
// own: a reference-schema corpus is read-only, and a note says so), and
// posted (when `post_kind` is set).
struct WriteDigestOptions {
  DigestOptions digest;
  SiteOptions site;
  std::string page_url;    // where the page is served: the stored sections link there
  bool store = true;
  std::string post_kind;   // "discord" or "slack"; "" = no post
  std::string post_webhook;
};
struct WrittenDigest {
  Digest digest;
  std::string page;        // the page written ("" without a site)
  bool stored = false;
};
Result<WrittenDigest> WriteDigest(const WriteDigestOptions& options);

// `umwelt eval digest`: the checks on one digest.
// The digest's trace as JSON: per section the evidence pack its writer (or
// model) received, in rank order, and what landed; notes, removals, usage.
std::string DigestTraceJson(const Digest& d);

struct DigestCheck {
  int links = 0;
  std::vector<std::string> bad_links;     // links not in the corpus, or not of the period
  int notable = 0, covered = 0;           // of the top notable events, how many M mentions
  std::vector<std::string> missed;
  bool xs_ok = true, s_ok = true;
  int xs_chars = 0, s_bullets = 0, m_sections = 0, m_chars = 0;
  int max_bullet_chars = 0;               // after the topic
  int landed = 0, landed_in_m = 0;        // merged PRs of the period, and how many M lists
  std::vector<std::string> landed_missing;
  int top = 0, top_in_s = 0;              // the three biggest merged PRs, and how many S or XS names
  int junk = 0;                           // quoted lines in M that are not statements
  std::vector<std::string> unsafe_links;  // links to private hosts or carrying credentials
  int check_problems = 0;                 // strict citation-check errors and warnings of M
  // How it reads (each should be 0, "Other" at most a fifth):
  int landed_changes = 0;                 // landed changes listed (PRs and lone commits)
  int landed_in_other = 0;                // of them, in "Other activity"
  bool largest_in_other = false;          // the period's largest change among them
  std::vector<std::string> cut_titles;    // titles shortened inside a word ("Validat…")
  std::vector<std::string> title_quotes;  // quotes that repeat their record's title
  std::vector<std::string> fragment_quotes;  // quotes that are no whole sentence
  std::vector<std::string> bare_numbers;  // measures listed without the quantity they measure
  std::vector<std::string> noise_areas;   // headings that name no area ("Ez", the project, ".claude")
  std::vector<std::string> attribution_links;  // shared links that only credit a tool, or boilerplate
};
Result<DigestCheck> CheckDigest(const Digest& d, Corpus& corpus, int top_notable = 20);

}  // namespace umwelt
