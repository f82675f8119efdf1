// "When did X begin?", "When did X get Y?": the earliest records naming the
// subject, found by searching again before the earliest one found until
// none names it. Ranking by relevance puts the first of 256 commits about a
// subject nowhere near the top; the question asks for that one.

#include <algorithm>
#include <cctype>
#include <iterator>
#include <optional>
#include <set>

#include "extractive.h"
#include "umwelt/claims.h"
#include "umwelt/corpus.h"
#include "umwelt/searcher.h"
#include "umwelt/source_traits.h"
#include "umwelt/text.h"

namespace umwelt::research_internal {

bool IsBeganWord(const std::string& word) {
  static const char* kBegan[] = {"first",    "start",   "began",  "begin",   "begun",
                                 "introduc", "initial", "origin", "earliest"};
  return std::any_of(std::begin(kBegan), std::end(kBegan), [&](const char* b) { return word.rfind(b, 0) == 0; });
}

bool IsCameWord(const std::string& word) {
  static const std::set<std::string> kCame = {"add",  "adds",  "added",  "get",    "gets",   "got",     "gain",
                                             "gains", "gained", "merged", "landed", "imported"};
  return kCame.count(word) > 0;
}

std::vector<std::string> LowerWords(const std::string& question, bool hyphened_whole) {
  std::string lower = ToLower(question);
  auto apart = [&](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) == 0 && !(hyphened_whole && c == '-');
  };
  std::replace_if(lower.begin(), lower.end(), apart, ',');
  return SplitList(lower);
}

bool AsksWhenItCame(const std::string& question) {
  if (research::AnswerTypeOf(question) != research::AnswerType::kWhen) return false;
  auto words = LowerWords(question);
  // A move to a thing is when it came: "When did X port to GDBus?".
  static const std::set<std::string> kMoved = {"port", "ported", "switch",  "switched",
                                               "move", "moved",  "migrate", "migrated"};
  bool moved = false;
  for (size_t i = 0; i < words.size() && !moved; ++i) {
    moved = kMoved.count(words[i]) > 0 &&
            std::find(words.begin() + static_cast<long>(i) + 1, words.end(), "to") != words.end();
  }
  // "When did we get rid of X?" asks when it went (AsksWhenItWent).
  return std::none_of(words.begin(), words.end(), IsBeganWord) &&
         (moved || std::any_of(words.begin(), words.end(), IsCameWord)) && !AsksWhenItWent(question);
}

bool WordOfAKey(const std::string& word, const std::vector<std::string>& keys) {
  return std::any_of(keys.begin(), keys.end(), [&](const std::string& k) {  // "windows" of the key "window"
    return research::Mentions(k, word) || research::Mentions(research::MatchForm(word), k);
  });
}

bool IsGenericNoun(const std::string& w) {
  static const std::set<std::string> kGeneric = {
      "mechanism", "mechanisms", "feature",  "features",  "system",   "systems",  "support",   "approach",
      "logic",     "process",    "tool",     "tools",     "option",   "options",  "setting",   "settings",
      "method",    "methods",    "strategy", "scheme",    "handling", "behavior", "behaviour", "functionality",
      "machinery", "code",       "layer",    "subsystem", "module",   "api",      "interface", "implementation",
      "pipeline",  "workflow",   "path",     "paths",     "way",      "ways",     "part",      "parts"};
  return kGeneric.count(w) > 0;
}

bool IsSubjectWord(const std::string& word) { return !IsFrameWord(word) && !IsBeganWord(word) && !IsCameWord(word); }

std::vector<std::string> SubjectStemsBeside(const std::string& text, const std::vector<std::string>& keys,
                                            const std::vector<Evidence>& seen,
                                            const std::vector<std::string>& widespread, std::string_view also_not) {
  std::vector<std::string> out;
  for (const auto& w : research::WithoutProjectNames(research::ContentWords(text), seen, widespread)) {
    if (!IsSubjectWord(w) || w == also_not || WordOfAKey(w, keys)) continue;
    // A hyphened word is one name in any of its spellings, which MatchForm
    // holds joined: "gnome-about", "gnome_about" and "GnomeAbout" are all
    // gnomeabout (the hyphened form is in no record's MatchForm).
    std::string joined = w;
    std::erase_if(joined, [](char c) { return c == '-' || c == '_'; });
    std::string stem = StemWord(joined);
    if (std::find(out.begin(), out.end(), stem) == out.end()) out.push_back(stem);
  }
  return out;
}

