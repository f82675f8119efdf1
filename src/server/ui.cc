#include "ui.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <set>

#include "umwelt/digest.h"
#include "umwelt/http.h"
#include "umwelt/pattern.h"
#include "umwelt/publish.h"
#include "umwelt/search.h"
#include "umwelt/source_traits.h"
#include "umwelt/text.h"

namespace umwelt::server_internal {

namespace {

const char* kUiCss = R"css(
.site-nav{display:flex;flex-wrap:wrap;gap:.4rem 1.1rem;align-items:baseline;margin:0 0 1.6rem;font-size:.9rem}
.site-nav .who{margin-left:auto;color:var(--faint)}
form.search{display:flex;flex-wrap:wrap;gap:.5rem;margin:0 0 1.4rem}
form.search input[type=search]{flex:1 1 100%;min-width:0;font:inherit;padding:.45rem .6rem;border:1px solid var(--rule);
border-radius:5px;background:var(--raised);color:var(--ink)}
form.search input,form.search select,form.search button,textarea{font:inherit;font-size:.85rem;padding:.3rem .45rem;
border:1px solid var(--rule);border-radius:4px;background:var(--surface);color:var(--ink);max-width:100%;min-width:0}
form.search button,button.go{background:var(--accent);color:var(--surface);border-color:var(--accent);cursor:pointer}
ol.hits{padding-left:1.4rem}ol.hits li{margin:0 0 1.1rem}
ol.threads{padding-left:1.4rem}
.meta{color:var(--faint);font-size:.78rem}
.mode{color:var(--ink2);font-size:.8rem}
.via{display:inline-block;padding:0 .35rem;margin-left:.25rem;border:1px solid var(--rule);border-radius:3px;
font-size:.68rem;color:var(--ink2)}
.snippet{color:var(--ink2);font-size:.9rem}
.snippet,.meta,.body,.hit-title,ol.hits li,h1.title{overflow-wrap:anywhere}
mark{background:#fbe38a;color:#1c1a14;border-radius:2px;padding:0 .08em}
time{border-bottom:1px dotted var(--faint);cursor:help}
.facets{display:flex;flex-wrap:wrap;gap:.35rem;margin:0 0 1.2rem;font-size:.78rem;align-items:baseline}
.facets a,.facets .on{border:1px solid var(--rule);border-radius:999px;padding:.05rem .55rem;color:var(--ink2)}
.facets .on{background:var(--accent);border-color:var(--accent);color:var(--surface)}
.facets .n{color:var(--faint);margin-left:.2rem}.facets .on .n{color:inherit}
.pager{display:flex;flex-wrap:wrap;gap:1rem;justify-content:space-between;margin:1.6rem 0;font-size:.9rem}
.chunk{border-top:1px solid var(--rule);padding:.8rem 0}
.body{font-size:.95rem}.body>:first-child{margin-top:.3rem}.body>:last-child{margin-bottom:0}
.body pre{max-width:100%;overflow-x:auto}.body img{max-width:100%}
.body table{display:block;overflow-x:auto}
.focus{background:var(--raised);padding:.8rem;border-radius:5px}
.code{font:.8rem/1.55 ui-monospace,"SFMono-Regular",Menlo,Consolas,monospace;background:var(--code);border-radius:6px;
padding:.5rem 0;overflow-x:auto;max-width:100%}
.code .l{display:flex;min-width:max-content}
.code .n{flex:0 0 3.6rem;text-align:right;padding-right:.9rem;color:var(--faint);user-select:none;border:0}
.code .t{white-space:pre;padding-right:1rem}
.code .hit{background:var(--raised);box-shadow:inset 3px 0 0 var(--accent)}
.answer-part{margin-top:1.6rem}
#progress{font-size:.85rem;color:var(--ink2)}
textarea{width:100%;min-height:5rem;box-sizing:border-box}
kbd{font-size:.75rem;border:1px solid var(--rule);border-radius:3px;padding:0 .25rem}
@media (max-width:600px){.code .n{flex-basis:2.6rem;padding-right:.5rem}}
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

std::string Plural(int64_t n, const char* unit) { return std::to_string(n) + " " + unit + (n == 1 ? "" : "s") + " ago"; }

// The repository a GitHub thread ref names ("o/r#7" -> "o/r"), else "".
std::string RepoOf(const std::string& thread_ref) {
  size_t hash = thread_ref.find('#');
  std::string repo = thread_ref.substr(0, hash);
  return hash != std::string::npos && std::count(repo.begin(), repo.end(), '/') == 1 ? repo : "";
}

std::string ThreadHref(const std::string& ref) { return "/thread?ref=" + UrlEncode(ref); }

// References in a record's text link to the thread here when the corpus
// has it, else to GitHub for a GitHub record; a page looks up at most 40.
SourceLinker LinkerFor(const View& view, const std::string& source, const std::string& thread_ref) {
  bool github = source == "github";
  std::string repo = RepoOf(thread_ref);
  auto lookups = std::make_shared<int>(0);
  return [view, github, repo, lookups](RefKind kind, const std::string& value) -> std::string {
    bool may_look = view.corpus && (*lookups)++ < 40;
    if (kind == RefKind::kUser) return github ? "https://github.com/" + value : "";
    if (kind == RefKind::kCommit) {
      if (may_look) {
        auto c = view.corpus->CommitBySha(value);
        if (c.ok() && *c) return ThreadHref((*c)->ref);
      }
      return github && !repo.empty() ? "https://github.com/" + repo + "/commit/" + value : "";
    }
    std::string full = value[0] == '#' ? (repo.empty() ? "" : repo + value) : value;
    if (full.empty()) return "";
    if (may_look) {
      auto t = view.corpus->GetThread(full);
      if (t.ok() && *t) return ThreadHref(full);
    }
    size_t hash = full.find('#');
    return github ? "https://github.com/" + full.substr(0, hash) + "/issues/" + full.substr(hash + 1) : "";
  };
}

// A code window's first line, from its ref's "#L12-L71".
int FirstLine(const std::string& ref) {
  static const Pattern lines(R"(#L([0-9]{1,9})-L[0-9]{1,9}$)");
  Groups g;
  return lines.Search(ref, &g) ? std::stoi(std::string(g[1])) : 0;
}

// Where a permalink opens on this server: a local clone's file or commit
// (read from the corpus), a weekly summary's page when the site is served.
std::string LocalHref(const View& view, const std::string& url) {
  if (url.rfind("git+file://", 0) == 0) {
    int line = FirstLine(url);  // a code window opens at its first line
    return "/thread?url=" + UrlEncode(url) + (line > 0 ? "#L" + std::to_string(line) : "");
  }
  static const Pattern summary_page(R"(file://.*/(summary-[0-9_-]+\.html)(#[A-Za-z0-9_-]*)?)");
  Groups g;
  if (view.summaries && summary_page.Matches(url, &g)) {
    return "/summaries/" + std::string(kPagesFolder) + "/" + std::string(g[1]) + std::string(g[2]);
  }
  return "";
}

// A record's link: here when it opens here, with its hover card when it is
// on the web, else to its thread's page.
std::string RecordLink(const View& view, const std::string& url, const std::string& text, const std::string& thread) {
  if (std::string local = LocalHref(view, url); !local.empty()) return "<a href=\"" + E(local) + "\">" + E(text) + "</a>";
  if (url.rfind("https://", 0) == 0 || url.rfind("http://", 0) == 0) return LinkWithCard(view.corpus, url, text);
  return "<a href=\"" + E(ThreadHref(thread)) + "\">" + E(text) + "</a>";
}

// A snippet as a reader sees it: Markdown's markers taken out (links keep
// their text, headings and emphasis their words).
std::string PlainSnippet(const std::string& s) {
  // A link's url may have been cut by the snippet ("(https://…").
  static const Pattern link(R"(!?\[([^\]\n]{0,400})]\([^)\s]*\)?)");
  static const Pattern heading(R"((^|\n|\s)#{1,6}\s)");
  static const Pattern quote(R"((^|\n)\s{0,3}>\s?)");
  static const Pattern emphasis(R"(\*\*|__|`+)");
  static const Pattern escaped(R"(\\([\\`*_{}\[\]()#+.!>-]))");
  std::string out = link.ReplaceAll(s, "\\1");
  out = heading.ReplaceAll(out, "\\1");
  out = quote.ReplaceAll(out, "\\1");
  out = emphasis.ReplaceAll(out, "");
  return escaped.ReplaceAll(out, "\\1");
}

bool WordByte(unsigned char c) { return std::isalnum(c) || c == '_'; }

// `text` escaped, with each word whose stem is among `terms` in <mark>.
std::string Highlight(const std::string& text, const std::set<std::string>& terms) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = i;
    bool word = WordByte(static_cast<unsigned char>(text[i]));
    while (j < text.size() && WordByte(static_cast<unsigned char>(text[j])) == word) ++j;
    std::string piece = text.substr(i, j - i);
    std::string lower = ToLower(piece);
    if (word && !terms.empty() && (terms.count(lower) || terms.count(StemWord(lower)))) {
      out += "<mark>" + E(piece) + "</mark>";
    } else {
      out += E(piece);
    }
    i = j;
  }
  return out;
}

std::set<std::string> QueryTerms(const std::string& q) {
  std::set<std::string> terms;
  for (const auto& t : Tokenize(q)) {
    terms.insert(t);
    terms.insert(StemWord(t));
  }
  for (const auto& c : CompoundTerms(q)) terms.insert(c);
  return terms;
}

std::string HitsHtml(const std::vector<Hit>& hits, const View& view, const std::set<std::string>& terms,
                     size_t start_number = 1) {
  std::string out = start_number > 1 ? "<ol class=\"hits\" start=\"" + std::to_string(start_number) + "\">" : "<ol class=\"hits\">";
  for (const auto& h : hits) {
    std::string thread = h.parent.empty() ? h.ref : h.parent;
    out += "<li>" + RecordLink(view, h.url, h.title.empty() ? h.ref : h.title, thread) + "<div class=\"meta\">" +
           E(h.source) + "/" + E(h.kind);
    if (!h.author.empty()) out += " · " + E(h.author);
    if (!h.date.empty()) out += " · " + TimeHtml(h.date, view.now);
    for (const auto& v : h.via) out += "<span class=\"via\">" + E(v) + "</span>";
    out += " · <a href=\"" + E(ThreadHref(thread)) + "\">thread</a></div>";
    out += "<div class=\"snippet\">" + Highlight(PlainSnippet(h.snippet), terms) + "</div></li>";
  }
  return out + "</ol>";
}

// The search page's address with `form`'s fields ("" and false left out).
std::string SearchHref(const SearchForm& f) {
  std::string h = "/?q=" + UrlEncode(f.q);
  for (const auto& [name, value] : {std::pair<const char*, const std::string*>{"source", &f.source}, {"kind", &f.kind},
                                    {"since", &f.since}, {"until", &f.until}, {"author", &f.author}}) {
    if (!value->empty()) h += std::string("&") + name + "=" + UrlEncode(*value);
  }
  if (f.fts_only) h += "&fts_only=1";
  if (f.by_thread) h += "&group=thread";
  if (f.page > 1) h += "&page=" + std::to_string(f.page);
  return h;
}

// Source and kind facets: how many of the hits read are of each, each a
// link that narrows the search to it (or, when it is the filter, widens it).
std::string FacetsHtml(const SearchForm& f, const std::vector<Hit>& hits) {
  std::map<std::string, int> sources, kinds;
  for (const auto& h : hits) {
    ++sources[h.source];
    ++kinds[h.kind];
  }
  std::string out;
  auto row = [&](const char* label, const std::map<std::string, int>& counts, std::string SearchForm::*field) {
    if (counts.size() < 2 && (f.*field).empty()) return;
    out += "<div class=\"facets\" aria-label=\"" + std::string(label) + "\"><span class=\"meta\">" + label + ":</span>";
    for (const auto& [value, n] : counts) {
      SearchForm g = f;
      g.page = 1;
      bool on = f.*field == value;
      g.*field = on ? "" : value;
      out += "<a href=\"" + E(SearchHref(g)) + "\"" + (on ? " class=\"on\" title=\"Remove this filter\"" : "") + ">" +
             E(value) + "<span class=\"n\">" + std::to_string(n) + "</span></a>";
    }
    out += "</div>";
  };
  row("Source", sources, &SearchForm::source);
  row("Kind", kinds, &SearchForm::kind);
  return out;
}

std::string PagerHtml(const SearchForm& f, bool more) {
  if (f.page <= 1 && !more) return "";
  std::string out = "<nav class=\"pager\" aria-label=\"pages\">";
  SearchForm g = f;
  g.page = f.page - 1;
  out += f.page > 1 ? "<a rel=\"prev\" href=\"" + E(SearchHref(g)) + "\">← Previous</a>" : "<span></span>";
  out += "<span class=\"meta\">page " + std::to_string(f.page) + "</span>";
  g.page = f.page + 1;
  out += more ? "<a rel=\"next\" href=\"" + E(SearchHref(g)) + "\">Next →</a>" : "<span></span>";
  return out + "</nav>";
}

template <typename T>
std::vector<T> Slice(const std::vector<T>& all, size_t from, size_t n) {
  if (from >= all.size()) return {};
  return std::vector<T>(all.begin() + static_cast<std::ptrdiff_t>(from),
                        all.begin() + static_cast<std::ptrdiff_t>(std::min(all.size(), from + n)));
}

std::string PageLinks(const std::string& base, int page, int pages, const char* unit) {
  if (pages <= 1) return "";
  std::string out = "<nav class=\"pager\" aria-label=\"pages\">";
  out += page > 1 ? "<a rel=\"prev\" href=\"" + E(base + "&page=" + std::to_string(page - 1)) + "\">← Previous</a>"
                  : "<span></span>";
  out += "<span class=\"meta\">" + std::string(unit) + " page " + std::to_string(page) + " of " + std::to_string(pages) +
         "</span>";
  out += page < pages ? "<a rel=\"next\" href=\"" + E(base + "&page=" + std::to_string(page + 1)) + "\">Next →</a>"
                      : "<span></span>";
  return out + "</nav>";
}

// A code file as one numbered listing: its windows merged, the focused
// window's lines marked, kPageLines a page.
std::string CodeListing(const ThreadView& v, int page) {
  std::map<int, std::string> lines;
  int hit_from = 0, hit_to = -1;
  for (const auto& c : v.chunks) {
    int first = FirstLine(c.ref);
    if (first <= 0) continue;
    int n = 0;
    for (size_t p = 0; p <= c.text.size(); ++n) {
      size_t nl = c.text.find('\n', p);
      if (nl == std::string::npos) nl = c.text.size();
      lines.emplace(first + n, c.text.substr(p, nl - p));
      p = nl + 1;
    }
    if (c.ref == v.focus_ref) hit_from = first, hit_to = first + n - 1;
  }
  if (lines.empty()) return "";
  int last = lines.rbegin()->first;
  int pages = (last + kPageLines - 1) / kPageLines;
  if (page <= 0) page = hit_to >= hit_from && hit_from > 0 ? (hit_from - 1) / kPageLines + 1 : 1;
  page = std::clamp(page, 1, pages);
  int from = (page - 1) * kPageLines + 1, to = page * kPageLines;
  std::string base = "/thread?ref=" + UrlEncode(v.thread_ref);
  std::string out = PageLinks(base, page, pages, "lines");
  out += "<div class=\"code\" role=\"region\" aria-label=\"code\" tabindex=\"0\">";
  for (auto it = lines.lower_bound(from); it != lines.end() && it->first <= to; ++it) {
    std::string id = "L" + std::to_string(it->first);
    bool hit = it->first >= hit_from && it->first <= hit_to;
    out += std::string("<div class=\"l") + (hit ? " hit" : "") + "\" id=\"" + id + "\"><a class=\"n\" href=\"#" + id +
           "\">" + std::to_string(it->first) + "</a><span class=\"t\">" + E(it->second) + "</span></div>";
  }
  return out + "</div>" + PageLinks(base, page, pages, "lines");
}

}  // namespace

