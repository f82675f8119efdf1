// Markdown report -> one self-contained HTML page.
#include "umwelt/publish.h"

#include <map>
#include <set>

#include "assets.h"
#include "cards.h"
#include "document.h"
#include "math.h"
#include "umwelt/file.h"
#include "umwelt/http.h"
#include "umwelt/text.h"

namespace umwelt {
namespace pi = publish_internal;

namespace {

void ReplaceAll(std::string* s, const std::string& from, const std::string& to) {
  size_t p = 0;
  while ((p = s->find(from, p)) != std::string::npos) {
    s->replace(p, from.size(), to);
    p += to.size();
  }
}

std::string HtmlUnescape(std::string s) {
  ReplaceAll(&s, "&quot;", "\"");
  ReplaceAll(&s, "&#39;", "'");
  ReplaceAll(&s, "&lt;", "<");
  ReplaceAll(&s, "&gt;", ">");
  ReplaceAll(&s, "&amp;", "&");
  return s;
}

std::string StripTags(std::string_view html) {
  std::string out;
  bool in_tag = false;
  for (char c : html) {
    if (c == '<') in_tag = true;
    else if (c == '>') in_tag = false;
    else if (!in_tag) out += c;
  }
  return HtmlUnescape(out);
}

std::string Slug(const std::string& text, std::set<std::string>* used) {
  std::string slug;
  for (char c : ToLower(text)) {
    if (std::isalnum(static_cast<unsigned char>(c))) slug += c;
    else if (!slug.empty() && slug.back() != '-') slug += '-';
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  if (slug.empty()) slug = "section";
  std::string unique = slug;
  for (int n = 2; !used->insert(unique).second; ++n) unique = slug + "-" + std::to_string(n);
  return unique;
}

// <h2>Text</h2> -> <h2 id="text">Text</h2>.
std::string AddHeadingIds(const std::string& html, std::set<std::string>* used) {
  std::string out;
  size_t p = 0;
  while (true) {
    size_t h = html.find("<h", p);
    if (h == std::string::npos || h + 3 >= html.size()) break;
    char level = html[h + 2];
    if (level < '1' || level > '6' || html[h + 3] != '>') {
      out += html.substr(p, h + 2 - p);
      p = h + 2;
      continue;
    }
    std::string close = std::string("</h") + level + ">";
    size_t end = html.find(close, h);
    if (end == std::string::npos) break;
    std::string inner = html.substr(h + 4, end - h - 4);
    out += html.substr(p, h - p);
    out += std::string("<h") + level + " id=\"" + Slug(StripTags(inner), used) + "\">" + inner + close;
    p = end + close.size();
  }
  out += html.substr(p);
  return out;
}

// The href values of the external links in `html`, in order.
struct Anchor {
  size_t start, end;  // of the whole <a ...>...</a>
  std::string url;
};
std::vector<Anchor> ExternalAnchors(const std::string& html) {
  std::vector<Anchor> out;
  size_t p = 0;
  while ((p = html.find("<a href=\"", p)) != std::string::npos) {
    size_t q = html.find('"', p + 9);
    size_t close = html.find("</a>", p);
    if (q == std::string::npos || close == std::string::npos) break;
    std::string url = HtmlUnescape(html.substr(p + 9, q - p - 9));
    if (url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0) out.push_back({p, close + 4, url});
    p = close + 4;
  }
  return out;
}

// Wraps every external link the corpus knows in a hover-card host.
std::string AddCards(const std::string& html, Corpus* corpus, int* links, int* cards) {
  std::string out;
  size_t p = 0;
  for (const auto& a : ExternalAnchors(html)) {
    out += html.substr(p, a.start - p);
    std::string anchor = html.substr(a.start, a.end - a.start);
    ++*links;
    std::optional<pi::Card> card = corpus ? pi::LookupCard(*corpus, a.url) : std::nullopt;
    if (card) {
      ++*cards;
      out += "<span class=\"cite\">" + anchor + pi::CardHtml(*card) + "</span>";
    } else {
      out += anchor;
    }
    p = a.end;
  }
  out += html.substr(p);
  return out;
}

// cmark-gfm's footnotes become numbered citations and a references list;
// each citation shows the card of its reference's first link.
std::string RestyleFootnotes(const std::string& html, Corpus* corpus) {
  size_t section = html.find("<section class=\"footnotes\"");
  if (section == std::string::npos) return html;
  std::string body = html.substr(0, section);
  std::string notes = html.substr(section);
  // Each note's first external link.
  std::map<std::string, std::string> first_link;  // "fn-1" -> url
  size_t li = 0;
  while ((li = notes.find("<li id=\"", li)) != std::string::npos) {
    size_t q = notes.find('"', li + 8);
    std::string id = notes.substr(li + 8, q - li - 8);
    size_t end = notes.find("</li>", q);
    auto anchors = ExternalAnchors(notes.substr(q, end - q));
    if (!anchors.empty()) {
      first_link[id] = anchors[0].url;
      // The url, in faint ink, under the reference's title.
      size_t insert = q + anchors[0].end;
      std::string url_line = "<span class=\"ref-url\">" + HtmlEscape(anchors[0].url) + "</span>";
      notes.insert(insert, url_line);
      end += url_line.size();
    }
    li = end;
  }
  ReplaceAll(&notes, "<section class=\"footnotes\" data-footnotes>",
             "<section class=\"references\" id=\"references\"><h2>References</h2>");
  // Citation marks in the body: <sup class="footnote-ref"><a href="#fn-x" id="fnref-x" data-footnote-ref>1</a></sup>
  std::string out;
  size_t p = 0, s;
  while ((s = body.find("<sup class=\"footnote-ref\">", p)) != std::string::npos) {
    size_t close = body.find("</sup>", s);
    if (close == std::string::npos) break;
    std::string sup = body.substr(s, close + 6 - s);
    size_t h = sup.find("href=\"#");
    std::string id = h == std::string::npos ? "" : sup.substr(h + 7, sup.find('"', h + 7) - h - 7);
    size_t gt = sup.find("data-footnote-ref>");
    size_t num_end = sup.find("</a>");
    std::string num = gt == std::string::npos ? "" : sup.substr(gt + 18, num_end - gt - 18);
    std::string anchor_open = sup.substr(sup.find("<a "), gt == std::string::npos ? 0 : gt + 18 - sup.find("<a "));
    std::string mark = anchor_open + "[" + num + "]</a>";
    std::optional<pi::Card> card;
    if (corpus && first_link.count(id)) card = pi::LookupCard(*corpus, first_link[id]);
    out += body.substr(p, s - p);
    out += "<sup class=\"cite-ref\">" +
           (card ? "<span class=\"cite\">" + mark + pi::CardHtml(*card) + "</span>" : mark) + "</sup>";
    p = close + 6;
  }
  out += body.substr(p);
  return out + notes;
}

std::string SidenoteHtml(size_t i, const std::string& note_html) {
  std::string id = "sn-" + std::to_string(i + 1);
  return "<label for=\"" + id + "\" class=\"sidenote-toggle\">⊕ note</label><input type=\"checkbox\" id=\"" + id +
         "\" class=\"sidenote-check\"><aside class=\"sidenote\">" + note_html + "</aside>";
}

std::string Minutes(int64_t t) { return FormatIsoTime(t).substr(0, 16).replace(10, 1, " ") + " UTC"; }

// The page's own policy, for when it is opened as a file (no server's header
// applies): its one inline script by hash, its inline style, images from
// the page's folder or inline; nothing from another host unless asked.
std::string PageCsp(bool allow_remote) {
  std::string hex = Sha256Hex(pi::kPageJs);
  std::string raw;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) raw += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  std::string remote = allow_remote ? " https:" : "";
  return "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'sha256-" + Base64(raw) +
         "'; style-src 'unsafe-inline'; img-src 'self' data:" + remote + "; base-uri 'none'; form-action 'none'\">\n";
}

}  // namespace

std::string HtmlEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 16);
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string_view PageStyle() { return pi::kPageCss; }
std::string_view PageScript() { return pi::kPageJs; }

