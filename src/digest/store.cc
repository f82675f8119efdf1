// Digests fed back into the corpus, read back, posted to chat webhooks, and
// checked (`umwelt eval digest`).
#include <algorithm>
#include <chrono>
#include <thread>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "digest_internal.h"
#include "umwelt/claims.h"
#include "umwelt/json_read.h"
#include "umwelt/publish.h"
#include "umwelt/source_traits.h"
#include "umwelt/http.h"
#include "umwelt/text.h"

namespace umwelt {
namespace di = digest_internal;
using json = nlohmann::json;

namespace {

std::string Two(size_t i) { return (i < 10 ? "0" : "") + std::to_string(i); }

}  // namespace

Status StoreDigest(Corpus& corpus, const Digest& d, const std::string& page_url) {
  std::string parent = NarrativeRef(d.period.id());
  std::string date = d.period.to + "T23:59:59Z";
  UMWELT_ASSIGN_OR_RETURN(auto batch, corpus.BeginWrite());
  // An earlier digest of the period goes first: its sections may differ.
  UMWELT_ASSIGN_OR_RETURN(std::vector<std::string> old, corpus.RecordRefs(parent, "summary"));
  for (const auto& ref : old) UMWELT_RETURN_IF_ERROR(batch->DeleteRecord(ref));
  Thread t;
  t.ref = parent;
  t.source = kNarrativeSource;
  t.kind = "digest";
  t.state = d.partial ? "partial" : "final";
  t.title = d.title;
  t.author = "umwelt";
  t.url = page_url;
  t.created = date;
  t.updated = FormatIsoTime(NowEpoch());
  t.description = std::string(TruncateUtf8(d.xs, 300));
  UMWELT_RETURN_IF_ERROR(batch->PutThread(t));
  auto put = [&](const std::string& slug, const std::string& title, const std::string& text) -> Status {
    Chunk c;
    c.source = kNarrativeSource;
    c.kind = "summary";
    c.ref = parent + "/" + slug;
    c.parent = parent;
    c.title = title;
    c.author = "umwelt";
    c.date = date;
    c.url = page_url + "#s-" + slug.substr(3);
    c.text = text;
    c.updated = t.updated;
    UMWELT_ASSIGN_OR_RETURN(bool changed, batch->PutRecord(SplitIntoParts(c)));
    (void)changed;
    std::string repo = d.project.find('/') != std::string::npos ? d.project : "";
    return batch->PutLinks(c.ref, FindLinks(c.ref, text, repo, parent));
  };
  UMWELT_RETURN_IF_ERROR(put("00-overview", d.title, d.xs + "\n\n" + DigestS(d)));
  for (size_t i = 0; i < d.sections.size(); ++i) {
    const auto& s = d.sections[i];
    UMWELT_RETURN_IF_ERROR(put(Two(i + 1) + "-" + s.slug, d.title + " — " + s.heading,
                               "## " + s.heading + "\n\n" + s.body));
  }
  return batch->Commit();
}

Result<std::vector<SummaryInfo>> ListSummaries(Corpus& corpus) {
  UMWELT_ASSIGN_OR_RETURN(std::vector<Thread> threads, corpus.ThreadsOf(std::string(kNarrativeSource), "digest"));
  std::vector<SummaryInfo> out;
  for (const auto& t : threads) out.push_back({t.ref.substr(10), t.title, t.description, t.url});
  std::sort(out.begin(), out.end(), [](const SummaryInfo& a, const SummaryInfo& b) { return a.period > b.period; });
  return out;
}

namespace {

Result<std::vector<Chunk>> PeriodChunks(Corpus& corpus, const std::string& period, std::string* resolved) {
  std::string p = period;
  UMWELT_ASSIGN_OR_RETURN(auto all, ListSummaries(corpus));
  if (p == "latest") {
    if (all.empty()) return Status::NotFound("no summaries in the corpus yet (run `umwelt digest`)");
    p = all.front().period;
  } else if (p.size() == 10) {
    // A day: the period holding it.
    for (const auto& s : all) {
      if (s.period.substr(0, 10) <= p && p <= s.period.substr(11)) {
        p = s.period;
        break;
      }
    }
  }
  UMWELT_ASSIGN_OR_RETURN(auto chunks, corpus.ThreadChunks(NarrativeRef(p)));
  if (chunks.empty()) return Status::NotFound("no summary for " + period + " (see `umwelt summaries list`)");
  std::sort(chunks.begin(), chunks.end(), [](const Chunk& a, const Chunk& b) {
    return a.ref != b.ref ? a.ref < b.ref : a.part < b.part;
  });
  *resolved = p;
  return chunks;
}

}  // namespace

Result<std::string> SummaryText(Corpus& corpus, const std::string& period) {
  std::string p;
  UMWELT_ASSIGN_OR_RETURN(auto chunks, PeriodChunks(corpus, period, &p));
  std::string out = "# " + chunks.front().title + "\n\n";
  for (const auto& c : chunks) out += c.text + (c.text.empty() || c.text.back() != '\n' ? "\n\n" : "\n");
  return out;
}

Result<std::vector<std::string>> SummaryLinks(Corpus& corpus, const std::string& period) {
  std::string p;
  UMWELT_ASSIGN_OR_RETURN(auto chunks, PeriodChunks(corpus, period, &p));
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& c : chunks) {
    if (c.ref.find("/00-overview") != std::string::npos) continue;
    for (auto& u : di::MarkdownLinks(c.text)) {
      if (seen.insert(u).second) out.push_back(u);
    }
  }
  return out;
}

