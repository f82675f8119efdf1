#include "umwelt/pattern.h"
#include "umwelt/claims.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <set>

#include "extractive.h"
#include "umwelt/redact.h"
#include "umwelt/search.h"
#include "umwelt/text.h"
#include "words.h"

namespace umwelt::research {
namespace {

bool Digit(char c) { return c >= '0' && c <= '9'; }
bool Alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }

// Where a match form's joined words begin (MatchForm).
constexpr char kJoinedMark = '\x1f';
// What ends a key's spelling that is said only where a word ends after it
// (WithShortNamesApart).
constexpr char kWordEnd = '\x1e';

}  // namespace

bool HasHump(std::string_view w) {
  return std::adjacent_find(w.begin(), w.end(), [](char a, char b) {
           return std::islower(static_cast<unsigned char>(a)) != 0 && std::isupper(static_cast<unsigned char>(b)) != 0;
         }) != w.end();
}

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

std::string SpaceJoined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

std::vector<std::string> NameWords(std::string_view text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && !std::isalnum(static_cast<unsigned char>(text[i]))) ++i;
    size_t e = i;
    while (e < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[e])) || text[e] == '_' ||
            ((text[e] == '-' || text[e] == '.') && e + 1 < text.size() && std::isalnum(static_cast<unsigned char>(text[e + 1]))))) {
      ++e;
    }
    // A language's pluses are its name's: "C++17", "C++", "g++".
    if (e > i && std::isalpha(static_cast<unsigned char>(text[e - 1])) && text.substr(e, 2) == "++") {
      e += 2;
      while (e < text.size() && std::isdigit(static_cast<unsigned char>(text[e]))) ++e;
    }
    // A protocol's version is its name's: "HTTP/2", "HTTP/1.1".
    if (e > i + 1 && std::isalpha(static_cast<unsigned char>(text[e - 1])) && e + 1 < text.size() &&
        text[e] == '/' && std::isdigit(static_cast<unsigned char>(text[e + 1]))) {
      e += 2;
      while (e < text.size() && (std::isdigit(static_cast<unsigned char>(text[e])) ||
                                 (text[e] == '.' && e + 1 < text.size() &&
                                  std::isdigit(static_cast<unsigned char>(text[e + 1]))))) {
        ++e;
      }
    }
    if (e > i) out.emplace_back(text.substr(i, e - i));
    i = e;
  }
  return out;
}

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

bool Asks(std::string_view sentence) {
  std::string_view s = sentence;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  if (!s.empty() && s.back() == '?') return true;
  static const Pattern opens(
      R"(^\W*(i (was |am )?wondering|i'm wondering|i wonder\b|i('d| would) like to know|is (there|it possible)|does (any|some)(one|body)|)"
      R"(has (any|some)(one|body)|can (i|we|you|some(one|body))|how (do|can|should|would) (i|we|you)|)"
      R"(any (idea|way|suggestion|pointer)s?\b))",
      Pattern::kIgnoreCase);
  return opens.Search(s);
}

namespace {

// "EPS support", "libFS ansification.": a name (an acronym, or a word with
// a capital inside) and a word of small letters that says what of it, the
// whole of a title; not "LGTM thanks".
bool IsNameAndWhatOfIt(const std::string& s) {
  static const std::set<std::string, std::less<>> kChat = {"thanks", "thank", "please", "done",
                                                           "agreed", "works", "ping",   "bump",
                                                           "nice",   "cool",  "great",  "sorry"};
  const size_t space = s.find(' ');
  if (space == std::string::npos || s.find(' ', space + 1) != std::string::npos) return false;
  auto name = [](std::string_view w) {
    size_t upper = std::count_if(w.begin(), w.end(),
                                 [](char c) { return std::isupper(static_cast<unsigned char>(c)) != 0; });
    size_t lower = std::count_if(w.begin(), w.end(),
                                 [](char c) { return std::islower(static_cast<unsigned char>(c)) != 0; });
    bool acronym = upper >= 2 && upper >= lower;
    return w.size() >= 2 &&
           std::all_of(w.begin(), w.end(),
                       [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }) &&
           (acronym || HasHump(w));
  };
  auto what = [](std::string_view w) {
    while (!w.empty() && (w.back() == '.' || w.back() == ':')) w.remove_suffix(1);
    return w.size() >= 4 && std::all_of(w.begin(), w.end(), [](char c) { return c >= 'a' && c <= 'z'; }) &&
           kChat.count(w) == 0;
  };
  std::string_view a(s.data(), space), b(s.data() + space + 1, s.size() - space - 1);
  return (name(a) && what(b)) || (name(b) && what(a));
}

}  // namespace

