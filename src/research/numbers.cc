// Sentences and numbers with their units: what claims are made of, read by
// `ask`, the digest and the citation check (umwelt_numbers, below publish).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

#include "umwelt/claims.h"
#include "umwelt/pattern.h"
#include "umwelt/text.h"

namespace umwelt::research {
namespace {

bool Digit(char c) { return c >= '0' && c <= '9'; }
bool Alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }

bool StartsItem(std::string_view line) {
  if (line.size() > 1 && (line[0] == '-' || line[0] == '*' || line[0] == '+') && line[1] == ' ') return true;
  size_t d = 0;
  while (d < line.size() && std::isdigit(static_cast<unsigned char>(line[d]))) ++d;
  return d > 0 && d + 1 < line.size() && (line[d] == '.' || line[d] == ')') && line[d + 1] == ' ';
}

// Whether the '.' at `dot` closes an abbreviation that goes on within the
// sentence ("i.e.", "e.g.", "vs.", "et al.").
bool AbbreviationAt(std::string_view text, size_t dot) {
  static const std::set<std::string, std::less<>> kAbbreviations = {"i.e.", "e.g.", "vs.", "cf.", "al.", "approx.",
                                                                     "incl.", "resp.", "fig.", "eq.", "viz."};
  size_t start = dot;
  while (start > 0 && (Alpha(text[start - 1]) || text[start - 1] == '.')) --start;
  if (dot - start > 6) return false;
  return kAbbreviations.count(ToLower(text.substr(start, dot - start + 1))) > 0;
}

}  // namespace

std::vector<std::string> Sentences(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    std::string s = CollapseWhitespace(cur);
    if (!s.empty()) out.push_back(s);
    cur.clear();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    cur += c;
    bool end = c == '\n' || ((c == '.' || c == '!' || c == '?') && (i + 1 == text.size() || text[i + 1] == ' ' || text[i + 1] == '\n') &&
                             !(i > 0 && Digit(text[i - 1]) && i + 1 < text.size() && Digit(text[i + 1])) &&
                             !(c == '.' && AbbreviationAt(text, i)));
    if (end) flush();
  }
  flush();
  return out;
}

std::vector<std::string> Numbers(std::string_view text) {
  static const std::vector<std::string> kUnits = {
      "%", "x", "×", "k", "m", "b", "t", "ms", "s", "sec", "seconds", "minutes", "min", "hours", "h", "days", "gb", "mb",
      "tb", "gib", "tokens", "tokens/s", "tok/s", "tflops", "pflops", "gpus", "gpu", "h100s", "h100", "a100s",
      "a100", "tpus", "v5p", "steps", "params", "layers", "nodes"};
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    // Skip urls and #refs whole.
    if (text.compare(i, 4, "http") == 0) {
      while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
      continue;
    }
    if (text[i] == '#' || Alpha(text[i])) {  // a word, a #ref, an identifier like h100-prefetch-2 or v5p.yaml
      ++i;
      while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_' ||
                                 ((text[i] == '-' || text[i] == '.' || text[i] == '/') && i + 1 < text.size() &&
                                  std::isalnum(static_cast<unsigned char>(text[i + 1]))))) {
        ++i;
      }
      continue;
    }
    if (!Digit(text[i])) {
      ++i;
      continue;
    }
    size_t s = i;
    while (i < text.size() && (Digit(text[i]) || ((text[i] == '.' || text[i] == ',') && i + 1 < text.size() && Digit(text[i + 1])))) ++i;
    std::string num(text.substr(s, i - s));
    if (i < text.size() && (text[i] == '-' || text[i] == ':' || text[i] == '/') && i + 1 < text.size() && Digit(text[i + 1])) {
      while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;  // a date, a time, a ratio
      continue;
    }
    if (num.size() == 4 && (num.rfind("19", 0) == 0 || num.rfind("20", 0) == 0)) continue;  // a year
    size_t u = i;
    if (u < text.size() && text[u] == ' ') ++u;
    std::string unit;
    size_t e = u;
    // No unit is longer than this: a longer run is read no further (and each
    // number's look costs a few bytes, however long the run after it).
    constexpr size_t kLongestUnit = 12;
    while (e < text.size() && e - u <= kLongestUnit && (Alpha(text[e]) || text[e] == '%' || text[e] == '/' || Digit(text[e]))) ++e;
    if (u < text.size() && text.compare(u, 2, "\xC3\x97") == 0) e = u + 2;  // ×
    std::string cand = ToLower(text.substr(u, e - u));
    for (const auto& k : kUnits) {
      if (cand == k) unit = std::string(text.substr(u, e - u));
    }
    if (!unit.empty() && unit != "%") num += (u > i ? " " : "") + unit;
    else if (unit == "%") num += "%";
    if (!unit.empty()) i = e;
    out.push_back(num);
  }
  return out;
}

