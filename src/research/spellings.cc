// The other spellings of a word or a name that records use: British or
// American, what a doer does, words a name joins written apart.

#include <algorithm>
#include <cctype>
#include <functional>
#include <string>
#include <vector>

#include "extractive.h"

namespace umwelt::research_internal {

namespace {

// What a doer ("accessors", "allocator") does, which records name it by
// ("access", "allocat"); "" for any other word.
std::string DoerBase(std::string w) {
  if (w.ends_with("ors") || w.ends_with("ers")) w.pop_back();
  bool doer = w.size() >= 7 && (w.ends_with("or") || w.ends_with("er"));
  return doer ? w.substr(0, w.size() - 2) : "";
}

}  // namespace

std::string OtherSpelling(const std::string& w) {
  static const std::pair<const char*, const char*> kPairs[] = {{"our", "or"}, {"is", "iz"}, {"ys", "yz"},
                                                               {"iz", "is"}, {"yz", "ys"}};
  for (const auto& [from, to] : kPairs) {
    size_t at = w.rfind(from);
    if (at != std::string::npos && at > 1) return w.substr(0, at) + to + w.substr(at + std::string(from).size());
  }
  if (w.size() > 4 && w.ends_with("or")) return w.substr(0, w.size() - 2) + "our";
  return "";
}

std::string ClippedForm(const std::string& w) {
  static const std::pair<const char*, const char*> kClipped[] = {
      {"manual", "man"},          {"configuration", "config"}, {"documentation", "docs"},
      {"repository", "repo"},     {"directory", "dir"},        {"specification", "spec"},
      {"information", "info"},    {"application", "app"},      {"environment", "env"},
      {"argument", "arg"},        {"parameter", "param"},      {"library", "lib"},
      {"administrator", "admin"}, {"temporary", "tmp"},        {"executable", "exe"},
      {"authentication", "auth"}, {"synchronization", "sync"}, {"initialization", "init"},
      {"allocation", "alloc"},    {"statistics", "stats"},     {"reference", "ref"},
      {"message", "msg"},         {"attribute", "attr"},       {"description", "desc"},
      {"utility", "util"},        {"implementation", "impl"},  {"distribution", "distro"},
      {"performance", "perf"},    {"introduction", "intro"},   {"command", "cmd"},
      {"function", "func"},       {"address", "addr"},         {"buffer", "buf"},
      {"context", "ctx"}};
  static const std::vector<std::pair<std::string, std::string>> kStems = [] {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [full, clipped] : kClipped) out.emplace_back(StemWord(full), clipped);
    return out;
  }();
  if (w.size() < 4) return "";
  // The word in any form ("libraries"), or its stem ("configur", "librari").
  const std::string stem = StemWord(w);
  for (const auto& [full_stem, clipped] : kStems) {
    if (stem == full_stem || w == full_stem) return clipped;
  }
  return "";
}

std::vector<std::string> FormsOf(const std::string& w) {
  std::vector<std::string> out = {w};
  for (std::string f : {OtherSpelling(w), DoerBase(w), ClippedForm(w)}) {
    if (!f.empty()) out.push_back(std::move(f));
  }
  return out;
}

bool SayWords(const std::vector<std::string>& forms, const std::string& phrase) {
  for (const auto& f : forms) {
    for (size_t at = f.find(phrase); at != std::string::npos; at = f.find(phrase, at + 1)) {
      size_t end = at + phrase.size();
      bool starts = at == 0 || std::isalnum(static_cast<unsigned char>(f[at - 1])) == 0;
      if (starts && (end == f.size() || std::isalpha(static_cast<unsigned char>(f[end])) == 0 || f[end] == 's')) {
        return true;
      }
    }
  }
  return false;
}

std::vector<std::string> WordsApartIn(const std::string& name,
                                      const std::function<const std::vector<std::string>&()>& forms) {
  std::vector<std::string> out;
  bool letters = std::all_of(name.begin(), name.end(), [](char c) { return c >= 'a' && c <= 'z'; });
  if (name.size() < 6 || name.size() > 40 || !letters) return out;
  for (size_t i = 3; i + 3 <= name.size(); ++i) {
    std::string two = name.substr(0, i) + " " + name.substr(i);
    if (SayWords(forms(), two)) out.push_back(two);
    for (size_t j = i + 3; j + 3 <= name.size(); ++j) {
      std::string three = name.substr(0, i) + " " + name.substr(i, j - i) + " " + name.substr(j);
      if (SayWords(forms(), three)) out.push_back(three);
    }
  }
  return out;
}

}  // namespace umwelt::research_internal