bool IsStatement(std::string_view sentence) {
  std::string s = CollapseWhitespace(sentence);
  if (s.size() >= 8 && IsNameAndWhatOfIt(s)) return true;
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
  // Shell commands and their prompts; a command is typed in lower case, so
  // "Make the loader prefetch" and "Export only public symbols" are prose.
  if (starts({"$ ", "./"}) ||
      (std::isupper(static_cast<unsigned char>(s[0])) == 0 &&
       starts({"python ",   "python3 ", "pip ",    "uv ",      "git ",    "docker ", "cd ",    "export ",
               "sudo ",     "bash ",    "sh ",     "make ",    "cmake ",  "npm ",    "npx ",   "pytest",
               "torchrun ", "srun ",    "sbatch ", "kubectl ", "gcloud ", "ray ",    "conda ", "apt ",
               "apt-get ",  "curl ",    "wget ",   "ls ",      "mkdir ",  "rm "}))) {
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
  // Code and file lists: words of prose are few, symbols and paths many.
  // Prose words are words of letters, measures ("38.5%", "451k", "(362k")
  // and names with digits ("H100s", "Qwen3"), stripped of punctuation.
  int words = 0, letters_words = 0, pathish = 0, flags = 0;
  size_t symbols = 0;
  for (size_t k = 0; k < s.size(); ++k) {
    bool percent = s[k] == '%' && k > 0 && std::isdigit(static_cast<unsigned char>(s[k - 1]));
    if (!percent && std::strchr("{}()[];=<>*&^%$@\\`~", s[k])) ++symbols;
  }
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    size_t e = s.find(' ', i);
    if (e == std::string::npos) e = s.size();
    std::string_view w(s.data() + i, e - i);
    i = e;
    if (w.empty()) continue;
    ++words;
    if (w.rfind("--", 0) == 0 || (w.size() == 2 && w[0] == '-' && Alpha(w[1]))) ++flags;
    std::string_view t = w;
    while (!t.empty() && std::strchr("(\"'[", t.front())) t.remove_prefix(1);
    while (!t.empty() && std::strchr(")\"',:;.!?]", t.back())) t.remove_suffix(1);
    // A name written as a glob of initials: "[GS]etFoo".
    if (size_t close = t.find(']'); close != std::string_view::npos && close >= 2 && close <= 4 &&
                                    std::all_of(t.begin(), t.begin() + static_cast<long>(close), Alpha)) {
      t.remove_prefix(close + 1);
    }
    if (t.empty()) continue;
    bool alpha = std::all_of(t.begin(), t.end(), [](char c) {
      return Alpha(c) || c == '\'' || c == '-' || c == '.' || c == ',' || static_cast<unsigned char>(c) >= 0x80;
    });
    std::string_view m = t.front() == '#' ? t.substr(1) : t;
    size_t digits_end = m.find_first_not_of("0123456789.,");
    bool measure = !m.empty() && Digit(m.front()) &&
                   (digits_end == std::string_view::npos ||
                    (m.size() - digits_end <= 8 && std::all_of(m.begin() + digits_end, m.end(), [](char c) {
                       return Alpha(c) || c == '%' || c == '/';
                     })));
    bool named = std::all_of(t.begin(), t.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }) &&
                 std::any_of(t.begin(), t.end(), Alpha);
    letters_words += alpha || measure || named;
    size_t slash = t.find('/');
    bool ratio = slash != std::string_view::npos && slash > 0 && t.size() - slash - 1 <= 3 &&
                 t.find('/', slash + 1) == std::string_view::npos &&
                 std::all_of(t.begin(), t.end(), [](char c) { return Alpha(c) || c == '/'; });  // tokens/s, and/or
    bool dotted = false;  // file.py, module.attr: a dot between letters
    for (size_t k = 1; k + 1 < t.size(); ++k) dotted |= t[k] == '.' && Alpha(t[k - 1]) && Alpha(t[k + 1]);
    if ((slash != std::string_view::npos && !ratio && !measure) || t.find('_') != std::string_view::npos || dotted) ++pathish;
  }
  // "Add GetScreenResourcesCurrent": a verb and the name in code it acts on.
  auto verb_and_name = [&] {
    size_t space = s.find(' ');
    std::string_view verb(s.data(), space), name(s.data() + space + 1, s.size() - space - 1);
    bool code = HasHump(name) || name.find('_') != std::string_view::npos;
    return verb.size() >= 3 && std::all_of(verb.begin(), verb.end(), Alpha) &&
           std::isupper(static_cast<unsigned char>(verb[0])) != 0 && code && name.size() >= 8 &&
           name.find_first_of("/.") == std::string_view::npos;
  };
  if (words == 2 && verb_and_name()) return true;
  if (words < 3 || letters_words < 3) return false;
  if (flags >= 2) return false;
  if (symbols * 8 > s.size()) return false;
  if (pathish * 2 > words) return false;
  if (letters_words * 2 < words) return false;
  return true;
}

