#include "cards.h"

#include "umwelt/permalinks.h"
#include "umwelt/publish.h"
#include "umwelt/source_traits.h"
#include "umwelt/text.h"

namespace umwelt::publish_internal {
namespace {

std::string WithoutFragment(const std::string& url) { return url.substr(0, url.find('#')); }

}  // namespace

bool IsCorpusLink(const std::string& url) { return IsSourceRecordUrl(url); }

std::optional<Card> LookupCard(Corpus& corpus, const std::string& url) {
  std::optional<Chunk> chunk;
  if (auto c = corpus.ChunkByUrl(url); c.ok()) chunk = *c;
  // The thread: the chunk's parent, else the thread with this url, else the
  // owner/repo#N a GitHub url names.
  std::optional<Thread> thread;
  if (chunk && !chunk->parent.empty()) {
    if (auto t = corpus.GetThread(chunk->parent); t.ok()) thread = *t;
  }
  if (!thread) {
    if (auto t = corpus.ThreadByUrl(WithoutFragment(url)); t.ok()) thread = *t;
  }
  if (!thread && url.rfind("https://github.com/", 0) == 0) {
    std::string ref = ThreadRefFromUrl(url);
    if (!ref.empty()) {
      if (auto t = corpus.GetThread(ref); t.ok()) thread = *t;
    }
  }
  Card card;
  if (chunk) {
    card.exact = true;
    card.kind = chunk->kind;
    card.date = chunk->date.substr(0, 10);
    card.title = chunk->title;
    if (RoleOf(chunk->source, chunk->kind) != Role::kOpening) card.by = chunk->author;
    card.description = std::string(TruncateUtf8(CollapseWhitespace(chunk->text), 160));
    card.ref = chunk->parent.empty() ? chunk->ref : chunk->parent;
  }
  if (thread && !thread->title.empty()) {
    card.ref = thread->ref;
    if (card.kind.empty()) card.kind = thread->kind;
    card.state = thread->state;
    card.title = thread->title;
    card.owner = thread->assignees.empty() ? thread->author : thread->assignees.front();
    // A comment's permalink shows that comment; the thread's own permalink
    // (or a record without text) its description.
    bool own_text = chunk && RoleOf(chunk->source, chunk->kind) != Role::kOpening && !card.description.empty();
    if (!thread->description.empty() && !own_text) card.description = thread->description;
    return card;
  }
  if (!chunk) return std::nullopt;
  // A chunk with no thread row: the chunk speaks for itself.
  if (card.title.empty()) card.title = card.ref;
  card.owner = card.by;
  card.by.clear();
  return card;
}

std::string CardHtml(const Card& c) {
  std::string state = ToLower(c.state);
  std::string badge;
  if (!state.empty()) {
    std::string cls = state == "open" || state == "draft" ? "open" : "done";
    badge = "<span class=\"badge badge-" + cls + "\">" + HtmlEscape(state) + "</span>";
  }
  std::string meta = HtmlEscape(c.ref);
  if (!c.owner.empty()) meta += " · " + HtmlEscape(c.owner);
  std::string by;
  if (!c.by.empty()) {
    by = "<span class=\"card-by\">" + HtmlEscape(c.kind) + " by " + HtmlEscape(c.by) +
         (c.date.empty() ? "" : ", " + HtmlEscape(c.date)) + "</span>";
  }
  return "<span class=\"card\" role=\"tooltip\"><span class=\"card-head\">" + badge +
         "<span class=\"card-meta\">" + meta + "</span></span><span class=\"card-title\">" +
         HtmlEscape(c.title) + "</span>" + by +
         (c.description.empty() ? "" : "<span class=\"card-desc\">" + HtmlEscape(CollapseWhitespace(MarkdownPlainText(c.description))) +
                                       "</span>") +
         "</span>";
}

}  // namespace umwelt::publish_internal
