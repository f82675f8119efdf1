// GitHub REST API JSON -> corpus records. Records are recognised by shape, so
// a page parses the same whether it came from a live listing, `gh api`, or a
// recording; the API path only adds context the records lack.
#include <nlohmann/json.hpp>

#include "records_internal.h"
#include "umwelt/json_read.h"
#include "umwelt/github.h"
#include "umwelt/text.h"

namespace umwelt::github {
namespace {

using json = nlohmann::json;

// Typed field access that remembers the first type error.
class Fields {
 public:
  Fields(const json& j, std::string where) : j_(j), where_(std::move(where)) {}

  bool Has(const char* k) const { return j_.contains(k) && !j_[k].is_null(); }
  std::string Str(const char* k) {
    if (!Has(k)) return "";
    const json& v = j_[k];
    if (!v.is_string()) return Fail(k, "a string"), "";
    return v.get<std::string>();
  }
  int64_t Int(const char* k) {
    if (!Has(k)) return 0;
    const json& v = j_[k];
    if (!v.is_number_integer()) return Fail(k, "an integer"), 0;
    return v.get<int64_t>();
  }
  bool Bool(const char* k) {
    if (!Has(k)) return false;
    const json& v = j_[k];
    if (!v.is_boolean()) return Fail(k, "a boolean"), false;
    return v.get<bool>();
  }
  // `k`.login of a user object.
  std::string Login(const char* k) {
    if (!Has(k)) return "";
    const json& v = j_[k];
    if (!v.is_object()) return Fail(k, "an object"), "";
    if (v.contains("login") && v["login"].is_string()) return v["login"].get<std::string>();
    return "";
  }
  const json* Obj(const char* k) {
    if (!Has(k)) return nullptr;
    if (!j_[k].is_object()) return Fail(k, "an object"), nullptr;
    return &j_[k];
  }
  const json* Arr(const char* k) {
    if (!Has(k)) return nullptr;
    if (!j_[k].is_array()) return Fail(k, "an array"), nullptr;
    return &j_[k];
  }
  Status status() const { return status_; }

