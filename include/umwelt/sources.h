// umwelt/sources.h — the sources a corpus can sync from, behind one interface.
//
// Each recorded source (a sync_state row "<name>:<id>": "github:acme/tinylm",
// "git:acme/tinylm", "discord:<guild>", "wandb:acme/tinylm") belongs to one
// Source, which knows how to sync it again from its stored cursor and how to
// say what its cursor records. `ask --refresh`, the server's scheduler and
// `status` iterate the registry; nothing else parses a source's cursor.
//
//   bool changed = false;
//   UMWELT_RETURN_IF_ERROR(RefreshRecordedSources(corpus, *http, creds, log, &changed));
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "umwelt/corpus.h"
#include "umwelt/http.h"

namespace umwelt {

// What the sources need to call their APIs; the caller finds them (the CLI:
// the environment and `gh auth token`), the registry never reads them.
struct SourceCredentials {
  std::string github_token;
  std::string discord_token;
  std::string wandb_api_key;
};

class Source {
 public:
  virtual ~Source() = default;
  // The prefix of its sync_state rows: "github", "git", "discord", "wandb".
  virtual std::string_view name() const = 0;
  // Syncs the recorded source `state` incrementally from its cursor; sets
  // *changed when anything stored changed. The sync records its own success
  // or failure in sync_state.
  virtual Status Refresh(Corpus& corpus, HttpClient& http, const SyncState& state, const SourceCredentials& credentials,
                         bool* changed) const = 0;
  // What the last sync left out, from the cursor, in words ("" = nothing).
  virtual std::string DescribeCursor(std::string_view cursor) const { return ""; }
  // The same as a JSON object's members (`status --json`), "" = none.
  virtual std::string CursorFactsJson(std::string_view cursor) const { return ""; }
};

// The source a sync_state row ("github:acme/tinylm") belongs to, or null.
const Source* SourceOf(std::string_view recorded);
// Every source umwelt can sync, by name.
std::vector<const Source*> AllSources();

// Syncs every source recorded in the corpus, one after another, each from its
// cursor. `log` gets one line per source ("github:acme/tinylm: ok", or its
// error); a source that fails does not stop the others, and the return is Ok
// unless the corpus could not be read. *changed: whether anything stored
// changed (the indexes need rebuilding).
Status RefreshRecordedSources(Corpus& corpus, HttpClient& http, const SourceCredentials& credentials,
                              const std::function<void(const std::string&)>& log, bool* changed);

}  // namespace umwelt