std::vector<std::string> CameBeside(const std::string& question, const std::vector<std::string>& keys,
                                    const std::vector<Evidence>& seen, const std::vector<std::string>& widespread) {
  // The clause that asks it: "When was Llama 4 added" of "…, and how does
  // its router balance the load?"; not "pinch and swipe gestures".
  static const std::set<std::string> kAsks = {"how",  "what", "why",  "when", "where", "which", "who", "does", "did",
                                              "do",   "is",   "are",  "was",  "were",  "has",   "have", "can",
                                              "will", "its",  "it",   "they", "their", "we",    "our"};
  std::string lower = ToLower(question);
  for (size_t at = 0; (at = lower.find(" and ", at)) != std::string::npos;) {
    size_t end = lower.find_first_of(" ,?;.", at + 5);
    if (kAsks.count(lower.substr(at + 5, end == std::string::npos ? end : end - at - 5)) > 0) lower.replace(at, 5, ",");
    else at += 5;
  }
  std::replace_if(lower.begin(), lower.end(), [](char c) { return c == ';' || c == '?' || c == '.'; }, ',');
  std::string clause;
  for (const auto& c : SplitList(lower)) {
    auto words = LowerWords(c);
    if (std::any_of(words.begin(), words.end(), IsCameWord)) {
      clause = c;
      break;
    }
  }
  std::replace(clause.begin(), clause.end(), '-', ' ');  // "command-line": each word
  // "support" of "add support for X" says no more than "add".
  return SubjectStemsBeside(clause, keys, seen, widespread, "support");
}

bool IsCodeName(const std::string& key, const std::string& question) {
  auto bare = [](std::string_view t) {
    std::string out;
    for (char c : t) {
      unsigned char u = static_cast<unsigned char>(c);
      if (std::isalnum(u)) out += static_cast<char>(std::tolower(u));
    }
    return out;
  };
  std::vector<std::string> names;  // the question's words written as code, bare
  for (size_t i = 0; i < question.size();) {
    size_t s = i;
    while (i < question.size() && (std::isalnum(static_cast<unsigned char>(question[i])) || question[i] == '_')) ++i;
    std::string_view w(question.data() + s, i - s);
    // Three words joined, two of them capitalized ("XIAllowTouchEvents");
    // two are as often a product's name ("PyTorch", "FlexAttention"), and
    // capitals alone a name's style ("iwMMXt", "sRGB", "macOS").
    size_t humps = 0;  // a capital and two small letters: "Allow", "Touch"
    for (size_t j = 0; j + 2 < w.size(); ++j) {
      humps += std::isupper(static_cast<unsigned char>(w[j])) && std::islower(static_cast<unsigned char>(w[j + 1])) &&
               std::islower(static_cast<unsigned char>(w[j + 2]));
    }
    bool camel = w.find('_') == std::string_view::npos && humps >= 2 && SplitIdentifier(w).size() >= 3;
    bool snake = w.find('_') != std::string_view::npos && w.find_first_not_of('_') != std::string_view::npos;
    if (camel || snake || (!w.empty() && question.compare(i, 2, "()") == 0)) names.push_back(bare(w));
    if (i == s) ++i;
  }
  for (const auto& alt : SplitList(key, '|')) {
    std::string b = bare(alt);  // a key is singular: "xiallowtouchevent"
    for (const auto& n : names) {
      std::string rest = n.rfind(b, 0) == 0 ? n.substr(b.size()) : "-";
      if (!b.empty() && (rest.empty() || rest == "s" || rest == "es")) return true;
    }
  }
  return false;
}

bool WritesAsCode(const std::vector<std::string>& keys, const std::string& question) {
  return std::any_of(keys.begin(), keys.end(), [&](const std::string& k) { return IsCodeName(k, question); });
}

bool NamesHalf(const std::string& form, const std::vector<std::string>& stems) {
  size_t named = std::count_if(stems.begin(), stems.end(), [&](const std::string& s) { return NamesStem(form, s); });
  return named * 2 >= stems.size() - stems.size() % 2;
}