 private:
  void Fail(const char* k, const char* want) {
    if (status_.ok()) {
      status_ = Status::Corrupt(where_ + ": field `" + k + "` should be " + want + ", got " +
                                j_[k].type_name());
    }
  }
  const json& j_;
  std::string where_;
  Status status_;
};

struct Target {
  std::string repo;  // owner/name
  int64_t number = 0;
  bool pull = false;
};

// The web host that a record's API url belongs to: api.github.com →
// github.com; https://HOST/api/v3/… (GitHub Enterprise) → HOST; no API url:
// github.com.
std::string WebHostOf(const std::string& api_url) {
  size_t start = api_url.find("://");
  if (start == std::string::npos) return "github.com";
  start += 3;
  std::string host = ToLower(api_url.substr(start, api_url.find_first_of("/?#", start) - start));
  if (host == "api.github.com") return "github.com";
  return host.rfind("api.", 0) == 0 ? host.substr(4) : host;
}

// A permalink must be https on the record's own web host: an html_url that
// points elsewhere would let one record re-point a thread (and every
// citation of it) to another site.
Status CheckWebUrl(const std::string& html, const std::string& api_url, const std::string& where) {
  if (html.empty()) return Status::Ok();
  std::string host = WebHostOf(api_url);
  std::string want = "https://" + host + "/";
  if (ToLower(html.substr(0, want.size())) != want) {
    return Status::Corrupt(where + ": html_url `" + std::string(TruncateUtf8(html, 200)) + "` is not on " + host +
                           ", the web host of the record's API; refused");
  }
  return Status::Ok();
}

// Parses ".../OWNER/REPO/(issues|pull|pulls)/N..." from an html or api url.
bool ParseTarget(std::string_view url, Target* t) {
  for (std::string_view kind : {"/issues/", "/pull/", "/pulls/"}) {
    size_t p = url.find(kind);
    if (p == std::string_view::npos) continue;
    size_t n_start = p + kind.size();
    size_t n_end = n_start;
    int64_t n = 0;
    while (n_end < url.size() && url[n_end] >= '0' && url[n_end] <= '9' && n_end - n_start < 12) {
      n = n * 10 + (url[n_end++] - '0');
    }
    if (n_end == n_start) continue;
    size_t r = url.rfind('/', p - 1);
    if (r == std::string_view::npos || r == 0) continue;
    size_t o = url.rfind('/', r - 1);
    if (o == std::string_view::npos) continue;
    t->repo = std::string(url.substr(o + 1, p - o - 1));
    t->number = n;
    t->pull = kind != "/issues/";
    return !t->repo.empty();
  }
  return false;
}

// "/repos/O/R/issues/5/sub_issues" -> ("O/R", 5, "sub_issues").
bool ParseApiPath(std::string_view path, std::string* repo, int64_t* number, std::string* tail) {
  size_t q = path.find('?');
  path = path.substr(0, q);
  if (path.substr(0, 7) != "/repos/") return false;
  path.remove_prefix(7);
  size_t s1 = path.find('/');
  if (s1 == std::string_view::npos) return false;
  size_t s2 = path.find('/', s1 + 1);
  *repo = std::string(path.substr(0, s2));
  if (s2 == std::string_view::npos) return true;
  std::string_view rest = path.substr(s2 + 1);
  for (std::string_view k : {"issues/", "pulls/"}) {
    if (rest.substr(0, k.size()) != k) continue;
    rest.remove_prefix(k.size());
    int64_t n = 0;
    size_t i = 0;
    while (i < rest.size() && rest[i] >= '0' && rest[i] <= '9') n = n * 10 + (rest[i++] - '0');
    if (i == 0) return true;
    *number = n;
    if (i < rest.size() && rest[i] == '/') *tail = std::string(rest.substr(i + 1));
    return true;
  }
  return true;
}

std::string ThreadRef(const Target& t) { return t.repo + "#" + std::to_string(t.number); }

// The first sentence or line of `body`, markdown noise stripped, ≤ 160 bytes.
std::string OneLine(std::string_view body) {
  std::string out;
  std::string_view rest = body;
  while (!rest.empty()) {
    size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    std::string c = CollapseWhitespace(line);
    while (!c.empty() && (c[0] == '#' || c[0] == '>' || c[0] == '*' || c[0] == '-' || c[0] == ' ')) {
      c.erase(0, 1);
    }
    if (c.empty() || c.rfind("<!--", 0) == 0 || c.rfind("```", 0) == 0 || c.rfind('|', 0) == 0) {
      continue;
    }
    out = c;
    break;
  }
  size_t dot = out.find(". ");
  if (dot != std::string::npos && dot > 20) out.resize(dot + 1);
  if (out.size() > 160) out = std::string(TruncateUtf8(out, 157)) + "...";
  return out;
}

class PageParser {
 public:
  PageParser(std::string_view api_path, const std::string& origin, Records* out)
      : origin_(origin), out_(out) {
    ParseApiPath(api_path, &path_repo_, &path_number_, &path_tail_);
  }

  Status Parse(const json& doc) {
    if (doc.is_array()) {
      for (size_t i = 0; i < doc.size(); ++i) UMWELT_RETURN_IF_ERROR(One(doc[i], i));
      return Status::Ok();
    }
    return One(doc, 0);
  }

 private:
  std::string Where(size_t index, const json& j) const {
    std::string w = origin_ + ": record " + std::to_string(index);
    if (j.contains("html_url") && j["html_url"].is_string()) w += " (" + j["html_url"].get<std::string>() + ")";
    return w;
  }

  std::string Body(Fields& f, const std::string& where) {
    std::string body = f.Str("body");
    if (body.size() > kMaxBodyBytes) {
      out_->warnings.push_back(where + ": body is " + std::to_string(body.size()) +
                               " bytes; kept the first " + std::to_string(kMaxBodyBytes));
      body = std::string(TruncateUtf8(body, kMaxBodyBytes));
    }
    return body;
  }

  void AddRecord(const Chunk& c, const std::string& repo, const std::string& self_thread) {
    for (auto& l : FindLinks(c.ref, c.text, repo, self_thread)) out_->links.push_back(std::move(l));
    out_->records.push_back(SplitIntoParts(c));
  }

