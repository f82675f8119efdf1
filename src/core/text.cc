#include "umwelt/text.h"

#include <chrono>
#include <cstdio>
#include <set>

namespace umwelt {
namespace {

// Length of the well-formed UTF-8 sequence at s[i], or 0 if ill-formed.
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k) {
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  }
  return n;
}

bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsLowerC(char c) { return c >= 'a' && c <= 'z'; }

int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

bool ReadInt(std::string_view s, size_t pos, size_t len, int* out) {
  if (pos + len > s.size()) return false;
  int v = 0;
  for (size_t i = pos; i < pos + len; ++i) {
    if (!IsDigit(s[i])) return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

}  // namespace

bool IsValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t n = Utf8SequenceLength(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string SanitizeUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t n = Utf8SequenceLength(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

namespace {

// The code point of the well-formed 3-byte sequence at s[i].
uint32_t DecodeUtf8At(std::string_view s, size_t i) {
  return (static_cast<uint32_t>(static_cast<unsigned char>(s[i]) & 0x0F) << 12) |
         (static_cast<uint32_t>(static_cast<unsigned char>(s[i + 1]) & 0x3F) << 6) |
         static_cast<uint32_t>(static_cast<unsigned char>(s[i + 2]) & 0x3F);
}

// Embeddings, overrides and isolates (U+202A–202E, U+2066–2069), and the
// marks that steer them (U+200E, U+200F, U+061C is 2 bytes and left alone).
bool IsBidiControl(uint32_t cp) {
  return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200E || cp == 0x200F;
}

}  // namespace

std::string TerminalSafe(std::string_view s) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t n = Utf8SequenceLength(s, i);
    auto c = static_cast<unsigned char>(s[i]);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else if (n == 1 && (c < 0x20 || c == 0x7f) && c != '\n' && c != '\t') {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
      ++i;
    } else if (n == 2 && c == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0) {
      auto d = static_cast<unsigned char>(s[i + 1]);
      out += "\\u00";
      out += hex[d >> 4];
      out += hex[d & 15];
      i += 2;
    } else if (uint32_t cp = n == 3 ? DecodeUtf8At(s, i) : 0; IsBidiControl(cp)) {
      // Reordering controls make a terminal show text other than what is
      // there (U+202E turns "exe.txt" into "txt.exe").
      out += "\\u";
      for (int shift = 12; shift >= 0; shift -= 4) out += hex[(cp >> shift) & 15];
      i += n;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string XmlChars(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t n = Utf8SequenceLength(s, i);
    auto c = static_cast<unsigned char>(s[i]);
    bool forbidden = n == 0 || (n == 1 && c < 0x20 && c != '\t' && c != '\n' && c != '\r') ||
                     (n == 3 && c == 0xEF && static_cast<unsigned char>(s[i + 1]) == 0xBF &&
                      static_cast<unsigned char>(s[i + 2]) >= 0xBE);
    if (forbidden) {
      out += "\xEF\xBF\xBD";
      i += n == 0 ? 1 : n;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string_view TruncateUtf8(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  size_t end = max_bytes;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  return s.substr(0, end);
}

std::string TruncateAtWord(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return std::string(s);
  std::string_view cut = TruncateUtf8(s, max_bytes > 3 ? max_bytes - 3 : 0);
  // The cut ends a word when a space follows it; else it goes back to one.
  size_t space = s[cut.size()] == ' ' ? cut.size() : cut.rfind(' ');
  if (space == std::string_view::npos || space == 0) return std::string(s);  // one long word: whole
  std::string out(cut.substr(0, space));
  while (!out.empty() && std::string_view(",;:-(/").find(out.back()) != std::string_view::npos) out.pop_back();
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out + "…";
}

std::optional<int64_t> ParseIsoTime(std::string_view s) {
  int y, mo, d, h = 0, mi = 0, sec = 0;
  if (!ReadInt(s, 0, 4, &y) || s.size() < 10 || s[4] != '-' || !ReadInt(s, 5, 2, &mo) ||
      s[7] != '-' || !ReadInt(s, 8, 2, &d)) {
    return std::nullopt;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31) return std::nullopt;
  size_t pos = 10;
  int64_t offset = 0;
  if (pos < s.size() && (s[pos] == 'T' || s[pos] == ' ')) {
    if (!ReadInt(s, pos + 1, 2, &h) || s.size() < pos + 6 || s[pos + 3] != ':' ||
        !ReadInt(s, pos + 4, 2, &mi)) {
      return std::nullopt;
    }
    pos += 6;
    if (pos < s.size() && s[pos] == ':') {
      if (!ReadInt(s, pos + 1, 2, &sec)) return std::nullopt;
      pos += 3;
    }
    if (pos < s.size() && s[pos] == '.') {
      ++pos;
      while (pos < s.size() && IsDigit(s[pos])) ++pos;
    }
    if (h > 23 || mi > 59 || sec > 60) return std::nullopt;
    if (pos < s.size()) {
      if (s[pos] == 'Z' || s[pos] == 'z') {
        ++pos;
      } else if (s[pos] == '+' || s[pos] == '-') {
        int oh, om = 0;
        if (!ReadInt(s, pos + 1, 2, &oh)) return std::nullopt;
        size_t mpos = pos + 3;
        if (mpos < s.size() && s[mpos] == ':') ++mpos;
        if (mpos < s.size() && !ReadInt(s, mpos, 2, &om)) return std::nullopt;
        offset = (oh * 3600 + om * 60) * (s[pos] == '+' ? 1 : -1);
        pos = mpos + (mpos < s.size() ? 2 : 0);
      }
    }
  }
  if (pos != s.size()) return std::nullopt;
  return DaysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - offset;
}

std::string FormatIsoTime(int64_t t) {
  int64_t days = t >= 0 ? t / 86400 : (t - 86399) / 86400;
  int64_t rem = t - days * 86400;
  // civil_from_days (Howard Hinnant)
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
  char buf[64];  // room for any year the types can hold
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02d:%02d:%02dZ", static_cast<long long>(y), m,
                d, static_cast<int>(rem / 3600), static_cast<int>(rem % 3600 / 60),
                static_cast<int>(rem % 60));
  return buf;
}

std::string NormalizeIsoTime(std::string_view s) {
  auto t = ParseIsoTime(s);
  return t ? FormatIsoTime(*t) : std::string();
}

std::vector<std::string> SplitIdentifier(std::string_view tok) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty()) out.push_back(std::move(cur));
    cur.clear();
  };
  for (size_t i = 0; i < tok.size(); ++i) {
    char c = tok[i];
    if (!IsAlpha(c) && !IsDigit(c)) {
      if (static_cast<unsigned char>(c) >= 0x80) {
        cur += c;
        continue;
      }
      flush();
      continue;
    }
    if (!cur.empty()) {
      char p = tok[i - 1];
      bool boundary = (IsLowerC(p) && IsUpper(c)) || (IsDigit(p) && IsAlpha(c)) ||
                      (IsAlpha(p) && IsDigit(c)) ||
                      // "HTTPResponse": split before the last capital of a run.
                      (IsUpper(p) && IsUpper(c) && i + 1 < tok.size() && IsLowerC(tok[i + 1]));
      if (boundary) flush();
    }
    cur += static_cast<char>(IsUpper(c) ? c - 'A' + 'a' : c);
  }
  flush();
  return out;
}

std::string IdentifierSymbols(std::string_view text) {
  std::set<std::string> seen;
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && !(IsAlpha(text[i]) || IsDigit(text[i]) || text[i] == '_')) ++i;
    size_t start = i;
    while (i < text.size() && (IsAlpha(text[i]) || IsDigit(text[i]) || text[i] == '_' ||
                               static_cast<unsigned char>(text[i]) >= 0x80)) {
      ++i;
    }
    std::string_view tok = text.substr(start, i - start);
    if (tok.size() < 3 || tok.size() > 64) continue;
    bool has_alpha = false;
    for (char c : tok) has_alpha |= IsAlpha(c);
    if (!has_alpha) continue;
    auto parts = SplitIdentifier(tok);
    if (parts.size() < 2) continue;
    for (auto& p : parts) {
      if (p.size() < 2 || !seen.insert(p).second) continue;
      if (!out.empty()) out += ' ';
      out += p;
    }
  }
  return out;
}