namespace {

bool IsArrivalWord(const std::string& w) {
  static const std::set<std::string> kWords = {"add",  "adds", "added", "adding", "new",  "now",   "land",
                                               "lands", "landed", "wire", "wired", "hook", "hooked", "first"};
  static const char* kStems[] = {"introduc", "implement", "merg", "import", "creat", "enabl", "initial", "provid"};
  return kWords.count(w) > 0 ||
         std::any_of(std::begin(kStems), std::end(kStems), [&](const char* s) { return w.rfind(s, 0) == 0; });
}

// "Composite Version 0.3: CompositeGetOverlayWindow, …": what a version
// brings, listed after its number.
bool ListsAVersion(const std::string& text) {
  const std::string lower = ToLower(text);
  for (size_t at = lower.find("version "); at != std::string::npos; at = lower.find("version ", at + 1)) {
    size_t i = at + 8, digits = 0;
    for (; i < lower.size() && (std::isdigit(static_cast<unsigned char>(lower[i])) || lower[i] == '.'); ++i) {
      digits += lower[i] != '.';
    }
    if (digits > 0 && i < lower.size() && lower[i] == ':') return true;
  }
  return false;
}

// `made`: the question asks when a thing became something, which records
// say by making it so ("Make X its own DDX", "X as the default").
// `text` less its names in code ("GDBusServer::new-connection",
// "xcb_image_create"): a word of arrival inside one is part of a name.
std::string WithoutNamesInCode(const std::string& text) {
  std::string out;
  for (const auto& token : SplitList(text, ' ')) {
    const bool code = token.find("::") != std::string::npos || token.find('_') != std::string::npos ||
                      token.find("()") != std::string::npos || token.find("->") != std::string::npos;
    if (!code) out += (out.empty() ? "" : " ") + token;
  }
  return out;
}

bool SaysArrival(const std::string& text, bool made) {
  static const std::set<std::string> kMade = {"make", "makes", "made", "making", "default", "defaults"};
  if (ListsAVersion(text)) return true;
  auto words = LowerWords(WithoutNamesInCode(text));
  for (size_t i = 0; i < words.size(); ++i) {  // "changes to support launchd"
    if (IsArrivalWord(words[i]) || (i > 0 && words[i - 1] == "to" && words[i].rfind("support", 0) == 0)) return true;
    if (made && kMade.count(words[i]) > 0) return true;
  }
  return false;
}

// A title less the component it begins with ("xfixes: "), in lower case.
std::string TitleLessItsComponent(const std::string& title) {
  size_t colon = title.find(": ");
  return ToLower(colon != std::string::npos && colon < 40 ? title.substr(colon + 2) : title);
}

// "Support XI 2.2 officially", "xfixes: Support pointer barriers".
bool TitleBeginsSupport(const std::string& title) {
  return TitleLessItsComponent(title).rfind("support", 0) == 0;
}

// "Adjust to input ABI 12", "Port to libpciaccess", "Update for the 1.20
// ABI", in any form ("updated to GTK+3", "moving ... to"): a change that
// adapts the project to a thing is where its support for the thing came
// (not "Update for the removal of ...").
bool TitleAdaptsTo(const std::string& title) {
  static const std::set<std::string> kAdapt = {StemWord("adjust"), StemWord("adapt"),   StemWord("port"),
                                               StemWord("update"), StemWord("convert"), StemWord("switch"),
                                               StemWord("move"),   StemWord("migrate")};
  const std::string rest = TitleLessItsComponent(title);
  const std::vector<std::string> words = LowerWords(rest);
  // The thing may come after what is adapted: "Port xbacklight to XCB".
  auto to = std::find_if(words.begin() + std::min<long>(1, static_cast<long>(words.size())),
                         words.begin() + std::min<long>(4, static_cast<long>(words.size())),
                         [](const std::string& w) { return w == "to" || w == "for"; });
  return words.size() >= 3 && kAdapt.count(StemWord(words[0])) > 0 && to != words.end() &&
         to + 1 != words.end() && rest.find("remov") == std::string::npos &&
         rest.find("drop") == std::string::npos;
}

}  // namespace

bool TitleSaysItCame(const std::string& title, bool made) {
  return (SaysArrival(title, made) || TitleBeginsSupport(title) || TitleAdaptsTo(title)) &&
         title.rfind("Revert", 0) != 0;
}

