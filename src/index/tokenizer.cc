#include <algorithm>
#include <cctype>
#include <memory>
#include <string_view>

#include "umwelt/search.h"

namespace umwelt {

// Snowball's English stemmer, called directly rather than through libstemmer.h's
// sb_stemmer_new: that entry point's table of modules links every language's
// stemmer, whose 330 KB of pointer tables a position-independent program must
// relocate, page by page, at every start (README, "What a process costs to
// start"). Snowball's runtime header (api.h) is not installed; its environment
// starts with these fields in every 2.x and 3.x release, and the stems
// `StemWord.StemsPlainWordsAndLeavesIdentifiersAlone` expects fail if that
// ever changes.
namespace snowball {
extern "C" {
struct SN_env {
  unsigned char* p;
  int c;
  int l;
};
SN_env* english_UTF_8_create_env();
void english_UTF_8_close_env(SN_env* z);
int english_UTF_8_stem(SN_env* z);
int SN_set_current(SN_env* z, int size, const unsigned char* s);
}
}  // namespace snowball

namespace {
inline bool WordByte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c >= 0x80;
}
inline bool Digit(char c) { return c >= '0' && c <= '9'; }
}  // namespace

size_t LinkSchemeAt(std::string_view s, size_t at) {
  if (at > 0 && std::isalnum(static_cast<unsigned char>(s[at - 1]))) return 0;
  for (size_t len : {4, 5}) {
    if (at + len + 3 > s.size() || s.substr(at + len, 3) != "://") continue;
    std::string_view word = s.substr(at, len);
    bool scheme = true;
    for (size_t k = 0; k < len; ++k) scheme = scheme && (word[k] | 0x20) == "https"[k];  // "http" is its start
    if (scheme) return len;
  }
  return 0;
}

std::vector<std::string> Tokenize(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0, n = s.size();
  while (i < n) {
    while (i < n && !WordByte(static_cast<unsigned char>(s[i]))) ++i;
    size_t start = i;
    while (i < n) {
      unsigned char c = static_cast<unsigned char>(s[i]);
      // A word byte, or a decimal point between digits (0.238, 1.5).
      bool decimal_point = c == '.' && i > start && Digit(s[i - 1]) && i + 1 < n && Digit(s[i + 1]);
      if (!WordByte(c) && !decimal_point) break;
      ++i;
    }
    size_t len = i - start;
    if (len == 0 || len > 64) continue;
    // A link's scheme is not a word the text says: "HTTPS" in a question
    // would otherwise match every message that carries a link.
    if (LinkSchemeAt(s, start) == len) continue;
    std::string tok(s.substr(start, len));
    for (auto& c : tok) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    // Leading/trailing underscores carry no meaning ("__init__" -> "init").
    size_t a = tok.find_first_not_of('_');
    if (a == std::string::npos) continue;
    size_t b = tok.find_last_not_of('_');
    out.push_back(tok.substr(a, b - a + 1));
  }
  return out;
}

namespace {

// A compound: two or three runs of letters and digits joined by `-` or `_`
// and nothing else ("z-loss", "z_loss", "mixture-of-experts"): each one's
// joined form, and its parts when asked.
std::vector<std::string> Compounds(std::string_view s, std::vector<std::vector<std::string>>* parts_out) {
  std::vector<std::string> out;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || Digit(c); };
  size_t i = 0, n = s.size();
  while (i < n) {
    if (!alnum(s[i]) || (i > 0 && (alnum(s[i - 1]) || s[i - 1] == '-' || s[i - 1] == '_' || s[i - 1] == '.' ||
                                   s[i - 1] == '/'))) {
      ++i;  // a compound starts after a space or punctuation, not inside a path or a number
      continue;
    }
    std::string joined;
    std::vector<std::string> part_list;
    int parts = 0;
    bool letters = false;
    size_t j = i;
    while (true) {
      size_t start = j;
      size_t from = joined.size();
      while (j < n && alnum(s[j])) {
        letters |= !Digit(s[j]);
        joined += static_cast<char>(s[j] >= 'A' && s[j] <= 'Z' ? s[j] - 'A' + 'a' : s[j]);
        ++j;
      }
      if (j == start) break;
      part_list.push_back(joined.substr(from));
      ++parts;
      if (j + 1 < n && (s[j] == '-' || s[j] == '_') && alnum(s[j + 1])) {
        ++j;
        continue;
      }
      break;
    }
    // Dates and version ranges (all digits), paths and long identifiers are
    // not terms a person spells another way.
    bool followed = j < n && (s[j] == '/' || s[j] == '.' || s[j] == '-' || s[j] == '_') && j + 1 < n && alnum(s[j + 1]);
    if (parts >= 2 && parts <= 3 && letters && !followed && joined.size() <= 32) {
      out.push_back(joined);
      if (parts_out) parts_out->push_back(std::move(part_list));
    }
    i = j;
  }
  return out;
}

}  // namespace

