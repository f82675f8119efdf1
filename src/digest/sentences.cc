// What a digest may quote: whole sentences as people wrote them, that say
// something the title does not, and numbers with what they measure.
#include <set>

#include "digest_internal.h"
#include "umwelt/claims.h"
#include "umwelt/pattern.h"
#include "umwelt/text.h"

namespace umwelt::digest_internal {

namespace {

std::set<std::string> Words(std::string_view text) {
  std::set<std::string> out;
  std::string w;
  for (char c : std::string(text) + " ") {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      if (w.size() > 2) out.insert(w);
      w.clear();
    }
  }
  return out;
}

}  // namespace

bool WholeSentence(std::string_view s) {
  if (s.size() < 25 || s.size() > 400) return false;
  unsigned char first = static_cast<unsigned char>(s[0]);
  if (!(std::isupper(first) || std::isdigit(first) || s[0] == '"' || s[0] == '`' || s[0] == '\'')) return false;
  size_t end = s.size();
  while (end > 0 && std::string_view(")\"'`*_").find(s[end - 1]) != std::string_view::npos) --end;
  if (end == 0 || std::string_view(".!?").find(s[end - 1]) == std::string_view::npos) return false;
  // Brackets and quotes left open say it stops short.
  int open = 0;
  for (char c : s) open += c == '(' ? 1 : c == ')' ? -1 : 0;
  return open == 0 && std::count(s.begin(), s.end(), '`') % 2 == 0;
}

bool RepeatsTitle(std::string_view sentence, std::string_view title) {
  std::string t = ShortTitle(title, 1000);
  std::set<std::string> said = Words(sentence), named = Words(t);
  if (said.empty()) return true;
  size_t shared = 0;
  for (const auto& w : said) shared += named.count(w);
  // Most of what it says is the title's own words.
  return shared * 10 >= said.size() * 6;
}

std::vector<std::string> Measures(std::string_view sentence) {
  // "mfu: 28.56%", "throughput of 451k tokens/s", "MFU went to 38.5%": a
  // quantity's name, then its value ("TP=2" is a setting, not a measure).
  static const Pattern named(
      R"(\b([a-z][a-z0-9_\-/]{1,24}(?: [a-z][a-z0-9_\-/]{1,24})?)\s*(?::|\bis\b|\bwas\b|\bof\b|\bat\b|\breached\b|\bwent (?:from [0-9.,]+\S* )?to\b|\bdropped to\b|\brose to\b|\bimproved to\b)\s*(-?[0-9](?:[0-9,]*[0-9])?(?:\.[0-9]+)?\s?(?:%|[kmgt]i?b\b|x\b|×|ms\b|s\b|k\b|m\b)?(?:\s?(?:tokens/s|tok/s|it/s|samples/s|steps/s|tokens)\b)?))", Pattern::kIgnoreCase);
  static const std::set<std::string> kNotQuantities = {
      "it", "this", "that", "which", "there", "here", "step", "steps", "version", "issue", "pr", "commit", "line",
      "lines", "page", "item", "items", "number", "the", "and", "or", "in", "on", "for", "with", "by", "from", "to",
      "up", "set", "size", "each", "one", "all", "total", "batch", "seq", "id", "epoch", "port", "pid", "python",
      "cuda", "torch", "node", "nodes", "rank", "ranks", "gpu", "gpus", "ep", "tp", "pp", "dp", "cp"};
  // "40% of time in normalization": a share of something, named after it.
  static const Pattern share(R"(\b([0-9]+(?:\.[0-9]+)?%) of (?:the |all )?([a-z][a-z_\-]{2,24}))", Pattern::kIgnoreCase);
  std::vector<std::string> out;
  share.ForEach(sentence, [&](const Groups& g) {
    out.push_back(std::string(g[2]) + " " + std::string(g[1]));
    return out.size() < 4;
  });
  named.ForEach(sentence, [&](const Groups& g) {
    std::string name = CollapseWhitespace(g[1]);
    std::string last = ToLower(name.substr(name.rfind(' ') == std::string::npos ? 0 : name.rfind(' ') + 1));
    std::string first = ToLower(name.substr(0, name.find(' ')));
    if (kNotQuantities.count(last) || kNotQuantities.count(first)) {
      if (name.find(' ') == std::string::npos || kNotQuantities.count(last)) return true;
      name = name.substr(name.find(' ') + 1);  // "the loss" -> "loss"
    }
    std::string value = CollapseWhitespace(g[2]);
    // A value of its own (a version, a date, a ref) is no measure.
    if (value.find('.') != value.rfind('.')) return true;
    out.push_back(name + " " + value);
    return out.size() < 4;
  });
  return out;
}

bool Decision(std::string_view text) {
  static const Pattern words(
      R"(\b(decided|decision|we will|we'll|agreed|going with|settled on|plan is|conclusion|concluded|let's go with|switching to|resolved by|root cause)\b)",
      Pattern::kIgnoreCase);
  return words.Search(text);
}

bool SaysSomething(std::string_view sentence) {
  static const Pattern result(
      R"(\b(decided|agreed|going with|settled on|concluded|root cause|because|caused by|due to|improv\w*|faster|slower|speed-?ups?|reduc\w*|increas\w*|decreas\w*|match(es|ed)?|converg\w*|outperform\w*|regress\w*|saves?|saved|results? in|resolv\w*|fix(es|ed)? (the|a|an)\b|now (runs|supports|works|uses|matches)|no longer|instead of|replac\w*|enables?|allows?|so that|which means)\b)", Pattern::kIgnoreCase);
  if (result.Search(sentence)) return true;
  return !Measures(sentence).empty();
}

}  // namespace umwelt::digest_internal
