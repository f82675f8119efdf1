// `umwelt fetch URL...`: address checks, redirects, and storing sections.
#include <cctype>

#include "umwelt/log.h"
#include "umwelt/text.h"
#include "umwelt/web.h"

namespace umwelt::web {
namespace {

// Whether `s` starts with a url scheme and its colon ("mailto:", "https:").
bool HasScheme(std::string_view s) {
  size_t i = 0;
  if (s.empty() || !std::isalpha(static_cast<unsigned char>(s[0]))) return false;
  while (++i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '+' || s[i] == '.' || s[i] == '-')) {
  }
  return i < s.size() && s[i] == ':';
}

// `location` against the url it came from.
std::string ResolveLocation(const Target& from, const std::string& location) {
  // Absolute when it starts with a scheme; "/p?next=https://x.y/" is a path.
  if (HasScheme(location)) return location;
  std::string origin = from.scheme + "://" + from.host + (from.port.empty() ? "" : ":" + from.port);
  if (location.rfind("//", 0) == 0) return from.scheme + ":" + location;
  if (!location.empty() && location[0] == '/') return origin + location;
  std::string dir = from.path.substr(0, from.path.find('?'));
  dir = dir.substr(0, dir.rfind('/') + 1);
  return origin + (dir.empty() ? "/" : dir) + location;
}

struct Fetched {
  std::string url;  // after redirects
  std::string content_type;
  std::string body;
};

}  // namespace

Result<Target> ParseUrl(std::string_view url) {
  Target t;
  size_t colon = url.find("://");
  if (colon == std::string_view::npos) {
    if (HasScheme(url)) {
      return Status::Invalid("`" + std::string(url) + "`: only http and https urls are fetched");
    }
    return Status::Invalid("`" + std::string(url) + "` is not an absolute url");
  }
  t.scheme = ToLower(url.substr(0, colon));
  if (t.scheme != "http" && t.scheme != "https") {
    return Status::Invalid("`" + std::string(url) + "`: only http and https urls are fetched");
  }
  std::string_view rest = url.substr(colon + 3);
  size_t end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, end);
  t.path = end == std::string_view::npos ? "/" : std::string(rest.substr(end));
  if (size_t hash = t.path.find('#'); hash != std::string::npos) t.path.resize(hash);
  if (t.path.empty() || t.path[0] != '/') t.path = "/" + t.path;
  if (size_t at = authority.rfind('@'); at != std::string_view::npos) authority = authority.substr(at + 1);
  if (!authority.empty() && authority[0] == '[') {  // [v6]:port
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return Status::Invalid("`" + std::string(url) + "`: bad IPv6 address");
    t.host = std::string(authority.substr(1, close - 1));
    if (close + 1 < authority.size() && authority[close + 1] == ':') t.port = std::string(authority.substr(close + 2));
  } else {
    size_t c = authority.rfind(':');
    t.host = std::string(authority.substr(0, c));
    if (c != std::string_view::npos) t.port = std::string(authority.substr(c + 1));
  }
  t.host = ToLower(t.host);
  if (t.host.empty()) return Status::Invalid("`" + std::string(url) + "` has no host");
  if (!t.port.empty() && (t.port.find_first_not_of("0123456789") != std::string::npos || t.port.size() > 5)) {
    return Status::Invalid("`" + std::string(url) + "` has a bad port");
  }
  return t;
}

Result<std::vector<std::string>> CheckedResolve(const std::string& url, bool allow_private) {
  UMWELT_ASSIGN_OR_RETURN(Target t, ParseUrl(url));
  UMWELT_ASSIGN_OR_RETURN(auto addresses, ResolveHost(t.host));
  if (!allow_private) {
    for (const auto& a : addresses) {
      if (IsPrivateAddress(a)) {
        return Status::Invalid(t.host + " resolves to " + a +
                               ", a private, loopback or link-local address; refused (--allow-private fetches it)");
      }
    }
  }
  std::string port = t.port.empty() ? (t.scheme == "https" ? "443" : "80") : t.port;
  const std::string& pin = addresses.front();
  if (t.host.find(':') != std::string::npos) return std::vector<std::string>{};  // names, not IPv6 literals, are pinned
  return std::vector<std::string>{t.host + ":" + port + ":" + (pin.find(':') != std::string::npos ? "[" + pin + "]" : pin)};
}

