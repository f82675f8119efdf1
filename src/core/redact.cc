#include "umwelt/redact.h"

#include <cctype>
#include <cstdlib>
#include <mutex>
#include <regex>
#include <vector>

namespace umwelt {

namespace {

std::mutex mu;
std::vector<std::string>& Registered() {
  static std::vector<std::string> secrets;
  return secrets;
}

// Runs of non-space characters longer than this are not words anyone reads:
// they are replaced whole before the patterns run, which also bounds the
// depth std::regex recurses to (it recurses once per repeated character,
// and a 100 KB token would overflow the stack).
constexpr size_t kLongestRun = 1024;

std::string WithoutLongRuns(std::string s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    size_t end = i;
    while (end < s.size() && !std::isspace(static_cast<unsigned char>(s[end]))) ++end;
    if (end - i > kLongestRun) {
      out += "***";
    } else {
      out.append(s, i, end - i);
    }
    size_t next = end;
    while (next < s.size() && std::isspace(static_cast<unsigned char>(s[next]))) ++next;
    out.append(s, end, next - end);
    i = next;
  }
  return out;
}

void ReplaceAll(std::string& s, const std::string& secret) {
  if (secret.size() < 4) return;
  for (size_t p; (p = s.find(secret)) != std::string::npos;) s.replace(p, secret.size(), "***");
}

}  // namespace

void AddSecret(std::string secret) {
  if (secret.size() < 4) return;
  std::lock_guard<std::mutex> lock(mu);
  auto& all = Registered();
  for (const auto& s : all) {
    if (s == secret) return;
  }
  all.push_back(std::move(secret));
}

std::string RedactSecrets(std::string_view text) {
  std::string s(text);
  {
    std::lock_guard<std::mutex> lock(mu);
    for (const auto& secret : Registered()) ReplaceAll(s, secret);
  }
  for (const char* name : {"GITHUB_TOKEN", "GH_TOKEN", "DISCORD_TOKEN", "WANDB_API_KEY", "OPENAI_API_KEY",
                           "ANTHROPIC_API_KEY", "UMWELT_TOKEN", "UMWELT_LLM_KEY"}) {
    if (const char* v = std::getenv(name); v && *v) ReplaceAll(s, v);
  }
  s = WithoutLongRuns(std::move(s));
  // Shapes, most specific first. Each keeps the word that says what was
  // there, so the message still reads.
  static const std::regex github(R"(\b(gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{20,}))");
  static const std::regex openai(R"(\bsk-[A-Za-z0-9_-]{16,})");
  static const std::regex discord(R"(\b[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,})");
  static const std::regex scheme(R"(\b(Bearer|Basic|Bot)\s+[A-Za-z0-9._~+/=-]{8,})", std::regex::icase);
  // "token <value>" only when the value looks generated (has a digit), so
  // "token accounting" reads as it was.
  static const std::regex token_word(R"(\b(token)\s+(?=[A-Za-z._~+/=-]*[0-9])[A-Za-z0-9._~+/=-]{12,})", std::regex::icase);
  static const std::regex keyval(
      R"re(((?:api[_-]?key|access[_-]?token|auth[_-]?token|token|secret|password|passwd|authorization|x-api-key)["']?\s*[:=]\s*["']?)[^\s"'&,;}]{4,})re",
      std::regex::icase);
  s = std::regex_replace(s, github, "***");
  s = std::regex_replace(s, openai, "***");
  s = std::regex_replace(s, discord, "***");
  s = std::regex_replace(s, scheme, "$1 ***");
  s = std::regex_replace(s, token_word, "$1 ***");
  s = std::regex_replace(s, keyval, "$1***");
  static const std::regex userinfo(R"(://[^/\s:@]+:[^/\s@]+@)");  // https://user:password@host
  s = std::regex_replace(s, userinfo, "://***@");
  return s;
}

std::string StripLocalPaths(std::string_view text) {
  // A path starts at "/" that follows the start, a space, a quote or "(",
  // and is not part of a url ("://" before it).
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    bool starts = text[i] == '/' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '"' || text[i - 1] == '\'' ||
                                     text[i - 1] == '(' || text[i - 1] == '=' || text[i - 1] == '\n');
    if (!starts) {
      out += text[i++];
      continue;
    }
    size_t end = i;
    while (end < text.size() && text[end] != ' ' && text[end] != '"' && text[end] != '\'' && text[end] != ':' &&
           text[end] != ')' && text[end] != ',' && text[end] != '\n') {
      ++end;
    }
    std::string_view path = text.substr(i, end - i);
    while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
    std::string_view last = path.substr(path.find_last_of('/') + 1);
    out += last.empty() ? std::string("/") : std::string(last);
    i = end;
  }
  return out;
}

}  // namespace umwelt