AnswerType AnswerTypeOf(std::string_view question) {
  std::string q = " " + ToLower(CollapseWhitespace(question)) + " ";
  static const Pattern when(R"(^ (when|since when|what (date|day|year|month|version|release))\b|\b(which|what) (version|release|date)\b)");
  static const Pattern quantity(
      R"(\bhow (many|much|fast|long|large|big|slow|quickly|often)\b|\bwhat( is| was| were| are| did)?( the)?( final| peak| best| highest| lowest| average| typical)? )"
      R"((mfu|loss|throughput|speed|speedup|accuracy|latency|perplexity|score|rate|size|percentage|memory|cost|batch size)\b)");
  static const Pattern named(R"(^ (which|who|whom|whose)\b|^ what \w+ (do|does|did|can|could|are|were|is|was|exist|exists)\b)");
  if (when.Search(q)) return AnswerType::kWhen;
  if (quantity.Search(q)) return AnswerType::kQuantity;
  if (named.Search(q)) return AnswerType::kNamed;
  return AnswerType::kOther;
}

std::vector<std::string> AnsweringNumbers(std::string_view sentence, const std::vector<std::string>& terms) {
  std::vector<std::string> out;
  std::string lower = ToLower(sentence);
  // Word index of each question term's occurrences.
  std::vector<std::string> words;
  for (size_t i = 0; i < lower.size();) {
    while (i < lower.size() && std::isspace(static_cast<unsigned char>(lower[i]))) ++i;
    size_t e = i;
    while (e < lower.size() && !std::isspace(static_cast<unsigned char>(lower[e]))) ++e;
    if (e > i) words.push_back(lower.substr(i, e - i));
    i = e;
  }
  std::vector<size_t> term_at;
  for (size_t w = 0; w < words.size(); ++w) {
    for (const auto& t : terms) {
      if (words[w].find(t) != std::string::npos) term_at.push_back(w);
    }
  }
  for (const auto& n : Numbers(sentence)) {
    std::string digits = n.substr(0, n.find_first_not_of("0123456789.,"));
    if (std::count(digits.begin(), digits.end(), '.') >= 2) continue;  // a version
    bool near = false;
    for (size_t w = 0; w < words.size() && !near; ++w) {
      if (!ContainsNumber(words[w], digits)) continue;
      for (size_t t : term_at) near |= (t > w ? t - w : w - t) <= 6;
    }
    std::string unit = UnitOf(n);
    bool unit_asked = !unit.empty() && std::any_of(terms.begin(), terms.end(), [&](const std::string& t) {
      return t.size() >= 2 && (unit.find(t) != std::string::npos || t.find(unit) != std::string::npos);
    });
    if (near || unit_asked) out.push_back(n);
  }
  return out;
}

std::vector<std::string> CountsOf(std::string_view sentence, std::string_view noun) {
  std::vector<std::string> out;
  if (noun.empty()) return out;
  auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  struct Word {
    std::string text;  // lower case, without the punctuation around it
    bool breaks;       // punctuation after it ends the phrase
  };
  std::vector<Word> words;
  for (size_t i = 0; i < sentence.size();) {
    while (i < sentence.size() && std::isspace(static_cast<unsigned char>(sentence[i]))) ++i;
    size_t e = i;
    while (e < sentence.size() && !std::isspace(static_cast<unsigned char>(sentence[e]))) ++e;
    std::string_view w = sentence.substr(i, e - i);
    i = e;
    size_t a = 0, b = w.size();
    while (a < b && !alnum(w[a])) ++a;
    while (b > a && !alnum(w[b - 1])) --b;
    if (a == b) continue;
    words.push_back({ToLower(w.substr(a, b - a)), w.substr(b).find_first_of(",;:()[]") != std::string_view::npos});
  }
  // A count: digits, with thousands' commas or a k/m suffix ("1,024", "451k").
  static const Pattern count(R"(^\d[\d,]*[km]?$)");
  for (size_t w = 0; w < words.size(); ++w) {
    if (!count.Search(words[w].text) || words[w].breaks) continue;
    for (size_t k = w + 1; k < words.size() && k <= w + 3; ++k) {
      if (words[k].text.rfind(noun, 0) == 0) {
        out.push_back(words[w].text);
        break;
      }
      if (words[k].breaks || std::isdigit(static_cast<unsigned char>(words[k].text[0]))) break;
    }
  }
  return out;
}

