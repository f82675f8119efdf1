// Pure helpers of the git source: windows, symbols, skip rules, PR numbers.
#include <algorithm>
#include <array>
#include <cctype>

#include "umwelt/git.h"
#include "umwelt/text.h"

namespace umwelt::git {
namespace {

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool EndsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}
bool IdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

// The name a definition line introduces ("def train_step(" -> "train_step"),
// or "" when the line defines nothing a reader would look for.
std::string DefinedName(std::string_view line) {
  size_t indent = line.find_first_not_of(" \t");
  if (indent == std::string_view::npos) return "";
  std::string_view s = line.substr(indent);
  static constexpr std::array<std::string_view, 17> kKeywords = {
      "async def ", "def ", "class ", "struct ", "enum ", "interface ", "trait ", "impl ", "func ", "fn ",
      "pub fn ", "pub(crate) fn ", "pub async fn ", "async fn ", "function ", "export function ", "export class "};
  for (std::string_view k : kKeywords) {
    if (!StartsWith(s, k)) continue;
    std::string_view rest = s.substr(k.size());
    if (k == "func " && StartsWith(rest, "(")) {  // Go method: func (r *T) Name(
      size_t close = rest.find(')');
      if (close == std::string_view::npos) return "";
      rest = rest.substr(close + 1);
      rest.remove_prefix(std::min(rest.size(), rest.find_first_not_of(' ')));
    }
    size_t n = 0;
    while (n < rest.size() && (IdentChar(rest[n]) || rest[n] == ':' || rest[n] == '<' || rest[n] == '>')) ++n;
    while (n > 0 && (rest[n - 1] == ':' || rest[n - 1] == '<')) --n;  // "class Trainer:"
    if (n == 0) return "";
    return std::string(rest.substr(0, n));
  }
  // C, C++, Java: a definition at column 0 ("int Foo::Bar(int x) {").
  if (indent == 0 && IdentChar(s[0]) && s.find('(') != std::string_view::npos && s.find(';') == std::string_view::npos &&
      (EndsWith(s, "{") || EndsWith(s, ")") || EndsWith(s, ") const {") || EndsWith(s, ",")) &&
      !StartsWith(s, "if") && !StartsWith(s, "for") && !StartsWith(s, "while") && !StartsWith(s, "return") &&
      !StartsWith(s, "switch")) {
    size_t paren = s.find('(');
    size_t end = paren;
    while (end > 0 && s[end - 1] == ' ') --end;
    size_t begin = end;
    while (begin > 0 && (IdentChar(s[begin - 1]) || s[begin - 1] == ':' || s[begin - 1] == '~')) --begin;
    if (begin < end) return std::string(s.substr(begin, end - begin));
  }
  return "";
}

}  // namespace

std::vector<Window> SliceWindows(std::string_view content, int lines, int overlap) {
  std::vector<std::string_view> all;
  size_t start = 0;
  while (start < content.size()) {
    size_t nl = content.find('\n', start);
    size_t end = nl == std::string_view::npos ? content.size() : nl;
    all.push_back(content.substr(start, end - start));
    start = end + 1;
  }
  // The innermost definition in force at each line (a simple scan: the last
  // definition seen at an indentation not deeper than the line's own).
  std::vector<std::string> in_force(all.size());
  std::vector<std::pair<size_t, std::string>> stack;  // indentation, name
  for (size_t i = 0; i < all.size(); ++i) {
    std::string_view l = all[i];
    size_t indent = l.find_first_not_of(" \t");
    if (indent != std::string_view::npos) {
      // A line at or left of a definition's indentation ends it, except for
      // lines that open, continue or annotate one ("{", "):", "@dataclass").
      char c = l[indent];
      bool continues = c == '{' || c == ')' || c == ']' || c == '@' || c == '#' || c == '*' ||
                       l.substr(indent, 2) == "//" || l.substr(indent, 2) == "/*";
      if (!continues) {
        while (!stack.empty() && stack.back().first >= indent) stack.pop_back();
      }
      std::string name = DefinedName(l);
      if (!name.empty()) stack.emplace_back(indent, name);
    }
    in_force[i] = stack.empty() ? "" : stack.back().second;
  }
  std::vector<Window> out;
  int step = std::max(1, lines - overlap);
  int n = static_cast<int>(all.size());
  for (int first = 0; first < n; first += step) {
    int last = std::min(n, first + lines) - 1;
    Window w;
    w.first = first + 1;
    w.last = last + 1;
    for (int i = first; i <= last; ++i) {
      w.text.append(all[i]);
      w.text.push_back('\n');
    }
    w.symbol = in_force[first];
    for (int i = first; w.symbol.empty() && i <= last; ++i) w.symbol = in_force[i];
    bool blank = w.text.find_first_not_of(" \t\r\n") == std::string::npos;
    if (!blank) out.push_back(std::move(w));
    if (last == n - 1) break;
  }
  return out;
}

bool SkippedPath(std::string_view path) {
  std::string p = ToLower(path);
  static constexpr std::array<std::string_view, 12> kDirs = {
      "vendor/", "third_party/", "third-party/", "thirdparty/", "node_modules/", "external/",
      "dist/", "build/", ".git/", "__pycache__/", "site-packages/", "_vendor/"};
  for (std::string_view d : kDirs) {
    if (StartsWith(p, d) || p.find("/" + std::string(d)) != std::string::npos) return true;
  }
  static constexpr std::array<std::string_view, 18> kSuffixes = {
      ".min.js", ".min.css", ".map", "_pb2.py", "_pb2_grpc.py", ".pb.go", ".pb.h", ".pb.cc", ".lock",
      "package-lock.json", "pnpm-lock.yaml", "go.sum", ".svg", ".ipynb", ".pdf", ".png", ".jpg", ".parquet"};
  for (std::string_view s : kSuffixes) {
    if (EndsWith(p, s)) return true;
  }
  return false;
}

bool LooksGenerated(std::string_view content) {
  std::string head = ToLower(content.substr(0, 1024));
  return head.find("@generated") != std::string::npos || head.find("do not edit") != std::string::npos ||
         head.find("autogenerated") != std::string::npos || head.find("auto-generated") != std::string::npos ||
         head.find("generated by") != std::string::npos;
}

}  // namespace umwelt::git
