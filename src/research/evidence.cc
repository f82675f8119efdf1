#include "umwelt/claims.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <regex>
#include <set>

#include "umwelt/redact.h"
#include "umwelt/text.h"

namespace umwelt::research {
namespace {

bool Digit(char c) { return c >= '0' && c <= '9'; }
bool Alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }

const std::set<std::string>& StopWords() {
  static const std::set<std::string> k = {
      "a", "about", "above", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be",
      "because", "been", "before", "being", "between", "both", "but", "by", "can", "could", "did", "do", "does",
      "doing", "done", "down", "during", "each", "few", "for", "from", "further", "get", "got", "had", "has", "have",
      "having", "he", "her", "here", "how", "i", "if", "in", "into", "is", "it", "its", "just", "like", "made", "make",
      "many", "may", "me", "more", "most", "much", "my", "no", "nor", "not", "now", "of", "off", "on", "once", "only",
      "or", "other", "our", "out", "over", "own", "same", "she", "should", "so", "some", "such", "than", "that",
      "the", "their", "them", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under",
      "until", "up", "us", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom",
      "why", "will", "with", "would", "you", "your", "expect", "share", "details", "tell", "give", "know",
      "currently", "going", "far", "still", "yet", "used", "use", "using"};
  return k;
}

}  // namespace

std::vector<std::string> ContentWords(std::string_view text) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  std::string word;
  auto flush = [&] {
    if (word.size() >= 2 && !StopWords().count(word) && seen.insert(word).second) out.push_back(word);
    word.clear();
  };
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '#') {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      while (!word.empty() && (word.back() == '.' || word.back() == '-')) word.pop_back();
      flush();
    }
  }
  while (!word.empty() && (word.back() == '.' || word.back() == '-')) word.pop_back();
  flush();
  return out;
}

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
                             !(i > 0 && Digit(text[i - 1]) && i + 1 < text.size() && Digit(text[i + 1])));
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
    while (e < text.size() && (Alpha(text[e]) || text[e] == '%' || text[e] == '/' || Digit(text[e]))) ++e;
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

std::string Neutralize(std::string_view quoted) {
  // A quote never republishes a credential someone pasted into a thread.
  std::string redacted = RedactSecrets(quoted);
  std::string_view text = redacted;
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    if (text.compare(i, 7, "http://") == 0 || text.compare(i, 8, "https://") == 0 || text.compare(i, 4, "www.") == 0) {
      size_t e = i;
      while (e < text.size() && !std::isspace(static_cast<unsigned char>(text[e])) && text[e] != '`') ++e;
      out += "`" + std::string(text.substr(i, e - i)) + "`";
      i = e;
      continue;
    }
    char c = text[i];
    if (c == '`') out += '\'';
    else if (c == '[' || c == ']' || c == '*' || c == '_' || c == '|' || c == '\\' || c == '$' || c == '~' || c == '<' ||
             c == '>') {
      out += '\\';
      out += c;
    } else {
      out += c;
    }
    ++i;
  }
  // A leading '#', '-', '+' or digit-dot would make a heading or a list.
  if (!out.empty() && (out[0] == '#' || out[0] == '-' || out[0] == '+' || out[0] == '=')) out.insert(0, "\\");
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

