// umwelt/wandb.h — the W&B source: runs of ENTITY/PROJECT from the public
// GraphQL API (WANDB_API_KEY), or the same JSON saved to a file.
//
// One chunk per run: source wandb, kind run, ref "wandb:E/P/RUN" (also its
// thread), url https://wandb.ai/E/P/runs/RUN. The text holds the name, state,
// group, tags, notes, the config and the final summary metrics as
// "name value" pairs a search can hit ("mfu 0.238").
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "umwelt/corpus.h"
#include "umwelt/http.h"

namespace umwelt::wandb {

// The line of a run's text with its final numbers ("Summary: loss 2.1, ...");
// others read it through umwelt/source_traits.h.
inline constexpr std::string_view kSummaryLine = "\nSummary: ";

struct ImportReport {
  int files = 0;
  int64_t runs = 0;
  int64_t changed = 0;
  std::vector<std::string> warnings;
};

// Imports saved GraphQL responses ({"data": {"project": {"runs": ...}}}),
// arrays of run nodes, or JSON Lines of run nodes. `project` ("E/P") names
// runs whose node does not carry its project. `repo` resolves a bare #123.
Status ImportFiles(Corpus& corpus, const std::vector<std::string>& paths, const std::string& project,
                   const std::string& repo, ImportReport* report);

struct SyncOptions {
  std::string project;                         // "entity/project"
  std::string api_base = "https://api.wandb.ai";
  std::string api_key;
  std::string repo;
  int per_page = 50;
  int max_retries = 5;
  double backoff_seconds = 1.0;
  std::function<void(double)> sleep;
};

struct SyncReport {
  int requests = 0;
  int retries = 0;
  int64_t runs = 0;      // runs seen
  int64_t changed = 0;   // new or changed
};

// Runs updated since the stored cursor (the newest updatedAt stored), page by
// page, each page committed with the cursor.
Status Sync(Corpus& corpus, HttpClient& http, const SyncOptions& options, SyncReport* report);

// A run as stored: its chunk, thread row and the links its notes and config
// make.
struct Run {
  Chunk chunk;
  Thread thread;
  std::vector<Link> links;
};
// The runs of a saved file's text (any shape ImportFiles takes); `path`
// names it in errors. A run without a name or project fails the file.
Result<std::vector<Run>> ParseRunFile(std::string_view text, const std::string& path, const std::string& project,
                                      const std::string& repo, std::vector<std::string>* warnings);
// One page of the GraphQL runs query: its runs (a malformed node is skipped
// with a warning), whether more follow and the cursor of the next page.
// NotFound when the project is null (absent or not visible to the key).
struct RunsPage {
  std::vector<Run> runs;
  bool more = false;
  std::string end_cursor;
};
Result<RunsPage> ParseRunsPage(std::string_view body, const std::string& project, const std::string& repo,
                               std::vector<std::string>* warnings);

// A stored run's facts in the reference client's shape ({name, project,
// state, url, config, summary, …}), for `/wandb/{project}/{run}/config`.
// `project` is "P" (any entity) or "E/P"; nullopt when the corpus does not
// mirror the run.
Result<std::optional<std::string>> RunConfigJson(Corpus& corpus, const std::string& project, const std::string& run);

// Parses JSON that may hold bare NaN / Infinity (as Python writes it): those
// become the strings "NaN", "Infinity", "-Infinity".
std::string QuoteNonFinite(std::string_view json_text);

}  // namespace umwelt::wandb
