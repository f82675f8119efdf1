// Internal to server/: the web UI's pages, rendered on the server. Every
// value from the corpus or the request is escaped here.
#pragma once

#include <string>
#include <vector>

#include "engine.h"
#include "umwelt/corpus.h"
#include "umwelt/digest.h"

namespace umwelt::server_internal {

// A whole page in the publisher's look, with the site's navigation; `user`
// is the signed-in login ("" for none). Scripts are served files (/ui.js,
// and `script_src` when given), never inline: the pages' CSP allows no
// inline script, so an escaping bug cannot run one.
std::string UiPage(const std::string& title, const std::string& body_html, const std::string& user,
                   const std::string& script_src = "");
// /ui.js: the publisher's page script (theme, hover cards) and the UI's keys.
std::string UiScript();

struct SearchForm {
  std::string q, source, kind, since, until, author;
  bool fts_only = false;
  bool by_thread = false;
};
// `threads`: the ranking grouped by thread, shown instead of the flat hits.
std::string SearchBody(const SearchForm& form, const HybridResult* result, bool hybrid, const std::string& error,
                       Corpus* corpus, const std::vector<ThreadGroup>* threads = nullptr);
std::string ThreadBody(const ThreadView& v, Corpus* corpus);
std::string AskBody();
std::string JobBody(const std::string& id);
std::string LoginBody(const std::string& message, const std::string& next);
std::string ErrorBody(int status, const std::string& message);

}  // namespace umwelt::server_internal
