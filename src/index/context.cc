// `umwelt context`: search, expand to threads, follow references, pack.
#include "umwelt/context.h"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "umwelt/text.h"

namespace umwelt {
namespace {

using json = nlohmann::json;

std::string Trim(std::string_view s) {
  size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
  return a == std::string_view::npos ? std::string() : std::string(s.substr(a, b - a + 1));
}

std::string Cut(const std::string& s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  return std::string(TruncateUtf8(s, max_bytes > 3 ? max_bytes - 3 : 0)) + "…";
}

// One record: its date, author and permalink, then its text.
std::string RecordLine(const Chunk& c) {
  std::string head = "[" + c.date.substr(0, 10);
  if (!c.author.empty()) head += (head.size() > 1 ? " " : "") + c.author;
  if (!c.url.empty()) head += " · " + c.url;
  return head + "] " + Trim(c.text);
}

struct Block {
  std::string text;
  ContextThread info;
};

// The lines that fit in `budget` bytes: the opening (three fifths) and the
// close-out (the rest), with a marker naming how many records between them
// were left out and where to read them whole.
std::vector<std::string> Fit(const std::vector<std::string>& lines, size_t budget, const std::string& url,
                             int* left_out) {
  size_t total = 0;
  for (const auto& l : lines) total += l.size() + 1;
  if (total <= budget) return lines;
  size_t reserve = 80 + url.size();
  size_t avail = budget > reserve ? budget - reserve : 0;
  size_t head_budget = avail * 3 / 5, tail_budget = avail - head_budget;
  std::vector<std::string> head, tail;
  size_t i = 0, used = 0;
  for (; i < lines.size() && used + lines[i].size() + 1 <= head_budget; ++i) {
    head.push_back(lines[i]);
    used += lines[i].size() + 1;
  }
  if (head.empty() && head_budget > 1) head.push_back(Cut(lines[i++], head_budget - 1));
  size_t j = lines.size();
  used = 0;
  while (j > i && used + lines[j - 1].size() + 1 <= tail_budget) {
    used += lines[j - 1].size() + 1;
    tail.insert(tail.begin(), lines[--j]);
  }
  if (tail.empty() && j > i && tail_budget > 1) tail.push_back(Cut(lines[--j], tail_budget - 1));
  *left_out = static_cast<int>(j - i);
  std::vector<std::string> out = std::move(head);
  if (j > i) {
    out.push_back("[… " + std::to_string(j - i) + " record" + (j - i == 1 ? "" : "s") + " left out here; read " +
                  (url.empty() ? std::string("the thread") : url) + " whole …]");
  }
  out.insert(out.end(), tail.begin(), tail.end());
  return out;
}

Block MakeBlock(const ThreadView& v, const ContextRequest& r, bool followed) {
  Block b;
  ContextThread& info = b.info;
  info.ref = v.thread_ref;
  info.followed = followed;
  info.title = v.thread && !v.thread->title.empty() ? v.thread->title
               : !v.chunks.empty() && !v.chunks.front().title.empty() ? v.chunks.front().title
                                                                      : v.thread_ref;
  info.url = v.thread && !v.thread->url.empty() ? v.thread->url : v.chunks.empty() ? "" : v.chunks.front().url;
  std::string header = "=== " + CollapseWhitespace(info.title) + "  (" + info.url + ") ===";
  if (v.named_only) header += "\n(not mirrored here: the records that name it)";
  if (v.window) header += "\n(the conversation around the hit)";
  std::vector<std::string> lines;
  for (const auto& c : v.chunks) {
    if (!Trim(c.text).empty()) lines.push_back(RecordLine(c));
  }
  if (r.tail > 0 && lines.size() > static_cast<size_t>(r.tail)) {
    info.left_out = static_cast<int>(lines.size()) - r.tail;
    lines.erase(lines.begin(), lines.end() - r.tail);
  }
  size_t budget = static_cast<size_t>(r.per_thread_chars) > header.size() + 1 ? r.per_thread_chars - header.size() - 1 : 0;
  int cut = 0;
  lines = Fit(lines, budget, info.url, &cut);
  info.left_out += cut;
  info.records = static_cast<int>(lines.size()) - (cut > 0 ? 1 : 0);
  b.text = header;
  for (const auto& l : lines) b.text += "\n" + l;
  info.chars = static_cast<int64_t>(b.text.size());
  return b;
}

}  // namespace

Status ValidateContextRequest(const ContextRequest& r) {
  if (r.queries.empty()) return Status::Invalid("context needs at least one query");
  if (r.queries.size() > 20) return Status::Invalid("context takes at most 20 queries");
  for (const auto& q : r.queries) {
    if (Trim(q).empty()) return Status::Invalid("a query is empty");
  }
  if (r.k < 1 || r.k > 1000) return Status::Invalid("k must be from 1 to 1000");
  if (r.expand < 0 || r.expand > 200) return Status::Invalid("expand must be from 0 to 200");
  if (r.per_thread_chars < 200 || r.per_thread_chars > 1'000'000) {
    return Status::Invalid("per_thread_chars must be from 200 to 1,000,000");
  }
  if (r.tail < 0 || r.tail > 100000) return Status::Invalid("tail must be from 0 to 100,000");
  if (r.around < 0 || r.around > 500) return Status::Invalid("around must be from 0 to 500");
  if (r.max_chars < 1000 || r.max_chars > 20'000'000) return Status::Invalid("max_chars must be from 1,000 to 20,000,000");
  return Status::Ok();
}

const ParamTable<ContextRequest>& ContextParams() {
  static const ParamTable<ContextRequest> table = [] {
    using T = ParamType;
    using V = const ParamValue&;
    ParamTable<ContextRequest> t;
    t.params = {
        {{.name = "queries", .type = T::kList, .help = "One or more phrasings of what to read about (1 to 20)", .max = 20,
          .required = true, .flag = "@", .http = "q"},
         [](ContextRequest& r, V v) {
           r.queries.clear();
           for (const auto& q : v.list) r.queries.push_back(CollapseWhitespace(q));
         }},
        {{.name = "k", .type = T::kInt, .help = "Candidates per query", .min = 1, .max = 1000, .fallback = "20", .flag = "-k"},
         [](ContextRequest& r, V v) { r.k = static_cast<int>(v.integer); }},
        {{.name = "expand", .type = T::kInt, .help = "Threads to expand from the top hits", .min = 0, .max = 200, .fallback = "12"},
         [](ContextRequest& r, V v) { r.expand = static_cast<int>(v.integer); }},
        {{.name = "follow_links", .type = T::kBool, .help = "Then the threads they reference, one hop", .cli_value = true},
         [](ContextRequest& r, V v) { r.follow_links = v.flag; }},
        {{.name = "per_thread_chars", .type = T::kInt, .help = "Each thread at most (its opening and close-out kept)",
          .min = 200, .max = 1000000, .fallback = "12000"},
         [](ContextRequest& r, V v) { r.per_thread_chars = static_cast<int>(v.integer); }},
        {{.name = "tail", .type = T::kInt, .help = "Only each thread's last N records", .min = 0, .max = 100000},
         [](ContextRequest& r, V v) { r.tail = static_cast<int>(v.integer); }},
        {{.name = "around", .type = T::kInt, .help = "A chat message: this many messages either side", .min = 0, .max = 500,
          .fallback = "12"},
         [](ContextRequest& r, V v) { r.around = static_cast<int>(v.integer); }},
        {{.name = "toc", .type = T::kBool, .help = "A thread index first"}, [](ContextRequest& r, V v) { r.toc = v.flag; }},
        {{.name = "max_chars", .type = T::kInt, .help = "The whole pack at most", .min = 1000, .max = 20000000,
          .fallback = "400000"},
         [](ContextRequest& r, V v) { r.max_chars = v.integer; }},
    };
    for (auto& p : SearchFilterParams()) {
      t.params.push_back({p.spec, [set = p.set](ContextRequest& r, V v) { set(r.search, v); }});
    }
    t.check = ValidateContextRequest;
    return t;
  }();
  return table;
}

Result<ContextPack> BuildContext(Searcher& searcher, const ContextRequest& r, const TaskRunner& run) {
  UMWELT_RETURN_IF_ERROR(ValidateContextRequest(r));
  SearchRequest base = r.search;
  base.search.query = r.queries.front();
  base.search.k = r.k;
  int total = std::min(1000, r.k * static_cast<int>(r.queries.size()));  // SearchMulti's bound
  UMWELT_ASSIGN_OR_RETURN(MultiSearchResponse found, searcher.SearchMulti(r.queries, base, total, run));
  UMWELT_ASSIGN_OR_RETURN(Corpus * corpus, searcher.Connection());
  ContextPack p;
  p.queries = r.queries;
  p.notes = found.notes;
  std::set<std::string> shown;
  std::vector<std::string> blocks, references;
  int64_t chars = 0;
  auto add = [&](const std::string& target, bool followed) -> Status {
    auto v = ViewThread(*corpus, target, r.around);
    if (!v.ok()) return v.status().code() == Code::kNotFound ? Status::Ok() : v.status();
    if (followed && v->named_only) return Status::Ok();  // what names it is already here
    if (!shown.insert(v->thread_ref).second) return Status::Ok();
    Block b = MakeBlock(*v, r, followed);
    if (r.follow_links && !followed) {
      std::vector<std::string> refs;
      for (const auto& c : v->chunks) refs.push_back(c.ref);
      UMWELT_ASSIGN_OR_RETURN(auto links, corpus->LinksFrom(refs));
      for (const auto& l : links) references.push_back(l.to_ref);
    }
    chars += b.info.chars + 2;
    p.threads.push_back(std::move(b.info));
    blocks.push_back(std::move(b.text));
    return Status::Ok();
  };
  auto expand = [&](const std::vector<MultiHit>& hits) -> Status {
    for (const auto& h : hits) {
      if (static_cast<int>(p.threads.size()) >= r.expand || chars >= r.max_chars) break;
      if (shown.count(h.hit.parent.empty() ? h.hit.ref : h.hit.parent)) continue;  // read already
      UMWELT_RETURN_IF_ERROR(add(h.hit.ref, false));
    }
    return Status::Ok();
  };
  UMWELT_RETURN_IF_ERROR(expand(found.hits));
  // The candidates fell in fewer threads than asked for: look deeper once.
  int deeper = std::min(1000, total * 4);
  if (static_cast<int>(p.threads.size()) < r.expand && chars < r.max_chars &&
      static_cast<int>(found.hits.size()) >= total && deeper > total) {
    base.search.k = std::min(1000, r.k * 4);
    UMWELT_ASSIGN_OR_RETURN(MultiSearchResponse more, searcher.SearchMulti(r.queries, base, deeper, run));
    UMWELT_RETURN_IF_ERROR(expand(more.hits));
  }
  std::set<std::string> followed;
  for (const auto& ref : references) {
    if (chars >= r.max_chars) break;
    if (followed.insert(ref).second) UMWELT_RETURN_IF_ERROR(add(ref, true));
  }
  if (found.hits.empty()) p.notes.push_back("no hits: nothing to expand");
  std::string text;
  if (r.toc) {
    text = "THREAD INDEX (" + std::to_string(blocks.size()) + " threads):\n";
    for (const auto& t : p.threads) text += "- " + CollapseWhitespace(t.title) + "  (" + t.url + ")\n";
    text += "\n=====\n\n";
  }
  for (size_t i = 0; i < blocks.size(); ++i) text += (i ? "\n\n" : "") + blocks[i];
  if (static_cast<int64_t>(text.size()) > r.max_chars) {
    text = std::string(TruncateUtf8(text, static_cast<size_t>(r.max_chars)));
    p.truncated = true;
  }
  p.text = std::move(text);
  return p;
}

std::string ContextJson(const ContextPack& p) {
  return ContextValue(p).dump(-1, ' ', false, json::error_handler_t::replace);
}

json ContextValue(const ContextPack& p) {
  json list = json::array();
  for (const auto& t : p.threads) {
    list.push_back({{"ref", t.ref}, {"title", t.title}, {"url", t.url}, {"records", t.records},
                    {"left_out", t.left_out}, {"chars", t.chars}, {"followed", t.followed}});
  }
  json out = {{"queries", p.queries},
              {"threads", p.threads.size()},
              {"thread_list", list},
              {"chars", p.text.size()},
              {"approx_tokens", p.text.size() / 4},
              {"truncated", p.truncated},
              {"notes", p.notes},
              {"context", p.text}};
  return out;
}

}  // namespace umwelt