double AnswerFit(std::string_view sentence, AnswerType type, const std::vector<std::string>& terms) {
  switch (type) {
    case AnswerType::kQuantity:
      if (!AnsweringNumbers(sentence, terms).empty()) return 2;
      return Numbers(sentence).empty() ? 0 : 0.5;
    case AnswerType::kWhen: {
      static const Pattern event(
          R"(\b(add(s|ed)?|introduc\w*|land(s|ed)?|merg\w*|releas\w*|switch\w*|mov(e|ed|es)|replac\w*|remov\w*|deprecat\w*|support(s|ed)?|enabl\w*|since|first|now)\b)",
          Pattern::kIgnoreCase);
      static const Pattern dated(
          R"(\b(19|20)\d\d\b|\bv?\d+\.\d+(\.\d+)?\b|\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d)",
          Pattern::kIgnoreCase);
      std::string s(sentence);
      return (event.Search(s) ? 1.0 : 0.0) + (dated.Search(s) ? 1.0 : 0.0);
    }
    case AnswerType::kNamed: {
      // Names: capitalized words inside the sentence and identifiers with
      // digits; those the question already says do not count.
      std::vector<std::string> words = NameWords(sentence);
      int names = 0;
      for (size_t i = 0; i < words.size(); ++i) {
        const std::string& w = words[i];
        bool digit = std::any_of(w.begin(), w.end(), Digit), alpha = std::any_of(w.begin(), w.end(), Alpha);
        if (!((i > 0 && std::isupper(static_cast<unsigned char>(w[0]))) || (digit && alpha))) continue;
        std::string low = ToLower(w);
        names += std::none_of(terms.begin(), terms.end(), [&](const std::string& t) { return low.find(t) != std::string::npos; });
      }
      return std::min(2.0, names * 0.5);
    }
    case AnswerType::kOther: return 0;
  }
  return 0;
}

std::string BestSentence(std::string_view text, const std::vector<std::string>& terms, AnswerType type, bool tells_only) {
  std::string best;
  double best_score = -1;
  // Sentences as written: a wrapped line is not a sentence of its own.
  for (std::string s : ProseSentences(text)) {
    if (s.size() > 2 && (s[0] == '*' || s[0] == '-' || s[0] == '+') && s[1] == ' ') s.erase(0, 2);  // a list item
    if (!IsStatement(s) || (tells_only && Asks(s))) continue;
    std::string lower = ToLower(s);
    double score = 0;
    for (const auto& t : terms) score += lower.find(t) != std::string::npos ? 1 : 0;
    if (type == AnswerType::kOther) score += Numbers(s).empty() ? 0 : 0.5;
    else score += 0.5 * AnswerFit(s, type, terms);
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
    // A line of code quoted whole (a code question's answer) is what it is.
    bool code_line = quote.size() > 2 && quote.front() == '`' && quote.back() == '`' &&
                     quote.find('`', 1) == quote.size() - 1;
    // A timeline's date before its linked title ("- 2024-08-05 — [title](…)") quotes nothing.
    bool dated = quote.size() == 10 && ParseIsoTime(quote + "T00:00:00Z").has_value();
    junk += !code_line && !dated && !research::IsStatement(quote);
  }
  return junk;
}

