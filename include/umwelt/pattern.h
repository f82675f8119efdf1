// umwelt/pattern.h — the one regular-expression type umwelt uses: RE2 (a
// linear-time automaton that neither backtracks nor recurses), read over
// bytes as the C++ library's matcher read them (Latin-1, so a UTF-8 literal in a pattern
// matches those bytes and ill-formed UTF-8 in the text is just bytes).
//
// Patterns are written in code, compiled once (a `static const Pattern`),
// and applied to outside text of any length in time linear in it. RE2's
// syntax is Perl's less backreferences and lookaround.
//
//   static const Pattern date(R"((\d{4})-(\d\d)-(\d\d))");
//   Groups g;
//   if (date.Search(text, &g)) year = g[1];
//
// Thread-safe: a Pattern is immutable once built.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class RE2;
}

namespace umwelt {

// The whole match at [0], then each group; a group that took no part in the
// match is an empty view whose data() is null.
using Groups = std::vector<std::string_view>;

class Pattern {
 public:
  enum Flags : unsigned { kNone = 0, kIgnoreCase = 1 };
  // Aborts on a pattern that does not compile: patterns are the program's
  // own text, and a test runs each of them (see Valid() for outside ones).
  explicit Pattern(std::string_view pattern, unsigned flags = kNone);
  ~Pattern();
  Pattern(Pattern&&) noexcept;
  Pattern& operator=(Pattern&&) noexcept;

  // A pattern given from outside (an eval file): nullptr with the reason in
  // `error` when it does not compile.
  static std::unique_ptr<Pattern> Valid(std::string_view pattern, unsigned flags, std::string* error);
  // `text` with every character a pattern treats specially escaped.
  static std::string Quote(std::string_view text);

  // The whole of `s` matches.
  bool Matches(std::string_view s, Groups* groups = nullptr) const;
  // A match anywhere in `s` (at or after `from`); the leftmost one in `groups`.
  bool Search(std::string_view s, Groups* groups = nullptr, size_t from = 0) const;
  // Each non-overlapping match, left to right; `f` returns false to stop.
  void ForEach(std::string_view s, const std::function<bool(const Groups&)>& f) const;
  // `s` with every match replaced by `rewrite`, where \0 is the match and
  // \1..\9 its groups (\\ a backslash).
  std::string ReplaceAll(std::string_view s, std::string_view rewrite) const;
  int group_count() const;

 private:
  Pattern();
  std::unique_ptr<re2::RE2> re_;
};

}  // namespace umwelt