Result<std::string> SummariesJson(Corpus& corpus, const std::string& period) {
  UMWELT_ASSIGN_OR_RETURN(nlohmann::json out, SummariesValue(corpus, period));
  return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<nlohmann::json> SummariesValue(Corpus& corpus, const std::string& period) {
  using json = nlohmann::json;
  json out;
  if (period.empty()) {
    UMWELT_ASSIGN_OR_RETURN(auto all, ListSummaries(corpus));
    out = json::array();
    for (const auto& s : all) out.push_back({{"period", s.period}, {"title", s.title}, {"xs", s.xs}, {"url", s.url}});
  } else {
    UMWELT_ASSIGN_OR_RETURN(std::string text, SummaryText(corpus, period));
    UMWELT_ASSIGN_OR_RETURN(auto links, SummaryLinks(corpus, period));
    out = {{"period", period}, {"text", text}, {"links", links}};
  }
  return out;
}

Status PostDigest(const Digest& d, const std::string& kind, const std::string& webhook_url) {
  if (kind != "discord" && kind != "slack") return Status::Invalid("post to discord or slack, not " + kind);
  if (webhook_url.rfind("https://", 0) != 0 && webhook_url.rfind("http://", 0) != 0) {
    return Status::Invalid("the " + kind + " webhook url is not an http(s) url");
  }
  // Discord caps a message at 2,000 characters; Slack's text at 40,000, but
  // long messages are truncated in the client: split there too.
  const size_t limit = kind == "discord" ? 1900 : 3500;
  std::vector<std::string> messages = {"**" + d.title + "**\n" + d.xs};
  auto add_split = [&](const std::string& text) {
    std::string cur;
    size_t start = 0;
    while (start < text.size()) {
      size_t nl = text.find('\n', start);
      std::string line = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start + 1);
      start = nl == std::string::npos ? text.size() : nl + 1;
      while (line.size() > limit) {
        std::string head(TruncateUtf8(line, limit));
        if (!cur.empty()) messages.push_back(cur), cur.clear();
        messages.push_back(head);
        line = line.substr(head.size());
      }
      if (cur.size() + line.size() > limit) messages.push_back(cur), cur.clear();
      cur += line;
    }
    if (!CollapseWhitespace(cur).empty()) messages.push_back(cur);
  };
  add_split(DigestS(d));
  for (const auto& s : d.sections) add_split("**" + s.heading + "**\n" + s.body);
  auto http = NewCurlHttpClient();
  for (size_t i = 0; i < messages.size(); ++i) {
    HttpRequest req;
    req.method = "POST";
    req.url = webhook_url + (kind == "discord" ? (webhook_url.find('?') == std::string::npos ? "?wait=true" : "&wait=true") : "");
    req.headers = {{"Content-Type", "application/json"}};
    json body = kind == "discord" ? json{{"content", messages[i]}, {"allowed_mentions", {{"parse", json::array()}}}}
                                  : json{{"text", messages[i]}, {"unfurl_links", false}, {"mrkdwn", true}};
    req.body = body.dump();
    req.timeout_seconds = 30;
    RetryPolicy policy;  // only a 429 is posted again: it was not taken
    policy.max_retries = 3;
    policy.max_wait_seconds = 10;
    policy.retry_on = [](const HttpResponse& r) { return r.status == 429; };
    policy.retry_transport = false;
    policy.wait_of = RetryAfterInBody;
    auto r = SendWithRetry(*http, req, policy);
    if (!r.ok()) {
      return Status::Unavailable("posting to the " + kind + " webhook failed at message " + std::to_string(i + 1) +
                                 " of " + std::to_string(messages.size()) + ": " +
                                 Redact(r.status().message(), {webhook_url}));
    }
    if (r->status < 200 || r->status >= 300) {
      return Status::Unavailable("the " + kind + " webhook answered HTTP " + std::to_string(r->status) +
                                 " at message " + std::to_string(i + 1) + " of " + std::to_string(messages.size()) +
                                 ": " + Redact(std::string(TruncateUtf8(r->body, 200)), {webhook_url}));
    }
  }
  return Status::Ok();
}

