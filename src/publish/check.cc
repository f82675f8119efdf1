// The citation check: links must resolve; facts must be cited.
#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>

#include <map>
#include <mutex>

#include "cards.h"
#include "document.h"
#include "umwelt/claims.h"
#include "umwelt/pattern.h"
#include "umwelt/publish.h"
#include "umwelt/source_traits.h"
#include "umwelt/text.h"

namespace umwelt {
namespace pi = publish_internal;

namespace {

// Sections whose paragraphs are judgement, not reported fact.
bool ExemptHeading(const std::string& heading) {
  std::string h = ToLower(heading);
  for (const char* k : {"caveat", "method", "what would move", "open question", "confidence",
                        "next step", "limitation", "assumption"}) {
    if (h.find(k) != std::string::npos) return true;
  }
  return false;
}

// A node's text; `with_code`: its code spans too (a query or a line of code
// quoted as code states no fact of its own).
std::string NodeText(cmark_node* node, bool with_code = true) {
  std::string out;
  cmark_iter* it = cmark_iter_new(node);
  cmark_event_type ev;
  while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
    cmark_node* n = cmark_iter_get_node(it);
    if (ev != CMARK_EVENT_ENTER) continue;
    cmark_node_type t = cmark_node_get_type(n);
    if (t == CMARK_NODE_TEXT || (with_code && t == CMARK_NODE_CODE)) {
      if (const char* lit = cmark_node_get_literal(n)) out += lit;
    } else if (t == CMARK_NODE_SOFTBREAK || t == CMARK_NODE_LINEBREAK) {
      out += ' ';
    }
  }
  cmark_iter_free(it);
  return out;
}

bool HasCitation(cmark_node* node) {
  bool found = false;
  cmark_iter* it = cmark_iter_new(node);
  cmark_event_type ev;
  while (!found && (ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
    cmark_node* n = cmark_iter_get_node(it);
    cmark_node_type t = cmark_node_get_type(n);
    found = t == CMARK_NODE_LINK || t == CMARK_NODE_FOOTNOTE_REFERENCE;
  }
  cmark_iter_free(it);
  return found;
}

// A paragraph states a fact worth a citation when it carries a number or is
// a full declarative sentence of some length.
bool LooksFactual(const std::string& text) {
  std::string t = CollapseWhitespace(text);
  if (t.empty() || t.back() == '?' || t.back() == ':') return false;
  size_t words = 1;
  bool digit = false;
  for (char c : t) {
    words += c == ' ';
    digit |= std::isdigit(static_cast<unsigned char>(c)) != 0;
  }
  return (digit && words >= 4) || words >= 15;
}

void Add(std::vector<CheckProblem>* out, CheckProblem::Severity s, int line, std::string url, std::string msg) {
  out->push_back({s, line, std::move(url), std::move(msg)});
}

void CheckLink(Corpus* corpus, const std::string& url, int line, const std::string& provenance,
               std::vector<CheckProblem>* out) {
  using S = CheckProblem::Severity;
  if (url.rfind("git+file://", 0) == 0) {  // a local clone's permalink: the corpus must hold it
    if (!corpus) return Add(out, S::kError, line, url, "no corpus to check this link against");
    auto chunk = corpus->ChunkByUrl(url);
    auto thread = corpus->ThreadByUrl(url);
    if ((chunk.ok() && chunk->has_value()) || (thread.ok() && thread->has_value())) return;
    // A line of a mirrored file ("…:path#L12"): the file must be in the corpus.
    static const Pattern line_anchor(R"(^(.+)#L[0-9]{1,9}$)");
    Groups g;
    if (line_anchor.Matches(url, &g)) {
      auto file = corpus->ThreadByUrl(std::string(g[1]));
      if (file.ok() && file->has_value()) return;
    }
    return Add(out, S::kError, line, url, "not in the corpus");
  }
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) return;  // anchors, mailto
  if (pi::IsCorpusLink(url)) {
    if (!corpus) {
      Add(out, S::kError, line, url, "no corpus to check this link against");
      return;
    }
    auto chunk = corpus->ChunkByUrl(url);
    if (chunk.ok() && chunk->has_value()) return;
    // A thread's own page (a pull request the git source knows from the history).
    if (auto t = corpus->ThreadByUrl(url); t.ok() && t->has_value()) return;
    if (pi::LookupCard(*corpus, url)) {
      Add(out, S::kWarning, line, url, "this permalink is not in the corpus; its thread is");
      return;
    }
    Add(out, S::kError, line, url, "not in the corpus");
    return;
  }
  if (corpus) {
    // A page counts as fetched only when `fetch` stored it (or the git
    // source built it from the remote): a record of another source whose
    // url sits on a foreign host was re-pointed, not fetched.
    // A pull request's page on the repository's own forge, from its history.
    auto any_host = [](const std::string& source) {
      const SourceTraits* t = TraitsOf(source);
      return t && t->any_host;
    };
    if (auto t = corpus->ThreadByUrl(url); t.ok() && t->has_value() && any_host((*t)->source)) return;
    auto page = corpus->ChunkByUrl(url);
    if (page.ok() && page->has_value()) {
      const std::string& source = (*page)->source;
      if (any_host(source)) return;
      Add(out, S::kError, line, url, "a " + source + " record on a host that is not " + source + "'s");
      return;
    }
  }
  if (provenance.find(url) != std::string::npos) return;
  Add(out, S::kError, line, url, "web source neither fetched into the corpus nor listed in the provenance");
}

// What a link cites, as text: its record and the thread it is in (title,
// description, records), or the thread the url names; "" when the corpus
// holds neither. Cached per url.
const std::string& CitedText(Corpus& corpus, const std::string& url, std::map<std::string, std::string>* cache) {
  auto [it, fresh] = cache->try_emplace(url);
  if (!fresh) return it->second;
  constexpr size_t kMax = 1 << 20;  // a record is read no further
  std::string& out = it->second;
  std::string ref;
  if (auto c = corpus.ChunkByUrl(url); c.ok() && c->has_value()) {
    // A comment's permalink opens its thread: what the thread states is
    // what the reader finds there.
    ref = (*c)->parent.empty() ? BaseRef((*c)->ref) : (*c)->parent;
    out = (*c)->title + "\n" + (*c)->text + "\n";
  } else if (auto t = corpus.ThreadByUrl(url.substr(0, url.find('#'))); t.ok() && t->has_value()) {
    ref = (*t)->ref;
    out = (*t)->title + "\n" + (*t)->description + "\n";
  }
  if (ref.empty()) return out;
  if (auto all = corpus.ThreadChunks(ref); all.ok()) {
    for (const auto& c : *all) {
      if (out.size() > kMax) break;
      out += c.text + "\n";
    }
  }
  return out;
}

// A cited paragraph's measures (numbers with a unit) must be stated by what
// it cites: the same unit, within rounding. A target is not checked.
// `notes`: the links of the document's footnotes, which a paragraph citing
// a footnote cites too.
void CheckNumbers(cmark_node* paragraph, const std::string& text, Corpus& corpus, int line,
                  const std::vector<std::string>& notes, std::map<std::string, std::string>* cache,
                  std::vector<CheckProblem>* out) {
  std::string cited;
  auto cite = [&](const char* url) {
    if (url && (pi::IsCorpusLink(url) || std::string_view(url).rfind("git+file://", 0) == 0)) {
      cited += CitedText(corpus, url, cache);
    }
  };
  cmark_iter* it = cmark_iter_new(paragraph);
  cmark_event_type ev;
  while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
    cmark_node* n = cmark_iter_get_node(it);
    if (ev != CMARK_EVENT_ENTER) continue;
    if (cmark_node_get_type(n) == CMARK_NODE_LINK) cite(cmark_node_get_url(n));
    if (cmark_node_get_type(n) == CMARK_NODE_FOOTNOTE_REFERENCE) {
      for (const auto& u : notes) cite(u.c_str());
    }
  }
  cmark_iter_free(it);
  if (CollapseWhitespace(cited).empty()) return;  // nothing it cites is in the corpus: CheckLink says so
  // An estimate says it is one ("about 20 days", "my conversion"): the
  // writer's arithmetic, not a record's statement.
  static const Pattern estimate(
      R"((^|\W)(about|around|roughly|approximately|approx\.|an estimated|estimates?|estimated|my (conversion|estimate|arithmetic)|computed from|derived from|[~≈]))",
      Pattern::kIgnoreCase);
  for (const auto& sentence : research::Sentences(text)) {
    if (research::SpeaksOfTarget(sentence) || estimate.Search(sentence)) continue;
    for (const auto& n : research::Numbers(sentence)) {
      if (research::UnitOf(n).empty() || research::Grounded(n, cited)) continue;
      Add(out, CheckProblem::Severity::kWarning, line, "",
          "states " + n + ", which no record it cites states (in that unit, within rounding): \"" +
              std::string(TruncateUtf8(CollapseWhitespace(sentence), 70)) + "…\"");
      break;
    }
  }
}

}  // namespace

