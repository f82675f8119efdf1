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