namespace {

std::vector<std::string> Lines(std::string_view text) {
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size();) {
    size_t nl = text.find('\n', i);
    if (nl == std::string_view::npos) nl = text.size();
    out.emplace_back(text.substr(i, nl - i));
    i = nl + 1;
  }
  return out;
}

std::string Unescaped(std::string s) {
  std::erase(s, '\\');
  return s;
}

// How the digest reads: see DigestCheck.
void ReadingChecks(const Digest& d, const std::string& m, const std::string& s_md, Corpus& corpus, DigestCheck* c) {
  // What landed where; the titles a shortened one must come from.
  int64_t largest = -1;
  std::string largest_section;
  std::vector<std::string> titles;
  for (const auto& s : d.sections) {
    for (const auto& l : s.landed) {
      titles.push_back(CollapseWhitespace(l.title));
      ++c->landed_changes;
      if (s.kind == "other") ++c->landed_in_other;
      if (l.size() > largest) largest = l.size(), largest_section = s.kind;
    }
    for (const auto& t : s.threads) titles.push_back(CollapseWhitespace(t.title));
  }
  c->largest_in_other = largest >= 0 && largest_section == "other";
  // A word before an ellipsis that no title holds whole was cut.
  std::string all = Unescaped(d.xs + "\n" + s_md + "\n" + m);
  const std::string ellipsis = "\xE2\x80\xA6";
  for (size_t at = all.find(ellipsis); at != std::string::npos; at = all.find(ellipsis, at + 1)) {
    size_t start = at;
    while (start > 0 && (std::isalnum(static_cast<unsigned char>(all[start - 1])) || all[start - 1] == '_')) --start;
    if (start == at) continue;
    std::string word = all.substr(start, at - start);
    bool whole = false, prefix = false;
    for (const auto& t : titles) {
      for (size_t p = t.find(word); p != std::string::npos && !whole; p = t.find(word, p + 1)) {
        bool before = p == 0 || !(std::isalnum(static_cast<unsigned char>(t[p - 1])) || t[p - 1] == '_');
        size_t e = p + word.size();
        bool after = e == t.size() || !(std::isalnum(static_cast<unsigned char>(t[e])) || t[e] == '_');
        if (before && after) whole = true;
        else if (before) prefix = true;
      }
      if (whole) break;
    }
    if (prefix && !whole) c->cut_titles.push_back(all.substr(start > 40 ? start - 40 : 0, at - (start > 40 ? start - 40 : 0)) + ellipsis);
  }
  // Quotes: whole sentences that say more than their title.
  for (const auto& s : d.sections) {
    std::map<std::string, const Evidence*> record;  // url -> the record quoted
    for (const auto& e : s.evidence) record.emplace(e.url, &e);
    auto letters = [](std::string_view t) {
      std::string out;
      for (char ch : t) {
        if (std::isalnum(static_cast<unsigned char>(ch))) out += ch;
      }
      return out;
    };
    for (const auto& line : Lines(s.body)) {
      if (line.rfind("> ", 0) != 0) continue;
      size_t cite = line.find(" \xE2\x80\x94 [");
      if (cite == std::string::npos) continue;
      std::string quote = Unescaped(line.substr(2, cite - 2));
      std::vector<std::string> links = di::MarkdownLinks(line.substr(cite));
      auto it = links.empty() ? record.end() : record.find(links.front());
      const Evidence* e = it == record.end() ? nullptr : it->second;
      // A record quoted whole is no fragment, whatever its punctuation.
      bool whole = e && letters(quote) == letters(e->text);
      if (e && di::RepeatsTitle(quote, e->title)) c->title_quotes.push_back(quote);
      else if (!whole && !di::WholeSentence(quote)) c->fragment_quotes.push_back(quote);
    }
  }
  // Measures: a bold value opens with the quantity's name.
  bool measures = false;
  for (const auto& line : Lines(m)) {
    if (line.rfind("## ", 0) == 0) measures = false;
    if (line == "Measures stated:" || line == "Numbers stated:") measures = true;
    if (measures && line.rfind("- **", 0) == 0 && line.size() > 4 && !std::isalpha(static_cast<unsigned char>(line[4]))) {
      c->bare_numbers.push_back(line.substr(0, line.find("**", 4) + 2));
    }
  }
  // Headings: noise tags, the project's own name, raw dot-folders.
  for (const auto& s : d.sections) {
    if (s.kind != "workstream" && s.kind != "epic") continue;
    std::string key = di::AreaKey(s.heading);
    if (di::NoiseTag(key, d.project) || (!s.heading.empty() && s.heading[0] == '.')) c->noise_areas.push_back(s.heading);
  }
  // Shared links: none that only credits a tool or is boilerplate.
  std::string from = d.period.from + "T00:00:00Z";
  std::string to = di::DayString(*di::DayStart(d.period.to) + 86400) + "T00:00:00Z";
  auto chunks = corpus.ChunksInPeriod(from, to);
  for (const auto& url : d.shared_links) {
    bool credited = di::BoilerplateLink(url), read = false;
    if (!credited && chunks.ok()) {
      for (const auto& ch : *chunks) {
        for (const auto& line : Lines(ch.text)) {
          if (line.find(url) != std::string::npos) (di::Attribution(line) ? credited : read) = true;
        }
      }
    }
    if (credited && !read) c->attribution_links.push_back(url);
  }
}

}  // namespace