std::string TimeHtml(const std::string& iso, int64_t now) {
  auto t = ParseIsoTime(iso);
  if (!t) return E(iso);
  std::string exact = FormatIsoTime(*t);  // YYYY-MM-DDTHH:MM:SSZ
  std::string shown = exact.substr(0, 10);
  int64_t d = now - *t;
  if (now > 0 && d >= -60) {
    if (d < 60) shown = "just now";
    else if (d < 3600) shown = Plural(d / 60, "minute");
    else if (d < 86400) shown = Plural(d / 3600, "hour");
    else if (d < 2 * 86400) shown = "yesterday";
    else if (d < 30 * 86400) shown = Plural(d / 86400, "day");
    else if (d < 365 * 86400) shown = Plural(d / (30 * 86400), "month");
  }
  return "<time datetime=\"" + exact + "\" title=\"" + exact.substr(0, 10) + " " + exact.substr(11, 5) + " UTC\">" +
         shown + "</time>";
}

std::string NavHtml(const Chrome& c) {
  std::string h = "<nav class=\"site-nav\"><a href=\"/\">Search</a>";
  if (c.summaries) h += "<a href=\"/summaries/\">Summaries</a>";
  h += "<a href=\"/ask\">Ask</a>";
  if (c.auth) {
    h += c.user.empty() ? "<span class=\"who\"><a href=\"/login\">Sign in</a></span>"
                        : "<span class=\"who\">" + E(c.user) + " · <a href=\"/logout\">sign out</a></span>";
  }
  return h + "</nav>";
}

