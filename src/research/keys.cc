// The key constraints of a question (KeyConstraints): the names it gives
// (acronyms, capitalized names, names in code, versions), each with the
// other spellings and names a record may use, and the alternatives a list
// of them offers.
#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "umwelt/claims.h"
#include "umwelt/search.h"
#include "umwelt/text.h"
#include "words.h"

namespace umwelt::research {

namespace {

// "GPTQ-quantized" is GPTQ, "H100-based" is H100: a hyphenated word whose
// tail is a lower-case participle or modifier after a name, an acronym or a
// measure is that name; "Mixture-of-Experts" and "GPT-4o-mini" stay whole.
std::string WithoutModifierTail(const std::string& word) {
  static const std::set<std::string, std::less<>> kModifiers = {
      "based", "style", "like", "aware", "only", "wise", "free", "specific", "compatible", "ready", "friendly"};
  std::string_view w = word;
  while (true) {
    size_t dash = w.rfind('-');
    if (dash == std::string_view::npos || dash == 0) break;
    std::string_view tail = w.substr(dash + 1), head = w.substr(0, dash);
    bool lower = !tail.empty() && std::all_of(tail.begin(), tail.end(), [](char c) { return c >= 'a' && c <= 'z'; });
    bool modifier = lower && tail.size() >= 4 &&
                    (tail.ends_with("ed") || tail.ends_with("ing") || kModifiers.count(tail) > 0);
    bool named = std::any_of(head.begin(), head.end(), [](char c) {
      return std::isupper(static_cast<unsigned char>(c)) != 0 || std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
    // "Pre-trained", "Self-hosted": a prefix, capitalized, is no name of its own.
    static const std::set<std::string, std::less<>> kPrefixes = {"pre", "post", "re", "non", "co", "sub", "self", "cross",
                                                                 "multi", "semi", "auto", "over", "under", "de", "un", "fine"};
    if (kPrefixes.count(ToLower(head)) > 0) break;
    if (!modifier || !named) break;
    w = head;
  }
  return std::string(w);
}

// A key with the other names of a platform or a toolchain, whatever the
// project: a record of 2007 says "OS X" where a question says "macOS".
const std::vector<std::vector<std::string>>& Aliases() {
  static const std::vector<std::vector<std::string>> kAliases = {
      {"macos", "mac os x", "os x", "osx"},
      {"windows", "win32"},
      {"msvc", "microsoft visual", "visual c++", "visual studio"},
  };
  return kAliases;
}

std::string WithOtherNames(const std::string& key) {
  const std::string first = key.substr(0, key.find('|'));  // a platform's, not its word's forms ("windows|window")
  for (const auto& names : Aliases()) {
    if (std::find(names.begin(), names.end(), first) == names.end()) continue;
    std::string any = first;
    for (const auto& n : names) any += n == first ? "" : "|" + n;
    return any;
  }
  return key;
}

// Where each of `words` (NameWords of `question`) stands in it.
std::vector<size_t> WordStarts(std::string_view question, const std::vector<std::string>& words) {
  std::vector<size_t> starts;
  for (size_t n = 0, from = 0; n < words.size(); ++n) {
    starts.push_back(question.find(words[n], from));
    from = starts.back() + words[n].size();
  }
  return starts;
}

// Whether word `i` follows word i - 1 one space after it.
bool SpaceAfter(std::string_view question, const std::vector<std::string>& words, const std::vector<size_t>& starts,
                size_t i) {
  return i > 0 && i < words.size() && starts[i] == starts[i - 1] + words[i - 1].size() + 1 &&
         question[starts[i] - 1] == ' ';
}

// The words from `n` that spell one of Aliases()'s names of several words
// ("Mac OS X"), a space apart: how many, 0 where none starts at `n`.
size_t PlatformNameWordsAt(std::string_view question, const std::vector<std::string>& words,
                           const std::vector<size_t>& starts, size_t n) {
  for (const auto& names : Aliases()) {
    for (const auto& name : names) {
      std::vector<std::string> parts = SplitList(name, ' ');
      if (parts.size() < 2 || n + parts.size() > words.size()) continue;
      bool spelled = true;
      for (size_t i = 0; spelled && i < parts.size(); ++i) {
        spelled = ToLower(words[n + i]) == parts[i] && (i == 0 || SpaceAfter(question, words, starts, n + i));
      }
      if (spelled) return parts.size();
    }
  }
  return 0;
}

}  // namespace

bool NamesAnotherPlatform(std::string_view match_form, const std::string& key) {
  static const char* kSystems[] = {"linux",   "windows", "win32",  "macos", "mac os x", "os x",  "osx",   "darwin",
                                   "solaris", "freebsd", "netbsd", "openbsd", "aix",    "hp ux", "hpux",  "cygwin",
                                   "mingw",   "android", "haiku",  "hurd",  "illumos",  "qnx"};
  const std::string names = "|" + key + "|";
  auto word_at = [&](size_t at, size_t size) {
    auto apart = [&](size_t i) { return std::isalnum(static_cast<unsigned char>(match_form[i])) == 0; };
    return (at == 0 || apart(at - 1)) && (at + size == match_form.size() || apart(at + size));
  };
  return std::any_of(std::begin(kSystems), std::end(kSystems), [&](const char* system) {
    const std::string_view s = system;
    if (names.find("|" + std::string(s) + "|") != std::string::npos) return false;
    for (size_t at = match_form.find(s); at != std::string_view::npos; at = match_form.find(s, at + 1)) {
      if (word_at(at, s.size())) return true;
    }
    return false;
  });
}

bool IsPlatformKey(const std::string& key) {
  std::string first = SplitList(key, '|').front();
  return std::any_of(Aliases().begin(), Aliases().end(), [&](const std::vector<std::string>& names) {
    return std::find(names.begin(), names.end(), first) != names.end();
  });
}

namespace {

// The phrase a bracket of names after it gives examples of: "the axis
// inversion options (InvertX, InvertY)" gives "axis inversion", up to three
// words of small letters before the bracket, less a kind of thing at its
// end ("options") and what a stop word ends; "" where there are none.
std::string PhraseBeforeBracket(std::string_view before) {
  static const std::set<std::string> kKind = {"option",   "options",   "setting",  "settings",   "flag",   "flags",
                                              "function", "functions", "field",    "fields",     "feature", "features",
                                              "support",  "call",      "calls",    "command",    "commands", "variable",
                                              "variables", "parameter", "parameters", "method", "methods", "names"};
  auto small = [](char c) { return c >= 'a' && c <= 'z'; };
  std::vector<std::string> words;  // from the last
  size_t i = before.size();
  while (words.size() < 3) {
    while (i > 0 && before[i - 1] == ' ') --i;
    size_t e = i;
    while (i > 0 && small(before[i - 1])) --i;
    if (i == e || (i > 0 && before[i - 1] != ' ')) break;  // not a word of small letters alone
    std::string w(before.substr(i, e - i));
    if (StopWords().count(w) > 0) break;
    if (words.empty() && kKind.count(w) > 0) continue;
    words.push_back(std::move(w));
  }
  std::string out;
  for (auto it = words.rbegin(); it != words.rend(); ++it) out += (out.empty() ? "" : " ") + *it;
  return out;
}

// Where the bracket around `at` opens and the phrase before it (above);
// npos and "" outside a bracket, or where no phrase comes before it.
std::pair<size_t, std::string> ExampleBracketAt(std::string_view question, size_t at) {
  const size_t open = question.rfind('(', at);
  const size_t close = open == std::string_view::npos ? open : question.find(')', open);
  if (close == std::string_view::npos || close <= at) return {std::string_view::npos, ""};
  std::string phrase = PhraseBeforeBracket(question.substr(0, open));
  return {phrase.empty() ? std::string_view::npos : open, phrase};
}

// A version a name is written with: "6", "1.2", "2.1.3"; an acronym's also
// "2000" ("JPEG 2000").
bool IsVersion(const std::string& v, bool acronym) {
  const size_t longest = v.find('.') != std::string::npos ? 6 : (acronym ? 4 : 3);
  return !v.empty() && v.size() <= longest && std::isdigit(static_cast<unsigned char>(v.front())) != 0 &&
         std::isdigit(static_cast<unsigned char>(v.back())) != 0 && v.find("..") == std::string::npos &&
         std::all_of(v.begin(), v.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '.'; });
}

// A name of three or more parts joined by hyphens, none a small word of
// English ("linux-drm-syncobj", not "state-of-the-art").
bool IsHyphenedName(const std::string& w) {
  static const std::set<std::string> kSmall = {"of", "the", "to", "in",  "a",    "an",   "and",  "or", "by",
                                               "for", "on", "at", "as", "per", "from", "with", "up", "out"};
  std::vector<std::string> parts = SplitList(ToLower(w), '-');
  auto small = [](const std::string& p) { return p.empty() || kSmall.count(p) > 0; };
  return parts.size() >= 3 && std::none_of(parts.begin(), parts.end(), small);
}

// The other spellings of the key `key` a question's word `w` gives, each
// after a "|": a name in code (`identifier`) less a library's prefix
// ("XRRGetScreenInfo", "XIQueryDevice"), which its records as often leave
// out ("Add GetScreenInfo"); a word of English capitalized as a `name` ("the
// Rotate option") in its other forms ("rotation"): its stem, of five
// letters or more.
std::string OtherSpellings(const std::string& w, const std::string& key, bool identifier, bool name) {
  // A protocol's version is written with its slash or without: "HTTP/2", "http2".
  if (size_t slash = key.find('/'); slash != std::string::npos && slash + 1 < key.size() &&
                                    std::isdigit(static_cast<unsigned char>(key[slash + 1]))) {
    return "|" + key.substr(0, slash) + key.substr(slash + 1);
  }
  if (identifier) {
    std::string rest = WithoutNamePrefix(w);
    return rest.empty() ? "" : "|" + rest;
  }
  bool letters = std::all_of(key.begin(), key.end(), [](char c) { return c >= 'a' && c <= 'z'; });
  std::string stem = name && letters ? StemWord(key) : key;
  return stem != key && stem.size() >= 5 ? "|" + stem : "";
}

// A name of three to five words, written out with no other spelling, is
// also its initials, as its records write it: "Web Key Directory" is WKD.
std::string WithInitials(const std::string& key) {
  if (key.find('|') != std::string::npos) return key;
  std::vector<std::string> words = SplitList(key, ' ');
  if (words.size() < 3 || words.size() > 5) return key;
  std::string initials;
  for (const auto& w : words) {
    if (w.size() < 2 || !std::all_of(w.begin(), w.end(), [](char c) { return c >= 'a' && c <= 'z'; }))
      return key;
    initials += w[0];
  }
  return key + "|" + initials;
}

// The word of a version written after the name at `n`, a space apart,
// which is part of it: "Qt 6", "Llama 4", "RandR 1.2", "HDMI 2.1" (a record
// on HDMI is not one on HDMI 2.1), and "XDMCP version 2"; 0 where none is.
size_t VersionWordAt(std::string_view question, const std::vector<std::string>& words,
                     const std::vector<size_t>& starts, size_t n, bool acronym) {
  bool spelled_out = SpaceAfter(question, words, starts, n + 1) && ToLower(words[n + 1]) == "version";
  size_t at = spelled_out ? n + 2 : n + 1;
  return SpaceAfter(question, words, starts, at) && IsVersion(words[at], acronym) ? at : 0;
}

// The last of the words from `n` that fill a bracket opened just before it,
// where they are a name of two to five words, each capitalized but for a
// small word joining them ("Digital Audio Control Protocol", "Mixture of
// Experts"); 0 where they are not.
size_t BracketedNameEnd(std::string_view question, const std::vector<std::string>& words,
                        const std::vector<size_t>& starts, size_t n) {
  static const std::set<std::string, std::less<>> kJoining = {"of", "and", "for", "the", "to", "in", "on"};
  const size_t close = question.find(')', starts[n]);
  if (close == std::string_view::npos ||
      question.substr(starts[n], close - starts[n]).find('(') != std::string_view::npos) {
    return 0;
  }
  size_t last = n;
  while (last + 1 < words.size() && starts[last + 1] < close) ++last;
  if (last == n || last - n > 4 || starts[last] + words[last].size() != close) return 0;
  for (size_t i = n; i <= last; ++i) {
    const bool capital = std::isupper(static_cast<unsigned char>(words[i][0])) != 0;
    if ((i > n && !SpaceAfter(question, words, starts, i)) ||
        !(capital || (i > n && i < last && kJoining.count(words[i]) > 0))) {
      return 0;
    }
  }
  return last;
}

// A word of small letters that may be a name written with its version
// ("libsoup 3"): not one that counts or orders ("than 2", "version 2").
bool IsVersionedName(const std::string& w) {
  static const std::set<std::string, std::less<>> kNot = {
      "version", "versions", "release", "releases", "than",   "over",  "about", "under",  "least",
      "most",    "last",     "first",   "past",     "every",  "only",  "after", "before", "since",
      "until",   "around",   "below",   "above",    "within", "level", "step",  "phase",  "stage",
      "page",    "part",     "take",    "took",     "takes",  "uses",  "using", "with"};
  return w.size() >= 4 && std::all_of(w.begin(), w.end(), [](char c) { return c >= 'a' && c <= 'z'; }) &&
         kNot.count(w) == 0 && StopWords().count(w) == 0;
}

// Words a question says as names that tell no record from another.
const std::set<std::string>& NoKeys() {
  static const std::set<std::string> k = {
      "gpu", "tpu", "cpu", "api", "llm", "ml", "ai", "pr", "ci", "url", "json", "yaml", "id", "ok", "faq", "i",
      "what", "when", "why", "how", "which", "who", "where", "did", "does", "do", "is", "are", "was", "were", "the",
      "a", "an", "we", "our", "in", "on", "for", "and", "or", "of", "to", "with", "has", "have", "can", "should"};
  return k;
}

// A word of small letters without a plural's s: "bookmarks", not "bus" or "class".
std::string Singular(std::string w) {
  if (w.size() > 3 && w.back() == 's' &&
      std::string_view("usi").find(w[w.size() - 2]) == std::string_view::npos) {
    w.pop_back();
  }
  return w;
}

// The thing a bracket after it names again (PhraseBeforeBracket), less a
// verb before it and its last word's plural: "outline" of "PDF outlines
// (bookmarks)", "force feedback" of "add force feedback (haptics)".
std::string ThingBeforeBracket(std::string_view before) {
  static const std::set<std::string, std::less<>> kVerbs = {"add",  "adds",  "added",  "get",    "gets",
                                                            "got",  "gain",  "gains",  "gained", "use",
                                                            "uses", "using", "support"};
  std::vector<std::string> words = SplitList(PhraseBeforeBracket(before), ' ');
  while (!words.empty() && kVerbs.count(words.front()) > 0) words.erase(words.begin());
  if (words.empty()) return "";
  words.back() = Singular(words.back());
  return SpaceJoined(words);
}

// Word `n` in lower case where it fills a bracket alone ("(shm)"), a word
// of letters that is no small word of English; "" where it is not.
std::string AloneInBrackets(std::string_view question, const std::vector<std::string>& words,
                            const std::vector<size_t>& starts, size_t n) {
  const size_t at = starts[n], end = at + words[n].size();
  if (at == 0 || question[at - 1] != '(' || end >= question.size() || question[end] != ')') return "";
  std::string w = ToLower(words[n]);
  bool letters =
      w.size() >= 2 && std::all_of(w.begin(), w.end(), [](char c) { return c >= 'a' && c <= 'z'; });
  return letters && StopWords().count(w) == 0 && NoKeys().count(w) == 0 ? w : "";
}

// Whether word `n` fills a bracket alone as a likeness ("a drop-down
// (Quake-style) mode", "(Emacs-like)"): it says what the thing before it is
// like, which its records need not name. Outside brackets such a name is
// the thing's own ("K&R-style function definitions").
bool LikenessInBrackets(std::string_view question, const std::vector<std::string>& words,
                        const std::vector<size_t>& starts, size_t n) {
  const size_t at = starts[n], end = at + words[n].size();
  if (at == 0 || question[at - 1] != '(' || end >= question.size() || question[end] != ')') return false;
  const std::string w = ToLower(words[n]);
  return w.ends_with("-style") || w.ends_with("-like");
}

// The key word `n`, of small letters, gives (into `out` and `key_word`, as
// KeyConstraints keeps them): a word alone in brackets, a word with its
// version, what a thing went to; `w` is the word less a modifier's tail.
// Returns the index of its last word.
size_t KeyOfASmallWord(std::string_view question, const std::vector<std::string>& words,
                       const std::vector<size_t>& starts, size_t n, const std::string& w,
                       std::vector<std::string>& out, std::vector<size_t>& key_word) {
  // A word alone in brackets is another name of the key or the words
  // before it: "Ubuntu Online Accounts (libaccounts)", "the shared
  // memory (shm) transmitter".
  if (std::string bracketed = AloneInBrackets(question, words, starts, n); !bracketed.empty()) {
    if (!out.empty() && key_word.back() + 1 == n && out.back().find('|') == std::string::npos) {
      out.back() += "|" + bracketed;
      key_word.back() = n;
    } else if (std::string phrase = ThingBeforeBracket(question.substr(0, starts[n] - 1)); !phrase.empty()) {
      out.push_back(Singular(bracketed) + "|" + phrase), key_word.push_back(n);
    }
    return n;
  }
  // A word written with its version is a name: "libsoup 3", "python 3.12".
  if (size_t at = VersionWordAt(question, words, starts, n, false); at > 0 && IsVersionedName(w)) {
    std::string key = ToLower(w) + " " + words[at];
    if (std::find(out.begin(), out.end(), key) == out.end()) out.push_back(key), key_word.push_back(at);
    n = at;
  } else if (n >= 3 && ToLower(words[n - 1]) == "to" && ToLower(words[n - 3]) == "from" &&
             SpaceAfter(question, words, starts, n) && SpaceAfter(question, words, starts, n - 1) &&
             SpaceAfter(question, words, starts, n - 2)) {
    // What a thing went to is a name, whatever its case: "from autotools
    // to meson" (a record on the move need not say what it left).
    if (std::string key = ToLower(words[n]); IsVersionedName(key) && NoKeys().count(key) == 0 &&
                                             std::find(out.begin(), out.end(), key) == out.end()) {
      out.push_back(key), key_word.push_back(n);
    }
  }
  return n;
}

// Where word `n`, whose key is `key`, opens a bracket right after the last
// key, and the bracket holds another name of it: "AltiVec (VMX)", and one
// of several words, "EPS (Encapsulated PostScript)". That name joins the
// last key's spellings (in `out`, its word in `key_word`); returns the index
// of the bracket's last word, 0 where it is no such name.
size_t OtherNameInBrackets(std::string_view question, const std::vector<std::string>& words,
                           const std::vector<size_t>& starts, size_t n, const std::string& key,
                           std::vector<std::string>& out, std::vector<size_t>& key_word) {
  if (out.empty() || key_word.back() + 1 != n || out.back().find('|') != std::string::npos) return 0;
  size_t gap_from = starts[n - 1] + words[n - 1].size(), end = starts[n] + words[n].size();
  size_t last = question.substr(gap_from, starts[n] - gap_from) == " (" && question.substr(end, 1) == ")"
                    ? n
                    : BracketedNameEnd(question, words, starts, n);
  if (last < n) return 0;
  const size_t close = starts[last] + words[last].size();
  out.back() += "|" + (last == n ? key : ToLower(question.substr(starts[n], close - starts[n])));
  key_word.back() = last;
  return last;
}

}  // namespace

std::vector<std::string> KeyConstraints(std::string_view question) {
  std::vector<std::string> out;
  std::vector<std::string> words = NameWords(question);
  // Where each word stands in the question, to read what joins two keys.
  const std::vector<size_t> starts = WordStarts(question, words);
  // The keys a list of alternatives names ("PNG, JPEG or SVG"): which of
  // `out` each began at, and the word each key came from.
  std::vector<size_t> key_word;
  struct List {
    size_t first, last;   // indexes into `out`, joined by commas
    bool either = false;  // and an "or": alternatives
  };
  std::vector<List> lists;
  bool prev_name = false;  // the word before was a name (a key's last word)
  size_t example_bracket = std::string_view::npos;  // where out.back()'s bracket of examples opens
  for (size_t n = 0; n < words.size(); ++n) {
    // A platform's name of several words is one key, whatever its case: "Mac OS X".
    if (size_t spelled = PlatformNameWordsAt(question, words, starts, n); spelled > 0) {
      const size_t end = starts[n + spelled - 1] + words[n + spelled - 1].size();
      std::string key = ToLower(question.substr(starts[n], end - starts[n]));
      if (std::find(out.begin(), out.end(), key) == out.end()) out.push_back(key), key_word.push_back(n + spelled - 1);
      n += spelled - 1;
      prev_name = false;
      continue;
    }
    std::string w = WithoutModifierTail(words[n]);
    bool was_first = n == 0;
    int upper = 0, lower = 0, digits = 0;
    for (char c : w) {
      upper += std::isupper(static_cast<unsigned char>(c)) != 0;
      lower += std::islower(static_cast<unsigned char>(c)) != 0;
      digits += std::isdigit(static_cast<unsigned char>(c)) != 0;
    }
    bool measure = digits > 0 && upper + lower > 0;              // h200, v5p, 7b, llama3
    bool acronym = upper >= 2 && upper >= lower;                 // MFU, TPU, FSDP, GPUs
    bool name = !was_first && upper >= 1 && std::isupper(static_cast<unsigned char>(w[0])) && lower > 0;  // Olmo, Haliax
    // A name in code: auto_ptr, getCString (a capital after a small letter).
    bool identifier = upper + lower > 0 && (w.find('_') != std::string::npos || HasHump(w));
    identifier |= IsHyphenedName(w);  // "linux-drm-syncobj"
    if (!measure && !acronym && !name && !identifier) {
      n = KeyOfASmallWord(question, words, starts, n, w, out, key_word);
      prev_name = false;
      continue;
    }
    std::string key = ToLower(w);
    // A plural's s ("GPUs", "Olmos"), not an acronym's own last letter ("HTTPS")
    // nor a name's that ends in -us, -ss or -is ("D-Bus", "Redis"), nor a
    // platform's ("Windows").
    bool own_s = (w.size() >= 2 && std::string_view("usi").find(w[w.size() - 2]) != std::string_view::npos) ||
                 WithOtherNames(key) != key;
    bool plural = key.size() > 3 && w.back() == 's' && !own_s && !std::isdigit(static_cast<unsigned char>(key[key.size() - 2]));
    if (plural) key.pop_back();
    if (key.size() > 2 && key.back() == 's' && std::isdigit(static_cast<unsigned char>(key[key.size() - 2]))) key.pop_back();  // H100s
    if (NoKeys().count(key) || std::find(out.begin(), out.end(), key) != out.end() ||
        LikenessInBrackets(question, words, starts, n)) {
      prev_name = false;
      continue;
    }
    // Names written together, a space apart, are one name: "Hugging Face".
    bool joins = name && prev_name && !out.empty() && question.find(words[n - 1] + " " + words[n]) != std::string_view::npos;
    prev_name = name && !acronym && !measure;
    if (joins && prev_name) {
      out.back() = out.back().substr(0, out.back().find('|')) + " " + key;  // one name's key, not its word's forms
      key_word.back() = n;
      continue;
    }
    // Joined to the key of the word before by ", ", " or " or ", or ".
    if (!out.empty() && key_word.back() + 3 > n) {
      size_t gap_from = starts[key_word.back()] + words[key_word.back()].size();
      std::string_view gap = question.substr(gap_from, starts[n] - gap_from);
      bool either = gap == " or " || gap == ", or ";
      if (either || gap == ", ") {
        if (lists.empty() || lists.back().last != out.size() - 1) lists.push_back({out.size() - 1, out.size() - 1});
        lists.back().last = out.size();
        lists.back().either |= either;
      }
    }
    // A name in brackets after another is the same thing (OtherNameInBrackets).
    if (size_t last = OtherNameInBrackets(question, words, starts, n, key, out, key_word); last > 0) {
      n = last;
      prev_name = false;
      continue;
    }
    // A version written after a name is part of it (VersionWordAt).
    if (size_t at = (name || acronym) && !measure ? VersionWordAt(question, words, starts, n, acronym) : 0;
        at > 0) {
      key += " " + words[at];
      n = at;  // its last word
    }
    key += OtherSpellings(w, key, identifier, name && !acronym && !measure);
    // Names in brackets after a phrase are its examples ("the axis inversion
    // options (InvertX, InvertY)"): a record names one of them or the phrase.
    auto [open, phrase] = ExampleBracketAt(question, starts[n]);
    if (open != std::string_view::npos && example_bracket == open && !out.empty()) {
      out.back() += "|" + key;
      if (!lists.empty() && lists.back().last == out.size()) {  // not a list of its own
        if (lists.back().first + 1 == lists.back().last) lists.pop_back();
        else --lists.back().last;
      }
      key_word.back() = n;
      continue;
    }
    example_bracket = open;
    if (!phrase.empty()) key += "|" + phrase;
    out.push_back(key);
    key_word.push_back(n);
  }
  for (auto& key : out) key = WithInitials(WithOtherNames(key));
  // A list of alternatives is one constraint: a record names any of them.
  for (auto it = lists.rbegin(); it != lists.rend(); ++it) {
    if (!it->either) continue;
    std::string any = out[it->first];
    for (size_t k = it->first + 1; k <= it->last; ++k) any += "|" + out[k];
    out.erase(out.begin() + static_cast<long>(it->first) + 1, out.begin() + static_cast<long>(it->last) + 1);
    out[it->first] = any;
  }
  return out;
}

std::vector<std::string> GenericNames(std::string_view question) {
  std::vector<std::string> out;
  for (size_t i = 0; i < question.size();) {
    size_t end = i;
    while (end < question.size() && std::isalnum(static_cast<unsigned char>(question[end]))) ++end;
    std::string_view w = question.substr(i, end - i);
    std::string lower = ToLower(w);
    bool capitals =
        w.size() >= 2 && std::all_of(w.begin(), w.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
    if (capitals && NoKeys().count(lower) && !StopWords().count(lower) &&
        std::find(out.begin(), out.end(), lower) == out.end()) {
      out.push_back(std::move(lower));
    }
    i = end + 1;
  }
  return out;
}

}  // namespace umwelt::research