bool IsStatement(std::string_view sentence) {
  std::string s = CollapseWhitespace(sentence);
  if (s.size() < 12) return false;
  std::string low = ToLower(s);
  auto starts = [&](std::initializer_list<const char*> prefixes) {
    for (const char* p : prefixes) {
      if (low.rfind(p, 0) == 0) return true;
    }
    return false;
  };
  // Our own annotations, trailers and what a source attached.
  if (starts({"files:", "changed:", "attachments:", "reactions:", "reply to:", "embed:", "co-authored-by:",
              "signed-off-by:", "reviewed-by:", "merge branch", "merge pull request", "merge remote-tracking"})) {
    return false;
  }
  // Markdown structure: headings, table rows, checklists, fences, quotes.
  if (starts({"#", "|", "- [ ]", "- [x]", "* [ ]", "* [x]", "[ ]", "[x]", "```", "~~~", ">", "---", "==="})) return false;
  if (std::count(s.begin(), s.end(), '|') >= 2) return false;
  // Shell commands and their prompts.
  if (starts({"$ ", "./", "python ", "python3 ", "pip ", "uv ", "git ", "docker ", "cd ", "export ", "sudo ", "bash ",
              "sh ", "make ", "cmake ", "npm ", "npx ", "pytest", "torchrun ", "srun ", "sbatch ", "kubectl ",
              "gcloud ", "ray ", "conda ", "apt ", "apt-get ", "curl ", "wget ", "ls ", "mkdir ", "rm "})) {
    return false;
  }
  // Stack traces and runner output.
  if (starts({"traceback", "file \"", "raise ", "assert ", "fatal:"})) return false;
  for (const char* outcome : {" passed", " failed", " errors"}) {  // "46 passed in 3.2s"
    size_t at = low.find(outcome);
    if (at != std::string::npos && at > 0 && std::isdigit(static_cast<unsigned char>(low[at - 1]))) return false;
  }
  // Version bumps and bots.
  bool version = false;  // "1.2" somewhere: a version number
  for (size_t k = 1; k + 1 < low.size(); ++k) {
    if (low[k] == '.' && std::isdigit(static_cast<unsigned char>(low[k - 1])) &&
        std::isdigit(static_cast<unsigned char>(low[k + 1]))) {
      version = true;
    }
  }
  if (starts({"bumps ", "bump "}) && low.find(" from ") != std::string::npos && low.find(" to ") != std::string::npos) {
    return false;
  }
  if (starts({"bumps ", "bump ", "updates the requirements", "updates `", "update ", "upgrade ", "release notes",
              "changelog", "commits", "dependabot", "pre-commit", "[pre-commit.ci]", "automated", "auto-generated"}) &&
      (version || low.find("requirement") != std::string::npos || low.find("dependabot") != std::string::npos ||
       low.find("pre-commit") != std::string::npos || low.find("action versions") != std::string::npos)) {
    return false;
  }
  // Code and file lists: words of letters are few, symbols and paths many.
  int words = 0, letters_words = 0, pathish = 0, flags = 0;
  size_t symbols = 0;
  for (char c : s) {
    if (std::strchr("{}()[];=<>*&^%$@\\`~", c)) ++symbols;
  }
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    size_t e = s.find(' ', i);
    if (e == std::string::npos) e = s.size();
    std::string_view w(s.data() + i, e - i);
    if (!w.empty()) {
      ++words;
      bool alpha = std::all_of(w.begin(), w.end(), [](char c) {
        return std::isalpha(static_cast<unsigned char>(c)) || c == '\'' || c == ',' || c == '.' || c == '-' ||
               static_cast<unsigned char>(c) >= 0x80;
      });
      letters_words += alpha;
      if (w.find('/') != std::string_view::npos || w.find("_") != std::string_view::npos ||
          (w.find('.') != std::string_view::npos && w.find('.') + 1 < w.size() && w.back() != '.')) {
        ++pathish;
      }
      if (w.rfind("--", 0) == 0 || (w.size() == 2 && w[0] == '-' && std::isalpha(static_cast<unsigned char>(w[1])))) ++flags;
    }
    i = e;
  }
  if (words < 3 || letters_words < 3) return false;
  if (flags >= 2) return false;
  if (symbols * 8 > s.size()) return false;
  if (pathish * 2 > words) return false;
  if (letters_words * 2 < words) return false;
  return true;
}

