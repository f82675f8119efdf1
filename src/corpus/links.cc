// Cross-references found in text, for every source: the links table is how
// an issue, the Discord discussion about it and the run that measured it are
// read together.
#include <cctype>
#include <set>

#include "umwelt/corpus.h"
#include "umwelt/permalinks.h"
#include "umwelt/source_traits.h"
#include "umwelt/text.h"

namespace umwelt {
namespace {

bool UrlChar(char c) {
  return static_cast<unsigned char>(c) > 32 && c != '<' && c != '>' && c != '"' && c != '\'' && c != '`' &&
         c != '|' && c != '\\' && c != '{' && c != '}' && c != '^';
}

// The url starting at `text[i]` ("http://" or "https://"), without trailing
// punctuation that belongs to the sentence.
std::string_view UrlAt(std::string_view text, size_t i) {
  size_t j = i;
  while (j < text.size() && UrlChar(text[j])) ++j;
  std::string_view u = text.substr(i, j - i);
  while (!u.empty() && (u.back() == '.' || u.back() == ',' || u.back() == ';' || u.back() == ':' ||
                        u.back() == '!' || u.back() == '?' || u.back() == '*')) {
    u.remove_suffix(1);
  }
  // A closing bracket belongs to the url only when it opened one ("wiki/A_(b)").
  while (!u.empty() && (u.back() == ')' || u.back() == ']')) {
    char open = u.back() == ')' ? '(' : '[';
    if (u.find(open) != std::string_view::npos) break;
    u.remove_suffix(1);
  }
  return u;
}

}  // namespace

// A url's thread: what its source's permalink scheme says, else the web page.
std::string ThreadRefForUrl(std::string_view url) {
  UrlParts parts = SplitUrl(url);
  if (parts.host.empty()) return "";
  if (const PermalinkScheme* scheme = SchemeForUrl(parts)) {
    if (auto ref = scheme->thread_ref(url, parts)) return *ref;
  }
  return PageRef(url);
}

std::vector<Link> FindLinks(const std::string& from_ref, std::string_view text, const std::string& default_repo,
                            const std::string& self) {
  std::vector<Link> out;
  std::set<std::string> seen;
  auto add = [&](std::string to) {
    if (to.empty() || to == self || !seen.insert(to).second) return;
    out.push_back({from_ref, std::move(to), "mention"});
  };
  for (const auto& m : FindThreadMentions(text)) {
    if (m.repo.empty() && default_repo.empty()) continue;
    add((m.repo.empty() ? default_repo : m.repo) + "#" + std::to_string(m.number));
  }
  int web = 0;
  for (size_t i = text.find("http"); i != std::string_view::npos; i = text.find("http", i + 1)) {
    if (text.compare(i, 7, "http://") != 0 && text.compare(i, 8, "https://") != 0) continue;
    if (i > 0 && std::isalnum(static_cast<unsigned char>(text[i - 1]))) continue;
    std::string_view url = UrlAt(text, i);
    std::string ref = ThreadRefForUrl(url);
    if (!PageUrlOf(ref).empty() && ++web > 64) continue;
    add(std::move(ref));
    i += url.size() ? url.size() - 1 : 0;
  }
  return out;
}

}  // namespace umwelt
