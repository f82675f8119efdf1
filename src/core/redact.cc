#include "umwelt/redact.h"

#include "umwelt/pattern.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace umwelt {

namespace {

std::mutex mu;
std::vector<std::string>& Registered() {
  static std::vector<std::string> secrets;
  return secrets;
}

// Runs of non-space characters longer than this are not words anyone reads:
// they are replaced whole before the patterns run (a secret can hide in one
// anywhere, and a message stays short enough to read).
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

// "token <value>" only when the value looks generated (has a digit), so
// "token accounting" reads as it was.
std::string TokenWords(const std::string& s) {
  static const Pattern token_word(R"(\b(token)\s+([A-Za-z0-9._~+/=-]{12,}))", Pattern::kIgnoreCase);
  std::string out;
  size_t copied = 0;
  token_word.ForEach(s, [&](const Groups& g) {
    if (g[2].find_first_of("0123456789") == std::string_view::npos) return true;
    size_t at = static_cast<size_t>(g[2].data() - s.data());
    out.append(s, copied, at - copied).append("***");
    copied = at + g[2].size();
    return true;
  });
  return copied == 0 ? s : out.append(s, copied);
}

// "Bearer <value>", "Basic <value>", "Bot <value>": always after
// "Authorization:", and elsewhere where the value looks generated (a digit,
// a capital after its first letter, or base64's "+/="), so "Basic
// infrastructure for MIPS" reads as it was.
std::string SchemeWords(const std::string& s) {
  static const Pattern scheme(R"(\b(authorization\s*:\s*)?(Bearer|Basic|Bot)\s+([A-Za-z0-9._~+/=-]{8,}))",
                              Pattern::kIgnoreCase);
  std::string out;
  size_t copied = 0;
  scheme.ForEach(s, [&](const Groups& g) {
    std::string_view v = g[3];
    auto upper = [](char c) { return std::isupper(static_cast<unsigned char>(c)) != 0; };
    bool generated = v.find_first_of("0123456789+/=") != std::string_view::npos || std::any_of(v.begin() + 1, v.end(), upper);
    if (g[1].empty() && !generated) return true;
    size_t at = static_cast<size_t>(v.data() - s.data());
    out.append(s, copied, at - copied).append("***");
    copied = at + v.size();
    return true;
  });
  return copied == 0 ? s : out.append(s, copied);
}

// W&B API keys are 40 hex digits, a shape too common (commit shas) to
// redact everywhere: they are redacted in text that speaks of W&B.
std::string WandbKeys(const std::string& s) {
  static const Pattern wandb(R"(wandb|w&b|weights (?:&|and) biases)", Pattern::kIgnoreCase);
  static const Pattern key(R"(\b[0-9a-fA-F]{40}\b)");
  return wandb.Search(s) ? key.ReplaceAll(s, "***") : s;
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
  static const Pattern github(R"(\b(gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{20,}))");
  static const Pattern openai(R"(\bsk-[A-Za-z0-9_-]{16,})");
  static const Pattern discord(R"(\b[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,})");
  static const Pattern keyval(
      R"re(((?:api[_-]?key|access[_-]?token|auth[_-]?token|token|secret|password|passwd|authorization|x-api-key)["']?\s*[:=]\s*["']?)[^\s"'&,;}]{4,})re",
      Pattern::kIgnoreCase);
  s = github.ReplaceAll(s, "***");
  s = openai.ReplaceAll(s, "***");
  s = discord.ReplaceAll(s, "***");
  s = SchemeWords(s);
  s = TokenWords(s);
  s = keyval.ReplaceAll(s, "\\1***");
  static const Pattern userinfo(R"(://[^/\s:@]+:[^/\s@]+@)");  // https://user:password@host
  s = userinfo.ReplaceAll(s, "://***@");
  s = WandbKeys(s);
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