namespace {

// Each of `evidence`'s permalinks past its scheme (every permalink's
// "https" is not the project's name), lower-case.
std::vector<std::string> Permalinks(const std::vector<Evidence>& evidence) {
  std::vector<std::string> out;
  for (const auto& e : evidence) {
    size_t scheme = e.url.find("://");
    out.push_back(ToLower(e.url.substr(scheme == std::string::npos ? 0 : scheme + 3)));
  }
  return out;
}

// Whether four in five of `links` or more hold one of `parts`: the project's own name.
bool MostHold(const std::vector<std::string>& links, std::initializer_list<std::string_view> parts) {
  size_t carry = std::count_if(links.begin(), links.end(), [&](const std::string& url) {
    return std::any_of(parts.begin(), parts.end(),
                       [&](std::string_view p) { return url.find(p) != std::string::npos; });
  });
  return carry * 5 >= links.size() * 4;
}

// `links` less the digits that end a word's letters ("xfce4-terminal" is
// "xfce-terminal", "gtk3" "gtk").
std::vector<std::string> WithoutVersionDigits(std::vector<std::string> links) {
  auto letter = [](char c) { return c >= 'a' && c <= 'z'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  for (auto& url : links) {
    std::string out;
    for (size_t i = 0; i < url.size(); ++i) {
      if (digit(url[i]) && !out.empty() && letter(out.back())) {
        size_t end = i;
        while (end < url.size() && digit(url[end])) ++end;
        if (end == url.size() || !letter(url[end])) {
          i = end - 1;
          continue;
        }
      }
      out += url[i];
    }
    url = std::move(out);
  }
  return links;
}

// A hyphened name that begins with two words or more of the project's own
// hyphened name is told by its other words: "validate" of
// desktop-file-validate in desktop-file-utils, whose records say
// "validate: ...".
std::string WithoutProjectStem(const std::string& key, const std::vector<std::string>& links) {
  size_t cut = 0;
  for (size_t at = key.find('-'); at != std::string::npos; at = key.find('-', at + 1)) {
    const std::string stem = key.substr(0, at + 1);
    if (std::count(stem.begin(), stem.end(), '-') < 2) continue;
    if (!MostHold(links, {"/" + stem})) break;
    cut = at + 1;
  }
  return cut == 0 || cut == key.size() ? key : key.substr(cut);
}

}  // namespace

std::vector<std::string> WithoutProjectNames(std::vector<std::string> constraints, const std::vector<Evidence>& evidence,
                                             const std::vector<std::string>& widespread) {
  std::erase_if(constraints, [&](const std::string& c) {
    return std::find(widespread.begin(), widespread.end(), c) != widespread.end();
  });
  if (evidence.size() < 3) return constraints;
  const std::vector<std::string> links = Permalinks(evidence);
  std::vector<std::string> unversioned;  // links less their words' versions, read once where needed
  std::vector<std::string> out;
  for (const auto& key : constraints) {
    // A version of the project ("RandR 1.5" in libXrandr's history) is that
    // version: its records say "update to version 1.5". A key with other
    // spellings ("parole|parol") is the project's by the first, as written.
    const std::string written = key.substr(0, key.find('|'));
    size_t space = written.find(' ');
    bool versioned = space != std::string::npos &&
                     written.find_first_not_of("0123456789.", space + 1) == std::string::npos;
    const std::string c = versioned ? written.substr(0, space) : written;
    // A name of several words is written with hyphens in a permalink:
    // "Mission Control" of telepathy-mission-control, and "Xfce Terminal"
    // of xfce4-terminal (a word's version in the permalink's name).
    std::string hyphened = c;
    std::replace(hyphened.begin(), hyphened.end(), ' ', '-');
    const bool words = hyphened != c;
    if (words && unversioned.empty()) unversioned = WithoutVersionDigits(links);
    if (!MostHold(links, {c, hyphened}) && !(words && MostHold(unversioned, {hyphened}))) {
      out.push_back(WithoutProjectStem(key, links));
    } else if (versioned) {
      out.push_back(key + "|version" + written.substr(space));
    }
  }
  return out;
}

std::string MatchForm(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((text[i] | 0x20) == 'h') i += LinkSchemeAt(text, i);  // a link's scheme is not a word the text says
    char c = text[i];
    char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (l == '-' || l == '_' || l == kJoinedMark || std::isspace(static_cast<unsigned char>(l))) l = ' ';
    // A plus after a name is no part of it ("GTK+3", "GTK+ 3" are "gtk 3"); a
    // language's pluses are ("C++", "g++").
    if (l == '+' && !out.empty() && std::isalpha(static_cast<unsigned char>(out.back())) &&
        (i + 1 >= text.size() || text[i + 1] != '+')) {
      l = ' ';
    }
    if (l == ' ' && (out.empty() || out.back() == ' ')) continue;
    out += l;
  }
  // What follows the mark are the text's words joined: a name is said there
  // only from one's start (SaysWithItsNumbers), so "hdr" is not in
  // "vmwgfx_flush_dri2". A text with none reads as it is ("variable fonts").
  std::string joined;
  for (const auto& parts : CompoundParts(text)) {  // "z-loss" is also zloss
    joined += " ";
    for (const auto& p : parts) joined += p;
    if (parts.size() == 3) joined += " " + parts[1] + parts[2];  // and "use_z_loss" zloss
  }
  for (const auto& g : GlobbedNames(text)) joined += " " + g;  // "[GS]etFoo" is getfoo and setfoo
  if (!joined.empty()) out += std::string(" ") + kJoinedMark + joined;
  return out;
}

