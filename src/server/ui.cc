#include "ui.h"

#include "umwelt/http.h"
#include "umwelt/publish.h"
#include "umwelt/source_traits.h"
#include "umwelt/text.h"

namespace umwelt::server_internal {

namespace {

const char* kUiCss = R"css(
.site-nav{display:flex;gap:1.1rem;align-items:baseline;margin:0 0 1.6rem;font-size:.9rem}
.site-nav .who{margin-left:auto;color:var(--faint)}
form.search{display:flex;flex-wrap:wrap;gap:.5rem;margin:0 0 1.4rem}
form.search input[type=search]{flex:1 1 100%;font:inherit;padding:.45rem .6rem;border:1px solid var(--rule);
border-radius:5px;background:var(--raised);color:var(--ink)}
form.search input,form.search select,form.search button,textarea{font:inherit;font-size:.85rem;padding:.3rem .45rem;
border:1px solid var(--rule);border-radius:4px;background:var(--surface);color:var(--ink)}
form.search button,button.go{background:var(--accent);color:var(--surface);border-color:var(--accent);cursor:pointer}
ol.hits{padding-left:1.4rem}ol.hits li{margin:0 0 1.1rem}
.meta{color:var(--faint);font-size:.78rem}
.via{display:inline-block;padding:0 .35rem;margin-left:.25rem;border:1px solid var(--rule);border-radius:3px;
font-size:.68rem;color:var(--ink2)}
.snippet{color:var(--ink2);font-size:.9rem}
.chunk{border-top:1px solid var(--rule);padding:.8rem 0}
.chunk pre{white-space:pre-wrap;word-wrap:break-word;background:none;padding:0;font:inherit;font-size:.92rem}
.focus{background:var(--raised);padding:.8rem;border-radius:5px}
#progress{font-size:.85rem;color:var(--ink2)}
textarea{width:100%;min-height:5rem}
kbd{font-size:.75rem;border:1px solid var(--rule);border-radius:3px;padding:0 .25rem}
)css";

// `/` focuses the search box (or opens the search page).
const char* kUiJs = R"js(
document.addEventListener('keydown', function (e) {
  var t = e.target, tag = t && t.tagName;
  if (e.key !== '/' || e.ctrlKey || e.metaKey || e.altKey || tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') return;
  var q = document.getElementById('q');
  e.preventDefault();
  if (q) { q.focus(); q.select(); } else { window.location.href = '/'; }
});
)js";

std::string E(const std::string& s) { return HtmlEscape(s); }

std::string Option(const std::string& value, const std::string& label, const std::string& selected) {
  return "<option value=\"" + E(value) + "\"" + (value == selected ? " selected" : "") + ">" + E(label) + "</option>";
}

std::string HitsHtml(const std::vector<Hit>& hits, Corpus* corpus) {
  std::string out = "<ol class=\"hits\">";
  for (const auto& h : hits) {
    std::string title = h.title.empty() ? h.ref : h.title;
    // A local clone's permalink opens here, read from the corpus.
    std::string link = h.url.rfind("git+file://", 0) == 0
                           ? "<a href=\"/thread?url=" + E(UrlEncode(h.url)) + "\">" + E(title) + "</a>"
                           : LinkWithCard(corpus, h.url, title);
    out += "<li>" + link + "<div class=\"meta\">" + E(h.source) + "/" + E(h.kind);
    if (!h.author.empty()) out += " · " + E(h.author);
    if (!h.date.empty()) out += " · " + E(h.date.substr(0, 10));
    for (const auto& v : h.via) out += "<span class=\"via\">" + E(v) + "</span>";
    std::string thread = h.parent.empty() ? h.ref : h.parent;
    out += " · <a href=\"/thread?ref=" + E(UrlEncode(thread)) + "\">thread</a></div>";
    out += "<div class=\"snippet\">" + E(h.snippet) + "</div></li>";
  }
  return out + "</ol>";
}

}  // namespace