bool SaysItCame(const std::vector<Evidence>& ev, const std::vector<std::string>& all_keys, bool made,
                bool platform_is_thing) {
  std::vector<std::string> keys = all_keys;
  const bool platform = platform_is_thing && std::any_of(keys.begin(), keys.end(), research::IsPlatformKey);
  if (!platform) std::erase_if(keys, research::IsPlatformKey);
  if (keys.empty()) return true;
  auto names = [&](const std::string& text) {
    return std::any_of(keys.begin(), keys.end(), [&](const std::string& k) { return research::MentionsAll(text, {k}); });
  };
  // "Track rename of DamagePost to DamageAdd": the name after "to" came.
  auto renamed_to = [&](const std::string& text) {
    const std::string lower = ToLower(text);
    size_t rename = lower.find("renam"),
           to = rename == std::string::npos ? rename : lower.find(" to ", rename);
    return to != std::string::npos && names(text.substr(to + 4));
  };
  return std::any_of(ev.begin(), ev.end(), [&](const Evidence& e) {
    if (!e.lane.empty()) return false;
    if (renamed_to(e.title)) return true;
    std::vector<std::string> sentences = research::Sentences(e.text);
    if (platform) std::erase_if(sentences, [](const std::string& s) { return !research::IsStatement(s); });
    std::string text;
    for (const auto& s : sentences) text += s + "\n";
    const bool title_came = TitleSaysItCame(e.title, made);
    if (title_came &&
        research::MentionsAll(
            e.title + "\n" + research::TitleForm(e.title) + "\n" + (platform ? text : e.text), keys)) {
      return true;  // "Implement support for XI 2.2", whose text lists XIAllowTouchEvents
    }
    if (names(e.title + "\n" + research::TitleForm(e.title)) &&
        (title_came || (!sentences.empty() && SaysArrival(sentences[0], made)))) {
      return true;
    }
    return std::any_of(sentences.begin(), sentences.end(),
                       [&](const std::string& s) { return names(s) && SaysArrival(s, made); });
  });
}

namespace {

constexpr const char* kBesideTheThing[] = {" on ", " in favour of ", " in favor of ", " instead of "};

// A key the question puts after "on" is where the thing came ("thread
// safety on Windows"), and one after "in favour of" or "instead of" what
// replaced it ("removed in favour of FreeType"): not the thing.
std::vector<std::string> KeysOfTheThing(const std::string& question, std::vector<std::string> keys) {
  const std::string lower = ToLower(question);
  std::erase_if(keys, [&](const std::string& k) {
    const std::string key = SplitList(k, '|').front();
    return std::any_of(std::begin(kBesideTheThing), std::end(kBesideTheThing),
                       [&](const char* before) { return lower.find(before + key) != std::string::npos; });
  });
  return keys;
}

bool IsGoneWord(const std::string& w) {
  static const std::set<std::string> kGone = {"remove", "removed", "removes", "removing", "drop",   "dropped",
                                              "drops",  "dropping", "delete", "deleted",  "deletes", "kill",
                                              "killed", "nuke",    "nuked",   "retire",   "retired", "purge",
                                              "purged", "rid",     "gone",    "removal", "removals", "deletion"};
  return kGone.count(w) > 0;
}

// Whether `form` (MatchForm) names half of `stems`, and at least one.
bool NamesHalfOfOne(const std::string& form, const std::vector<std::string>& stems) {
  size_t named = std::count_if(stems.begin(), stems.end(), [&](const std::string& s) { return NamesStem(form, s); });
  return named > 0 && named * 2 >= stems.size();
}

}  // namespace

std::vector<std::string> FewestSaid(const std::vector<std::string>& stems, const std::vector<Evidence>& ev) {
  std::vector<std::string> forms;
  for (const auto& e : ev) {
    if (e.lane.empty()) forms.push_back(research::MatchForm(e.title + "\n" + e.text));
  }
  std::vector<std::pair<size_t, std::string>> said;  // how many records say each stem
  for (const auto& s : stems) {
    said.emplace_back(std::count_if(forms.begin(), forms.end(), [&](const std::string& f) { return NamesStem(f, s); }),
                      s);
  }
  size_t fewest = said.empty() ? 0 : std::min_element(said.begin(), said.end())->first;
  std::vector<std::string> rare;
  for (const auto& [n, s] : said) {
    if (n <= std::max(fewest, forms.size() / 4)) rare.push_back(s);
  }
  return rare;
}