std::string TitleForm(std::string_view text) {
  std::string out = MatchForm(text);
  // "XIScrollClass" also says "scroll class" (its words apart).
  auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  for (size_t i = 0, n = 0; i < text.size() && n < 256;) {
    size_t e = i;
    while (e < text.size() && alnum(text[e])) ++e;
    std::string_view tok = text.substr(i, e - i);
    if (tok.size() <= 64 && HasHump(tok)) {
      ++n;
      for (const auto& part : SplitIdentifier(tok)) out += " " + part;
    }
    i = e == i ? e + 1 : e;
  }
  return out;
}

namespace {

// Whether `form` says `alt` where the text's numbers allow: a name ending
// in a number is not said where that number goes on ("sha3" is not in
// "sha384"), nor one beginning with a number where one ends ("3d" in
// "23d").
bool SaysWithItsNumbers(std::string_view form, std::string_view alt) {
  const bool word_end = alt.size() > 1 && alt.back() == kWordEnd;
  if (word_end) alt.remove_suffix(1);
  const bool digit_last = Digit(alt.back()), digit_first = Digit(alt.front());
  const size_t joined = form.rfind(kJoinedMark);
  // A name's number written apart ends a word: "dri 3" is not in "DRI 3D".
  const bool number_apart = digit_last && alt.find(' ') != std::string_view::npos;
  for (size_t at = form.find(alt); at != std::string_view::npos; at = form.find(alt, at + 1)) {
    const size_t end = at + alt.size();
    if (joined != std::string_view::npos && at > joined && form[at - 1] != ' ') continue;
    if (word_end && end < form.size() && Alpha(form[end])) continue;
    if (digit_last && end < form.size() && Digit(form[end])) continue;
    if (number_apart && end < form.size() && std::isalpha(static_cast<unsigned char>(form[end])) != 0) {
      continue;
    }
    if (digit_first && at > 0 && Digit(form[at - 1])) continue;
    return true;
  }
  return false;
}

}  // namespace

bool Mentions(std::string_view match_form, const std::string& key) {
  for (size_t at = 0; at <= key.size();) {
    size_t bar = key.find('|', at);
    if (bar == std::string::npos) bar = key.size();
    if (bar > at && SaysWithItsNumbers(match_form, std::string_view(key).substr(at, bar - at))) return true;
    at = bar + 1;
  }
  return false;
}

std::string Shown(const std::string& key) {
  std::string first = key.substr(0, key.find('|'));
  std::erase(first, kWordEnd);
  return first;
}

std::vector<std::string> WithShortNamesApart(std::vector<std::string> keys, const std::string& question) {
  std::vector<std::string> words;
  for (const auto& w : ContentWords(question)) {
    if (std::all_of(w.begin(), w.end(), Alpha)) words.push_back(w);
  }
  for (auto& key : keys) {
    std::string out;
    for (const auto& alt : SplitList(key, '|')) {
      bool short_name = !alt.empty() && alt.size() <= 4 && std::all_of(alt.begin(), alt.end(), Alpha);
      bool starts_another = short_name && std::any_of(words.begin(), words.end(), [&](const std::string& w) {
                              return w.size() > alt.size() + 1 && w.starts_with(alt);
                            });
      out += (out.empty() ? "" : "|") + alt + (starts_another ? std::string(1, kWordEnd) : "");
    }
    key = std::move(out);
  }
  return keys;
}

namespace {

bool SmallWord(const std::string& w) {
  static const std::set<std::string> k = {"of", "the", "and", "for", "in", "on", "to", "a", "an", "with"};
  return k.count(w) > 0;
}

std::vector<std::string> SpaceWords(const std::string& s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size();) {
    size_t e = s.find(' ', i);
    if (e == std::string::npos) e = s.size();
    if (e > i) out.push_back(s.substr(i, e - i));
    i = e + 1;
  }
  return out;
}

// The initials of `words`, with and without the small ones ("mixture of
// experts": moe, me).
std::vector<std::string> Initials(const std::vector<std::string>& words) {
  std::string all, big;
  for (const auto& w : words) {
    if (w.empty() || !std::isalpha(static_cast<unsigned char>(w[0]))) return {};
    all += w[0];
    if (!SmallWord(w)) big += w[0];
  }
  std::vector<std::string> out;
  if (all.size() >= 2) out.push_back(all);
  if (big.size() >= 2 && big != all) out.push_back(big);
  return out;
}