std::string UiPage(const std::string& title, const std::string& body_html, const std::string& user,
                   const std::string& script_src) {
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
                  E(title) + " · umwelt</title>\n<style>";
  h += PageStyle();
  h += kUiCss;
  h += "</style>\n</head>\n<body>\n<button id=\"theme-toggle\" type=\"button\" aria-label=\"Switch light and dark\" "
       "title=\"Switch light and dark\">◐</button>\n<main>\n<nav class=\"site-nav\"><a href=\"/\">Search</a>"
       "<a href=\"/summaries/\">Summaries</a><a href=\"/ask\">Ask</a>";
  h += user.empty() ? "<span class=\"who\"><a href=\"/login\">Sign in</a></span>"
                    : "<span class=\"who\">" + E(user) + " · <a href=\"/logout\">sign out</a></span>";
  h += "</nav>\n<h1 class=\"title\">" + E(title) + "</h1>\n" + body_html + "\n</main>\n<script src=\"/ui.js\"></script>\n";
  if (!script_src.empty()) h += "<script src=\"" + E(script_src) + "\"></script>\n";
  h += "</body>\n</html>\n";
  return h;
}

std::string UiScript() { return std::string(PageScript()) + kUiJs; }

std::string SearchBody(const SearchForm& f, const HybridResult* r, bool hybrid, const std::string& error,
                       Corpus* corpus, const std::vector<ThreadGroup>* threads) {
  std::string h = "<form class=\"search\" method=\"get\" action=\"/\" role=\"search\">"
                  "<input type=\"search\" id=\"q\" name=\"q\" value=\"" + E(f.q) +
                  "\" placeholder=\"Search issues, PRs, Discord, code, runs… (press / to focus)\" autocomplete=\"off\">"
                  "<select name=\"source\" aria-label=\"source\">";
  h += Option("", "any source", f.source);
  for (const auto& s : AllSourceTraits()) h += Option(std::string(s.name), std::string(s.label), f.source);
  h += "</select><input name=\"kind\" placeholder=\"kind (comment, pr…)\" value=\"" + E(f.kind) +
       "\" size=\"14\"><input type=\"date\" name=\"since\" aria-label=\"since\" value=\"" + E(f.since) +
       "\"><input type=\"date\" name=\"until\" aria-label=\"until\" value=\"" + E(f.until) +
       "\"><label class=\"meta\"><input type=\"checkbox\" name=\"fts_only\" value=\"1\"" +
       (f.fts_only ? " checked" : "") + "> keyword only</label><label class=\"meta\"><input type=\"checkbox\" " +
       "name=\"group\" value=\"thread\"" + (f.by_thread ? " checked" : "") +
       "> by thread</label><button type=\"submit\">Search</button></form>";
  if (!error.empty()) h += "<p class=\"meta\" role=\"alert\">" + E(error) + "</p>";
  if (!r) return h + "<p class=\"meta\">Press <kbd>/</kbd> to search from anywhere.</p>";
  size_t count = threads ? threads->size() : r->hits.size();
  h += "<p class=\"meta\" id=\"result-count\">" + std::to_string(count) + (threads ? " threads · " : " results · ") +
       (hybrid ? "hybrid (keyword + vectors)" : "keyword") + "</p>";
  if (count == 0) h += "<p>No results for <strong>" + E(f.q) + "</strong>.</p>";
  if (threads) {
    h += "<ol class=\"threads\">";
    for (const auto& g : *threads) {
      bool web = g.url.rfind("https://", 0) == 0;
      h += "<li><div class=\"hit-title\"><a href=\"/thread?ref=" + E(UrlEncode(g.thread)) + "\">" +
           E(g.title.empty() ? g.thread : g.title) + "</a> <span class=\"meta\">" + E(g.thread) +
           (web ? " · " + LinkWithCard(corpus, g.url, "permalink") : "") + "</span></div>" + HitsHtml(g.hits, corpus) +
           "</li>";
    }
    h += "</ol>";
  } else {
    h += HitsHtml(r->hits, corpus);
  }
  if (!r->code_main.empty()) h += "<h2>Code on the default branch</h2>" + HitsHtml(r->code_main, corpus);
  if (!r->code_branches.empty()) {
    h += "<h2>Code in flight on branches</h2><p class=\"meta\">Not what main does.</p>" + HitsHtml(r->code_branches, corpus);
  }
  for (const auto& n : r->notes) h += "<p class=\"meta\">note: " + E(n) + "</p>";
  return h;
}