bool ContainsNumber(std::string_view h, std::string_view digits) {
  if (digits.empty()) return false;
  for (size_t at = h.find(digits); at != std::string_view::npos; at = h.find(digits, at + 1)) {
    bool before = at > 0 && (Digit(h[at - 1]) || (h[at - 1] == '.' && at > 1 && Digit(h[at - 2])));
    size_t end = at + digits.size();
    bool after = end < h.size() && (Digit(h[end]) || ((h[end] == '.' || h[end] == ',') && end + 1 < h.size() && Digit(h[end + 1])));
    if (!before && !after) return true;
  }
  return false;
}

bool SpeaksOfTarget(std::string_view sentence) {
  std::string s = ToLower(sentence);
  for (const char* w : {"target", "goal", "aim ", "aiming", "plan to", "planned", "hope to", "expect to", "should reach",
                        "would reach", "want to reach", "objective"}) {
    if (s.find(w) != std::string::npos) return true;
  }
  return false;
}

std::string UnitOf(const std::string& number) {
  size_t i = number.find_first_not_of("0123456789.,");
  if (i == std::string::npos) return "";
  return CollapseWhitespace(ToLower(number.substr(i)));
}

std::vector<std::string> ProseSentences(std::string_view text) {
  std::vector<std::string> blocks;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty()) blocks.push_back(cur);
    cur.clear();
  };
  bool code = false;
  for (size_t i = 0; i <= text.size();) {
    size_t nl = text.find('\n', i);
    if (nl == std::string_view::npos) nl = text.size();
    std::string line = CollapseWhitespace(text.substr(i, nl - i));
    bool indented = nl > i && (text[i] == '\t' || text.substr(i, std::min<size_t>(4, nl - i)) == "    ");
    i = nl + 1;
    if (line.rfind("```", 0) == 0) {
      code = !code;
      flush();
      continue;
    }
    if (code || line.empty() || indented) {
      flush();
      continue;
    }
    if (line[0] == '#' || line[0] == '|' || line[0] == '>' || line[0] == '<') {  // headings, tables, quotes, html
      flush();
      continue;
    }
    if (StartsItem(line)) {
      flush();
      line.erase(0, line.find(' ') + 1);
    }
    // "Changed: …", "Co-authored-by: …", "Reply to: …": a field, not prose
    // to run on into.
    static const Pattern field(R"(^[A-Z][A-Za-z\-]{1,24}( [a-z]{1,12})?: )");
    if (field.Search(line)) {
      flush();
      blocks.push_back(line);
      continue;
    }
    cur += (cur.empty() ? "" : " ") + line;
  }
  flush();
  std::vector<std::string> out;
  for (const auto& b : blocks) {
    for (auto& s : research::Sentences(b)) out.push_back(std::move(s));
  }
  return out;
}

// The value of a number Numbers() found, without its unit ("1,024.5 ms" ->
// 1024.5), and how many decimals it was written with.
double ValueOf(const std::string& number, int* decimals) {
  std::string digits;
  for (char c : number.substr(0, number.find_first_not_of("0123456789.,"))) {
    if (c != ',') digits += c;
  }
  size_t dot = digits.find('.');
  *decimals = dot == std::string::npos ? 0 : static_cast<int>(digits.size() - dot - 1);
  return std::strtod(digits.c_str(), nullptr);
}

// A unit that is a multiplier ("451k", "1.2B") scales the value and leaves
// no unit of its own.
double Scaled(const std::string& number, std::string* unit, int* decimals) {
  double v = ValueOf(number, decimals);
  *unit = UnitOf(number);
  static const std::map<std::string, double> kScale = {{"k", 1e3}, {"m", 1e6}, {"b", 1e9}, {"t", 1e12}};
  if (auto it = kScale.find(*unit); it != kScale.end()) {
    v *= it->second;
    *decimals -= static_cast<int>(std::log10(it->second));
    unit->clear();
  }
  return v;
}

bool Grounded(const std::string& number, std::string_view text) {
  std::string unit;
  int decimals = 0;
  double value = Scaled(number, &unit, &decimals);
  // Stated "38%" stands for anything that rounds to it (37.5 to 38.5); a
  // more precise statement must match to its own precision.
  double slack = 0.5 * std::pow(10.0, -decimals) + 1e-9 * std::max(1.0, std::fabs(value));
  for (const auto& n : Numbers(text)) {
    std::string u;
    int d = 0;
    double v = Scaled(n, &u, &d);
    // Units differ only when both say one ("451k" before "tokens/s" says none).
    if (!u.empty() && !unit.empty() && u != unit) continue;
    if (std::fabs(v - value) <= slack) return true;
  }
  return false;
}

}  // namespace umwelt::research
