// umwelt/publish.h — a cited Markdown report becomes one self-contained,
// typeset HTML page: inline CSS and JS, nothing fetched, hover cards for every
// link the corpus knows, margin sidenotes, numbered references, light and dark
// themes, and a muted provenance footer.
//
// Markdown is GitHub-flavoured (cmark-gfm: tables, autolinks, strikethrough,
// footnotes). Raw HTML in it is dropped and dangerous urls (javascript:, ...)
// are removed; everything from the corpus is escaped. Additions:
//   - front matter between `---` lines: title, author, system, date, question;
//   - a leading `# H1` becomes the page title;
//   - `::: sidenote` ... `:::` blocks become margin notes;
//   - `$…$` / `$$…$$` math, rendered with KaTeX (as MathML) when it is
//     installed, else kept as code with a warning;
//   - everything after a `<!--provenance-->` line is the footer.
//
// Publishing always runs the citation check; errors refuse the page.
// Functions are thread-compatible: a Corpus is not shared across threads.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "umwelt/corpus.h"
#include "umwelt/status.h"

namespace umwelt {

struct PublishOptions {
  // Each overrides the front matter's value when non-empty.
  std::string title;
  std::string author;                  // "Posed by"
  std::string system;                  // "answered by"; default "umwelt"
  std::string date;                    // YYYY-MM-DD; default: the generation date
  std::string question;                // the prompt box
  int64_t generated_at = 0;            // epoch seconds; 0 = now
  bool math = true;                    // try KaTeX for $…$
  std::string node = "node";           // the Node.js binary KaTeX runs in
  // The byline's text before the time; default "Answered by <system>" (or
  // "Posed by <author>, answered by <system>").
  std::string byline;
  // A paragraph that is exactly a key is replaced by its value: trusted HTML
  // the caller made (an inline SVG chart), never text from a source.
  std::map<std::string, std::string> figures;
  // The page's Content-Security-Policy loads nothing from another host
  // (images included) unless this is set.
  bool allow_remote = false;
};

struct CheckProblem {
  enum class Severity { kWarning, kError };
  Severity severity = Severity::kError;
  int line = 0;          // 1-based line in the Markdown, 0 when not known
  std::string url;       // the link at fault, if any
  std::string message;
};

struct PublishResult {
  std::string html;
  std::vector<CheckProblem> problems;  // warnings and errors of the check
  int links = 0;                       // links in the body
  int cards = 0;                       // links that got a hover card
  bool has_errors() const;
};

// Renders `markdown` to a page, with cards and checks from `corpus` (which
// may be null: then no cards, and every corpus link is an error). Fails only
// on an internal error; citation problems are in the result.
Result<PublishResult> Publish(std::string_view markdown, const PublishOptions& options, Corpus* corpus);

// The citation check alone: every GitHub, Discord, code or W&B link must
// resolve to the corpus (its thread, with a warning, when the exact permalink
// is absent); every other web link must be a fetched page or named in the
// provenance; a body paragraph stating a fact with no link is a warning.
std::vector<CheckProblem> CheckCitations(std::string_view markdown, Corpus* corpus);

// The stylesheet and script every published page inlines, for other pages
// that should look and behave the same (the server's UI).
std::string_view PageStyle();
std::string_view PageScript();

// An anchor to `url` with `text` (escaped here), wrapped with its hover card
// when the corpus knows the url; a plain anchor otherwise. Only http(s) urls
// become links.
std::string LinkWithCard(Corpus* corpus, const std::string& url, const std::string& text);

// A reference written in source text: `#12` or `owner/repo#12` (kIssue,
// value as written), `@login` (kUser, the login), a commit sha (kCommit).
enum class RefKind { kIssue, kUser, kCommit };
// The url a reference links to, or "" to leave it as text.
using SourceLinker = std::function<std::string(RefKind kind, const std::string& value)>;

// Text from a source (a comment, a message, a commit message) as HTML:
// GitHub-flavoured Markdown with hard line breaks, raw HTML dropped, unsafe
// urls (javascript:, ...) removed, bidirectional controls dropped, and the
// references in its text (not in code or links) linked through `link`.
std::string RenderSourceMarkdown(std::string_view markdown, const SourceLinker& link = nullptr);
// Markdown's text without its markers (a link keeps its text, a code span
// its code), for places that show plain text: hover cards, titles.
std::string MarkdownPlainText(std::string_view markdown);

// Escapes &, <, >, " and ' for HTML text and attribute values.
std::string HtmlEscape(std::string_view s);

}  // namespace umwelt
