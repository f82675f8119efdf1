// Internal to server/: the two kinds of session a server keeps, each a class
// with its own lock and bounds (ServerImpl wires them to routes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>

#include "umwelt/mcp.h"
#include "umwelt/thread_annotations.h"

namespace umwelt::server_internal {

// Browser sign-ins: a random id (the cookie) per sign-in, holding the login
// and the token it came from, in memory only. A session lives `lifetime`
// seconds at most, and no longer than its token (the server checks the token
// again on every request). Capped: a login keeps its newest
// `max_per_login`, and all logins together the newest `max_total`, the oldest
// sign-in dropped first. Thread-safe.
class SignIns {
 public:
  SignIns(size_t max_total, size_t max_per_login, int64_t lifetime);
  SignIns(const SignIns&) = delete;
  SignIns& operator=(const SignIns&) = delete;

  // A new session for `login`, signed in with `token` at `now` (epoch
  // seconds); its id. Expired sessions are dropped first.
  std::string Add(const std::string& login, const std::string& token, int64_t now) EXCLUDES(mu_);
  // The token session `id` was signed in with; "" when there is no such
  // session or it expired.
  std::string TokenOf(const std::string& id, int64_t now) EXCLUDES(mu_);
  void Remove(const std::string& id) EXCLUDES(mu_);
  size_t size() EXCLUDES(mu_);

 private:
  struct Entry {
    std::string login, token;
    int64_t expires = 0;
    uint64_t seq = 0;  // the order of sign-in
  };
  // Drops the oldest sessions of `login` (of everyone for "") until at most
  // `keep` are left.
  void DropOldest(const std::string& login, size_t keep) REQUIRES(mu_);

  const size_t max_total_, max_per_login_;
  const int64_t lifetime_;
  Mutex mu_;
  uint64_t next_seq_ GUARDED_BY(mu_) = 0;
  std::map<std::string, Entry> entries_ GUARDED_BY(mu_);
};

// MCP over HTTP: one protocol session per Mcp-Session-Id, owned by the login
// that initialized it (no one else may use or end it). At most `max` sessions;
// a login past its `share` drops its own oldest (a flood of initialize calls
// evicts the flooder's sessions, not everyone's), then the oldest of all go
// (their clients initialize again on the 404). Thread-safe.
class McpSessions {
 public:
  McpSessions(size_t max, size_t share);
  McpSessions(const McpSessions&) = delete;
  McpSessions& operator=(const McpSessions&) = delete;

  // Keeps `session` for `owner`; its new id.
  std::string Add(std::shared_ptr<mcp::Session> session, const std::string& owner) EXCLUDES(mu_);
  // Session `id` if `owner` made it, else null.
  std::shared_ptr<mcp::Session> Find(const std::string& id, const std::string& owner) EXCLUDES(mu_);
  // Ends session `id` if `owner` made it; whether it did.
  bool Remove(const std::string& id, const std::string& owner) EXCLUDES(mu_);
  size_t size() EXCLUDES(mu_);

 private:
  struct Entry {
    std::shared_ptr<mcp::Session> session;
    std::string owner;
  };
  const size_t max_, share_;
  Mutex mu_;
  std::map<std::string, Entry> entries_ GUARDED_BY(mu_);
  std::deque<std::string> order_ GUARDED_BY(mu_);  // oldest first
};

}  // namespace umwelt::server_internal