std::string ThreadBody(const ThreadView& v, Corpus* corpus) {
  std::string h;
  if (v.thread) {
    const Thread& t = *v.thread;
    h += "<p class=\"meta\">" + E(v.thread_ref) + (t.state.empty() ? "" : " · " + E(t.state)) +
         (t.author.empty() ? "" : " · by " + E(t.author)) + (t.created.empty() ? "" : " · opened " + E(t.created.substr(0, 10))) +
         (t.url.empty() ? "" : " · " + LinkWithCard(corpus, t.url, "permalink")) + "</p>";
    if (!t.description.empty()) h += "<p>" + E(t.description) + "</p>";
  }
  if (v.window) h += "<p class=\"meta\">" + std::to_string(v.around) + " messages either side of the linked one.</p>";
  for (const auto& c : v.chunks) {
    bool focus = c.ref == v.focus_ref;
    h += std::string("<div class=\"chunk") + (focus ? " focus" : "") + "\" id=\"" + E(c.ref) + "\"><div class=\"meta\">" +
         E(c.kind) + " · " + E(c.author) + " · " + E(c.date) + " · " + LinkWithCard(corpus, c.url, "permalink") +
         "</div><pre>" + E(c.text) + "</pre></div>";
  }
  if (!v.linked.empty()) {
    h += "<h2>Linked from</h2><ul>";
    for (const auto& l : v.linked) {
      h += "<li>" + LinkWithCard(corpus, l.url, l.title.empty() ? l.ref : l.title) + " <span class=\"meta\">" +
           E(l.source) + "/" + E(l.kind) + " · " + E(l.date.substr(0, 10)) + "</span></li>";
    }
    h += "</ul>";
  }
  return h;
}

std::string AskBody() {
  return "<form id=\"ask\"><textarea id=\"question\" name=\"question\" maxlength=\"4000\" "
         "placeholder=\"What do you want to know about the project?\" required></textarea>"
         "<p><button class=\"go\" type=\"submit\">Ask</button></p></form><div id=\"progress\" aria-live=\"polite\"></div>"
         "<div id=\"answer\"></div>";
}

std::string JobBody(const std::string& id) {
  return "<div id=\"progress\" aria-live=\"polite\" data-job=\"" + E(id) + "\"></div><div id=\"answer\"></div>";
}

std::string LoginBody(const std::string& message, const std::string& next) {
  std::string h;
  if (!message.empty()) h += "<p role=\"alert\">" + E(message) + "</p>";
  h += "<p>Sign in with a GitHub token (a fine-grained token with no permissions is enough: it only shows who you "
       "are) or a token the operator issued.</p><form method=\"post\" action=\"/login\"><input type=\"hidden\" "
       "name=\"next\" value=\"" + E(next) + "\"><p><input type=\"password\" name=\"token\" autocomplete=\"off\" "
       "size=\"48\" required aria-label=\"token\"></p><p><button class=\"go\" type=\"submit\">Sign in</button></p></form>";
  return h;
}

std::string ErrorBody(int status, const std::string& message) {
  return "<p>HTTP " + std::to_string(status) + ": " + E(message) + "</p><p><a href=\"/\">Back to search</a></p>";
}

}  // namespace umwelt::server_internal
