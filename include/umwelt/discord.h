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

// --- the gateway: events as they happen -------------------------------------

// GUILDS (channel and thread events), GUILD_MESSAGES, MESSAGE_CONTENT (the
// text; a privileged intent the bot must have enabled): nothing more.
inline constexpr int kFollowIntents = (1 << 0) | (1 << 9) | (1 << 15);

// One dispatch worth keeping (a message created, edited or deleted; a
// channel or thread created, renamed or deleted) in the followed guild.
struct GatewayEvent {
  std::string session;  // the gateway session it came in
  int64_t seq = 0;      // its sequence number in that session
  std::string type;     // MESSAGE_CREATE, THREAD_DELETE, ...
  std::string channel;  // "discord:G/C": the channel or thread it concerns
  // {"t": type, "d": the event, "channel": the channel as the gateway last
  // described it, when known}: what ApplyEvent takes, and what a server
  // keeps in its spool until then.
  std::string body;
};

struct FollowOptions {
  std::string guild;
  std::string token;
  std::string api_base = "https://discord.com/api/v10";  // asked for the gateway's URL
  std::string gateway_url;   // "" = GET {api_base}/gateway/bot; tests name theirs
  bool allow_loopback = false;  // ws:// to a loopback host (a test's gateway)
  int intents = kFollowIntents;
  double backoff_seconds = 1.0;       // after a failed connection, doubling...
  double max_backoff_seconds = 60.0;  // ...up to this
  size_t max_frame_bytes = 16u << 20;  // a larger message closes the connection
  // Polled at least every 100 ms; true ends Follow with Ok.
  std::function<bool()> stopping;
  // Keeps one event (applies it, or writes it where it will be applied).
  // An error closes the connection and the session resumes from the last
  // event kept, so nothing is skipped.
  std::function<Status(const GatewayEvent&)> on_event;
  // A new session began (the first, or one after the last could not be
  // resumed): what happened before it is for a REST catch-up to fetch.
  std::function<void()> on_new_session;
  std::function<void(const std::string& line)> log;
};

struct FollowReport {
  int connections = 0;
  int identifies = 0;
  int resumes = 0;
  int64_t events = 0;  // events kept
};

// Keeps a gateway connection to `guild` until stopping(): identify,
// heartbeat, resume after a dropped link or a RECONNECT, identify again
// (and on_new_session) when the session cannot be resumed, reconnect with
// backoff. Fails only on what retrying cannot fix: a refused token,
// intents the bot is not allowed, a bad gateway URL.
Status Follow(HttpClient& http, const FollowOptions& options, FollowReport* report);

// Applies one event's body (GatewayEvent::body) to the corpus with the
// mapping `sync discord` uses: a message is written or replaced, a deleted
// one removed, a channel or thread renamed, a deleted thread removed with
// its messages. Events of another guild change nothing. *changed: records
// written or removed. Corrupt for a body that is not an event.
Status ApplyEvent(Corpus& corpus, std::string_view body, const std::string& guild, const std::string& repo,
                  int64_t* changed);

// The line a message's reactions are kept on: "Reactions: 🔥 3, 👍 2".
inline constexpr std::string_view kReactionsLine = "\nReactions: ";
// How many reactions a stored message drew: the counts on that line, summed
// (0 when it has none). Others ask through umwelt/source_traits.h.
int ReactionCount(std::string_view text);

}  // namespace umwelt::discord