// The names in code `texts` write with the words of `words` but its first
// (a library's prefix), in any order: "create_image_from_bitmap_data" for
// xcb_image_create_from_bitmap_data, from before the library's names took
// their prefix; as MatchForm spells them.
std::vector<std::string> SameWordsLessThePrefix(const std::vector<std::string>& words,
                                                const std::vector<std::string>& texts) {
  std::vector<std::string> want(words.begin() + 1, words.end());
  std::sort(want.begin(), want.end());
  auto part = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; };
  std::vector<std::string> out;
  for (const auto& t : texts) {
    for (size_t i = 0; i < t.size() && out.size() < 4;) {
      size_t e = i;
      while (e < t.size() && part(t[e])) ++e;
      std::string_view token(t.data() + i, e - i);
      i = e == i ? e + 1 : e;
      if (token.size() > 128 ||
          static_cast<size_t>(std::count(token.begin(), token.end(), '_')) + 1 != want.size()) {
        continue;
      }
      std::vector<std::string> parts = SplitList(ToLower(std::string(token)), '_');
      const std::string spelt = SpaceJoined(parts);
      std::sort(parts.begin(), parts.end());
      if (parts == want && std::find(out.begin(), out.end(), spelt) == out.end()) out.push_back(spelt);
    }
  }
  return out;
}

bool LettersOnly(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}

}  // namespace

std::vector<std::string> WithVariants(const std::vector<std::string>& keys, const std::vector<std::string>& texts) {
  // The records are read only for a key that can have an acronym or an
  // expansion, and once.
  std::vector<std::string> forms;
  auto read = [&]() -> const std::vector<std::string>& {
    if (forms.empty()) {
      for (const auto& t : texts) forms.push_back(MatchForm(t));
    }
    return forms;
  };
  std::vector<std::string> out;
  for (const auto& listed : keys) {
    // Alternatives ("png|jpeg|svg"), each with its own spellings.
    if (listed.find('|') != std::string::npos) {
      std::string any;
      for (const auto& one : WithVariants(SplitList(listed, '|'), texts)) any += (any.empty() ? "" : "|") + one;
      out.push_back(any);
      continue;
    }
    const std::string& key = listed;
    std::vector<std::string> alts;
    auto add = [&](const std::string& a) {
      if (a.size() >= 2 && std::find(alts.begin(), alts.end(), a) == alts.end()) alts.push_back(a);
    };
    // The key as written, with its separators as spaces, and joined.
    std::string plain;
    for (char c : key) plain += (c == '-' || c == '_') ? ' ' : c;
    std::vector<std::string> words = SpaceWords(CollapseWhitespace(plain));
    const std::string as_words = SpaceJoined(words);
    add(as_words);
    std::string spelt;  // the other spelling, British or American: "colour management", "color management"
    for (const auto& w : words) {
      std::string other = w.size() >= 5 ? research_internal::OtherSpelling(w) : "";
      spelt += (spelt.empty() ? "" : " ") + (other.empty() ? w : other);
    }
    add(spelt);
    if (words.size() > 1) {
      std::string joined;
      for (const auto& w : words) joined += w;
      add(joined);
    }
    // A chip's model number also names its family: "r600" is said as r6xx.
    if (words.size() == 1) {
      for (const auto& f : FamilyNames(as_words)) add(f);
      // A name joining two or three words that records write apart:
      // "debuglevel" is "debug level" where a record says so ("harfbuzz" is
      // never "harf buzz").
      for (const auto& apart : research_internal::WordsApartIn(as_words, read)) add(apart);
      // A name and its number written apart: "xi2" is also "XI 2" (as "qt 6"
      // is Qt6 above).
      const size_t digit = as_words.find_first_of("0123456789");
      if (digit != std::string::npos && digit >= 2 && LettersOnly(as_words.substr(0, digit)) &&
          as_words.find_first_not_of("0123456789", digit) == std::string::npos) {
        add(as_words.substr(0, digit) + " " + as_words.substr(digit));
      }
    }
    if (words.size() >= 4 && key.find('_') != std::string::npos) {
      for (const auto& name : SameWordsLessThePrefix(words, texts)) add(name);
    }
    // Learned from what was found: "mixture of experts (moe)", "moe
    // (mixture of experts)" make the acronym and the phrase one constraint.
    if (words.size() > 2) {  // of three words or more, where a record says the acronym alone
      for (const auto& acr : Initials(words)) {
        if (acr.size() >= 3 && research_internal::SayWords(read(), acr)) add(acr);
      }
    }
    if (words.size() > 1) {
      for (const auto& acr : Initials(words)) {
        for (const auto& f : read()) {
          for (size_t at = f.find(as_words); at != std::string::npos; at = f.find(as_words, at + 1)) {
            std::string after = f.substr(at + as_words.size(), acr.size() + 6);
            if (after.find("(" + acr + ")") != std::string::npos && after.find("(" + acr + ")") <= 3) add(acr);
          }
          if (f.find(acr + " (" + as_words) != std::string::npos) add(acr);
        }
      }
    } else if (LettersOnly(as_words) && as_words.size() >= 2 && as_words.size() <= 6) {
      const std::string& acr = as_words;
      // A name whose capitals spell it, of three letters at least: "GnuPG" for "gpg".
      for (const auto& t : texts) {
        for (const auto& w : acr.size() >= 3 ? NameWords(t) : std::vector<std::string>{}) {
          std::string capitals;
          for (char c : w) {
            if (std::isupper(static_cast<unsigned char>(c))) capitals += static_cast<char>(c | 0x20);
          }
          if (capitals == acr && w.size() > acr.size() && LettersOnly(ToLower(w)) &&
              std::isupper(static_cast<unsigned char>(w[0]))) {
            add(ToLower(w));
          }
        }
      }
      for (const auto& f : read()) {
        // "... fully sharded data parallel (fsdp)": the words before it.
        for (size_t at = f.find("(" + acr + ")"); at != std::string::npos; at = f.find("(" + acr + ")", at + 1)) {
          std::vector<std::string> before = SpaceWords(f.substr(at > 80 ? at - 80 : 0, at > 80 ? 80 : at));
          for (size_t n = acr.size(); n <= acr.size() + 3 && n <= before.size(); ++n) {
            std::vector<std::string> tail(before.end() - static_cast<long>(n), before.end());
            auto in = Initials(tail);
            if (std::find(in.begin(), in.end(), acr) != in.end() && !SmallWord(tail.front())) {
              add(SpaceJoined(tail));
              break;
            }
          }
        }
        // "fsdp (fully sharded data parallel)".
        for (size_t at = f.find(acr + " ("); at != std::string::npos; at = f.find(acr + " (", at + 1)) {
          size_t close = f.find(')', at);
          if (close == std::string::npos || close - at > 90) continue;
          std::string inside = f.substr(at + acr.size() + 2, close - at - acr.size() - 2);
          auto in = Initials(SpaceWords(inside));
          if (std::find(in.begin(), in.end(), acr) != in.end()) add(inside);
        }
      }
    }
    std::string joined_alts;
    for (const auto& a : alts) joined_alts += (joined_alts.empty() ? "" : "|") + a;
    out.push_back(joined_alts.empty() ? key : joined_alts);
  }
  return out;
}

