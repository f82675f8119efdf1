// umwelt/discord.h — the Discord source: DiscordChatExporter exports and raw
// API JSON imported from files, and live sync with a bot token.
//
// One chunk per message: source discord, kind message, ref
// "discord:G/C/M", parent "discord:G/C" (the channel or thread), url
// https://discord.com/channels/G/C/M. Mentions are resolved to names;
// attachment names, embed urls, reactions and the replied-to message are
// kept in the text. Channels and threads are thread rows (kind channel or
// thread; a thread's parent is its channel).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "umwelt/corpus.h"
#include "umwelt/http.h"

namespace umwelt::discord {

struct ImportOptions {
  std::string repo;  // "owner/name": what a bare #123 in a message refers to ("" = none)
  int batch = 2000;  // messages per transaction
  std::function<void(int64_t messages)> progress;  // after each batch, the messages read so far
};

struct ImportReport {
  int files = 0;
  int64_t messages = 0;  // messages stored
  int64_t changed = 0;   // new or changed
  int64_t skipped = 0;   // system messages with nothing to read
  int64_t channels = 0;
  std::vector<std::string> warnings;
};

// Imports DiscordChatExporter JSON exports (streamed: memory does not grow
// with the export) and raw Discord API dumps ({"thread", "messages"} objects
// or arrays of them, or a bare array of messages). An export cut off mid-way
// keeps the complete messages before the cut and fails with an error naming
// the file and the byte. Each batch is one transaction.
Status ImportFiles(Corpus& corpus, const std::vector<std::string>& paths, const ImportOptions& options,
                   ImportReport* report);

struct SyncOptions {
  std::string guild;                                      // guild id
  std::string api_base = "https://discord.com/api/v10";  // a test server in tests
  std::string token;                                      // bot token
  std::string repo;                                       // as in ImportOptions
  int max_retries = 5;
  double backoff_seconds = 1.0;
  int recheck_days = 3;       // messages this recent are re-read for edits and deletions
  int archived_days = 30;     // archived threads this recent are re-listed for late replies
  int64_t now = 0;            // epoch seconds; 0 = the clock
  std::function<void(double seconds)> sleep;  // tests record instead of sleeping
  std::function<void(const std::string& channel, int64_t messages)> progress;
};

struct SyncReport {
  int requests = 0;
  int retries = 0;         // 429s and 5xx retried
  int channels = 0;        // channels and threads read
  int64_t messages = 0;    // messages stored (new or changed)
  int64_t deleted = 0;     // messages deleted upstream
};

// Incremental sync of one guild: its text and forum channels, active threads
// and recently archived ones; per channel the messages after the stored
// cursor, one transaction per page with the cursor, so a crash resumes where
// it stopped; then the last `recheck_days` of each channel again, to catch
// edits and deletions. Rate-limit buckets and 429 retry_after are honoured.
Status Sync(Corpus& corpus, HttpClient& http, const SyncOptions& options, SyncReport* report);

// The line a message's reactions are kept on: "Reactions: 🔥 3, 👍 2".
inline constexpr std::string_view kReactionsLine = "\nReactions: ";
// How many reactions a stored message drew: the counts on that line, summed
// (0 when it has none). Others ask through umwelt/source_traits.h.
int ReactionCount(std::string_view text);

}  // namespace umwelt::discord