namespace {

Result<Fetched> Download(HttpClient& http, const std::string& start, const FetchOptions& o) {
  std::string url = start;
  for (int hop = 0;; ++hop) {
    UMWELT_ASSIGN_OR_RETURN(Target t, ParseUrl(url));
    UMWELT_ASSIGN_OR_RETURN(std::vector<std::string> pins, CheckedResolve(url, o.allow_private));
    HttpRequest req;
    req.url = url;
    req.timeout_seconds = o.timeout_seconds;
    req.max_body_bytes = o.max_bytes;
    req.headers = {{"User-Agent", "umwelt/0.1 (+https://github.com/umwelt)"},
                   {"Accept", "text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,*/*;q=0.1"}};
    req.resolve = pins;
    UMWELT_ASSIGN_OR_RETURN(HttpResponse resp, http.Send(req));
    if (resp.status == 301 || resp.status == 302 || resp.status == 303 || resp.status == 307 || resp.status == 308) {
      std::string location = resp.Header("location");
      if (location.empty()) return Status::Unavailable("HTTP " + std::to_string(resp.status) + " without a Location");
      if (hop >= o.max_redirects) {
        return Status::Unavailable("more than " + std::to_string(o.max_redirects) + " redirects");
      }
      url = ResolveLocation(t, location);
      continue;
    }
    if (resp.status != 200) return Status::Unavailable("HTTP " + std::to_string(resp.status));
    return Fetched{url, ToLower(resp.Header("content-type")), std::move(resp.body)};
  }
}

Status Store(Corpus& corpus, const std::string& url, const Fetched& f, const Document& doc, const FetchOptions& o,
             int64_t* sections) {
  std::string thread_ref = ThreadRefForUrl(url);
  if (thread_ref.rfind("web:", 0) != 0) thread_ref = "web:" + url.substr(0, url.find('#'));
  std::string now = FormatIsoTime(NowEpoch());
  std::string title = doc.title.empty() ? url : doc.title;
  UMWELT_ASSIGN_OR_RETURN(auto batch, corpus.BeginWrite());
  UMWELT_ASSIGN_OR_RETURN(auto old, corpus.RecordRefs(thread_ref, "page"));
  for (const auto& ref : old) UMWELT_RETURN_IF_ERROR(batch->DeleteRecord(ref));
  Thread t;
  t.ref = thread_ref;
  t.source = "web";
  t.kind = "page";
  t.title = title;
  t.url = url;
  t.updated = now;
  bool pdf = !doc.sections.empty() && doc.sections[0].page > 0;
  t.description = std::string(pdf ? "PDF, " : "") + std::to_string(doc.sections.size()) +
                  (pdf ? " page(s)" : " section(s)") + ", fetched " + now.substr(0, 10) +
                  (f.url != url ? " via " + f.url : "");
  UMWELT_RETURN_IF_ERROR(batch->PutThread(t));
  for (size_t i = 0; i < doc.sections.size(); ++i) {
    const Section& s = doc.sections[i];
    Chunk c;
    c.source = "web";
    c.kind = "page";
    c.ref = thread_ref + "#s" + std::to_string(i + 1);
    c.parent = thread_ref;
    c.title = s.heading.empty() || s.heading == title ? title : title + " — " + s.heading;
    c.date = now;
    c.url = s.page > 0 ? url + "#page=" + std::to_string(s.page) : url;
    c.text = s.text;
    UMWELT_RETURN_IF_ERROR(batch->PutRecord(SplitIntoParts(c)).status());
    std::string linked = s.text;
    for (const auto& h : s.hrefs) linked += "\n" + h;
    UMWELT_RETURN_IF_ERROR(batch->PutLinks(c.ref, FindLinks(c.ref, linked, o.repo, thread_ref)));
    ++*sections;
  }
  return batch->Commit();
}

}  // namespace

Status Fetch(Corpus& corpus, HttpClient& http, const std::vector<std::string>& urls, const FetchOptions& o,
             FetchReport* report) {
  for (const auto& url : urls) {
    auto fetched = Download(http, url, o);
    if (!fetched.ok()) {
      report->failed.push_back(url + ": " + fetched.status().message());
      continue;
    }
    bool pdf = fetched->content_type.find("pdf") != std::string::npos || fetched->body.rfind("%PDF-", 0) == 0;
    Document doc;
    if (pdf) {
      auto d = ParsePdf(fetched->body);
      if (!d.ok()) {
        report->failed.push_back(url + ": " + d.status().message());
        continue;
      }
      doc = std::move(d).value();
    } else if (fetched->content_type.find("text/plain") != std::string::npos ||
               fetched->content_type.find("markdown") != std::string::npos) {
      doc.sections.push_back({"", SanitizeUtf8(fetched->body), 0});
    } else {
      doc = ParseHtml(fetched->body);
    }
    if (doc.sections.empty()) {
      report->failed.push_back(url + ": no readable text on the page");
      continue;
    }
    int64_t sections = 0;
    Status s = Store(corpus, url, *fetched, doc, o, &sections);
    if (!s.ok()) return s;
    report->pages++;
    report->sections += sections;
  }
  if (!report->failed.empty()) {
    std::string m = std::to_string(report->failed.size()) + " of " + std::to_string(urls.size()) +
                    " url(s) not fetched: " + report->failed[0];
    for (size_t i = 1; i < report->failed.size(); ++i) m += "; " + report->failed[i];
    return Status::Unavailable(m);
  }
  return Status::Ok();
}

}  // namespace umwelt::web
