// umwelt/http.h — a minimal HTTP client contract shared by every source that
// talks to a remote API, with a libcurl implementation.
//
// A transport failure (refused, dropped connection, timeout) is a non-ok
// Status; any HTTP status, including 4xx and 5xx, is a Response for the caller
// to judge. Retry policy belongs to the caller, who knows the API's rules.
//
// An HttpClient is not safe for concurrent use; create one per thread.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "umwelt/status.h"

namespace umwelt {

struct HttpRequest {
  std::string method = "GET";
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  long timeout_seconds = 60;
  size_t max_body_bytes = 256u << 20;  // a larger response is an error
  // "host:port:address" entries that pin a name to an address already
  // checked (curl's CURLOPT_RESOLVE): no second lookup can differ.
  std::vector<std::string> resolve;
  // When set, the body of a 2xx response is handed over in pieces as it
  // arrives instead of kept in the response (false aborts the transfer).
  std::function<bool(std::string_view)> on_body;
  // A transfer slower than min_bytes_per_second (1: moving no byte at all)
  // for stall_seconds fails (0: only the timeout).
  long stall_seconds = 0;
  long min_bytes_per_second = 1;
};

struct HttpResponse {
  long status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased; last value wins
  std::string body;

  // The header's value, or "" when absent. `name` must be lower-case.
  std::string Header(const std::string& name) const;
};

class HttpClient {
 public:
  virtual ~HttpClient() = default;
  virtual Result<HttpResponse> Send(const HttpRequest& request) = 0;
};

// A libcurl client. Keeps its connection alive between calls.
std::unique_ptr<HttpClient> NewCurlHttpClient();

// How a caller retries one request: how often, how long it waits, which
// answers it retries. Per-provider rules are data here, not loops.
struct RetryPolicy {
  int max_retries = 4;             // retries after the first try
  double backoff_seconds = 1.0;    // the first wait, doubled after each retry
  double max_wait_seconds = 120;   // no wait is longer, Retry-After included
  // Whether an answer is retried; default: 429, 529 and 5xx.
  std::function<bool(const HttpResponse&)> retry_on;
  // Whether a transport failure (refused, dropped, timed out) is: yes, but
  // not for a POST that may have arrived (a webhook would post twice).
  bool retry_transport = true;
  // The wait the answer asks for in the provider's own way (Discord's body
  // `retry_after`), or a negative number for none; before Retry-After.
  std::function<double(const HttpResponse&)> wait_of;
  std::function<void(double seconds)> sleep;  // default: this thread sleeps; tests record
  // Before each retry: the answer (or failure) being retried and the wait.
  std::function<void(const Result<HttpResponse>& last, double wait)> on_retry;
};
// The wait a 429 answer's JSON body asks for (Discord's and its webhooks'
// `retry_after`, seconds), or -1: a RetryPolicy's `wait_of`.
double RetryAfterInBody(const HttpResponse& response);

// Sends `request` until the answer is not one to retry or the retries run
// out, waiting between tries for the answer's Retry-After (seconds) when it
// gives one, else the backoff. Returns the last try's result; *attempts (when
// given) is the number of tries.
Result<HttpResponse> SendWithRetry(HttpClient& http, const HttpRequest& request, const RetryPolicy& policy,
                                   int* attempts = nullptr);

// One `<url>; rel="name"` entry of an RFC 8288 Link header.
struct LinkRelation {
  std::string url;
  std::string rel;
};
// Parses a Link header; malformed entries are skipped, never fatal.
std::vector<LinkRelation> ParseLinkHeader(std::string_view header);
// The url of the entry with `rel`, or "".
std::string FindLinkRel(std::string_view header, std::string_view rel);

// Standard base64 with padding (HTTP Basic credentials).
std::string Base64(std::string_view s);

// Percent-encodes `s` for use in a query string.
std::string UrlEncode(std::string_view s);

// Replaces every occurrence of the secrets in `s` with "***": anything logged
// passes through this first.
std::string Redact(std::string s, const std::vector<std::string>& secrets);

}  // namespace umwelt
