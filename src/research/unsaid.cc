// A question with no names ("When did X add a graphical user interface?")
// is about its words; a word the corpus never says is a subject the corpus
// does not hold, however many records say the others ("user", "interface").

#include <algorithm>

#include "extractive.h"
#include "umwelt/claims.h"
#include "umwelt/searcher.h"
#include "umwelt/text.h"

namespace umwelt::research_internal {

namespace {

// The other spelling of a British or American word, or "": colour/color,
// optimise/optimize, analyse/analyze.
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

}  // namespace

std::string UnsaidSubjectWord(Searcher& searcher, const std::string& question, const std::vector<Evidence>& seen,
                              const std::vector<std::string>& widespread) {
  std::vector<std::string> words = research::WithoutProjectNames(research::ContentWords(question), seen, widespread);
  auto subject_word = [](const std::string& w) { return !IsFrameWord(w) && !IsBeganWord(w) && !IsCameWord(w); };
  size_t subject = std::count_if(words.begin(), words.end(), subject_word);
  std::vector<std::string> unsaid;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    // A word that tells which of a thing ("graphical" of "graphical user
    // interface") stands before another of the subject's; the last ("When
    // did the sandbox appear?") is as often the question's verb.
    if (!subject_word(w) || i + 1 == words.size() || !subject_word(words[i + 1])) continue;
    if (searcher.ChunksNaming(w) > 0) continue;
    if (std::string other = OtherSpelling(w); !other.empty() && searcher.ChunksNaming(other) > 0) continue;
    unsaid.push_back(w);
  }
  // A subject of up to three words is each of them; of more, half of them
  // (a paraphrase says some in words the records do not use).
  bool missing = subject <= 3 ? !unsaid.empty() : unsaid.size() * 2 > subject;
  return missing ? unsaid.front() : "";
}

}  // namespace umwelt::research_internal