size_t JsonValueEnd(std::string_view text, size_t start) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = start; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') ++depth;
    else if ((c == ']' || c == '}') && --depth == 0) return i + 1;
  }
  return std::string_view::npos;
}

std::vector<ThreadMention> FindThreadMentions(std::string_view text) {
  std::vector<ThreadMention> out;
  std::set<std::pair<std::string, int64_t>> seen;
  auto add = [&](std::string repo, int64_t n) {
    if (n <= 0 || n > 100000000) return;
    if (seen.emplace(repo, n).second) out.push_back({std::move(repo), n});
  };
  auto is_name = [](char c) { return IsAlpha(c) || IsDigit(c) || c == '-' || c == '_' || c == '.'; };
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '#' && i + 1 < text.size() && IsDigit(text[i + 1])) {
      // Skip "&#123;" entities and anchors like "foo#1" inside words other than owner/repo.
      size_t j = i + 1;
      int64_t n = 0;
      while (j < text.size() && IsDigit(text[j]) && j - i < 10) n = n * 10 + (text[j++] - '0');
      if (j < text.size() && (IsAlpha(text[j]) || text[j] == '_' || text[j] == ';')) continue;
      std::string repo;
      if (i > 0 && is_name(text[i - 1])) {
        size_t k = i;
        while (k > 0 && (is_name(text[k - 1]) || text[k - 1] == '/')) --k;
        std::string_view word = text.substr(k, i - k);
        size_t slash = word.find('/');
        if (slash == std::string_view::npos || word.find('/', slash + 1) != std::string_view::npos ||
            slash == 0 || slash + 1 == word.size()) {
          continue;  // "abc#12" is not a mention
        }
        if (k > 0 && text[k - 1] == '&') continue;
        repo = std::string(word);
      }
      add(repo, n);
      i = j - 1;
    } else if (text.compare(i, 19, "https://github.com/") == 0) {
      size_t p = i + 19;
      size_t s1 = text.find('/', p);
      if (s1 == std::string_view::npos) continue;
      size_t s2 = text.find('/', s1 + 1);
      if (s2 == std::string_view::npos) continue;
      std::string_view owner = text.substr(p, s1 - p), name = text.substr(s1 + 1, s2 - s1 - 1);
      bool ok = !owner.empty() && !name.empty();
      for (char c : owner) ok &= is_name(c);
      for (char c : name) ok &= is_name(c);
      if (!ok) continue;
      std::string_view rest = text.substr(s2 + 1);
      size_t skip = 0;
      if (rest.substr(0, 7) == "issues/") skip = 7;
      else if (rest.substr(0, 5) == "pull/") skip = 5;
      else if (rest.substr(0, 6) == "pulls/") skip = 6;
      if (skip == 0) continue;
      size_t j = s2 + 1 + skip;
      int64_t n = 0;
      size_t digits = 0;
      while (j < text.size() && IsDigit(text[j]) && digits < 10) n = n * 10 + (text[j++] - '0'), ++digits;
      if (digits == 0) continue;
      add(std::string(owner) + "/" + std::string(name), n);
      i = j - 1;
    }
  }
  return out;
}