std::string BestSentence(std::string_view text, const std::vector<std::string>& terms) {
  std::string best;
  double best_score = -1;
  for (std::string s : Sentences(text)) {
    if (s.size() > 2 && (s[0] == '*' || s[0] == '-' || s[0] == '+') && s[1] == ' ') s.erase(0, 2);  // a list item
    if (!IsStatement(s)) continue;
    std::string lower = ToLower(s);
    double score = 0;
    for (const auto& t : terms) score += lower.find(t) != std::string::npos ? 1 : 0;
    if (!Numbers(s).empty()) score += 0.5;
    if (s.size() < 20) score -= 1;
    if (score > best_score) {
      best_score = score;
      best = s;
    }
  }
  return best;
}

// Quoted lines ("> …" or "- …" before their " — [" attribution) that are not
// statements.
int CountJunkQuotes(std::string_view md) {
  int junk = 0;
  size_t start = 0;
  while (start < md.size()) {
    size_t nl = md.find('\n', start);
    std::string line(md.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    start = nl == std::string::npos ? md.size() : nl + 1;
    if (line.rfind("> ", 0) != 0 && line.rfind("- ", 0) != 0) continue;
    size_t cite = line.find(" — [");
    if (cite == std::string::npos || line.rfind("> **", 0) == 0) continue;
    std::string quote = line.substr(2, cite - 2);
    std::erase(quote, '\\');  // markup escapes
    junk += !research::IsStatement(quote);
  }
  return junk;
}

std::vector<std::string> KeyConstraints(std::string_view question) {
  static const std::set<std::string> kGeneric = {
      "gpu", "tpu", "cpu", "api", "llm", "ml", "ai", "pr", "ci", "url", "json", "yaml", "id", "ok", "faq", "i",
      "what", "when", "why", "how", "which", "who", "where", "did", "does", "do", "is", "are", "was", "were", "the",
      "a", "an", "we", "our", "in", "on", "for", "and", "or", "of", "to", "with", "has", "have", "can", "should"};
  std::vector<std::string> out;
  bool first = true;
  size_t i = 0;
  while (i < question.size()) {
    while (i < question.size() && !std::isalnum(static_cast<unsigned char>(question[i]))) ++i;
    size_t e = i;
    while (e < question.size() &&
           (std::isalnum(static_cast<unsigned char>(question[e])) || question[e] == '_' ||
            ((question[e] == '-' || question[e] == '.') && e + 1 < question.size() &&
             std::isalnum(static_cast<unsigned char>(question[e + 1]))))) {
      ++e;
    }
    std::string w(question.substr(i, e - i));
    i = e;
    if (w.empty()) continue;
    bool was_first = first;
    first = false;
    int upper = 0, lower = 0, digits = 0;
    for (char c : w) {
      upper += std::isupper(static_cast<unsigned char>(c)) != 0;
      lower += std::islower(static_cast<unsigned char>(c)) != 0;
      digits += std::isdigit(static_cast<unsigned char>(c)) != 0;
    }
    bool measure = digits > 0 && upper + lower > 0;              // h200, v5p, 7b, llama3
    bool acronym = upper >= 2 && upper >= lower;                 // MFU, TPU, FSDP, GPUs
    bool name = !was_first && upper >= 1 && std::isupper(static_cast<unsigned char>(w[0])) && lower > 0;  // Olmo, Haliax
    if (!measure && !acronym && !name) continue;
    std::string key = ToLower(w);
    if (key.size() > 3 && key.back() == 's' && !std::isdigit(static_cast<unsigned char>(key[key.size() - 2]))) key.pop_back();
    if (key.size() > 2 && key.back() == 's' && std::isdigit(static_cast<unsigned char>(key[key.size() - 2]))) key.pop_back();  // H100s
    if (kGeneric.count(key) || std::find(out.begin(), out.end(), key) != out.end()) continue;
    out.push_back(key);
  }
  return out;
}

bool MentionsAll(std::string_view text, const std::vector<std::string>& constraints) {
  std::string lower = ToLower(text);
  for (const auto& c : constraints) {
    if (lower.find(c) == std::string::npos) return false;
  }
  return true;
}

VerifiedClaims VerifyClaims(const std::string& md, const std::vector<Evidence>& ev) {
  std::map<std::string, const Evidence*> by_url;
  for (const auto& e : ev) by_url[e.url] = &e;
  static const std::regex link(R"(\]\(([^)\s]+)\))");
  static const std::regex bare(R"((^|[\s(<])(https?://[^\s)>\]]+))");
  VerifiedClaims out;
  size_t start = 0;
  bool in_code = false;
  while (start <= md.size()) {
    size_t nl = md.find('\n', start);
    std::string line = md.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    start = nl == std::string::npos ? md.size() + 1 : nl + 1;
    if (line.rfind("```", 0) == 0) in_code = !in_code;
    if (in_code) {
      out.markdown += line + "\n";
      continue;
    }
    std::vector<std::string> urls;
    for (std::sregex_iterator it(line.begin(), line.end(), link), end; it != end; ++it) urls.push_back((*it)[1]);
    std::string no_links = std::regex_replace(line, link, "]");
    for (std::sregex_iterator it(no_links.begin(), no_links.end(), bare), end; it != end; ++it) urls.push_back((*it)[2]);
    std::string why;
    std::string cited;
    for (const auto& u : urls) {
      auto e = by_url.find(u);
      if (e == by_url.end()) {
        why = "cites " + u + ", which is not in the evidence";
        break;
      }
      cited += e->second->text + "\n" + e->second->title + "\n";
    }
    if (why.empty() && !urls.empty()) {
      // Numbers stated outside link texts and code must be in what is cited.
      static const std::regex links_and_code(R"(\[[^\]]*\]\([^)]*\)|`[^`]*`)");
      std::string prose = std::regex_replace(line, links_and_code, " ");
      std::string haystack = CollapseWhitespace(cited);
      bool claim_is_target = SpeaksOfTarget(prose);
      for (const auto& n : Numbers(prose)) {
        std::string digits = n.substr(0, n.find_first_not_of("0123456789.,"));
        if (digits.empty()) continue;
        if (!ContainsNumber(haystack, digits)) {
          why = "states " + n + ", which the cited evidence does not";
          break;
        }
        // A number the evidence only ever gives as a target is not a result.
        bool as_result = claim_is_target;
        for (const auto& sentence : Sentences(cited)) {
          if (ContainsNumber(sentence, digits) && !SpeaksOfTarget(sentence)) as_result = true;
        }
        if (!as_result) {
          why = "reports " + n + " as a result; the cited evidence gives it only as a target";
          break;
        }
      }
    }
    if (!why.empty()) {
      out.removed.push_back(std::string(TruncateUtf8(CollapseWhitespace(line), 200)) + " — " + why);
      continue;
    }
    // A claim resting on a statement that was later revised (or a PR later
    // reverted) says so, with a link to what replaced it.
    for (const auto& u : urls) {
      const Evidence* e = by_url[u];
      if (!e->superseded_by.empty() && line.find(e->superseded_by) == std::string::npos &&
          by_url.count(e->superseded_by)) {
        std::string mark = " (superseded: see [the later statement](" + e->superseded_by + "))";
        if (!line.empty() && line.back() == '.') line.insert(line.size() - 1, mark);
        else line += mark;
        break;
      }
    }
    out.markdown += line + "\n";
  }
  // Removed lines leave their blank neighbours: at most one blank line in a row.
  std::string squeezed;
  for (char c : out.markdown) {
    if (c == '\n' && squeezed.size() >= 2 && squeezed[squeezed.size() - 1] == '\n' &&
        squeezed[squeezed.size() - 2] == '\n') {
      continue;
    }
    squeezed += c;
  }
  while (squeezed.size() > 1 && squeezed.back() == '\n' && squeezed[squeezed.size() - 2] == '\n') squeezed.pop_back();
  out.markdown = std::move(squeezed);
  return out;
}


}  // namespace umwelt::research
