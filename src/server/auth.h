// Internal to server/: who may read the corpus.
//
// The auth file (JSON):
//   {"github_api": "https://api.github.com",  // the API that vouches for tokens
//    "org": "acme",                            // members of this org get in
//    "allow": ["login", ...],                  // and these logins
//    "cache_seconds": 600,                     // how long a verdict is kept
//    "tokens": [{"sha256": "<hex>", "login": "ci", "expires": "2027-01-01T00:00:00Z"}],
//    "revoked": ["<sha256 of a token>", ...],
//    "help": "how to get access"}              // said in every 401 / 403
// A bearer token is a static token of the file (by its SHA-256; it may
// expire) or a GitHub token, checked against GET /user and, for a login not in
// `allow`, GET /orgs/{org}/members/{login}. The file is re-read when it
// changes, so revoking takes effect without a restart; a file that grants
// no one is valid (everyone is refused). A changed file that cannot be read
// or parsed keeps the last good settings, is logged and shown in status
// (ReloadError), and its "revoked" list still applies. Tokens are never
// logged or stored: the cache is keyed by their SHA-256.
//
// Asking GitHub costs a request that may be slow, so unknown tokens are
// bounded three ways: a verdict GitHub could not give (an error, a timeout)
// is kept for a few seconds too; each client address may have
// kChecksPerMinute unknown tokens checked a minute, static or not (429
// beyond); and at most
// kChecksAtOnce checks run at once (503 beyond), so token checks never
// occupy every connection.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "umwelt/thread_annotations.h"
#include "umwelt/http.h"
#include "umwelt/status.h"

namespace umwelt::server_internal {

struct AuthVerdict {
  int status = 200;        // 200, 401, 403; 429 or 503 (try again after retry_after)
  std::string login;
  std::string detail;      // why not, and how to get access
  int retry_after = 0;     // seconds, with 429 and 503
};

class Auth {
 public:
  // Fails naming the file and what is wrong with it.
  static Result<std::unique_ptr<Auth>> Load(const std::string& path);
  static constexpr int kChecksPerMinute = 30;
  static constexpr int kChecksAtOnce = 8;
  static constexpr int kFailureCacheSeconds = 10;

  // `header` is the Authorization header's value ("" when absent); `client`
  // the caller's address, for the per-client limit ("" for none).
  AuthVerdict CheckHeader(const std::string& header, const std::string& client = "");
  AuthVerdict CheckToken(const std::string& token, const std::string& client = "");

  // The auth file's settings.
  struct Config {
    std::string github_api = "https://api.github.com";
    std::string org;
    std::vector<std::string> allow;
    int cache_seconds = 600;
    struct Static {
      std::string sha256, login, expires;
    };
    std::vector<Static> tokens;
    std::vector<std::string> revoked;
    std::string help;
  };
  // The settings in `text` (the auth file's JSON), or an error naming `where`
  // and what is wrong.
  static Result<Config> ParseConfig(std::string_view text, const std::string& where);
  // Where a reload that failed is reported (the server's log; else LogWarn).
  // Set before the Auth is shared.
  void set_log(std::function<void(const std::string&)> log) { log_ = std::move(log); }
  // Why the auth file's newest version was not taken ("" when it was).
  std::string ReloadError() EXCLUDES(mu_);

 private:
  static Result<Config> Parse(const std::string& path);
  void ReloadIfChanged() REQUIRES(mu_);
  static std::vector<std::string> RevokedIn(std::string_view text);
  static AuthVerdict Deny(int status, const std::string& why, const std::string& help);

  std::string path_;
  std::function<void(const std::string&)> log_;
  Mutex mu_;
  Config config_ GUARDED_BY(mu_);
  std::string version_ GUARDED_BY(mu_);  // of the file last read
  std::string reload_error_ GUARDED_BY(mu_);
  struct Cached {
    AuthVerdict verdict;
    std::chrono::steady_clock::time_point until;
  };
  std::map<std::string, Cached> cache_ GUARDED_BY(mu_);  // sha256(token) -> verdict
  struct Window {
    std::chrono::steady_clock::time_point start;
    int checks = 0;
  };
  std::map<std::string, Window> per_client_ GUARDED_BY(mu_);
  int checks_running_ GUARDED_BY(mu_) = 0;
  AuthVerdict AskGithub(const std::string& token, const Config& c, bool* cacheable);
};

}  // namespace umwelt::server_internal