bool AsksWhenItWent(const std::string& question) {
  if (research::AnswerTypeOf(question) != research::AnswerType::kWhen) return false;
  auto words = LowerWords(question, true);  // "a drop-down mode" drops nothing
  return std::any_of(words.begin(), words.end(), IsGoneWord);
}

bool AsksWhenItBecame(const std::string& question) {
  if (research::AnswerTypeOf(question) != research::AnswerType::kWhen || AsksWhenItWent(question)) return false;
  auto words = LowerWords(question);
  return std::any_of(words.begin(), words.end(),
                     [](const std::string& w) { return w.rfind("becam", 0) == 0 || w.rfind("become", 0) == 0; });
}

std::optional<std::vector<const Evidence*>> RecordsSayingItWent(const std::string& question,
                                                                const std::vector<Evidence>& ev,
                                                                const std::vector<std::string>& all_keys,
                                                                const std::vector<std::string>& widespread) {
  const std::vector<std::string> keys = KeysOfTheThing(question, all_keys);
  std::vector<std::string> rare;
  if (keys.empty()) {
    std::vector<std::string> stems = SubjectStemsBeside(question, {}, ev, widespread, "");
    std::erase_if(stems, [](const std::string& s) { return IsGoneWord(s) || IsGoneWord(s + "e"); });  // "remov"
    rare = FewestSaid(stems, ev);
    if (rare.empty()) return std::nullopt;
  }
  auto went = [&](const std::string& text) {
    auto words = LowerWords(text, true);
    bool gone = std::any_of(words.begin(), words.end(), IsGoneWord);
    if (!gone) return false;
    if (keys.empty()) return NamesHalfOfOne(research::MatchForm(text), rare);
    return std::any_of(keys.begin(), keys.end(), [&](const std::string& k) { return research::MentionsAll(text, {k}); });
  };
  std::vector<const Evidence*> out;
  for (const auto& e : ev) {
    if (!e.lane.empty() || e.title.rfind("Revert", 0) == 0) continue;
    std::vector<std::string> sentences = research::Sentences(e.text);
    // The part a title begins with is where something went, not what:
    // "gdk: Remove unused variable" removes no GDK backend.
    auto sentence_went = [&](const std::string& t) {
      const size_t colon = t.find(": ");
      const bool component = colon != std::string::npos && colon < 40 && t.find(' ') > colon;
      return went(component ? t.substr(colon + 2) : t);
    };
    if (sentence_went(e.title) || std::any_of(sentences.begin(), sentences.end(), sentence_went)) {
      out.push_back(&e);
    }
  }
  return out;
}

bool CameUnsaid(const std::string& question, const std::vector<Evidence>& ev, const std::vector<std::string>& keys,
                const std::vector<std::string>& widespread) {
  if (AsksWhenItWent(question)) {
    auto went = RecordsSayingItWent(question, ev, keys, widespread);
    return went && went->empty();
  }
  if (keys.empty()) return false;
  const std::vector<std::string> thing = KeysOfTheThing(question, keys);
  // Platforms alone, where the question names nothing else but the project
  // ("When did the library add support for macOS?"), are the thing, not
  // where it came.
  static const std::set<std::string> kProject = {StemWord("library"), StemWord("driver"), StemWord("project"),
                                                 StemWord("program"), StemWord("package")};
  std::vector<std::string> besides = SubjectStemsBeside(question, thing, ev, widespread, "");
  std::erase_if(besides, [](const std::string& s) { return IsGenericNoun(s) || kProject.count(s) > 0; });
  const bool platforms = besides.empty() && std::all_of(thing.begin(), thing.end(), research::IsPlatformKey);
  if (AsksWhenItBecame(question)) return !SaysItCame(ev, thing, true, platforms);
  return AsksWhenItCame(question) && !SaysItCame(ev, thing, false, platforms);
}

bool AsksWhenItBegan(const std::string& question) {
  if (research::AnswerTypeOf(question) != research::AnswerType::kWhen) return false;
  auto words = LowerWords(question);
  return std::any_of(words.begin(), words.end(), IsBeganWord) || AsksWhenItCame(question);
}