std::string LinkWithCard(Corpus* corpus, const std::string& url, const std::string& text) {
  if (url.rfind("https://", 0) != 0 && url.rfind("http://", 0) != 0) return HtmlEscape(text);
  std::string a = "<a href=\"" + HtmlEscape(url) + "\">" + HtmlEscape(text) + "</a>";
  std::optional<pi::Card> card = corpus ? pi::LookupCard(*corpus, url) : std::nullopt;
  return card ? "<span class=\"cite\">" + a + pi::CardHtml(*card) + "</span>" : a;
}

bool PublishResult::has_errors() const {
  for (const auto& p : problems) {
    if (p.severity == CheckProblem::Severity::kError) return true;
  }
  return false;
}

Result<PublishResult> Publish(std::string_view markdown, const PublishOptions& o, Corpus* corpus) {
  UMWELT_RETURN_IF_ERROR(CryptoAvailable());  // the page script's hash in its CSP
  PublishResult result;
  if (!IsValidUtf8(markdown)) {
    result.problems.push_back({CheckProblem::Severity::kWarning, 0, "", "invalid UTF-8 replaced with U+FFFD"});
  }
  std::string md = SanitizeUtf8(markdown);
  pi::Document doc = pi::ParseDocument(md);
  auto checks = CheckCitations(md, corpus);
  result.problems.insert(result.problems.end(), checks.begin(), checks.end());

  auto pick = [&](const std::string& flag, const char* key, const std::string& fallback) {
    if (!flag.empty()) return flag;
    auto it = doc.front.find(key);
    return it != doc.front.end() && !it->second.empty() ? it->second : fallback;
  };
  int64_t generated = o.generated_at ? o.generated_at : NowEpoch();
  std::string title = pick(o.title, "title", doc.title.empty() ? "Untitled report" : doc.title);
  std::string author = pick(o.author, "author", "");
  std::string system = pick(o.system, "system", "umwelt");
  std::string date = pick(o.date, "date", FormatIsoTime(generated).substr(0, 10));
  std::string question = pick(o.question, "question", "");

  std::string body = pi::RenderMarkdown(doc.body);
  for (size_t i = 0; i < doc.sidenotes.size(); ++i) {
    std::string note = SidenoteHtml(i, pi::RenderMarkdown(doc.sidenotes[i]));
    ReplaceAll(&body, "<p>" + pi::SidenoteToken(i) + "</p>", note);
  }
  if (!doc.math.empty()) {
    Result<std::vector<std::string>> rendered = Status::Unavailable("math rendering is off");
    if (o.math) rendered = pi::RenderMath(doc.math, o.node);
    if (!rendered.ok()) {
      result.problems.push_back({CheckProblem::Severity::kWarning, 0, "",
                                 rendered.status().message() + "; math left as code"});
    }
    for (size_t i = 0; i < doc.math.size(); ++i) {
      std::string html = rendered.ok() ? (*rendered)[i]
                                       : "<code class=\"math\">" + HtmlEscape(doc.math[i].tex) + "</code>";
      std::string token = pi::MathToken(i);
      if (doc.math[i].display) {
        ReplaceAll(&body, "<p>" + token + "</p>", "<div class=\"math-display\">" + html + "</div>");
      }
      ReplaceAll(&body, token, "<span class=\"math\">" + html + "</span>");
    }
  }
  for (const auto& [key, html] : o.figures) ReplaceAll(&body, "<p>" + HtmlEscape(key) + "</p>", html);
  std::set<std::string> ids = {"references", "viewing", "theme-toggle"};
  body = AddHeadingIds(body, &ids);
  body = RestyleFootnotes(body, corpus);
  body = AddCards(body, corpus, &result.links, &result.cards);
  int unused_links = 0, unused_cards = 0;
  std::string provenance = AddCards(pi::RenderMarkdown(doc.provenance), corpus, &unused_links, &unused_cards);

  std::string corpus_time = "unknown";
  if (corpus) {
    auto built = corpus->GetMeta("built_at_epoch");
    if (built.ok() && !built->empty()) corpus_time = Minutes(std::atoll(built->c_str()));
  }
  std::string& h = result.html;
  h.reserve(body.size() + 16000);
  h += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
       "<meta name=\"generator\" content=\"umwelt\">\n" + PageCsp(o.allow_remote) + "<title>" + HtmlEscape(title) +
       "</title>\n<style>";
  h += pi::kPageCss;
  h += "</style>\n</head>\n<body>\n<button id=\"theme-toggle\" type=\"button\" aria-label=\"Switch light and dark\" "
       "title=\"Switch light and dark\">◐</button>\n<main>\n<header class=\"page-head\">\n<h1 class=\"title\">" +
       HtmlEscape(title) + "</h1>\n<p class=\"byline\">";
  if (!o.byline.empty()) h += HtmlEscape(o.byline);
  else if (!author.empty()) h += "Posed by <em>" + HtmlEscape(author) + "</em>, answered by <em>" + HtmlEscape(system) + "</em>";
  else h += "Answered by <em>" + HtmlEscape(system) + "</em>";
  h += " · <time datetime=\"" + FormatIsoTime(generated) + "\" title=\"Generated " + Minutes(generated) +
       "\">Published " + HtmlEscape(date) + "</time></p>\n</header>\n";
  if (!question.empty()) h += "<div class=\"prompt\"><p>" + HtmlEscape(question) + "</p></div>\n";
  h += "<article class=\"report\">\n" + body + "</article>\n";
  h += "<footer class=\"provenance\">\n<p><em>Corpus: " + HtmlEscape(corpus_time) + " · Generated: " +
       Minutes(generated) + " · Viewing: <span id=\"viewing\">" + Minutes(generated) + "</span></em></p>\n" +
       provenance + "</footer>\n</main>\n<script>";
  h += pi::kPageJs;
  h += "</script>\n</body>\n</html>\n";
  return result;
}

}  // namespace umwelt
