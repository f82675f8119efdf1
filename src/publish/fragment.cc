// Text from a source (an issue comment, a Discord message, a commit
// message) as the web UI shows it: sanitized GitHub-flavoured Markdown with
// the references people write in it linked.
#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>

#include <vector>

#include "document.h"
#include "umwelt/pattern.h"
#include "umwelt/publish.h"

namespace umwelt {
namespace {

// Bidirectional embeddings, overrides, isolates and marks (U+202A–202E,
// U+2066–2069, U+200E, U+200F) are dropped: in a page they reorder what the
// reader sees ("exe.txt" shown as "txt.exe").
std::string WithoutBidiControls(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
    if (i + 2 < s.size() && b(0) == 0xE2 &&
        ((b(1) == 0x80 && ((b(2) >= 0xAA && b(2) <= 0xAE) || b(2) == 0x8E || b(2) == 0x8F)) ||
         (b(1) == 0x81 && b(2) >= 0xA6 && b(2) <= 0xA9))) {
      i += 2;
      continue;
    }
    out += s[i];
  }
  return out;
}

// A reference: `owner/repo#12` or `#12` (group 1 the repo, 2 the number),
// `@login` (3) or a commit sha of 7 to 40 hex digits with a letter and a
// digit in it (4), each standing alone.
const Pattern& References() {
  static const Pattern p(
      R"((?:^|[^\w/#@.-])(?:((?:[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+)?)#([0-9]{1,9})|@([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))|([0-9a-f]{7,40}))\b)");
  return p;
}

bool IsSha(std::string_view s) {
  bool letter = false, digit = false;
  for (char c : s) (c >= '0' && c <= '9' ? digit : letter) = true;
  return letter && digit;
}

struct Piece {
  std::string text;
  std::string url;  // "" for plain text
};

std::vector<Piece> Split(std::string_view text, const SourceLinker& link) {
  std::vector<Piece> out;
  size_t done = 0;
  References().ForEach(text, [&](const Groups& g) {
    std::string_view whole;
    RefKind kind = RefKind::kIssue;
    std::string value;
    if (g[2].data()) {
      const char* start = !g[1].empty() ? g[1].data() : g[2].data() - 1;  // the repo, or the '#'
      whole = std::string_view(start, static_cast<size_t>(g[2].data() + g[2].size() - start));
      value = std::string(whole);
    } else if (g[3].data()) {
      kind = RefKind::kUser;
      whole = std::string_view(g[3].data() - 1, g[3].size() + 1);
      value = std::string(g[3]);
    } else if (g[4].data() && IsSha(g[4])) {
      kind = RefKind::kCommit;
      whole = g[4];
      value = std::string(g[4]);
    } else {
      return true;
    }
    std::string url = link(kind, value);
    if (url.empty()) return true;
    size_t at = static_cast<size_t>(whole.data() - text.data());
    if (at > done) out.push_back({std::string(text.substr(done, at - done)), ""});
    out.push_back({std::string(whole), url});
    done = at + whole.size();
    return true;
  });
  if (done < text.size()) out.push_back({std::string(text.substr(done)), ""});
  return out;
}

bool InsideLinkOrCode(cmark_node* n) {
  for (cmark_node* p = cmark_node_parent(n); p; p = cmark_node_parent(p)) {
    cmark_node_type t = cmark_node_get_type(p);
    if (t == CMARK_NODE_LINK || t == CMARK_NODE_IMAGE || t == CMARK_NODE_CODE || t == CMARK_NODE_CODE_BLOCK) return true;
  }
  return false;
}

// A link whose url the renderer would drop (javascript:, vbscript:, file:,
// data:) would still be an anchor with an empty href that reloads the page:
// its text is kept, as text.
void UnwrapUnsafeLinks(cmark_node* doc) {
  static const Pattern unsafe(R"(^\s*(javascript|vbscript|file|data):)", Pattern::kIgnoreCase);
  std::vector<cmark_node*> links;
  cmark_iter* it = cmark_iter_new(doc);
  for (cmark_event_type ev; (ev = cmark_iter_next(it)) != CMARK_EVENT_DONE;) {
    cmark_node* n = cmark_iter_get_node(it);
    if (ev != CMARK_EVENT_ENTER || cmark_node_get_type(n) != CMARK_NODE_LINK) continue;
    const char* url = cmark_node_get_url(n);
    if (!url || !*url || unsafe.Search(url)) links.push_back(n);
  }
  cmark_iter_free(it);
  for (cmark_node* a : links) {
    while (cmark_node* child = cmark_node_first_child(a)) cmark_node_insert_before(a, child);
    cmark_node_free(a);
  }
}

}  // namespace

std::string RenderSourceMarkdown(std::string_view markdown, const SourceLinker& link) {
  // No CMARK_OPT_UNSAFE: raw HTML becomes a comment and javascript:,
  // vbscript:, file: and non-image data: urls are dropped.
  int options = CMARK_OPT_STRIKETHROUGH_DOUBLE_TILDE | CMARK_OPT_HARDBREAKS;
  cmark_parser* parser = publish_internal::NewGfmParser(options);
  std::string text = WithoutBidiControls(markdown);
  cmark_parser_feed(parser, text.data(), text.size());
  cmark_node* doc = cmark_parser_finish(parser);
  UnwrapUnsafeLinks(doc);
  if (link) {
    std::vector<cmark_node*> texts;
    cmark_iter* it = cmark_iter_new(doc);
    for (cmark_event_type ev; (ev = cmark_iter_next(it)) != CMARK_EVENT_DONE;) {
      cmark_node* n = cmark_iter_get_node(it);
      if (ev == CMARK_EVENT_ENTER && cmark_node_get_type(n) == CMARK_NODE_TEXT && !InsideLinkOrCode(n)) texts.push_back(n);
    }
    cmark_iter_free(it);
    for (cmark_node* n : texts) {
      const char* literal = cmark_node_get_literal(n);
      std::vector<Piece> pieces = Split(literal ? literal : "", link);
      if (pieces.size() == 1 && pieces[0].url.empty()) continue;
      for (const Piece& p : pieces) {
        cmark_node* t = cmark_node_new(CMARK_NODE_TEXT);
        cmark_node_set_literal(t, p.text.c_str());
        if (p.url.empty()) {
          cmark_node_insert_before(n, t);
          continue;
        }
        cmark_node* a = cmark_node_new(CMARK_NODE_LINK);
        cmark_node_set_url(a, p.url.c_str());
        cmark_node_append_child(a, t);
        cmark_node_insert_before(n, a);
      }
      cmark_node_free(n);  // unlinks it first
    }
  }
  return publish_internal::RenderAndFree(parser, doc, options);
}

std::string MarkdownPlainText(std::string_view markdown) {
  cmark_node* doc = cmark_parse_document(markdown.data(), markdown.size(), CMARK_OPT_DEFAULT);
  char* text = cmark_render_plaintext(doc, CMARK_OPT_DEFAULT, 0);
  std::string out = text ? text : "";
  free(text);
  cmark_node_free(doc);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

}  // namespace umwelt
