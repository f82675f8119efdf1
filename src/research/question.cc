// What a question is made of, read before any record is: its clauses, the
// words naming the project's files, and the project's own names.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

#include "extractive.h"
#include "umwelt/claims.h"
#include "umwelt/text.h"

namespace umwelt::research_internal {

std::vector<std::string> FileNameKeys(const std::string& question, const std::vector<std::string>& urls) {
  std::set<std::string> stems;  // "utils/pdfunite.cc": pdfunite
  for (const auto& url : urls) {
    std::string name = std::filesystem::path(WindowPath(url)).filename().string();
    name.resize(std::min(name.size(), name.find('.')));
    if (name.size() >= 4) stems.insert(ToLower(name));
  }
  std::vector<std::string> out;
  for (const auto& w : research::ContentWords(question)) {
    if (stems.count(w) > 0) out.push_back(w);
  }
  return out;
}

namespace {

// The kinds of file a question may name by a word no file's name holds,
// and how the paths of their files end in a file list, as MatchForm spells
// them: a suffix (".pc" with the comma or space after it, ".pc.in") or a
// name ("configure.ac"). Words of seven letters or more: a shorter one
// ("CI") is said inside too many others to stand for the files it names.
const std::map<std::string, std::vector<std::string>>& FileKinds() {
  static const std::map<std::string, std::vector<std::string>> k = [] {
    const std::vector<std::string> pc = {".pc,", ".pc ", ".pc.in"};
    const std::vector<std::string> systemd = {".service,", ".service ", ".socket,",   ".socket ",
                                              ".timer,",   ".timer ",   ".service.in"};
    const std::vector<std::string> autotools = {"configure.ac", "configure.in,", "makefile.am"};
    return std::map<std::string, std::vector<std::string>>{{"pkg-config", pc},
                                                           {"pkgconfig", pc},
                                                           {"systemd", systemd},
                                                           {"autotools", autotools},
                                                           {"autoconf", autotools}};
  }();
  return k;
}

}  // namespace

std::vector<std::string> FileKindWords(const std::string& question) {
  std::vector<std::string> out;
  for (const auto& w : research::ContentWords(question)) {
    if (FileKinds().count(w) > 0 && std::find(out.begin(), out.end(), w) == out.end()) out.push_back(w);
  }
  return out;
}

std::vector<std::string> WithFileKindForms(std::vector<std::string> keys,
                                           const std::vector<std::string>& kinds) {
  for (auto& k : keys) {
    const std::vector<std::string> alts = SplitList(k, '|');
    for (const auto& w : kinds) {
      std::string spelt = w;  // as WithVariants spells it: "pkg config"
      std::replace(spelt.begin(), spelt.end(), '-', ' ');
      auto forms = FileKinds().find(w);
      if (forms == FileKinds().end() || std::find(alts.begin(), alts.end(), spelt) == alts.end()) continue;
      for (const auto& f : forms->second) k += "|" + f;
    }
  }
  return keys;
}

std::vector<std::string> Clauses(const std::string& question) {
  std::string lower = ToLower(question);
  std::vector<std::string> clauses;
  size_t start = 0;
  for (size_t i = 0; i <= lower.size(); ++i) {
    bool cut = i == lower.size() || lower[i] == ';' || lower[i] == '?' ||
               (lower[i] == ',' && lower.compare(i, 6, ", and ") == 0) ||
               lower.compare(i, 5, " and ") == 0 || lower.compare(i, 5, " but ") == 0;
    if (!cut) continue;
    if (question.find_first_not_of(" \t\n", start) < i) clauses.push_back(question.substr(start, i - start));
    start = i + 1;
  }
  return clauses;
}

std::vector<std::string> ProjectWords(const std::vector<Hit>& hits) {
  std::map<std::string, size_t> count;
  for (const auto& h : hits) {
    std::set<std::string> words;
    std::string word;
    for (char c : h.url + "/") {
      if (std::isalnum(static_cast<unsigned char>(c))) {
        word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      } else if (!word.empty()) {
        words.insert(std::exchange(word, ""));
      }
    }
    for (const auto& w : words) ++count[w];
  }
  std::vector<std::string> out;
  for (const auto& [w, n] : count) {
    if (2 * n >= hits.size() && hits.size() >= 2) out.push_back(w);
  }
  return out;
}

}  // namespace umwelt::research_internal
