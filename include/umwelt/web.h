// umwelt/web.h — the web source: pages and PDFs fetched by url, as text.
//
// One chunk per section (an HTML heading's section, a PDF page): source web,
// kind page, ref "web:<url>#s<i>", parent "web:<url>" (the page's thread, with
// its title and fetch time). HTML sections share the page's url; a PDF page's
// url is "<url>#page=N".
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "umwelt/address.h"
#include "umwelt/corpus.h"
#include "umwelt/http.h"

namespace umwelt::web {

struct FetchOptions {
  bool allow_private = false;   // loopback, private and link-local addresses (tests)
  int max_redirects = 5;
  size_t max_bytes = 50u << 20;
  long timeout_seconds = 60;
  std::string repo;             // what a bare #123 on the page refers to ("" = none)
};

struct FetchReport {
  int pages = 0;                    // urls stored
  int64_t sections = 0;
  std::vector<std::string> failed;  // "url: why"
};

// Fetches each url (following at most max_redirects redirects, each hop's
// address checked), turns it into sections and replaces what the corpus held
// for it. A url that fails is reported and the others go on; the result is
// an error naming the failures.
Status Fetch(Corpus& corpus, HttpClient& http, const std::vector<std::string>& urls, const FetchOptions& options,
             FetchReport* report);

// --- the parts, exposed for tests and the fuzzer ---

struct Section {
  std::string heading;
  std::string text;
  int page = 0;  // PDFs: 1-based
  std::vector<std::string> hrefs;  // absolute http(s) links in the section
};
struct Document {
  std::string title;
  std::vector<Section> sections;
};
// Readable text of an HTML page: scripts, styles, navigation, headers,
// footers, forms and asides dropped; <main> or <article> preferred when the
// page has one; a section per h1-h3.
Document ParseHtml(std::string_view html);
// The text of each page of a PDF. Encrypted, damaged or textless PDFs fail.
Result<Document> ParsePdf(std::string_view data);

struct Target {
  std::string scheme, host, port, path;  // path includes the query
};
Result<Target> ParseUrl(std::string_view url);
using umwelt::IsPrivateAddress;  // umwelt/address.h
// Resolves `url`'s host, refuses a private address unless `allow_private`,
// and returns the CURLOPT_RESOLVE entries that pin the name to the address
// checked (none for an IPv6 literal).
Result<std::vector<std::string>> CheckedResolve(const std::string& url, bool allow_private);

}  // namespace umwelt::web