  Status One(const json& j, size_t index) {
    if (!j.is_object()) {
      return Status::Corrupt(origin_ + ": record " + std::to_string(index) + " is " + j.type_name() +
                             ", expected an object");
    }
    std::string where = Where(index, j);
    Fields f(j, where);
    Status s;
    if (f.Has("diff_hunk") || f.Has("pull_request_review_id") ||
        (f.Has("original_position") && f.Has("path"))) {
      s = ReviewComment(j, f, where);
    } else if (f.Has("submitted_at") || (f.Has("pull_request_url") && !f.Has("number") && f.Has("state"))) {
      s = Review(j, f, where);
    } else if (f.Has("issue_url") && j.contains("body") && !f.Has("number") &&
               (!f.Has("event") || f.Str("event") == "commented")) {
      s = Comment(j, f, where);
    } else if (f.Has("number") && f.Has("title")) {
      s = Issue(j, f, where);
    } else if (f.Has("event")) {
      s = Event(j, f, where);
    } else {
      ++out_->skipped;  // labels, users, repositories, reactions, ...
      return Status::Ok();
    }
    if (!s.ok()) return s;
    return f.status();
  }

  Status Issue(const json& j, Fields& f, const std::string& where) {
    Target t;
    std::string html = f.Str("html_url");
    UMWELT_RETURN_IF_ERROR(CheckWebUrl(html, f.Str("url"), where));
    if (!ParseTarget(html, &t)) {
      std::string repo_url = f.Str("repository_url");
      if (!html.empty() || f.Has("due_on") || f.Has("open_issues")) {
        ++out_->skipped;  // a milestone, project or other numbered object
        return Status::Ok();
      }
      if (!ParseTarget(f.Str("url"), &t)) {
        return Status::Corrupt(where + ": cannot tell the repository and number from html_url `" +
                               html + "`" + (repo_url.empty() ? "" : " or " + repo_url));
      }
    }
    t.number = f.Int("number");
    if (t.number <= 0) return Status::Corrupt(where + ": field `number` is missing or not positive");
    bool is_pr = f.Has("pull_request") || f.Has("head") || t.pull;
    std::string ref = ThreadRef(t);

    Thread th;
    th.ref = ref;
    th.source = "github";
    th.kind = is_pr ? "pr" : "issue";
    th.title = SanitizeUtf8(f.Str("title"));
    th.titled_kinds = {"comment", "review", "review-comment"};  // they have no title of their own
    th.author = f.Login("user");
    th.author_association = f.Str("author_association");
    th.url = html.empty() ? "https://github.com/" + t.repo + (is_pr ? "/pull/" : "/issues/") +
                                std::to_string(t.number)
                          : html;
    th.created = NormalizeIsoTime(f.Str("created_at"));
    th.updated = NormalizeIsoTime(f.Str("updated_at"));
    th.closed = NormalizeIsoTime(f.Str("closed_at"));
    th.state = f.Str("state");
    th.state_reason = f.Str("state_reason");
    std::string merged = f.Str("merged_at");
    if (const json* pr = f.Obj("pull_request")) {
      if (pr->contains("merged_at") && (*pr)["merged_at"].is_string()) merged = (*pr)["merged_at"];
    }
    th.merged = NormalizeIsoTime(merged);
    if (!th.merged.empty()) th.state = "merged";
    else if (th.state == "open" && f.Bool("draft")) th.state = "draft";
    if (const json* labels = f.Arr("labels")) {
      for (const auto& l : *labels) {
        if (l.is_object() && l.contains("name") && l["name"].is_string()) th.labels.push_back(l["name"]);
        else if (l.is_string()) th.labels.push_back(l);
      }
    }
    if (const json* as = f.Arr("assignees")) {
      for (const auto& a : *as) {
        if (a.is_object() && a.contains("login") && a["login"].is_string()) th.assignees.push_back(a["login"]);
      }
    } else if (std::string a = f.Login("assignee"); !a.empty()) {
      th.assignees.push_back(a);
    }
    std::string body = Body(f, where);
    th.description = OneLine(body);
    if (path_tail_ == "sub_issues" && path_number_ > 0) {
      out_->sub_issues.emplace_back(path_repo_ + "#" + std::to_string(path_number_), ref);
    }
    std::string parent_url = f.Str("parent_issue_url");
    Target parent;
    if (!parent_url.empty() && ParseTarget(parent_url, &parent)) {
      out_->sub_issues.emplace_back(ThreadRef(parent), ref);
    }
    out_->threads.push_back(th);

    Chunk c;
    c.source = "github";
    c.kind = th.kind;
    c.ref = ref;
    c.parent = ref;
    c.title = th.title;
    c.author = th.author;
    c.date = th.created;
    c.url = th.url;
    c.text = SanitizeUtf8(body);
    // A PR fetched whole says its size, in the words a git landing uses.
    if (is_pr && f.Has("additions") && f.Has("deletions")) {
      int64_t files = f.Int("changed_files"), added = f.Int("additions"), removed = f.Int("deletions");
      c.text += std::string(c.text.empty() ? "" : "\n\n") + "Changed: " + std::to_string(files) + " file(s), +" +
                std::to_string(added) + " \xE2\x88\x92" + std::to_string(removed);
      c.facts = ChangeFacts({files, added, removed});
    }
    c.updated = th.updated;
    AddRecord(c, t.repo, ref);
    return Status::Ok();
  }