Result<DigestCheck> CheckDigest(const Digest& d, Corpus& corpus, int top_notable) {
  DigestCheck c;
  // Links: each must be a corpus chunk or thread of the period, or a shared
  // web link quoted in one.
  std::set<std::string> evidence_urls, threads;
  for (const auto& s : d.sections) {
    for (const auto& e : s.evidence) evidence_urls.insert(e.url);
    for (const auto& t : s.threads) threads.insert(t.ref);
  }
  std::string from = d.period.from + "T00:00:00Z";
  std::string to = di::DayString(*di::DayStart(d.period.to) + 86400) + "T00:00:00Z";
  std::string m = DigestM(d);
  std::set<std::string> shared(d.shared_links.begin(), d.shared_links.end());
  for (const auto& url : di::MarkdownLinks(m)) {
    ++c.links;
    if (shared.count(url)) continue;
    auto chunk = corpus.ChunkByUrl(url);
    if (chunk.ok() && chunk->has_value()) {
      const Chunk& ch = **chunk;
      bool in_period = ch.date >= from && ch.date < to;
      if (in_period || threads.count(ch.parent) || threads.count(BaseRef(ch.ref))) continue;
      c.bad_links.push_back(url + " (dated " + ch.date + ", outside the period and its threads)");
      continue;
    }
    auto thread = corpus.ThreadByUrl(url);
    if (thread.ok() && thread->has_value() && threads.count((*thread)->ref)) continue;
    c.bad_links.push_back(url + " (not in the corpus)");
  }
  // Notable events: merged PRs, closed issues with discussion, new epics,
  // finished runs, and the busiest epics; by activity.
  struct Event {
    std::string label, url;
    double weight;
  };
  std::vector<Event> events;
  for (const auto& s : d.sections) {
    if (s.kind == "outside" || s.kind == "reading") continue;
    std::map<std::string, int> discussion;
    for (const auto& e : s.evidence) {
      if (e.kind != "state") ++discussion[e.thread];
    }
    for (const auto& e : s.evidence) {
      if (e.kind != "state") continue;
      bool notable = e.thread_state == "merged" || HasRole(e.source, Role::kRun) ||
                     (e.thread_state.rfind("closed", 0) == 0 && discussion[e.thread] > 0) ||
                     (e.thread_state == "opened" && s.kind == "epic" && !s.threads.empty() && s.threads[0].ref == e.thread);
      if (notable) events.push_back({e.text.substr(0, e.text.find(':')), e.url, 5.0 + discussion[e.thread]});
    }
    if (s.kind == "epic") events.push_back({"epic " + s.heading, "", static_cast<double>(s.activity)});
  }
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.weight > b.weight; });
  if (static_cast<int>(events.size()) > top_notable) events.resize(top_notable);
  c.notable = static_cast<int>(events.size());
  for (const auto& e : events) {
    bool covered = false;
    if (e.url.empty()) {
      covered = m.find("## " + di::Inline(e.label.substr(5), 80) + "\n") != std::string::npos;  // its own section
    } else {
      covered = m.find(e.url) != std::string::npos;
      std::string label = e.label.substr(0, e.label.find(' '));
      if (!covered && label.size() > 1 && label[0] == '#') covered = m.find(label + " ") != std::string::npos;
    }
    if (covered) ++c.covered;
    else c.missed.push_back(e.label);
  }
  // Tier shape.
  c.xs_chars = static_cast<int>(d.xs.size());
  c.xs_ok = !d.xs.empty() && d.xs.size() <= 280 && d.xs.find('\n') == std::string::npos;
  c.m_sections = static_cast<int>(d.sections.size());
  c.s_bullets = static_cast<int>(d.sections.size());
  for (const auto& s : d.sections) {
    c.m_chars += static_cast<int>(s.body.size());
    c.max_bullet_chars = std::max(c.max_bullet_chars, static_cast<int>(s.bullet.size()));
    if (s.bullet.empty() || s.bullet.find('\n') != std::string::npos) c.s_ok = false;
  }
  std::string s_md = DigestS(d);
  c.s_bullets = static_cast<int>(std::count(s_md.begin(), s_md.end(), '\n'));
  if (c.s_bullets != c.m_sections) c.s_ok = false;
  // What landed: every merged PR listed in M; the biggest named in S or XS.
  std::vector<const LandedChange*> prs;
  for (const auto& s : d.sections) {
    for (const auto& l : s.landed) {
      if (!l.label.empty() && l.label[0] == '#') prs.push_back(&l);
    }
  }
  for (const auto& s : d.sections) {
    for (const auto& e : s.evidence) {
      if (e.kind == "state" && e.thread_state == "merged") ++c.landed;
    }
  }
  c.landed = std::max(c.landed, static_cast<int>(prs.size()));
  std::set<std::string> listed;
  for (const auto* l : prs) {
    if (m.find("](" + l->url + ")") != std::string::npos) listed.insert(l->url);
  }
  for (const auto& s : d.sections) {
    for (const auto& e : s.evidence) {
      if (e.kind != "state" || e.thread_state != "merged") continue;
      if (m.find("](" + e.url + ")") != std::string::npos) listed.insert(e.url);
      else c.landed_missing.push_back(e.text.substr(0, e.text.find(':')));
    }
  }
  c.landed_in_m = static_cast<int>(listed.size());
  std::stable_sort(prs.begin(), prs.end(), [](const LandedChange* a, const LandedChange* b) { return a->size() > b->size(); });
  for (size_t i = 0; i < prs.size() && i < 3; ++i) {
    ++c.top;
    std::string named = "(" + prs[i]->label;
    if (s_md.find(named) != std::string::npos || d.xs.find(named) != std::string::npos) ++c.top_in_s;
  }
  c.junk = research::CountJunkQuotes(m);
  for (const auto& url : di::MarkdownLinks(m)) {
    if (di::ShareableUrl(url, d.project) != url) c.unsafe_links.push_back(url);
  }
  ReadingChecks(d, m, s_md, corpus, &c);
  std::string page = "# " + d.title + "\n\n" + m + di::Provenance(d);
  // A quiet week says only that nothing happened: there is nothing to cite.
  c.check_problems = d.quiet ? 0 : static_cast<int>(CheckCitations(page, &corpus).size());
  return c;
}

}  // namespace umwelt
