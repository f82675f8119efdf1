// umwelt/source_traits.h — what each source's records mean to the rest of
// umwelt.
//
// The digest, ask, the indexes, the corpus and the publisher ask these
// questions of a record instead of naming its source or kind: does it open a
// thread, land a change, or read as a chat message in a window; which vector
// space holds its text; which files a change touched. Each source declares
// its traits beside its code (sources/<name>/traits.cc); they build into
// umwelt_permalinks, a library below the corpus, so every layer can read
// them. Adding a source is adding its traits; no reader changes.
//
//   if (RoleOf(c.source, c.kind) == Role::kChange) ... ChangedFiles(c.source, c.text) ...
//   for (const std::string& s : SourcesInSpace("code")) ...
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace umwelt {

// What a record (a chunk) or a thread is, whatever source wrote it.
enum class Role {
  kOpening,  // a thread's opening post, with its title, author and state (an issue, a pull request)
  kReply,    // a comment or review on a thread
  kChange,   // a landed change (a commit), or the thread of one (a landing reconstructed from history)
  kMessage,  // a chat message, read with the messages around it
  kChannel,  // a chat channel or thread: the messages' thread
  kRun,      // an experiment run: its numbers are reported, not quoted
  kCode,     // a window of source code
  kPage,     // a fetched web page or paper, or one of its sections
  kNote,     // umwelt's own writing (a weekly summary)
  kOther,    // a kind no source declared (a newer umwelt's)
};

struct KindTraits {
  std::string_view kind;
  Role role = Role::kOther;
  // The weekly activity strip's category it counts in ("" = none), and how
  // a count of them reads: "1 Discord message", "3 Discord messages".
  std::string_view activity;
  std::string_view noun, nouns;
  // A code window on an active branch rather than the default one.
  bool branch = false;
  // A proposed change (a pull request): it lands, or closes without landing.
  bool proposal = false;
};

struct SourceTraits {
  std::string_view name;             // "github"; the Chunk/Thread `source`
  std::string_view label;            // how people name it: "GitHub"
  std::string_view space = "prose";  // the vector space its text is embedded in: "prose" or "code"
  // The prefix of its thread refs when they carry one ("discord:"), "" when
  // its refs are the project's own ("owner/repo#12").
  std::string_view ref_prefix;
  std::vector<KindTraits> kinds;
  // An issue tracker: numbered threads ("owner/repo#12") with labels, epics,
  // states and authors' associations.
  bool tracker = false;
  // Its records may live on any host (a forge's pages, fetched pages): the
  // citation check does not ask for the source's own hosts.
  bool any_host = false;
  // The repository a thread or record ref belongs to ("owner/repo"), "" for
  // none; null when its refs name no repository.
  std::string (*repo_of)(std::string_view ref) = nullptr;
  // The files a change touched, read from the record's text; null for a
  // source whose records touch no files.
  std::vector<std::string> (*changed_files)(std::string_view text) = nullptr;
  // How many reactions a record drew, from its text; null when it has none.
  int (*reactions)(std::string_view text) = nullptr;
  // What a record reports as its result, one line from its text (a run's
  // final numbers, "Summary: loss 2.1, ..."); "" none; null: never.
  std::string (*reported)(std::string_view text) = nullptr;
  // The thread states that mean it ended (a run finished, crashed, ...).
  std::vector<std::string_view> ended_states;
  // Whether a record of `kind` whose thread is `parent` landed through
  // another thread (a pull request) rather than being a thread of its own;
  // null: never.
  bool (*landed_through)(std::string_view kind, std::string_view parent) = nullptr;
};

// Every source's traits, in the corpus's order of sources.
const std::vector<SourceTraits>& AllSourceTraits();
// A source's traits, or null for a source no one declared.
const SourceTraits* TraitsOf(std::string_view source);
// The source a thread ref belongs to by its prefix ("discord:1/2"), or null
// (also for refs without one: a tracker's or a repository's).
const SourceTraits* TraitsOfRef(std::string_view ref);

// What a record of `source` and `kind` is (Role::kOther when undeclared).
Role RoleOf(std::string_view source, std::string_view kind);
// Whether any kind of `source` has `role` (a chat source: kMessage).
bool HasRole(std::string_view source, Role role);
// Every kind, of any source, with `role` (each once): for SQL and filters.
std::vector<std::string> KindsWithRole(Role role);
// The sources whose text is embedded in `space`.
std::vector<std::string> SourcesInSpace(std::string_view space);
// The vector space a source's text goes in ("prose" for an unknown one).
std::string_view SpaceOf(std::string_view source);
// The code windows' kinds: on the default branch (branch = false) or on
// active branches (true).
std::vector<std::string> CodeKinds(bool branch);
// The first source with a kind of `role` (the fetched pages' source for
// kPage), or null.
const SourceTraits* FirstWithRole(Role role);
// The categories of the weekly activity strip, in the sources' order.
const std::vector<std::string>& ActivityCategories();
// The strip category of a record, -1 when it counts in none.
int ActivityOf(std::string_view source, std::string_view kind);
// "3 comments", "1 Discord message": a count of category `k`.
std::string ActivityCount(int k, int64_t n);

// The source's answers, empty or zero when it has none.
std::string RepoOf(std::string_view source, std::string_view ref);
std::vector<std::string> ChangedFiles(std::string_view source, std::string_view text);
int Reactions(std::string_view source, std::string_view text);
bool LandedThrough(std::string_view source, std::string_view kind, std::string_view parent);
bool Proposal(std::string_view source, std::string_view kind);
std::string Reported(std::string_view source, std::string_view text);
bool Ended(std::string_view source, std::string_view state);

// A fetched page's thread ref ("web:<url>", fragment dropped), and the url
// of a page's thread ref ("" when `ref` is no page's).
std::string PageRef(std::string_view url);
std::string PageUrlOf(std::string_view ref);

// umwelt's own writing (weekly summaries fed back into the corpus): its
// source name, and the thread ref of a period's summary.
inline constexpr std::string_view kNarrativeSource = "narrative";
std::string NarrativeRef(std::string_view period_id);

}  // namespace umwelt
