// Internal to publish/: a report split into its parts before rendering.
#pragma once

#include <cmark-gfm.h>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace umwelt::publish_internal {

struct Math {
  std::string tex;
  bool display = false;
};

struct Document {
  std::map<std::string, std::string> front;  // front matter keys, lower-case
  std::string title;                         // from a leading `# H1`
  // The body with front matter, the title line, sidenotes and math replaced
  // by blank lines or tokens, so cmark's line numbers are the file's.
  std::string body;
  std::string provenance;                    // after <!--provenance-->
  int provenance_first_line = 0;             // 1-based line of its first line
  std::vector<std::string> sidenotes;        // Markdown of each note
  std::vector<Math> math;
};

// Tokens are letters and digits only, so Markdown leaves them alone.
std::string SidenoteToken(size_t i);
std::string MathToken(size_t i);

Document ParseDocument(std::string_view markdown);

// A cmark-gfm parser with `options` and the GitHub extensions (table,
// autolink, strikethrough, tagfilter); the caller frees it.
cmark_parser* NewGfmParser(int options);
// `doc` (parsed by `parser`) as HTML; frees both.
std::string RenderAndFree(cmark_parser* parser, cmark_node* doc, int options);

// Markdown -> HTML with cmark-gfm (tables, autolinks, strikethrough,
// tagfilter, footnotes). Raw HTML is omitted and unsafe urls dropped.
std::string RenderMarkdown(std::string_view markdown);

}  // namespace umwelt::publish_internal