std::string UiPage(const Chrome& chrome, const std::string& title, const std::string& body_html,
                   const std::string& script_src) {
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
                  E(title) + " · umwelt</title>\n<style>";
  h += PageStyle();
  h += kUiCss;
  h += "</style>\n</head>\n<body>\n<button id=\"theme-toggle\" type=\"button\" aria-label=\"Switch light and dark\" "
       "title=\"Switch light and dark\">◐</button>\n<main>\n";
  h += NavHtml(chrome);
  h += "\n<h1 class=\"title\">" + E(title) + "</h1>\n" + body_html + "\n</main>\n<script src=\"/ui.js\"></script>\n";
  if (!script_src.empty()) h += "<script src=\"" + E(script_src) + "\"></script>\n";
  h += "</body>\n</html>\n";
  return h;
}

std::string UiScript() { return std::string(PageScript()) + kUiJs; }

int SearchDepth(int page) { return std::min(1000, std::max(200, page * kPageHits + 1)); }

std::string SearchBody(const SearchForm& f, const HybridResult* r, bool hybrid, const std::string& error,
                       const View& view, const std::vector<ThreadGroup>* threads) {
  std::string h = "<form class=\"search\" method=\"get\" action=\"/\" role=\"search\">"
                  "<input type=\"search\" id=\"q\" name=\"q\" value=\"" + E(f.q) +
                  "\" placeholder=\"Search issues, PRs, Discord, code, runs… (press / to focus)\" autocomplete=\"off\" "
                  "aria-label=\"query\"><select name=\"source\" aria-label=\"source\">";
  h += Option("", "any source", f.source);
  for (const auto& s : AllSourceTraits()) h += Option(std::string(s.name), std::string(s.label), f.source);
  h += "</select><input name=\"kind\" placeholder=\"kind (comment, pr…)\" aria-label=\"kind\" value=\"" + E(f.kind) +
       "\" size=\"14\"><input type=\"date\" name=\"since\" aria-label=\"since\" value=\"" + E(f.since) +
       "\"><input type=\"date\" name=\"until\" aria-label=\"until\" value=\"" + E(f.until) +
       "\"><label class=\"meta\"><input type=\"checkbox\" name=\"fts_only\" value=\"1\"" +
       (f.fts_only ? " checked" : "") + "> keyword only</label><label class=\"meta\"><input type=\"checkbox\" " +
       "name=\"group\" value=\"thread\"" + (f.by_thread ? " checked" : "") +
       "> by thread</label><button type=\"submit\">Search</button></form>";
  if (!error.empty()) h += "<p class=\"meta\" role=\"alert\">" + E(error) + "</p>";
  if (!r) return h + "<p class=\"meta\">Press <kbd>/</kbd> to search from anywhere.</p>";
  std::set<std::string> terms = QueryTerms(f.q);
  size_t first = static_cast<size_t>(f.page - 1) * kPageHits;
  size_t read = threads ? threads->size() : r->hits.size();
  bool exhausted = read < static_cast<size_t>(SearchDepth(f.page));
  size_t shown = read > first ? std::min<size_t>(kPageHits, read - first) : 0;
  bool more = read > first + kPageHits;
  std::string mode = hybrid ? "hybrid: keyword and vectors"
                     : f.fts_only ? "keyword only, as asked"
                     : r->notes.empty() ? "keyword only: this corpus has no vector index (<code>umwelt index</code> builds one)"
                                        : "keyword only: the vector leg did not run";
  h += "<p class=\"meta\" id=\"result-count\">";
  if (shown == 0) {
    h += "0 " + std::string(threads ? "threads" : "results");
  } else {
    h += std::to_string(first + 1) + "–" + std::to_string(first + shown) + " of " + std::to_string(read) +
         (exhausted ? "" : "+") + (threads ? " threads" : " results");
  }
  h += " · <span class=\"mode\" id=\"mode\">" + mode + "</span></p>";  // the program's own words
  for (const auto& n : r->notes) h += "<p class=\"meta note\">" + E(n) + "</p>";
  if (read == 0) return h + "<p>No results for <strong>" + E(f.q) + "</strong>.</p>";
  if (shown == 0) return h + "<p>No more results.</p>" + PagerHtml(f, false);
  h += FacetsHtml(f, r->hits);
  if (threads) {
    h += "<ol class=\"threads\"" + (first ? " start=\"" + std::to_string(first + 1) + "\"" : std::string()) + ">";
    for (const auto& g : Slice(*threads, first, kPageHits)) {
      h += "<li><div class=\"hit-title\"><a href=\"" + E(ThreadHref(g.thread)) + "\">" +
           E(g.title.empty() ? g.thread : g.title) + "</a> <span class=\"meta\">" + E(g.thread) + "</span></div>" +
           HitsHtml(g.hits, view, terms) + "</li>";
    }
    h += "</ol>";
  } else {
    h += HitsHtml(Slice(r->hits, first, kPageHits), view, terms, first + 1);
  }
  if (f.page == 1 && !r->code_main.empty()) h += "<h2>Code on the default branch</h2>" + HitsHtml(r->code_main, view, terms);
  if (f.page == 1 && !r->code_branches.empty()) {
    h += "<h2>Code in flight on branches</h2><p class=\"meta\">Not what main does.</p>" +
         HitsHtml(r->code_branches, view, terms);
  }
  return h + PagerHtml(f, more);
}