  Status Comment(const json& j, Fields& f, const std::string& where) {
    Target t;
    std::string html = f.Str("html_url");
    UMWELT_RETURN_IF_ERROR(CheckWebUrl(html, f.Str("url"), where));
    if (!ParseTarget(html, &t) && !ParseTarget(f.Str("issue_url"), &t)) {
      return Status::Corrupt(where + ": cannot tell which issue the comment belongs to");
    }
    int64_t id = f.Int("id");
    if (id <= 0) return Status::Corrupt(where + ": comment without a positive `id`");
    Chunk c;
    c.source = "github";
    c.kind = "comment";
    c.ref = ThreadRef(t) + "/c" + std::to_string(id);
    c.parent = ThreadRef(t);
    c.author = f.Login("user");
    c.date = NormalizeIsoTime(f.Str("created_at"));
    c.url = html.empty() ? "https://github.com/" + t.repo + "/issues/" + std::to_string(t.number) +
                               "#issuecomment-" + std::to_string(id)
                         : html;
    c.text = SanitizeUtf8(Body(f, where));
    c.updated = NormalizeIsoTime(f.Str("updated_at"));
    AddRecord(c, t.repo, ThreadRef(t));
    return Status::Ok();
  }

  Status Review(const json& j, Fields& f, const std::string& where) {
    Target t;
    std::string html = f.Str("html_url");
    UMWELT_RETURN_IF_ERROR(CheckWebUrl(html, f.Str("url"), where));
    if (!ParseTarget(html, &t) && !ParseTarget(f.Str("pull_request_url"), &t)) {
      return Status::Corrupt(where + ": cannot tell which pull request the review belongs to");
    }
    int64_t id = f.Int("id");
    if (id <= 0) return Status::Corrupt(where + ": review without a positive `id`");
    std::string state = f.Str("state");
    std::string body = SanitizeUtf8(Body(f, where));
    if (body.empty() && state == "COMMENTED") {
      ++out_->skipped;  // the container of inline comments, which arrive on their own
      return Status::Ok();
    }
    Chunk c;
    c.source = "github";
    c.kind = "review";
    c.ref = ThreadRef(t) + "/r" + std::to_string(id);
    c.parent = ThreadRef(t);
    c.author = f.Login("user");
    c.date = NormalizeIsoTime(f.Str("submitted_at"));
    c.url = html;
    c.text = state.empty() ? body : "[" + ToLower(state) + "] " + body;
    c.updated = c.date;
    AddRecord(c, t.repo, ThreadRef(t));
    return Status::Ok();
  }

