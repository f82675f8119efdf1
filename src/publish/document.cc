#include "document.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>

#include <mutex>

#include "umwelt/text.h"

namespace umwelt::publish_internal {
namespace {

std::vector<std::string> SplitLines(std::string_view s) {
  std::vector<std::string> lines;
  size_t p = 0;
  while (p < s.size()) {
    size_t nl = s.find('\n', p);
    std::string line(s.substr(p, nl == std::string_view::npos ? std::string_view::npos : nl - p));
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    if (nl == std::string_view::npos) break;
    p = nl + 1;
  }
  return lines;
}

std::string Trim(std::string_view s) {
  size_t a = s.find_first_not_of(" \t");
  if (a == std::string_view::npos) return "";
  size_t b = s.find_last_not_of(" \t");
  return std::string(s.substr(a, b - a + 1));
}

bool IsFence(const std::string& line) {
  std::string t = Trim(line);
  return t.rfind("```", 0) == 0 || t.rfind("~~~", 0) == 0;
}

// Replaces `$…$` and `$$…$$` outside code spans with tokens. A `$` opens
// inline math only when followed by a non-space and closes only when preceded
// by one and not followed by a digit ("$5 and $10" stays text).
std::string ExtractInlineMath(const std::string& line, std::vector<Math>* math) {
  std::string out;
  size_t i = 0;
  while (i < line.size()) {
    char c = line[i];
    if (c == '`') {
      size_t run = line.find_first_not_of('`', i) - i;
      if (i + run > line.size()) run = line.size() - i;
      size_t close = line.find(std::string(run, '`'), i + run);
      size_t end = close == std::string::npos ? line.size() : close + run;
      out += line.substr(i, end - i);
      i = end;
      continue;
    }
    if (c == '\\' && i + 1 < line.size()) {
      out += line.substr(i, 2);
      i += 2;
      continue;
    }
    if (c == '$') {
      bool display = i + 1 < line.size() && line[i + 1] == '$';
      size_t open = i + (display ? 2 : 1);
      size_t close = std::string::npos;
      if (display) {
        close = line.find("$$", open);
      } else if (open < line.size() && line[open] != ' ') {
        for (size_t k = open; k < line.size(); ++k) {
          if (line[k] == '$' && line[k - 1] != ' ' && line[k - 1] != '\\' &&
              !(k + 1 < line.size() && std::isdigit(static_cast<unsigned char>(line[k + 1])))) {
            close = k;
            break;
          }
        }
      }
      if (close != std::string::npos && close > open) {
        math->push_back({line.substr(open, close - open), display});
        out += MathToken(math->size() - 1);
        i = close + (display ? 2 : 1);
        continue;
      }
    }
    out += c;
    ++i;
  }
  return out;
}

}  // namespace

std::string SidenoteToken(size_t i) { return "UMWELTSIDENOTE" + std::to_string(i) + "X"; }
std::string MathToken(size_t i) { return "UMWELTMATH" + std::to_string(i) + "X"; }

Document ParseDocument(std::string_view markdown) {
  Document doc;
  std::vector<std::string> lines = SplitLines(markdown);
  size_t i = 0;
  std::vector<std::string> body;
  // Front matter.
  if (!lines.empty() && Trim(lines[0]) == "---") {
    size_t end = 1;
    while (end < lines.size() && Trim(lines[end]) != "---") ++end;
    if (end < lines.size()) {
      for (size_t k = 1; k < end; ++k) {
        size_t colon = lines[k].find(':');
        if (colon == std::string::npos) continue;
        std::string key = ToLower(Trim(lines[k].substr(0, colon)));
        std::string value = Trim(lines[k].substr(colon + 1));
        if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
          value = value.substr(1, value.size() - 2);
        }
        doc.front[key] = value;
      }
      for (; i <= end; ++i) body.emplace_back();
    }
  }
  bool seen_content = false, in_fence = false;
  for (; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    std::string t = Trim(line);
    if (!in_fence && t == "<!--provenance-->") {
      doc.provenance_first_line = static_cast<int>(i) + 2;
      for (size_t k = i + 1; k < lines.size(); ++k) doc.provenance += lines[k] + "\n";
      break;
    }
    if (IsFence(line)) in_fence = !in_fence;
    if (in_fence || IsFence(line)) {
      body.push_back(line);
      if (!t.empty()) seen_content = true;
      continue;
    }
    if (!seen_content && doc.title.empty() && t.rfind("# ", 0) == 0) {
      doc.title = Trim(t.substr(2));
      body.emplace_back();
      continue;
    }
    if (t == "::: sidenote" || t == ":::sidenote" || t == "::: {.sidenote}") {
      std::string note;
      size_t k = i + 1;
      while (k < lines.size() && Trim(lines[k]) != ":::") note += lines[k++] + "\n";
      doc.sidenotes.push_back(note);
      body.push_back(SidenoteToken(doc.sidenotes.size() - 1));
      for (size_t pad = i + 1; pad <= k && pad < lines.size(); ++pad) body.emplace_back();
      i = k;
      seen_content = true;
      continue;
    }
    if (t == "$$") {  // a display block over several lines
      std::string tex;
      size_t k = i + 1;
      while (k < lines.size() && Trim(lines[k]) != "$$") tex += lines[k++] + "\n";
      if (k < lines.size()) {
        doc.math.push_back({tex, true});
        body.push_back(MathToken(doc.math.size() - 1));
        for (size_t pad = i + 1; pad <= k; ++pad) body.emplace_back();
        i = k;
        continue;
      }
    }
    if (!t.empty()) seen_content = true;
    body.push_back(ExtractInlineMath(line, &doc.math));
  }
  for (auto& l : body) doc.body += l + "\n";
  return doc;
}

cmark_parser* NewGfmParser(int options) {
  static std::once_flag once;
  std::call_once(once, [] { cmark_gfm_core_extensions_ensure_registered(); });
  cmark_parser* parser = cmark_parser_new(options);
  for (const char* name : {"table", "autolink", "strikethrough", "tagfilter"}) {
    if (cmark_syntax_extension* ext = cmark_find_syntax_extension(name)) {
      cmark_parser_attach_syntax_extension(parser, ext);
    }
  }
  return parser;
}

std::string RenderAndFree(cmark_parser* parser, cmark_node* doc, int options) {
  char* html = cmark_render_html(doc, options, cmark_parser_get_syntax_extensions(parser));
  std::string out = html ? html : "";
  free(html);
  cmark_node_free(doc);
  cmark_parser_free(parser);
  return out;
}

std::string RenderMarkdown(std::string_view markdown) {
  int options = CMARK_OPT_FOOTNOTES | CMARK_OPT_STRIKETHROUGH_DOUBLE_TILDE;
  cmark_parser* parser = NewGfmParser(options);
  cmark_parser_feed(parser, markdown.data(), markdown.size());
  return RenderAndFree(parser, cmark_parser_finish(parser), options);
}

}  // namespace umwelt::publish_internal
