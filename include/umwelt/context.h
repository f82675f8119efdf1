// umwelt/context.h — one call before writing: search, expand the best hits
// to whole threads, follow their references one hop, and pack it all, with
// permalinks, under a character budget (`umwelt context`, MCP's `context`).
//
//   ContextRequest r;
//   r.queries = {"why did MFU drop on H100"};
//   UMWELT_ASSIGN_OR_RETURN(ContextPack p, BuildContext(searcher, r));
//   // p.text: "=== title  (url) ===\n[2026-11-16 mira · url] text\n…"
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "umwelt/searcher.h"

namespace umwelt {

struct ContextRequest {
  std::vector<std::string> queries;  // 1 to 20
  SearchRequest search;              // filters, legs, HyDE texts; its query and k are set per query
  int k = 20;                        // candidates per query
  int expand = 12;                   // top hits expanded to whole threads
  bool follow_links = false;         // then the threads they reference, one hop
  int per_thread_chars = 12000;      // each thread's block at most; the close-out is kept
  int tail = 0;                      // > 0: only each thread's last N records
  int around = 12;                   // a chat message: this many messages either side
  bool toc = false;                  // a thread index first
  int64_t max_chars = 400000;        // the whole pack at most
};
// Names the field at fault: no query, more than 20, k, expand, budgets out of range.
Status ValidateContextRequest(const ContextRequest& request);
// context's parameters (umwelt/params.h), search's filters and legs among them.
const ParamTable<ContextRequest>& ContextParams();

struct ContextThread {
  std::string ref, title, url;
  int records = 0;       // records in the block
  int left_out = 0;      // records of the thread the block left out (budget or --tail)
  int64_t chars = 0;
  bool followed = false;  // reached by a reference, not a hit
};

struct ContextPack {
  std::vector<std::string> queries;
  std::vector<ContextThread> threads;
  std::string text;       // the pack, at most max_chars
  bool truncated = false;  // max_chars cut it
  std::vector<std::string> notes;
};

Result<ContextPack> BuildContext(Searcher& searcher, const ContextRequest& request,
                                 const TaskRunner& run = RunOnThreads);
// `context --json`'s object: {queries, threads (a count, as the reference
// client gives it), thread_list, chars, approx_tokens, truncated, notes, context}.
nlohmann::json ContextValue(const ContextPack& pack);
std::string ContextJson(const ContextPack& pack);

}  // namespace umwelt