std::string ThreadBody(const ThreadView& v, const View& view, int page) {
  std::string h;
  const Thread* t = v.thread ? &*v.thread : nullptr;
  if (t) {
    h += "<p class=\"meta\">" + E(v.thread_ref) + (t->state.empty() ? "" : " · " + E(t->state)) +
         (t->author.empty() ? "" : " · by " + E(t->author)) +
         (t->created.empty() ? "" : " · opened " + TimeHtml(t->created, view.now));
    if (t->url.rfind("https://", 0) == 0) h += " · " + LinkWithCard(view.corpus, t->url, "permalink");
    h += "</p>";
    if (v.chunks.empty() && !t->description.empty()) {
      h += "<div class=\"body\">" + RenderSourceMarkdown(t->description, LinkerFor(view, t->source, v.thread_ref)) + "</div>";
    }
  }
  if (t && t->source == "code") {
    if (std::string listing = CodeListing(v, page); !listing.empty()) return h + listing;
  }
  if (v.named_only) h += "<p class=\"meta\">The corpus does not mirror this thread; these records name it.</p>";
  if (v.window) h += "<p class=\"meta\">" + std::to_string(v.around) + " messages either side of the linked one.</p>";
  int pages = std::max<int>(1, static_cast<int>((v.chunks.size() + kPageRecords - 1) / kPageRecords));
  if (page <= 0) {
    page = 1;
    for (size_t i = 0; i < v.chunks.size(); ++i) {
      if (v.chunks[i].ref == v.focus_ref) page = static_cast<int>(i / kPageRecords) + 1;
    }
  }
  page = std::clamp(page, 1, pages);
  std::string base = "/thread?ref=" + UrlEncode(v.thread_ref);
  h += PageLinks(base, page, pages, "records");
  for (const auto& c : Slice(v.chunks, static_cast<size_t>(page - 1) * kPageRecords, kPageRecords)) {
    bool focus = c.ref == v.focus_ref;
    std::string thread = c.parent.empty() ? c.ref : c.parent;
    h += std::string("<div class=\"chunk") + (focus ? " focus" : "") + "\" id=\"" + E(c.ref) + "\"><div class=\"meta\">" +
         E(c.kind) + (c.author.empty() ? "" : " · " + E(c.author)) +
         (c.date.empty() ? "" : " · " + TimeHtml(c.date, view.now)) + " · " +
         RecordLink(view, c.url, "permalink", thread) + "</div><div class=\"body\">" +
         RenderSourceMarkdown(c.text, LinkerFor(view, c.source, thread)) + "</div></div>";
  }
  h += PageLinks(base, page, pages, "records");
  if (!v.linked.empty()) {
    h += "<h2>Linked from</h2><ul>";
    for (const auto& l : v.linked) {
      std::string thread = l.parent.empty() ? l.ref : l.parent;
      h += "<li>" + RecordLink(view, l.url, l.title.empty() ? l.ref : l.title, thread) + " <span class=\"meta\">" +
           E(l.source) + "/" + E(l.kind) + (l.date.empty() ? "" : " · " + TimeHtml(l.date, view.now)) + "</span></li>";
    }
    h += "</ul>";
  }
  return h;
}

std::string AskBody() {
  return "<form id=\"ask\"><textarea id=\"question\" name=\"question\" maxlength=\"4000\" aria-label=\"question\" "
         "placeholder=\"What do you want to know about the project?\" required></textarea>"
         "<p><button class=\"go\" type=\"submit\">Ask</button></p></form><div id=\"progress\" aria-live=\"polite\"></div>"
         "<div id=\"answer\"></div>";
}

std::string JobBody(const std::string& id) {
  return "<div id=\"progress\" aria-live=\"polite\" data-job=\"" + E(id) + "\"></div><div id=\"answer\"></div>";
}

std::string ReportPart(const std::string& page) {
  size_t from = page.find("<header class=\"page-head\">");
  size_t to = page.rfind("</footer>");
  if (from == std::string::npos || to == std::string::npos || to < from) return "";
  std::string part = page.substr(from, to + 9 - from);
  // The page's own title is the ask page's: keep it as a heading below.
  size_t h1 = part.find("<h1 class=\"title\">");
  if (h1 != std::string::npos) part.replace(h1, 18, "<h2 class=\"title\">");
  size_t end = part.find("</h1>");
  if (end != std::string::npos) part.replace(end, 5, "</h2>");
  return part;
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
