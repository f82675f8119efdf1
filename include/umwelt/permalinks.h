// umwelt/permalinks.h — the url shapes of each source's permalinks.
//
// Each source declares where its records live on the web (its hosts) and how
// a url there names one of its threads; link extraction (`FindLinks`), the
// report's hover cards and `ThreadRefForUrl` read them here instead of
// knowing any source. The declarations live with their sources
// (sources/<name>/permalinks.cc) but build into a library below the corpus,
// so the corpus can read them without depending on the sources' sync code.
//
//   for (const auto& s : PermalinkSchemes()) ...
//   std::optional<std::string> ref = SourceThreadRef("https://discord.com/channels/1/2/3");  // "discord:1/2"
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace umwelt {

// A url split for the schemes: its lower-case host and its path's non-empty
// parts, query and fragment dropped ("https://Host/a//b?x" -> "host", {a, b}).
struct UrlParts {
  std::string host;
  std::vector<std::string_view> path;
};
// Empty host when `url` has no "scheme://".
UrlParts SplitUrl(std::string_view url);

struct PermalinkScheme {
  std::string_view source;              // the Source it belongs to: "github", "discord", "wandb"
  std::vector<std::string_view> hosts;  // lower-case hosts its permalinks live on
  // The thread a url on one of those hosts belongs to: its ref, "" for a page
  // of the source that is no thread (a link to it names nothing), nullopt for
  // a url the source does not own (an ordinary web page).
  std::optional<std::string> (*thread_ref)(std::string_view url, const UrlParts& parts);
  // Whether the url is a record the corpus can hold (a hover card's target).
  bool (*is_record)(const UrlParts& parts);
};

// Every source's scheme.
const std::vector<PermalinkScheme>& PermalinkSchemes();
// The scheme whose hosts include the url's, or null.
const PermalinkScheme* SchemeForUrl(const UrlParts& parts);
// What a source's scheme says of `url` (see `thread_ref`); nullopt when no
// source owns it.
std::optional<std::string> SourceThreadRef(std::string_view url);
// Whether `url` is a record of some source (an issue, PR, commit, file,
// Discord message, W&B run).
bool IsSourceRecordUrl(std::string_view url);

}  // namespace umwelt