std::vector<CheckProblem> CheckCitations(std::string_view markdown, Corpus* corpus) {
  static std::once_flag once;
  std::call_once(once, [] { cmark_gfm_core_extensions_ensure_registered(); });
  pi::Document doc = pi::ParseDocument(markdown);
  std::vector<CheckProblem> out;
  int options = CMARK_OPT_FOOTNOTES;
  cmark_parser* parser = cmark_parser_new(options);
  for (const char* name : {"table", "autolink", "strikethrough"}) {
    if (cmark_syntax_extension* ext = cmark_find_syntax_extension(name)) {
      cmark_parser_attach_syntax_extension(parser, ext);
    }
  }
  // Sidenotes are checked in place: append them, line numbers lost (0).
  std::string text = doc.body;
  cmark_parser_feed(parser, text.data(), text.size());
  cmark_node* root = cmark_parser_finish(parser);

  std::string heading;
  std::map<std::string, std::string> cited_text;  // url -> what it cites
  std::vector<std::string> notes;                  // the footnotes' links
  {
    cmark_iter* fi = cmark_iter_new(root);
    int depth = 0;
    cmark_event_type e;
    while ((e = cmark_iter_next(fi)) != CMARK_EVENT_DONE) {
      cmark_node* n = cmark_iter_get_node(fi);
      if (cmark_node_get_type(n) == CMARK_NODE_FOOTNOTE_DEFINITION) depth += e == CMARK_EVENT_ENTER ? 1 : -1;
      if (depth > 0 && e == CMARK_EVENT_ENTER && cmark_node_get_type(n) == CMARK_NODE_LINK && cmark_node_get_url(n)) {
        notes.emplace_back(cmark_node_get_url(n));
      }
    }
    cmark_iter_free(fi);
  }
  cmark_iter* it = cmark_iter_new(root);
  cmark_event_type ev;
  int footnote_depth = 0;
  while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
    cmark_node* n = cmark_iter_get_node(it);
    cmark_node_type t = cmark_node_get_type(n);
    if (t == CMARK_NODE_FOOTNOTE_DEFINITION) {
      footnote_depth += ev == CMARK_EVENT_ENTER ? 1 : -1;
      continue;
    }
    if (ev != CMARK_EVENT_ENTER) continue;
    int line = cmark_node_get_start_line(n);
    if (t == CMARK_NODE_HEADING) {
      heading = NodeText(n);
    } else if (t == CMARK_NODE_LINK) {
      const char* url = cmark_node_get_url(n);
      if (url) CheckLink(corpus, url, line, doc.provenance, &out);
    } else if (t == CMARK_NODE_IMAGE) {
      // The page loads nothing from another host (its CSP): such an image
      // would not show, and loading it would tell that host who reads.
      const char* url = cmark_node_get_url(n);
      std::string u = url ? ToLower(url) : "";
      if (u.find("//") != std::string::npos || u.rfind("http:", 0) == 0 || u.rfind("https:", 0) == 0) {
        Add(&out, CheckProblem::Severity::kWarning, line, url,
            "an image from another host: the page does not load it (save it beside the page, or publish --allow-remote)");
      }
    } else if (t == CMARK_NODE_PARAGRAPH && footnote_depth == 0 && !ExemptHeading(heading)) {
      std::string p = NodeText(n);
      bool token = p.rfind("UMWELTSIDENOTE", 0) == 0;
      if (!token && LooksFactual(NodeText(n, false)) && !HasCitation(n)) {
        std::string excerpt(TruncateUtf8(CollapseWhitespace(p), 70));
        Add(&out, CheckProblem::Severity::kWarning, line, "", "uncited claim: \"" + excerpt + "…\"");
      } else if (!token && corpus) {
        CheckNumbers(n, p, *corpus, line, notes, &cited_text, &out);
      }
    }
  }
  cmark_iter_free(it);
  cmark_node_free(root);
  cmark_parser_free(parser);
  // Links inside sidenotes.
  for (const auto& note : doc.sidenotes) {
    cmark_parser* np = cmark_parser_new(options);
    if (cmark_syntax_extension* ext = cmark_find_syntax_extension("autolink")) cmark_parser_attach_syntax_extension(np, ext);
    cmark_parser_feed(np, note.data(), note.size());
    cmark_node* nr = cmark_parser_finish(np);
    cmark_iter* ni = cmark_iter_new(nr);
    while ((ev = cmark_iter_next(ni)) != CMARK_EVENT_DONE) {
      cmark_node* n = cmark_iter_get_node(ni);
      if (ev == CMARK_EVENT_ENTER && cmark_node_get_type(n) == CMARK_NODE_LINK && cmark_node_get_url(n)) {
        CheckLink(corpus, cmark_node_get_url(n), 0, doc.provenance, &out);
      }
    }
    cmark_iter_free(ni);
    cmark_node_free(nr);
    cmark_parser_free(np);
  }
  return out;
}

}  // namespace umwelt
