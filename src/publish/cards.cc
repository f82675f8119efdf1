#include "cards.h"

#include "umwelt/publish.h"
#include "umwelt/text.h"

namespace umwelt::publish_internal {
namespace {

std::string WithoutFragment(const std::string& url) { return url.substr(0, url.find('#')); }

// "https://github.com/o/r/issues/12..." -> "o/r#12".
std::string GithubThreadRef(const std::string& url) {
  const std::string host = "https://github.com/";
  if (url.rfind(host, 0) != 0) return "";
  std::string rest = url.substr(host.size());
  size_t s1 = rest.find('/');
  if (s1 == std::string::npos) return "";
  size_t s2 = rest.find('/', s1 + 1);
  if (s2 == std::string::npos) return "";
  std::string kind_and_n = rest.substr(s2 + 1);
  for (const char* kind : {"issues/", "pull/"}) {
    std::string k = kind;
    if (kind_and_n.rfind(k, 0) != 0) continue;
    size_t e = k.size();
    while (e < kind_and_n.size() && std::isdigit(static_cast<unsigned char>(kind_and_n[e]))) ++e;
    if (e == k.size()) return "";
    return rest.substr(0, s2) + "#" + kind_and_n.substr(k.size(), e - k.size());
  }
  return "";
}

void FromThread(const Thread& t, Card* c) {
  c->ref = t.ref;
  if (c->kind.empty()) c->kind = t.kind;
  c->state = t.state;
  c->title = t.title;
  c->owner = t.assignees.empty() ? t.author : t.assignees.front();
  c->description = t.description;
}

}  // namespace

bool IsCorpusLink(const std::string& url) {
  if (url.rfind("https://github.com/", 0) == 0 || url.rfind("http://github.com/", 0) == 0) {
    for (const char* p : {"/issues/", "/pull/", "/blob/", "/commit/", "/discussions/"}) {
      if (url.find(p) != std::string::npos) return true;
    }
    return false;
  }
  return url.rfind("https://discord.com/channels/", 0) == 0 || url.rfind("https://wandb.ai/", 0) == 0;
}

std::optional<Card> LookupCard(Corpus& corpus, const std::string& url) {
  Card card;
  std::optional<Thread> thread;
  auto chunk = corpus.ChunkByUrl(url);
  if (chunk.ok() && chunk->has_value()) {
    const Chunk& c = **chunk;
    card.exact = true;
    card.kind = c.kind;
    card.date = c.date.substr(0, 10);
    card.title = c.title;
    if (c.kind != "issue" && c.kind != "pr") card.by = c.author;
    card.description = std::string(TruncateUtf8(CollapseWhitespace(c.text), 160));
    card.ref = c.parent.empty() ? c.ref : c.parent;
    if (!c.parent.empty()) {
      auto t = corpus.GetThread(c.parent);
      if (t.ok()) thread = *t;
    }
  }
  if (!thread) {
    auto t = corpus.ThreadByUrl(WithoutFragment(url));
    if (t.ok()) thread = *t;
  }
  if (!thread) {
    std::string ref = GithubThreadRef(url);
    if (!ref.empty()) {
      auto t = corpus.GetThread(ref);
      if (t.ok()) thread = *t;
    }
  }
  if (thread && !thread->title.empty()) {
    std::string kind = card.kind;
    std::string description = card.description;
    FromThread(*thread, &card);
    if (!card.by.empty()) {
      card.kind = kind;
      if (card.description.empty()) card.description = description;
    }
    if (card.description.empty()) card.description = description;
    return card;
  }
  if (card.exact) {
    if (card.title.empty()) card.title = card.ref;
    card.owner = card.by;
    card.by.clear();
    return card;
  }
  return std::nullopt;
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
         (c.description.empty() ? "" : "<span class=\"card-desc\">" + HtmlEscape(c.description) + "</span>") +
         "</span>";
}

}  // namespace umwelt::publish_internal