std::vector<std::string> CompoundTerms(std::string_view s) { return Compounds(s, nullptr); }

std::vector<std::string> FamilyNames(std::string_view s) {
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size() && out.size() < 16;) {
    size_t e = i;
    while (e < s.size() && (letter(s[e]) || Digit(s[e]))) ++e;
    if (e == i) {
      ++i;
      continue;
    }
    std::string_view w = s.substr(i, e - i);
    size_t d = 0;
    while (d < w.size() && letter(w[d])) ++d;
    size_t zeros = w.size() - std::min(w.find_last_not_of('0') + 1, w.size());
    // One to four letters and a number of two to five digits, its first not
    // a zero and its last ones zeros: "r600", not "x86", "v2" or "h100a".
    bool model = d >= 1 && d <= 4 && w.size() - d >= 2 && w.size() - d <= 5 && zeros >= 1 && zeros < w.size() - d &&
                 w[d] != '0' && std::all_of(w.begin() + static_cast<long>(d), w.end(), Digit);
    if (model) {
      std::string family;
      for (size_t k = 0; k < w.size(); ++k) {
        family += k >= w.size() - zeros ? 'x' : static_cast<char>(w[k] | (letter(w[k]) ? 0x20 : 0));
      }
      if (std::find(out.begin(), out.end(), family) == out.end()) out.push_back(std::move(family));
    }
    i = e;
  }
  return out;
}

std::vector<std::vector<std::string>> CompoundParts(std::string_view s) {
  std::vector<std::vector<std::string>> parts;
  Compounds(s, &parts);
  return parts;
}

std::vector<std::string> GlobbedNames(std::string_view s) {
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  auto lower = [](char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); };
  std::vector<std::string> out;
  for (size_t open = s.find('['); open != std::string_view::npos && out.size() < 64; open = s.find('[', open + 1)) {
    size_t close = open + 1;
    while (close < s.size() && close - open <= 5 && letter(s[close])) ++close;
    // Two to four initials, then the rest of a name: at least three letters.
    if (close >= s.size() || s[close] != ']' || close - open < 3 || close - open > 5) continue;
    size_t end = close + 1;
    while (end < s.size() && (letter(s[end]) || Digit(s[end]) || s[end] == '_') && end - close <= 64) ++end;
    if (end - close - 1 < 3 || !letter(s[close + 1])) continue;
    std::string rest;
    for (size_t i = close + 1; i < end; ++i) rest += lower(s[i]);
    for (size_t i = open + 1; i < close; ++i) out.push_back(lower(s[i]) + rest);
  }
  return out;
}

std::string WithoutNamePrefix(std::string_view w) {
  auto upper = [](char c) { return c >= 'A' && c <= 'Z'; };
  size_t caps = 0;
  while (caps < w.size() && upper(w[caps])) ++caps;
  // Two initials or more, then a capitalized word: "XRR" + "GetScreenInfo";
  // or one, then a word of five letters or more: "X" + "DamageAdd", not "D"
  // + "BusMessage".
  auto lower = [](char c) { return c >= 'a' && c <= 'z'; };
  if (caps < 2 || caps >= w.size() || !lower(w[caps])) return "";
  if (caps == 2) {
    size_t end = caps;
    while (end < w.size() && lower(w[end])) ++end;
    if (end - (caps - 1) < 5) return "";
  }
  std::string_view rest = w.substr(caps - 1);
  if (rest.size() < 8 || std::count_if(rest.begin(), rest.end(), upper) < 2) return "";
  std::string out;
  for (char c : rest) {
    if (!(upper(c) || lower(c) || Digit(c))) return "";
    out += static_cast<char>(upper(c) ? c - 'A' + 'a' : c);
  }
  return out;
}

std::string StemWord(std::string_view token) {
  if (token.size() < 3 || token.size() > 64) return std::string(token);
  for (char c : token) {
    if (c < 'a' || c > 'z') return std::string(token);
  }
  // An environment is not safe to share between threads; each thread keeps one.
  struct Free {
    void operator()(snowball::SN_env* z) const { snowball::english_UTF_8_close_env(z); }
  };
  thread_local std::unique_ptr<snowball::SN_env, Free> env(snowball::english_UTF_8_create_env());
  if (!env) return std::string(token);  // out of memory: the word is its own term
  auto* z = env.get();
  const auto* word = reinterpret_cast<const unsigned char*>(token.data());
  if (snowball::SN_set_current(z, static_cast<int>(token.size()), word) != 0) return std::string(token);
  if (snowball::english_UTF_8_stem(z) < 0) return std::string(token);
  return std::string(reinterpret_cast<const char*>(z->p), static_cast<size_t>(z->l));
}

}  // namespace umwelt
