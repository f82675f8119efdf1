// umwelt/github.h — the GitHub source: REST API JSON (issues, pull requests,
// issue comments, reviews, review comments, sub-issues, timeline
// cross-references) turned into corpus records; offline import of saved API
// output; and incremental live sync of OWNER/REPO.
//
// Refs: a thread is "owner/repo#N" (its body chunk has the same ref); a comment
// is "owner/repo#N/c<id>", a review "owner/repo#N/r<id>", a review comment
// "owner/repo#N/rc<id>".
//
// Parsing never touches the corpus; import and sync write through one
// WriteBatch per file or per sync page, so a failure leaves the corpus as it
// was before that batch.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "umwelt/corpus.h"
#include "umwelt/http.h"
#include "umwelt/status.h"

namespace umwelt::github {

// Bodies longer than this are cut, with a warning naming the record.
inline constexpr size_t kMaxBodyBytes = 1u << 20;

// What a page of API JSON yields.
struct Records {
  std::vector<std::vector<Chunk>> records;  // each record as its parts
  std::vector<Thread> threads;
  std::vector<Link> links;                  // cross-references from chunks
  std::vector<std::pair<std::string, std::string>> sub_issues;  // (parent, child)
  int skipped = 0;                          // labels, events, unknown shapes
  std::vector<std::string> warnings;
};

// Parses one JSON document (an object or an array of them) as the API returned
// it. `api_path` is the request path when known ("/repos/o/r/issues/5/sub_issues");
// it supplies context the records lack (the parent of a sub-issue listing, the
// target of timeline cross-references). `origin` names the file or URL in
// errors. Appends to `out`.
Status ParsePage(std::string_view json, std::string_view api_path, const std::string& origin,
                 Records* out);

// Splits a stream of concatenated JSON values (what `gh api --paginate`
// writes, or JSON Lines) into the text of each value. Fails naming `origin` and
// the byte offset on an unterminated value.
Result<std::vector<std::string_view>> SplitJsonValues(std::string_view text,
                                                      const std::string& origin);

// One recorded HTTP exchange.
struct Exchange {
  std::string method;
  std::string path;  // with query
  long status = 0;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};
// Parses PyGithub replay files (10 lines per exchange) and octokit fixture
// files (a JSON array of nock recordings).
Result<std::vector<Exchange>> ParsePyGithubReplay(std::string_view text, const std::string& origin);
Result<std::vector<Exchange>> ParseOctokitFixture(std::string_view text, const std::string& origin);

struct ImportReport {
  int files = 0;
  int64_t records = 0;   // records seen
  int64_t changed = 0;   // records added or changed
  int64_t threads = 0;
  int64_t skipped = 0;
  std::vector<std::string> warnings;
};

// Imports saved API output: `gh api --paginate` JSON, JSON Lines, PyGithub
// replay files or octokit fixtures (detected from content). Each file is one
// transaction; the first failing file stops the import with an error naming
// it, and files before it stay imported.
Status ImportFiles(Corpus& corpus, const std::vector<std::string>& paths, ImportReport* report);

struct SyncOptions {
  std::string repo;                                 // "owner/name"
  std::string api_base = "https://api.github.com";  // GitHub Enterprise or a test server
  std::string token;
  int max_retries = 5;
  double backoff_seconds = 1.0;     // first retry delay; doubles each time
  double max_sleep_seconds = 3600;  // longest rate-limit wait before giving up
  bool fetch_reviews = true;
  bool fetch_sub_issues = true;
  bool fetch_pr_commits = true;     // a merged PR's commits join its thread
  // Sleeps; tests substitute a recorder.
  std::function<void(double seconds)> sleep;
  // Progress: (what, pages so far). Called on the sync thread.
  std::function<void(const std::string&, int)> progress;
};

struct SyncReport {
  int requests = 0;
  int not_modified = 0;  // 304s
  int retries = 0;
  int64_t changed = 0;
  int64_t deleted = 0;
  std::string cursor;    // the new since-cursor
};

// Incremental sync of one repository: issues, comments and review comments
// updated since the stored cursor (repository-wide listings), pull request
// state, reviews and sub-issues of the threads that changed, and removal of
// comments deleted upstream. The cursor moves only when every page committed.
// On failure the error is recorded in sync_state and returned.
Status Sync(Corpus& corpus, HttpClient& http, const SyncOptions& options, SyncReport* report);

// --- webhooks -------------------------------------------------------------

// The largest delivery GitHub sends (its own cap); larger bodies are refused.
inline constexpr size_t kMaxWebhookBytes = 25u << 20;

// The events a delivery's X-GitHub-Event may name that change the corpus.
// Any other event is acknowledged and ignored.
bool WebhookEventMirrored(std::string_view event);

// What one webhook delivery changes, read from its payload without touching
// the corpus. The payload's `issue`, `comment`, `pull_request`, `review` and
// `release` objects are the REST objects and go through the same parser as
// `sync github` (ParsePage).
struct WebhookChange {
  std::string event;   // X-GitHub-Event
  std::string action;  // the payload's `action` ("" for push)
  std::string repo;    // repository.full_name ("" for ping)
  bool ping = false;
  std::string thread;  // the thread it concerns ("o/r#5"; "" for push)
  Records records;     // to store
  std::vector<std::string> deleted_records;  // refs removed, with their parts and links
  std::string deleted_thread;                // a deleted issue or release: the thread and all its records
  std::string pushed_branch;                 // push: the branch, when a branch was pushed
  bool pushed_default = false;               // push: to the repository's default branch
  // What the payload cannot carry and the sync fetches per thread: the
  // sync cursor's lists the thread joins ("pending_commits" for a merged
  // pull request, "pending_sub_issues" for an issue with sub-issues), and
  // the thread's number.
  std::vector<std::string> follow_ups;
  int64_t number = 0;
};

// Reads a delivery. Invalid, naming the field at fault, when the body is not
// a JSON object, lacks what its event needs (`repository.full_name`,
// `action`, the event's object), or carries one of them in the wrong shape
// (a number as a string, an issue without its number): the caller answers
// 4xx and writes nothing. An event WebhookEventMirrored refuses parses to
// a change with nothing to store.
Result<WebhookChange> ParseWebhook(std::string_view event, std::string_view body);

// Applies a change in one transaction: its records stored as a sync stores
// them (a record's newer stored copy wins), then its deletions, and its
// follow-ups added to the repository's sync cursor, so the next sync (or
// `refresh`) fetches what the payload lacked for that thread.
Status ApplyWebhook(Corpus& corpus, const WebhookChange& change, int64_t* changed);

}  // namespace umwelt::github
