// Code questions answered from the code: the lines of the default
// branch's code windows that state a setting (see extractive.h).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "extractive.h"
#include "umwelt/claims.h"
#include "umwelt/pattern.h"
#include "umwelt/search.h"
#include "umwelt/source_traits.h"
#include "umwelt/text.h"

namespace umwelt::research_internal {

using research::ContentWords;

bool IsCodeQuestion(const std::string& question) {
  static const Pattern asks(R"(^\W*(what|which|where|how|is|are|does|do)\b)", Pattern::kIgnoreCase);
  static const Pattern cue(
      R"(\b(default|defaults|setting|settings|configured|configuration|config|option|options|flag|flags|constant|)"
      R"(port|mode|timeout|timeouts|limit|limits|defined|define|defines|function|method|variable|parameter|)"
      R"(environment variable|env var|pragma|the code|in code|set to|is set|hard-coded|hardcoded)\b)",
      Pattern::kIgnoreCase);
  // How a setting came to be is asked of its history, not of today's code.
  static const Pattern history(R"(\b(evolve|evolved|evolves|evolution|history|over time|timeline|came about)\b)",
                               Pattern::kIgnoreCase);
  return asks.Search(question) && cue.Search(question) && !history.Search(question);
}

namespace {

// "path#L12-L71" -> path, 12; 0 when the url names no line range.
int WindowStart(const std::string& url, std::string* base) {
  static const Pattern range(R"(^(.*)#L([0-9]{1,9})-L[0-9]{1,9}$)");
  Groups g;
  if (!range.Matches(url, &g)) return 0;
  *base = std::string(g[1]);
  return std::stoi(std::string(g[2]));
}

std::string PathOf(const std::string& base) {
  static const Pattern local(R"(^git\+file://[^:]*:(.+)$)");
  static const Pattern github(R"(^https://github\.com/[^/]+/[^/]+/blob/[^/]+/(.+)$)");
  Groups g;
  if (local.Matches(base, &g) || github.Matches(base, &g)) return std::string(g[1]);
  return base;
}

bool IsDocPath(const std::string& path) {
  static const Pattern doc(R"(\.(md|markdown|rst|txt|adoc)$)", Pattern::kIgnoreCase);
  return doc.Search(path);
}

bool IsComment(std::string_view line) {
  size_t a = line.find_first_not_of(" \t");
  if (a == std::string_view::npos) return false;
  line.remove_prefix(a);
  for (std::string_view open : {"//", "#", "*", "/*", "--", ";"}) {
    if (line.substr(0, open.size()) == open) return true;
  }
  return false;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  for (size_t p = 0; p <= text.size();) {
    size_t nl = text.find('\n', p);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(p, nl - p));
    p = nl + 1;
  }
  return lines;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> CodeQuestionWords(const std::string& question) {
  // Stems, so "uses" and "use" meet; words every code question has say
  // nothing about which line answers it.
  static const std::set<std::string> generic = {"code", "use", "used", "doe", "does", "set", "valu", "what",
                                                "which", "where", "how", "default", "defin", "function", "method",
                                                "configur", "config", "configuration", "set", "option", "flag",
                                                "constant", "paramet", "variabl", "support", "hardcod"};
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& w : ContentWords(question)) {
    // "fine-tuning" is two words, as research::MatchForm reads a record.
    std::string lower = ToLower(w);
    std::replace(lower.begin(), lower.end(), '-', ' ');
    std::replace(lower.begin(), lower.end(), '_', ' ');
    for (const auto& word : SplitList(lower, ' ')) {
      std::string stem = StemWord(word);
      bool seen = std::any_of(out.begin(), out.end(), [&](const auto& p) { return p.second == stem; });
      if (stem.size() >= 3 && !generic.count(stem) && !seen) out.emplace_back(word, stem);
    }
  }
  return out;
}

std::string WindowPath(const std::string& url) {
  std::string base;
  return WindowStart(url, &base) > 0 ? PathOf(base) : "";
}

const Evidence* WindowOfLine(const std::string& url, const std::vector<Evidence>& ev) {
  static const Pattern line(R"(^(.*)#L([0-9]{1,9})$)");
  Groups g;
  if (!line.Matches(url, &g)) return nullptr;
  std::string base(g[1]);
  int n = std::stoi(std::string(g[2]));
  for (const auto& e : ev) {
    std::string b;
    int first = WindowStart(e.url, &b);
    if (first <= 0 || b != base) continue;
    int count = static_cast<int>(std::count(e.text.begin(), e.text.end(), '\n')) + 1;
    if (n >= first && n < first + count) return &e;
  }
  return nullptr;
}

std::vector<CodeLine> CodeAnswerLines(const std::string& question, const std::vector<Evidence>& ev) {
  std::vector<CodeLine> out;
  if (!IsCodeQuestion(question)) return out;
  std::vector<std::string> stems;
  for (const auto& [word, stem] : CodeQuestionWords(question)) stems.push_back(stem);
  bool wants_default = false;
  for (const auto& w : ContentWords(question)) wants_default |= StemWord(ToLower(w)) == "default";
  if (stems.empty()) return out;
  double need = std::min<double>(2, static_cast<double>(stems.size()));
  // A literal or a constant given as the value ("= 8765", "=WAL", "default_val(64").
  static const Pattern value(R"(((^|[^=!<>])=|:|default_val\(|default\()\s*("|'|-?[0-9]|[A-Z][A-Z0-9_]+\b))");
  // A word few windows hold says more about which line answers than one
  // most of them hold ("journal" against "mode").
  std::map<std::string, double> weight;
  {
    std::vector<std::string> forms;
    for (const auto& e : ev) {
      if (e.lane == "main") forms.push_back(research::MatchForm(e.text));
    }
    for (const auto& st : stems) {
      double df = static_cast<double>(std::count_if(forms.begin(), forms.end(), [&](const std::string& f) {
        return f.find(st) != std::string::npos;
      }));
      weight[st] = std::log((static_cast<double>(forms.size()) + 1) / (df + 0.5)) + 0.5;
    }
  }
  for (const auto& e : ev) {
    if (e.lane != "main") continue;
    std::string base;
    int first = WindowStart(e.url, &base);
    if (first <= 0) continue;
    std::string path = PathOf(base);
    int file_class = FileClass(path);
    if (file_class >= 2) continue;  // data files (an eval's own questions, fixtures) state nothing
    std::string path_form = research::MatchForm(path);
    std::vector<std::string> lines = Lines(e.text);
    for (size_t i = 0; i < lines.size(); ++i) {
      const std::string& line = lines[i];
      if (line.size() > 400 || CollapseWhitespace(line).size() < 4) continue;
      std::string form = research::MatchForm(line);
      std::string comment = i > 0 && IsComment(lines[i - 1]) && !IsComment(line) ? lines[i - 1] : "";
      std::string comment_form = research::MatchForm(comment);
      // Each word counts whole in the line, half in the comment above it
      // or in the file's path.
      double in_line = 0, named = 0, weighed = 0;
      for (const auto& s : stems) {
        if (form.find(s) != std::string::npos) in_line += 1, named += 1, weighed += weight[s];
        else if (comment_form.find(s) != std::string::npos || path_form.find(s) != std::string::npos) {
          named += 0.5, weighed += 0.5 * weight[s];
        }
      }
      // A line answers when it names the question's words (with its comment
      // and file) and states a value, or is a comment that names them all.
      if (in_line < 1 || named < need || named < 0.6 * static_cast<double>(stems.size())) continue;
      bool states_value = value.Search(line);
      if (!states_value && !(IsComment(line) && in_line == static_cast<double>(stems.size()))) continue;
      CodeLine c;
      c.window = &e;
      c.number = first + static_cast<int>(i);
      c.text = line;
      c.comment = comment;
      c.url = base + "#L" + std::to_string(c.number);
      c.path = path;
      c.score = weighed + (wants_default && form.find("default") != std::string::npos ? 1 : 0) -
                (IsComment(line) ? 0.25 : 0) - (file_class == 1 ? 1.5 : 0) - (IsDocPath(path) ? 0.75 : 0);
      out.push_back(std::move(c));
    }
  }
  // Best first; one line per place (overlapping windows repeat lines).
  std::stable_sort(out.begin(), out.end(), [](const CodeLine& a, const CodeLine& b) { return a.score > b.score; });
  std::vector<CodeLine> best;
  std::set<std::string> seen;
  for (auto& c : out) {
    if (best.size() >= 3 || (!best.empty() && c.score < 0.8 * best.front().score)) break;
    if (seen.insert(c.url).second) best.push_back(std::move(c));
  }
  return best;
}

std::string UnnamedCodeWord(const std::string& question, const std::vector<Evidence>& ev) {
  // Tests and data files (fixtures, an eval's own questions) hold any word;
  // they do not make a subject the project's.
  std::vector<std::string> forms;
  for (const auto& e : ev) {
    if (std::string path = WindowPath(e.url); !path.empty() && FileClass(path) >= 1) continue;
    forms.push_back(research::MatchForm(e.title + "\n" + e.text));
  }
  for (const auto& word_stem : CodeQuestionWords(question)) {
    // Not a structured binding: clang 14 cannot capture one in a lambda.
    const std::string& word = word_stem.first;
    const std::string& stem = word_stem.second;
    bool named = std::any_of(forms.begin(), forms.end(), [&](const std::string& f) {
      return f.find(word) != std::string::npos || NamesStem(f, stem);
    });
    if (!named && stem.size() >= 4) return word;
  }
  return "";
}

}  // namespace umwelt::research_internal