  Status ReviewComment(const json& j, Fields& f, const std::string& where) {
    Target t;
    std::string html = f.Str("html_url");
    UMWELT_RETURN_IF_ERROR(CheckWebUrl(html, f.Str("url"), where));
    std::string pr_link;  // older API versions only carry _links.pull_request.href
    if (const json* links = f.Obj("_links")) {
      if (links->contains("pull_request") && (*links)["pull_request"].is_object()) {
        pr_link = StrField((*links)["pull_request"], "href");
      }
    }
    if (!ParseTarget(html, &t) && !ParseTarget(f.Str("pull_request_url"), &t) &&
        !ParseTarget(pr_link, &t)) {
      return Status::Corrupt(where + ": cannot tell which pull request the comment belongs to");
    }
    int64_t id = f.Int("id");
    if (id <= 0) return Status::Corrupt(where + ": review comment without a positive `id`");
    if (html.empty()) {
      html = "https://github.com/" + t.repo + "/pull/" + std::to_string(t.number) + "#discussion_r" +
             std::to_string(id);
    }
    Chunk c;
    c.source = "github";
    c.kind = "review-comment";
    c.ref = ThreadRef(t) + "/rc" + std::to_string(id);
    c.parent = ThreadRef(t);
    c.author = f.Login("user");
    c.date = NormalizeIsoTime(f.Str("created_at"));
    c.url = html;
    std::string path = f.Str("path");
    int64_t line = f.Int("line") ? f.Int("line") : f.Int("original_line");
    c.text = SanitizeUtf8(Body(f, where));
    c.updated = NormalizeIsoTime(f.Str("updated_at"));
    if (!path.empty()) {
      c.text = "On " + path + (line > 0 ? ":" + std::to_string(line) : "") + ": " + c.text;
    }
    AddRecord(c, t.repo, ThreadRef(t));
    return Status::Ok();
  }

  Status Event(const json& j, Fields& f, const std::string& where) {
    std::string event = f.Str("event");
    if (event == "cross-referenced" && path_number_ > 0) {
      const json* source = f.Obj("source");
      if (source && source->contains("issue") && (*source)["issue"].is_object()) {
        const json& issue = (*source)["issue"];
        Target from;
        if (issue.contains("html_url") && issue["html_url"].is_string() &&
            ParseTarget(issue["html_url"].get<std::string>(), &from)) {
          out_->links.push_back({ThreadRef(from), path_repo_ + "#" + std::to_string(path_number_),
                                 "cross-reference"});
          return Status::Ok();
        }
      }
    }
    ++out_->skipped;
    return Status::Ok();
  }

  const std::string& origin_;
  Records* out_;
  std::string path_repo_;
  int64_t path_number_ = 0;
  std::string path_tail_;
};

}  // namespace

Status ParseValue(const json& doc, std::string_view api_path, const std::string& origin, Records* out) {
  PageParser parser(api_path, origin, out);
  return parser.Parse(doc);
}

Status ParsePage(std::string_view text, std::string_view api_path, const std::string& origin,
                 Records* out) {
  std::string sanitized;
  if (!IsValidUtf8(text)) {
    out->warnings.push_back(origin + ": invalid UTF-8 replaced with U+FFFD");
    sanitized = SanitizeUtf8(text);
    text = sanitized;
  }
  json doc = ParseJson(text);
  if (doc.is_discarded()) {
    // Re-parse for the position of the fault; the exception stays inside.
    std::string detail = "malformed JSON";
    if (JsonTooDeep(text)) {
      detail = "JSON nested more than " + std::to_string(kMaxJsonDepth) + " deep";
    } else {
      try {
        json unused = json::parse(text);
      } catch (const json::parse_error& e) {
        detail = "malformed JSON at byte " + std::to_string(e.byte);
      } catch (const json::exception& e) {  // a number out of range (1e400), ...
        detail = std::string("malformed JSON: ") + e.what();
      }
    }
    return Status::Corrupt(origin + ": " + detail);
  }
  if (doc.is_object() && doc.contains("message") && !doc.contains("number") && !doc.contains("id")) {
    // An API error document saved as if it were data.
    return Status::Corrupt(origin + ": an API error response, not data: " +
                           (doc["message"].is_string() ? doc["message"].get<std::string>() : "?"));
  }
  return ParseValue(doc, api_path, origin, out);
}

Result<std::vector<std::string_view>> SplitJsonValues(std::string_view text, const std::string& origin) {
  std::vector<std::string_view> out;
  size_t i = 0;
  auto ws = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
  while (true) {
    while (i < text.size() && ws(text[i])) ++i;
    if (i >= text.size()) break;
    size_t start = i;
    char open = text[i];
    if (open != '[' && open != '{') {
      return Status::Corrupt(origin + ": expected a JSON object or array at byte " + std::to_string(i));
    }
    i = JsonValueEnd(text, start);
    if (i == std::string_view::npos) {
      return Status::Corrupt(origin + ": truncated JSON: the value starting at byte " +
                             std::to_string(start) + " never ends");
    }
    out.push_back(text.substr(start, i - start));
  }
  return out;
}

}  // namespace umwelt::github
