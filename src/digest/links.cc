// What a digest may link: public pages without credentials, and never a
// link that only credits a tool or is boilerplate.
#include <cstring>

#include "digest_internal.h"
#include "umwelt/pattern.h"
#include "umwelt/text.h"

namespace umwelt::digest_internal {

// A link fit to publish: http(s) on a public host — not localhost, a
// single-label or .local/.internal name, nor a private, loopback or
// link-local address — with any user:password and credential-bearing query
// parameters (token, key, sig, X-Amz-*, …) removed; "" when it is not fit,
// or when it is a review tool's mirror of the project's own PR (the PR
// itself is in the digest).
std::string ShareableUrl(const std::string& url, const std::string& project) {
  static const Pattern parts(R"(^(https?)://(?:[^/@?#]*@)?(\[[^\]]+\]|[^/:?#]+)(:\d+)?([^?#]*)(?:\?([^#]*))?(#.*)?$)",
                                Pattern::kIgnoreCase);
  umwelt::Groups m;
  if (!parts.Matches(url, &m)) return "";
  std::string host = ToLower(std::string(m[2]));
  if (host.front() == '[') return "";  // an IPv6 literal: never a page to share
  static const Pattern v4(R"((\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3}))");
  umwelt::Groups ip;
  if (v4.Matches(host, &ip)) {
    int a = std::stoi(std::string(ip[1])), b = std::stoi(std::string(ip[2]));
    if (a == 10 || a == 127 || a == 0 || (a == 169 && b == 254) || (a == 172 && b >= 16 && b <= 31) ||
        (a == 192 && b == 168) || (a == 100 && b >= 64 && b <= 127)) {
      return "";
    }
  } else {
    if (host.find('.') == std::string::npos) return "";  // localhost, intranet
    for (const char* suffix : {".local", ".internal", ".localhost", ".lan", ".home", ".corp"}) {
      size_t n = std::strlen(suffix);
      if (host.size() > n && host.compare(host.size() - n, n, suffix) == 0) return "";
    }
  }
  std::string path = std::string(m[4]);
  if (!project.empty() && host != "github.com") {
    static const Pattern pr_number(R"(/(\d{1,9})/?$)");
    if (path.find("/" + project + "/") != std::string::npos && pr_number.Search(path)) return "";
  }
  std::string query;
  std::string q = std::string(m[5]);
  static const Pattern secret(
      R"(^(access_?token|token|auth|authorization|key|api_?key|apikey|secret|password|passwd|sig|signature|code|session|x-amz-.*|x-goog-.*|awsaccesskeyid|se|sp|sv|sr|skoid|sktid)$)",
      Pattern::kIgnoreCase);
  for (size_t i = 0; i <= q.size() && !q.empty();) {
    size_t amp = q.find('&', i);
    std::string pair = q.substr(i, amp == std::string::npos ? std::string::npos : amp - i);
    std::string name = pair.substr(0, pair.find('='));
    if (!pair.empty() && !secret.Matches(name)) query += (query.empty() ? "" : "&") + pair;
    if (amp == std::string::npos) break;
    i = amp + 1;
  }
  return ToLower(std::string(m[1])) + "://" + host + std::string(m[3]) + path + (query.empty() ? "" : "?" + query) + std::string(m[6]);
}

bool Attribution(std::string_view line) {
  static const Pattern said(
      R"((generated|created|made|written|authored|assisted|powered|built|produced|drafted)\s+(with|by|using|in)\b|co-authored-by|signed-off-by|\bvia\s+\[?(claude|cursor|copilot|codex|devin|aider)|🤖)", Pattern::kIgnoreCase);
  return said.Search(line);
}

bool BoilerplateLink(std::string_view url) {
  static const Pattern boiler(
      R"(^https?://([^/]*\.)?(shields\.io|badge\.fury\.io|badgen\.net|codecov\.io|coveralls\.io|travis-ci\.(org|com)|circleci\.com|readthedocs\.org/projects/[^/]+/badge|contributor-covenant\.org|choosealicense\.com|opensource\.org/licenses?|creativecommons\.org/licenses)|/(license|licence|licenses|copying|contributing|code_of_conduct)(\.(md|txt|rst))?(#.*)?$|/badge\.svg|/badges?/|\.svg(\?.*)?$)", Pattern::kIgnoreCase);
  return boiler.Search(url);
}

}  // namespace umwelt::digest_internal
