#include "auth.h"

#include <sys/stat.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "umwelt/json_read.h"
#include "umwelt/file.h"
#include "umwelt/log.h"
#include "umwelt/text.h"

namespace umwelt::server_internal {

using json = nlohmann::json;

namespace {

// What tells one version of the file from another: its time (which the
// kernel keeps to a tick, so two writes in one tick share it), and its
// inode and size (a file renamed into place is a new inode).
std::string Version(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "";
  return std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) + ":" + std::to_string(st.st_ino) +
         ":" + std::to_string(st.st_size);
}

bool IsHex64(const std::string& s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

}  // namespace

Result<Auth::Config> Auth::Parse(const std::string& path) {
  UMWELT_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
  return ParseConfig(text, path);
}

Result<Auth::Config> Auth::ParseConfig(std::string_view text, const std::string& path) {
  json j = ParseJson(text);
  if (!j.is_object()) return Status::Invalid(path + ": the auth file is not a JSON object");
  Config c;
  auto str = [&](const char* key, std::string* out) -> Status {
    if (!j.contains(key)) return Status::Ok();
    if (!j[key].is_string()) return Status::Invalid(path + ": \"" + key + "\" must be a string");
    *out = j[key].get<std::string>();
    return Status::Ok();
  };
  auto list = [&](const char* key, std::vector<std::string>* out) -> Status {
    if (!j.contains(key)) return Status::Ok();
    if (!j[key].is_array()) return Status::Invalid(path + ": \"" + key + "\" must be a list of strings");
    for (const auto& v : j[key]) {
      if (!v.is_string()) return Status::Invalid(path + ": \"" + key + "\" must be a list of strings");
      out->push_back(v.get<std::string>());
    }
    return Status::Ok();
  };
  UMWELT_RETURN_IF_ERROR(str("github_api", &c.github_api));
  UMWELT_RETURN_IF_ERROR(str("org", &c.org));
  UMWELT_RETURN_IF_ERROR(str("help", &c.help));
  UMWELT_RETURN_IF_ERROR(list("allow", &c.allow));
  UMWELT_RETURN_IF_ERROR(list("revoked", &c.revoked));
  if (j.contains("cache_seconds")) {
    int64_t seconds = IntField(j, "cache_seconds", -1);
    if (!j["cache_seconds"].is_number_integer() || seconds < 0 || seconds > 86400 * 365) {
      return Status::Invalid(path + ": \"cache_seconds\" must be a whole number of seconds (at most a year)");
    }
    c.cache_seconds = static_cast<int>(seconds);
  }
  if (j.contains("tokens")) {
    if (!j["tokens"].is_array()) return Status::Invalid(path + ": \"tokens\" must be a list");
    for (const auto& t : j["tokens"]) {
      if (!t.is_object() || !t.contains("sha256") || !t["sha256"].is_string() || !IsHex64(t["sha256"].get<std::string>())) {
        return Status::Invalid(path + ": each token needs \"sha256\", 64 lower-case hex digits (sha256sum of the token)");
      }
      Config::Static s;
      s.sha256 = t["sha256"].get<std::string>();
      if ((t.contains("login") && !t["login"].is_string()) || (t.contains("expires") && !t["expires"].is_string())) {
        return Status::Invalid(path + ": a token's \"login\" and \"expires\" must be strings");
      }
      s.login = StrField(t, "login", "token");
      s.expires = StrField(t, "expires");
      if (!s.expires.empty() && !ParseIsoTime(s.expires)) {
        return Status::Invalid(path + ": token expiry \"" + s.expires + "\" is not an ISO time");
      }
      c.tokens.push_back(std::move(s));
    }
  }
  for (const auto& r : c.revoked) {
    if (!IsHex64(r)) return Status::Invalid(path + ": \"revoked\" holds SHA-256 hex digests of tokens, not tokens");
  }
  if (c.github_api.rfind("https://", 0) != 0 && c.github_api.rfind("http://", 0) != 0) {
    return Status::Invalid(path + ": \"github_api\" must be an http(s) url");
  }
  while (!c.github_api.empty() && c.github_api.back() == '/') c.github_api.pop_back();
  // A file that grants no one is valid: everyone is refused (the way to
  // revoke the last token).
  if (c.help.empty()) {
    c.help = !c.org.empty()      ? "access is for members of the GitHub organization " + c.org
             : !c.allow.empty()  ? "ask the operator to add your GitHub login to the allowlist"
             : !c.tokens.empty() ? "ask the operator for a token"
                                 : "this server grants no one access at present";
  }
  return c;
}

Result<std::unique_ptr<Auth>> Auth::Load(const std::string& path) {
  auto a = std::unique_ptr<Auth>(new Auth());
  a->path_ = path;
  UMWELT_ASSIGN_OR_RETURN(auto config, Parse(path));
  {
    MutexLock lock(a->mu_);  // not shared yet; the analysis sees the rule kept
    a->config_ = std::move(config);
    a->version_ = Version(path);
  }
  return a;
}

std::vector<std::string> Auth::RevokedIn(std::string_view text) {
  std::vector<std::string> out;
  json j = ParseJson(text);
  if (!j.is_object() || !j.contains("revoked") || !j["revoked"].is_array()) return out;
  for (const auto& v : j["revoked"]) {
    if (v.is_string() && IsHex64(v.get<std::string>())) out.push_back(v.get<std::string>());
  }
  return out;
}

void Auth::ReloadIfChanged() {
  std::string v = Version(path_);
  if (v == version_) return;
  version_ = v;
  auto text = ReadWholeFile(path_);
  auto c = text.ok() ? ParseConfig(*text, path_) : Result<Config>(text.status());
  if (c.ok()) {
    config_ = std::move(*c);
    reload_error_.clear();
    cache_.clear();
    return;
  }
  // Keep the last good file, but revocation always wins: what the newest
  // readable file revokes is revoked now, whatever else is wrong with it.
  reload_error_ = c.status().message();
  std::string line = "auth: " + reload_error_ + "; still using the last good auth file" +
                     (text.ok() ? ", with the tokens this one revokes revoked" : "");
  if (log_) log_(line);
  else LogWarn(line);
  if (!text.ok()) return;
  for (auto& sha : RevokedIn(*text)) {
    if (std::find(config_.revoked.begin(), config_.revoked.end(), sha) == config_.revoked.end()) {
      config_.revoked.push_back(std::move(sha));
    }
  }
  cache_.clear();
}

std::string Auth::ReloadError() {
  MutexLock lock(mu_);
  ReloadIfChanged();
  return reload_error_;
}

AuthVerdict Auth::Deny(int status, const std::string& why, const std::string& help) {
  return {status, "", why + "; " + help +
                          ". Send a GitHub token (or a token the operator issued) as \"Authorization: Bearer <token>\"."};
}

AuthVerdict Auth::CheckHeader(const std::string& header, const std::string& client) {
  if (header.empty()) {
    MutexLock lock(mu_);
    ReloadIfChanged();
    return Deny(401, "no credentials", config_.help);
  }
  std::string h = CollapseWhitespace(header);
  if (h.size() < 8 || ToLower(h.substr(0, 7)) != "bearer ") {
    MutexLock lock(mu_);
    return Deny(401, "the Authorization header is not a bearer token", config_.help);
  }
  std::string token = h.substr(7);
  if (token.empty() || token.size() > 512 || token.find(' ') != std::string::npos) {
    MutexLock lock(mu_);
    return Deny(401, "the bearer token is malformed", config_.help);
  }
  return CheckToken(token, client);
}

AuthVerdict Auth::CheckToken(const std::string& token, const std::string& client) {
  std::string sha = Sha256Hex(token);
  MutexLock lock(mu_);
  ReloadIfChanged();
  if (std::find(config_.revoked.begin(), config_.revoked.end(), sha) != config_.revoked.end()) {
    return Deny(401, "this token was revoked", config_.help);
  }
  for (const auto& s : config_.tokens) {
    if (s.sha256 != sha) continue;
    if (!s.expires.empty() && *ParseIsoTime(s.expires) <= NowEpoch()) return Deny(401, "this token expired on " + s.expires, config_.help);
    return {200, s.login, ""};
  }
  auto now = std::chrono::steady_clock::now();
  if (auto it = cache_.find(sha); it != cache_.end() && it->second.until > now) return it->second.verdict;
  // Every unknown token counts against its address, whether GitHub is asked
  // or not: static tokens cannot be guessed at the speed of the server.
  if (!client.empty()) {
    if (per_client_.size() >= 10000) std::erase_if(per_client_, [&](const auto& e) { return now - e.second.start > std::chrono::minutes(1); });
    Window& w = per_client_[client];
    if (now - w.start > std::chrono::minutes(1)) w = {now, 0};
    if (++w.checks > kChecksPerMinute) {
      AuthVerdict v = Deny(429, "too many unknown tokens from this address", config_.help);
      v.retry_after = 60;
      return v;
    }
  }
  // With neither an org nor an allowlist no GitHub token can pass: GitHub
  // is not asked (an unknown token costs nothing outbound).
  if (config_.org.empty() && config_.allow.empty()) return Deny(401, "this is not a token the operator issued", config_.help);
  if (checks_running_ >= kChecksAtOnce) {
    AuthVerdict v = Deny(503, "too many token checks at once", config_.help);
    v.retry_after = 2;
    return v;
  }
  ++checks_running_;
  Config c = config_;
  lock.unlock();

  // Ask GitHub who this is (outside the lock: a slow API holds no one else up).
  bool cacheable = true;
  AuthVerdict v = AskGithub(token, c, &cacheable);
  lock.lock();
  --checks_running_;
  // Random tokens must not grow the cache without bound.
  if (cache_.size() >= 10000) std::erase_if(cache_, [&](const auto& e) { return e.second.until <= now; });
  if (cache_.size() >= 10000) cache_.clear();
  // A verdict GitHub could not give is kept briefly: a flood of retries
  // must not become a flood of slow calls.
  cache_[sha] = {v, now + std::chrono::seconds(cacheable ? c.cache_seconds : kFailureCacheSeconds)};
  if (!cacheable) cache_[sha].verdict.retry_after = kFailureCacheSeconds;
  return cache_[sha].verdict;
}

AuthVerdict Auth::AskGithub(const std::string& token, const Config& c, bool* cacheable) {
  AuthVerdict v;
  auto http = NewCurlHttpClient();
  HttpRequest req;
  req.url = c.github_api + "/user";
  req.headers = {{"Authorization", "Bearer " + token}, {"Accept", "application/vnd.github+json"},
                 {"User-Agent", "umwelt-serve"}};
  req.timeout_seconds = 10;
  auto r = http->Send(req);
  if (!r.ok()) {
    *cacheable = false;
    return Deny(503, "GitHub could not be asked about the token (" + Redact(r.status().message(), {token}) + ")", c.help);
  }
  if (r->status == 401) return Deny(401, "GitHub does not accept this token (expired or revoked?)", c.help);
  if (r->status != 200) {
    *cacheable = false;
    return Deny(503, "GitHub answered HTTP " + std::to_string(r->status) + " about the token", c.help);
  }
  json u = ParseJson(r->body);
  std::string login = u.is_object() && u.contains("login") && u["login"].is_string() ? u["login"].get<std::string>() : "";
  if (login.empty()) {
    *cacheable = false;
    return Deny(503, "GitHub's /user answer names no login", c.help);
  }
  if (std::any_of(c.allow.begin(), c.allow.end(), [&](const std::string& a) { return ToLower(a) == ToLower(login); })) {
    return {200, login, ""};
  }
  if (c.org.empty()) return Deny(403, login + " is not on the allowlist", c.help);
  req.url = c.github_api + "/orgs/" + UrlEncode(c.org) + "/members/" + UrlEncode(login);
  auto m = http->Send(req);
  if (m.ok() && m->status == 204) return {200, login, ""};
  if (m.ok() && (m->status == 404 || m->status == 302)) return Deny(403, login + " is not a member of " + c.org, c.help);
  *cacheable = false;
  return Deny(503, "GitHub could not confirm " + login + "'s membership of " + c.org, c.help);
}

}  // namespace umwelt::server_internal
