// Internal to server/: the web UI's pages, rendered on the server. Every
// value from the corpus or the request is escaped here.
#pragma once

#include <string>
#include <vector>

#include "engine.h"
#include "umwelt/corpus.h"
#include "umwelt/digest.h"

namespace umwelt::server_internal {

// What the navigation may offer: only what exists on this server.
struct Chrome {
  std::string user;         // the signed-in login, "" for none
  bool auth = false;        // sign-in is on: offer "Sign in" / "sign out"
  bool summaries = false;   // a summaries site is served
};
// A whole page in the publisher's look, with the site's navigation. Scripts
// are served files (/ui.js, and `script_src` when given), never inline: the
// pages' CSP allows no inline script, so an escaping bug cannot run one.
std::string UiPage(const Chrome& chrome, const std::string& title, const std::string& body_html,
                   const std::string& script_src = "");
// The navigation bar alone, for pages made elsewhere (the summaries site).
std::string NavHtml(const Chrome& chrome);
// /ui.js: the publisher's page script (theme, hover cards) and the UI's keys.
std::string UiScript();

struct SearchForm {
  std::string q, source, kind, since, until, author;
  bool fts_only = false;
  bool by_thread = false;
  int page = 1;  // 1-based, kPageHits hits each
};
constexpr int kPageHits = 50;
// How deep a search page reads: its page and the one after (to know there
// is one), and at least 200 hits, which the facets count.
int SearchDepth(int page);
// `result` holds the whole ranking read (SearchDepth); the page shows its
// slice. `threads`: the ranking grouped by thread, shown instead.
// What a page body renders with: the corpus (hover cards, references; may be
// null), the time "3 days ago" counts from, and whether the summaries site is
// served here (its pages are then linked in place of their files).
struct View {
  Corpus* corpus = nullptr;
  int64_t now = 0;
  bool summaries = false;
};
std::string SearchBody(const SearchForm& form, const HybridResult* result, bool hybrid, const std::string& error,
                       const View& view, const std::vector<ThreadGroup>* threads = nullptr);
// A thread's page `page` (1-based; 0: the page holding the focused record),
// kPageRecords records each; a code file is one numbered listing,
// kPageLines lines a page, with the focused window's lines marked.
constexpr int kPageRecords = 100;
constexpr int kPageLines = 400;
std::string ThreadBody(const ThreadView& v, const View& view, int page);
// "3 days ago" in a <time> whose title is the exact time.
std::string TimeHtml(const std::string& iso, int64_t now);
std::string AskBody();
std::string JobBody(const std::string& id);
// The part of a published report the ask page shows in place: from its
// header to its footer, without the page around it.
std::string ReportPart(const std::string& page_html);
std::string LoginBody(const std::string& message, const std::string& next);
std::string ErrorBody(int status, const std::string& message);

}  // namespace umwelt::server_internal
