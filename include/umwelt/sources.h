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

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "umwelt/corpus.h"
#include "umwelt/http.h"

namespace umwelt {

// Where a source's credential is found: environment variables, first set
// wins, then a command that prints one (`gh auth token`), run by the caller.
struct CredentialSpec {
  std::vector<std::string_view> env;
  std::string_view command;
};

// What the sources need to call their APIs, by source name; the caller finds
// them (the CLI: each source's CredentialSpec), the registry never reads them.
class SourceCredentials {
 public:
  void Set(std::string_view source, std::string credential) { by_source_[std::string(source)] = std::move(credential); }
  // "" when none was found.
  const std::string& Get(std::string_view source) const;

 private:
  std::map<std::string, std::string, std::less<>> by_source_;
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
  // Where its credential comes from; none by default (a local clone).
  virtual CredentialSpec credential() const { return {}; }
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

// One recorded source's health, the one shape `status --json`, /api/status,
// the snapshot manifest and MCP's status tool show: {source, last_success,
// age_seconds (when it ever succeeded), last_error (no secrets, no local
// paths), error_since, ok} and what its cursor records (CursorFactsJson).
nlohmann::json SourceHealthValue(const SyncState& state, int64_t now);
// A corpus's status, the one shape of every front door: {chunks, threads,
// links, built_at, schema_version, counts: [{source, kind, chunks}],
// sources: [SourceHealthValue...], spaces: {name: model facts}}. The CLI adds
// where the corpus is; the server adds its scheduler, sign-in and jobs.
nlohmann::json CorpusStatusValue(const CorpusStats& stats, int64_t now);

}  // namespace umwelt