std::vector<std::string> EvidenceTexts(const std::vector<Evidence>& ev) {
  std::vector<std::string> out;
  for (const auto& e : ev) out.push_back(e.title + "\n" + e.text);
  return out;
}

bool MentionsAll(std::string_view text, const std::vector<std::string>& constraints) {
  std::string form = MatchForm(text);
  for (const auto& c : constraints) {
    if (!Mentions(form, c)) return false;
  }
  return true;
}

std::vector<std::string> MarkdownLinks(std::string_view md) {
  static const Pattern link(R"(\]\(([^)\s]+)\))");
  static const Pattern bare(R"((^|[\s(<])(https?://[^\s)>\]]+))");
  std::vector<std::string> out;
  link.ForEach(md, [&](const Groups& g) { return out.emplace_back(g[1]), true; });
  std::string rest = link.ReplaceAll(md, "]");
  bare.ForEach(rest, [&](const Groups& g) { return out.emplace_back(g[2]), true; });
  return out;
}

VerifiedClaims VerifyClaims(const std::string& md, const std::vector<Evidence>& ev) {
  std::map<std::string, const Evidence*> by_url;
  for (const auto& e : ev) by_url[e.url] = &e;
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
    std::vector<std::string> urls = MarkdownLinks(line);
    std::string why;
    std::string cited;
    for (const auto& u : urls) {
      auto e = by_url.find(u);
      // A line of a code window cites that window.
      const Evidence* window = e == by_url.end() ? research_internal::WindowOfLine(u, ev) : e->second;
      if (!window) {
        why = "cites " + u + ", which is not in the evidence";
        break;
      }
      cited += window->text + "\n" + window->title + "\n";
    }
    if (why.empty() && !urls.empty()) {
      // Numbers stated outside link texts and code must be in what is cited.
      static const Pattern links_and_code(R"(\[[^\]]*\]\([^)]*\)|`[^`]*`)");
      std::string prose = links_and_code.ReplaceAll(line, " ");
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
      auto found = by_url.find(u);
      if (found == by_url.end()) continue;
      const Evidence* e = found->second;
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