std::string ThreadRefFromUrl(std::string_view url) {
  size_t host = url.find("://");
  if (host == std::string_view::npos) return "";
  size_t repo_start = url.find('/', host + 3);
  if (repo_start == std::string_view::npos) return "";
  for (std::string_view kind : {"/issues/", "/pull/"}) {
    size_t p = url.find(kind, repo_start);
    if (p == std::string_view::npos || p <= repo_start + 1) continue;
    size_t n = p + kind.size(), e = n;
    while (e < url.size() && IsDigit(url[e])) ++e;
    if (e == n) continue;
    return std::string(url.substr(repo_start + 1, p - repo_start - 1)) + "#" + std::string(url.substr(n, e - n));
  }
  return "";
}

std::string CollapseWhitespace(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool space = false;
  for (char c : s) {
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      space = !out.empty();
    } else {
      if (space) out += ' ';
      space = false;
      out += c;
    }
  }
  return out;
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) {
    if (IsUpper(c)) c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::vector<std::string> SplitList(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t p = 0;
  while (p <= s.size()) {
    size_t c = s.find(sep, p);
    std::string_view part = s.substr(p, c == std::string_view::npos ? std::string_view::npos : c - p);
    if (!part.empty()) out.emplace_back(part);
    if (c == std::string_view::npos) break;
    p = c + 1;
  }
  return out;
}

}  // namespace umwelt
