// A question with no names ("When did X add a graphical user interface?")
// is about its words; a word the corpus never says is a subject the corpus
// does not hold, however many records say the others ("user", "interface").

#include <algorithm>
#include <set>

#include "extractive.h"
#include "umwelt/claims.h"
#include "umwelt/searcher.h"
#include "umwelt/text.h"
#include "words.h"

namespace umwelt::research_internal {
namespace {

// A number ("in 2016", "Qt 6") is a period, a quantity or a version, not a name.
bool IsNumber(const std::string& w) {
  return std::all_of(w.begin(), w.end(), [](char c) { return c >= '0' && c <= '9'; });
}

constexpr std::string_view kPrepositions[] = {"on",   "in",  "with", "for",     "to",   "by",   "from",
                                              "into", "via", "at",   "through", "over", "under"};

// The kinds a question lists of one thing ("linear" and "radial" of "linear
// and radial gradients") where a record says that thing came with no kind of
// its own before it ("Add support for gradients and solid fills"): that
// record is on every kind, so they are not words it must say. One on another
// kind ("Add a tap and drag gesture option") is not.
std::set<std::string> KindsOfAThingThatCame(const std::string& question, const std::vector<Evidence>& ev) {
  std::set<std::string> kinds;
  if (!AsksWhenItCame(question)) return kinds;
  const std::vector<std::string> words = LowerWords(question);
  auto thing_word = [](const std::string& w) { return IsSubjectWord(w) && !IsGenericNoun(w); };
  for (size_t i = 0; i + 3 < words.size(); ++i) {
    if ((words[i + 1] != "and" && words[i + 1] != "or") || !IsSubjectWord(words[i]) || !IsSubjectWord(words[i + 2])) {
      continue;
    }
    std::vector<std::string> thing;  // "gesture events" of "pinch and swipe gesture events added"
    for (size_t k = i + 3; k < words.size() && thing_word(words[k]); ++k) thing.push_back(StemWord(words[k]));
    if (thing.empty()) continue;
    bool said = std::any_of(ev.begin(), ev.end(), [&](const Evidence& e) {
      if (!e.lane.empty() || !TitleSaysItCame(e.title)) return false;
      const std::vector<std::string> title = LowerWords(e.title);
      for (size_t j = 0; j + thing.size() <= title.size(); ++j) {
        bool here = j == 0 || research::StopWords().count(title[j - 1]) > 0;
        for (size_t k = 0; here && k < thing.size(); ++k) here = StemWord(title[j + k]) == thing[k];
        if (here) return true;
      }
      return false;
    });
    if (said) kinds.insert({words[i], words[i + 2]});
  }
  return kinds;
}

}  // namespace

std::vector<std::string> WordsOnlyInBrackets(const std::string& question) {
  std::string outside = question, inside;
  for (size_t open; (open = outside.find('(')) != std::string::npos;) {
    size_t close = outside.find(')', open);
    if (close == std::string::npos) break;
    inside += outside.substr(open + 1, close - open - 1) + " ";
    outside.erase(open, close - open + 1);
  }
  const std::vector<std::string> said_outside = research::ContentWords(outside);
  std::vector<std::string> out;
  for (const auto& w : research::ContentWords(inside)) {
    if (std::find(said_outside.begin(), said_outside.end(), w) == said_outside.end()) out.push_back(w);
  }
  std::replace(inside.begin(), inside.end(), '-', ' ');
  for (const auto& w : research::ContentWords(inside)) {
    if (std::find(said_outside.begin(), said_outside.end(), w) == said_outside.end()) out.push_back(w);
  }
  return out;
}

std::string UnsaidSubjectWord(Searcher& searcher, const std::string& question,
                              const std::vector<Evidence>& seen, const std::vector<std::string>& widespread) {
  std::vector<std::string> words =
      research::WithoutProjectNames(research::ContentWords(question), seen, widespread);
  for (const auto& w : WordsOnlyInBrackets(question)) std::erase(words, w);
  for (const auto& kind : KindsOfAThingThatCame(question, seen)) std::erase(words, kind);
  // How many words the subject is, less the "support" that frames it
  // ("support for the kitty keyboard protocol" is three).
  size_t subject = std::count_if(words.begin(), words.end(),
                                 [](const std::string& w) { return IsSubjectWord(w) && w != "support"; });
  // The question's last word is as often its verb ("When did the sandbox
  // appear?"), which records need not say; not after a preposition ("How
  // does X compress on the GPU?").
  std::vector<std::string> all = LowerWords(question);
  while (!all.empty() && all.back().size() < 2) all.pop_back();
  size_t before = all.size() < 2 ? 0 : all.size() - 2;
  while (before > 0 && (all[before] == "the" || all[before] == "a" || all[before] == "an")) --before;
  bool last_is_object = all.size() >= 2 && std::any_of(std::begin(kPrepositions), std::end(kPrepositions),
                                                       [&](std::string_view p) { return all[before] == p; });
  // A last word in -ing after a noun of the question is the subject's own
  // ("hardware video decoding"), not its verb.
  const std::vector<std::string> content = research::ContentWords(question);
  const bool last_is_head = all.size() >= 2 && all.back().size() >= 6 && all.back().ends_with("ing") &&
                            IsSubjectWord(all[all.size() - 2]) &&
                            std::find(content.begin(), content.end(), all[all.size() - 2]) != content.end();
  // Nor a plural where "did" or "does" asks it: that verb is in its plain
  // form ("When did X add split panes?", not "…appears?").
  const std::string& end = all.empty() ? question : all.back();
  const bool plain_verb = std::any_of(
      all.begin(), all.end(), [](const std::string& w) { return w == "did" || w == "does" || w == "do"; });
  const bool last_is_plural = plain_verb && all.size() >= 2 && end.size() >= 4 && end.back() == 's' &&
                              !end.ends_with("ss") && !end.ends_with("us") && !end.ends_with("is") &&
                              IsSubjectWord(all[all.size() - 2]);
  std::vector<std::string> unsaid;
  bool pair_unsaid = false;  // two of the subject's words side by side ("ray tracing")
  for (size_t i = 0, last_unsaid = SIZE_MAX; i < words.size(); ++i) {
    const std::string& w = words[i];
    // A word that tells which of a thing ("graphical" of "graphical user
    // interface") stands before another of the subject's; or the object of
    // the question's last preposition.
    bool last = i + 1 == words.size();
    // Or the subject's last word, where the question's own verb ends it
    // ("When was a fuzzer added?"), unless a word for a kind of thing that
    // a question may say where its records name the thing ("mechanism").
    bool head = !all.empty() && all.back() != w && !IsSubjectWord(all.back()) && !IsGenericNoun(w) &&
                std::none_of(words.begin() + static_cast<long>(i) + 1, words.end(), IsSubjectWord);
    if (!IsSubjectWord(w) || w == "support" ||
        (!head &&
         (last ? !last_is_object && !last_is_head && !last_is_plural : !IsSubjectWord(words[i + 1])))) {
      continue;
    }
    if (IsNumber(w)) continue;
    const std::vector<std::string> forms = FormsOf(w);  // "colour" or "color", "accessors" or "access"
    if (std::any_of(forms.begin(), forms.end(), [&](const std::string& f) { return searcher.ChunksNaming(f) > 0; })) {
      continue;
    }
    unsaid.push_back(w);
    pair_unsaid |= i > 0 && last_unsaid == i - 1;
    last_unsaid = i;
  }
  // A subject of up to three words is each of them; of more, half of them
  // (a paraphrase says some in words the records do not use), or two side
  // by side: a thing of two words the project never says.
  bool missing = subject <= 3 ? !unsaid.empty() : unsaid.size() * 2 > subject || pair_unsaid;
  return missing ? unsaid.front() : "";
}

std::string UnsaidAfterAKey(Searcher& searcher, const std::string& question,
                            const std::vector<std::string>& keys) {
  for (const auto& name : research::GenericNames(question)) {
    if (searcher.ChunksNaming(name) == 0) return name;
  }
  const std::vector<std::string> all = LowerWords(question);
  std::set<std::string> named;  // the words of every name and its spellings
  for (const auto& key : keys) {
    for (const auto& alt : SplitList(key, '|')) {
      for (auto& w : LowerWords(alt)) named.insert(std::move(w));
    }
  }
  auto preposition = [](const std::string& w) {
    return std::find(std::begin(kPrepositions), std::end(kPrepositions), w) != std::end(kPrepositions);
  };
  for (size_t first = 0; first < all.size(); ++first) {
    if (named.count(all[first]) == 0 || (first > 0 && named.count(all[first - 1]) > 0)) continue;
    size_t at = first;  // past the names side by side: "R600/R700 chips", "Arc (DG2) GPUs"
    while (at < all.size() && named.count(all[at]) > 0) ++at;
    if (at == all.size()) break;
    const std::string& w = all[at];
    // A thing's name, not a verb ("CRC64 sped up") or a word that tells of
    // what kind ("Xprint-aware library"): "of" says more of it, or the
    // question ends with it where it asks when a thing came ("When did the
    // driver get Bluetooth pairing?"); and not where the names are where
    // the thing came ("EXA acceleration for R600/R700 chips").
    bool head = at + 1 == all.size() ? AsksWhenItCame(question) : all[at + 1] == "of";
    bool where = first > 0 && preposition(all[first - 1]);
    // Or the last of two or three words that end such a question, the
    // others telling of what kind ("Wikipedia article previews").
    const bool last_of_few =
        !head && all.size() - at <= 3 && AsksWhenItCame(question) &&
        std::all_of(all.begin() + static_cast<long>(at), all.end(),
                    [](const std::string& x) { return x.size() >= 3 && IsSubjectWord(x) && !IsNumber(x); });
    const std::string& thing = last_of_few ? all.back() : w;
    if ((!head && !last_of_few) || where || thing.size() < 3 || !IsSubjectWord(thing) ||
        IsGenericNoun(thing) || IsNumber(thing)) {
      continue;
    }
    const std::vector<std::string> forms = FormsOf(thing);
    if (std::none_of(forms.begin(), forms.end(),
                     [&](const std::string& f) { return searcher.ChunksNaming(f) > 0; })) {
      return thing;
    }
  }
  return "";
}

std::vector<std::string> UnnamedThing(const std::string& question, const std::vector<Evidence>& ev,
                                      const std::vector<std::string>& widespread) {
  if (!AsksWhenItCame(question)) return {};
  std::vector<std::string> stems = CameBeside(question, {}, ev, widespread);
  for (const auto& w : WordsOnlyInBrackets(question)) std::erase(stems, StemWord(w));
  for (const auto& w : LowerWords(question)) {  // "mechanism" of "the font cache mechanism": a kind of thing
    if (IsGenericNoun(w)) std::erase(stems, StemWord(w));
  }
  for (const auto& kind : KindsOfAThingThatCame(question, ev)) std::erase(stems, StemWord(kind));
  const std::vector<std::string> rare = FewestSaid(stems, ev);
  if (rare.empty()) return {};
  auto names = [&](const std::string& text) {
    std::string form = research::MatchForm(text);
    std::set<std::string> said;
    for (const auto& s : rare) {
      const std::vector<std::string> forms = FormsOf(s);  // "accessor" is named by "access", "colour" by "color"
      const std::string clipped = ClippedForm(s);         // "manual" by "man", as a whole word
      if (std::any_of(forms.begin(), forms.end(), [&](const std::string& f) {
            return f == clipped ? SayWords({form}, f) : NamesStem(form, f);
          })) {
        said.insert(s);
      }
    }
    const std::vector<std::string> words = LowerWords(text);
    for (size_t i = 0; i + 1 < stems.size(); ++i) {  // "fds" for "file descriptors"
      if (stems[i].empty() || stems[i + 1].empty()) continue;
      const std::string initials{stems[i][0], stems[i + 1][0]};
      if (std::any_of(words.begin(), words.end(),
                      [&](const std::string& w) { return w == initials || w == initials + "s"; })) {
        said.insert({stems[i], stems[i + 1]});
      }
    }
    size_t named = std::count_if(rare.begin(), rare.end(), [&](const std::string& s) { return said.count(s) > 0; });
    return named > 0 && named * 2 >= rare.size();
  };
  bool named = std::any_of(ev.begin(), ev.end(),
                           [&](const Evidence& e) { return e.lane.empty() && names(e.title + "\n" + e.text); });
  if (named) return {};
  std::vector<std::string> said_as;  // each stem as the question says it: "gesture", not "gestur"
  const std::vector<std::string> words = LowerWords(question);
  for (const auto& s : rare) {
    auto w = std::find_if(words.begin(), words.end(), [&](const std::string& x) { return StemWord(x) == s; });
    said_as.push_back(w == words.end() ? s : *w);
  }
  return said_as;
}

std::optional<std::vector<std::string>> NamedBesideAContextKey(const std::string& question,
                                                               const std::vector<std::string>& keys,
                                                               const std::vector<Evidence>& ev,
                                                               const std::vector<std::string>& widespread) {
  if (keys.size() < 2) return std::nullopt;
  std::vector<std::string> stems = SubjectStemsBeside(question, keys, ev, widespread);
  if (stems.size() < 2) return std::nullopt;
  std::vector<std::string> forms;
  for (const auto& e : ev) {
    if (e.lane.empty()) forms.push_back(research::MatchForm(e.author + "\n" + e.title + "\n" + e.text));
  }
  for (size_t drop = 0; drop < keys.size(); ++drop) {
    // A key no record says is the subject itself (a platform the project
    // never names), never context.
    auto says = [&](const std::string& f) { return research::Mentions(f, keys[drop]); };
    if (std::none_of(forms.begin(), forms.end(), says)) continue;
    for (const auto& f : forms) {
      bool others = true;
      // A platform is where the thing came, context as well ("When did Xlib
      // get launchd support on macOS?" of "Added launchd support"), unless
      // the record is on another ("the abstract socket namespace under Linux").
      for (size_t k = 0; k < keys.size() && others; ++k) {
        others = k == drop || research::Mentions(f, keys[k]) ||
                 (research::IsPlatformKey(keys[k]) && !research::NamesAnotherPlatform(f, keys[k]));
      }
      size_t said = std::count_if(stems.begin(), stems.end(), [&](const std::string& s) { return NamesStem(f, s); });
      // All of two words, all but one of three or more.
      if (!others || said + (stems.size() >= 3 ? 1 : 0) < stems.size()) continue;
      std::vector<std::string> named;
      for (size_t k = 0; k < keys.size(); ++k) {
        if (k != drop && research::Mentions(f, keys[k])) named.push_back(keys[k]);
      }
      return named;
    }
  }
  return std::nullopt;
}

}  // namespace umwelt::research_internal