std::vector<Hit> EarliestNaming(Searcher& searcher, const std::string& query, const std::vector<std::string>& need,
                                size_t min_named, bool title_all, const std::vector<std::string>& beside,
                                const std::function<std::string(const Hit&)>& text_of, size_t n,
                                const std::string& question) {
  const research::DateWindow window = research::QuestionWindow(question);
  std::vector<Hit> found;
  if (need.empty()) return found;
  std::string until = window.until;
  const bool code = title_all && WritesAsCode(need, question);  // then titled by any of them
  for (int round = 0; round < 6; ++round) {  // each round ends before the earliest the last one found
    SearchRequest req;
    req.search.query = query;
    req.search.k = 50;
    req.search.since = window.since;
    req.search.until = until;
    req.fts_only = true;
    auto r = searcher.Search(req);
    if (!r.ok()) break;
    std::string earliest;
    for (auto& h : r->result.hits) {
      if (SpaceOf(h.source) == "code" || h.date.empty()) continue;
      std::string form = research::TitleForm(h.title);
      // About the subject: its title names the first constraint (any of
      // them, where all are needed), and the record `min_named` of them.
      auto in_title = [&](const std::string& k) { return research::Mentions(form, k); };
      bool titled = title_all                 ? code || std::all_of(need.begin(), need.end(), in_title)
                    : min_named < need.size() ? in_title(need.front())
                                              : std::any_of(need.begin(), need.end(), in_title);
      if (!titled) continue;
      std::string all = research::MatchForm(h.title + "\n" + text_of(h));
      size_t named =
          std::count_if(need.begin(), need.end(), [&](const std::string& k) { return research::Mentions(all, k); });
      if (named < min_named || !NamesHalf(all, beside)) continue;
      if (earliest.empty() || h.date < earliest) earliest = h.date;
      found.push_back(std::move(h));
    }
    if (earliest.empty()) break;
    std::optional<int64_t> t = ParseIsoTime(earliest);
    if (!t) break;
    until = FormatIsoTime(*t - 1);
  }
  std::stable_sort(found.begin(), found.end(), [](const Hit& a, const Hit& b) { return a.date < b.date; });
  std::vector<Hit> out;
  for (auto& h : found) {
    if (out.size() == n) break;
    if (std::none_of(out.begin(), out.end(), [&](const Hit& o) { return o.url == h.url; })) out.push_back(std::move(h));
  }
  return out;
}

bool CameOnAPlatform(const std::vector<std::string>& keys, const std::vector<std::string>& searched) {
  if (keys.empty() || !std::all_of(keys.begin(), keys.end(), research::IsPlatformKey)) return false;
  std::string words = " ";
  for (const auto& k : keys) words += k + " ";
  std::replace(words.begin(), words.end(), '|', ' ');
  return std::none_of(searched.begin(), searched.end(),
                      [&](const std::string& w) { return words.find(" " + w + " ") != std::string::npos; });
}

std::vector<std::string> ThingWords(const std::vector<std::string>& words) {
  std::vector<std::string> out;
  for (const auto& w : words) {
    bool joins = std::any_of(words.begin(), words.end(), [&](const std::string& a) {
      return a.size() < w.size() && w.rfind(a, 0) == 0 &&
             std::find(words.begin(), words.end(), w.substr(a.size())) != words.end();
    });
    if (joins) continue;
    std::string stem = StemWord(w);
    out.push_back(stem.size() >= 4 && w.rfind(stem, 0) == 0 ? stem : w);
  }
  return out;
}

