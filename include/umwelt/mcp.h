// umwelt/mcp.h — the Model Context Protocol server: umwelt's search,
// threads, summaries and ask as MCP tools, resources and prompts, for the
// agent tools people use (Claude Code, Cursor, VS Code, Codex, Zed, …).
//
// One Session per client. The transports are thin: `umwelt mcp` reads
// newline-delimited JSON-RPC on stdin (ServeStdio), `umwelt serve` answers
// POST /mcp (Streamable HTTP). Both call Session::Handle, which runs the
// same library entry points the CLI and the API use (Searcher,
// ViewThread, SummariesJson, Ask).
//
// Text from the corpus is data: it is returned inside structured results
// (hits' snippets, threads' texts), never as instructions to the client.
#pragma once

#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <deque>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "umwelt/thread_annotations.h"
#include "umwelt/llm.h"
#include "umwelt/searcher.h"
#include "umwelt/status.h"

namespace umwelt::mcp {

struct Options {
  std::string corpus_path;
  Searcher* searcher = nullptr;        // required: the indexes every tool reads
  ChatModel* llm = nullptr;            // `ask` with a model
  bool extractive_ask = false;         // `ask` without one
  TaskRunner run = RunOnThreads;       // runs search_multi's sub-queries
  size_t max_message_bytes = 1 << 20;  // a larger message is refused with an error
  std::string server_version;          // in serverInfo
  bool served = false;                 // over the network: errors carry no local paths
  // A slot for one `ask` (the server's bound on questions at once, shared
  // with /api/ask); null when none is free. Unset: no bound.
  std::function<std::shared_ptr<void>()> ask_slot;
};

// The protocol versions spoken, newest first. An initialize asking for
// another gets the newest.
const std::vector<std::string>& ProtocolVersions();

// Error codes (JSON-RPC 2.0, and MCP's resource-not-found).
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
inline constexpr int kResourceNotFound = -32002;

class Session {
 public:
  explicit Session(Options options);

  // Sends one message to the client (a notification: progress).
  using Notify = std::function<void(const std::string& message)>;
  // Answers one JSON-RPC message: a request's response, or "" for a
  // notification or a client's response. Notifications the call makes
  // (progress, when the request carries a progressToken) go to `notify`
  // first. Thread-safe: requests may be handled concurrently. Never throws;
  // bad input gets a JSON-RPC error naming what is wrong.
  std::string Handle(std::string_view message, const Notify& notify);

  // Whether a notifications/cancelled named request `id` (its JSON text):
  // its response is then not sent.
  bool Cancelled(const std::string& id);
  bool initialized();
  // A request id longer than this is refused; the newest kMaxCancelled
  // cancellations are remembered (a session's memory stays bounded).
  static constexpr size_t kMaxIdBytes = 256;
  static constexpr size_t kMaxCancelled = 256;
  // The version agreed at initialize ("" before).
  std::string protocol_version();

 private:
  Options o_;
  Mutex mu_;
  bool initialized_ GUARDED_BY(mu_) = false;
  std::string version_ GUARDED_BY(mu_);
  std::set<std::string> cancelled_ GUARDED_BY(mu_);
  std::deque<std::string> cancelled_order_ GUARDED_BY(mu_);  // oldest first
};

// `umwelt mcp`: newline-delimited JSON-RPC from `in` to `out` until `in`
// ends; each request on a thread of its own (at most 16 at once), so a ping
// or a cancellation is answered while a long call runs. `log` (stderr) gets
// one line per refused message.
Status ServeStdio(Options options, std::FILE* in, std::FILE* out, const std::function<void(const std::string&)>& log);

}  // namespace umwelt::mcp