std::optional<std::pair<Facet, std::vector<Hit>>> EarliestFacet(Searcher& searcher, Corpus& corpus,
                                                                 const std::string& question,
                                                                 const std::vector<std::string>& names,
                                                                 const std::vector<std::string>& widespread,
                                                                 const std::vector<Hit>& top) {
  if (!AsksWhenItBegan(question)) return std::nullopt;
  std::vector<Evidence> seen;  // the permalinks that tell the project's own names
  for (const auto& h : top) seen.push_back(Evidence{.url = h.url, .title = h.title});
  std::vector<std::string> need = research::WithoutProjectNames(names, seen, widespread);
  // A platform is where the thing came ("launchd support for Mac OS X"), not
  // the thing, where the question names another.
  std::vector<std::string> platforms;
  std::copy_if(need.begin(), need.end(), std::back_inserter(platforms), research::IsPlatformKey);
  std::erase_if(need, research::IsPlatformKey);
  std::set<std::string> platform_words;
  for (const auto& p : platforms) {
    for (const auto& alt : SplitList(p, '|')) {
      for (auto& w : SplitList(alt, ' ')) platform_words.insert(std::move(w));
    }
  }
  size_t min_named = need.size();  // every key; else half the subject's words
  // "When did X get NEON fast paths?" asks for the record that added a thing
  // it names, whose title names all of it; without a name ("When was the
  // scanpci tool added?"), the record whose title says every word of the
  // thing but those for a kind of thing ("tool"): the earliest record merely
  // saying the words is as likely one that only mentions them.
  bool came = AsksWhenItCame(question);
  bool keyless = need.empty();
  if (keyless) {
    for (const auto& w : research::WithoutProjectNames(research::ContentWords(question), seen, widespread)) {
      if (platform_words.count(w) > 0) continue;
      if (came ? IsSubjectWord(w) && !IsGenericNoun(w) : !IsFrameWord(w) && !IsBeganWord(w)) need.push_back(w);
    }
    if (need.empty() && !platforms.empty()) {  // "Windows support"
      need = platforms, keyless = false, min_named = need.size();
    }
  }
  if (keyless) {
    if (came && (need.empty() || need.size() > 3)) return std::nullopt;
    if (came) min_named = need.size();
    // The rarest word some record says comes first, and every record found
    // says it: "inverted" of "vector search … inverted lists", not "lists".
    size_t rarest = 0, fewest = 0;
    for (size_t i = 0; i < need.size(); ++i) {
      size_t naming = searcher.ChunksNaming(need[i]);
      if (naming > 0 && (fewest == 0 || naming < fewest)) rarest = i, fewest = naming;
    }
    if (fewest == 0) return std::nullopt;
    std::rotate(need.begin(), need.begin() + static_cast<long>(rarest), need.begin() + static_cast<long>(rarest) + 1);
  }
  if (min_named == 0) min_named = (need.size() + 1) / 2;
  // As the question wrote them ("z-loss", not the "z loss" it is looked for
  // as), alternatives as words: the report reads the first one back.
  std::string query;
  for (std::string k : need) {
    // A name of two words is also written as one: "Qt 6" as "Qt6".
    std::string joined = k.find('|') == std::string::npos && min_named == need.size() ? k : "";
    if (std::erase(joined, ' ') == 0) joined.clear();
    std::replace(k.begin(), k.end(), '|', ' ');
    query += (query.empty() ? "" : " ") + k + (joined.empty() ? "" : " " + joined);
  }
  // Two words the question says together are also written as one: "page
  // flipping" as "pageflip".
  const std::string lower = ToLower(question);
  for (size_t i = 0; keyless && i < need.size(); ++i) {
    for (size_t j = 0; j < need.size(); ++j) {
      if (i != j && lower.find(need[i] + " " + need[j]) != std::string::npos) query += " " + need[i] + need[j];
    }
  }
  // A name's spellings the records found use ("debug level" for
  // "DebugLevel"); a thing without one is looked for by its words.
  std::vector<std::string> found_texts;
  for (const auto& h : top) {
    if (!keyless) found_texts.push_back(h.title + "\n" + h.snippet);
  }
  need = research::WithVariants(need, found_texts);
  for (const auto& k : need) {  // and searched for by them
    for (const auto& alt : SplitList(k, '|')) {
      if (alt.find(' ') != std::string::npos && query.find(alt) == std::string::npos) query += " " + alt;
    }
  }
  if (keyless) need = ThingWords(need);
  auto text_of = [&](const Hit& h) {
    auto c = corpus.ChunkByRef(h.ref);
    return c.ok() && *c ? (*c)->text : h.snippet;
  };
  std::vector<std::string> beside;  // and, where it came, half the words that say what came
  if (came) beside = CameBeside(question, need, seen, widespread);
  std::vector<Hit> hits =
      EarliestNaming(searcher, query, need, min_named, came, beside, text_of, 3, question);
  if (hits.empty()) return std::nullopt;
  return std::make_pair(Facet{kEarliestFacet, query, {}, {}, false, 0, 0}, std::move(hits));
}

}  // namespace umwelt::research_internal
