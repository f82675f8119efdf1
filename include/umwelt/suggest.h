// umwelt/suggest.h — "did you mean": the nearest of some known names to a
// mistyped one.
//
//   std::string s = Nearest("serach", {"search", "show", "sync"});  // "search"
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace umwelt {

// The candidate nearest to `word` by edit distance (insertions, deletions,
// substitutions and swaps of neighbours, case ignored), when it is near
// enough to be a slip: at most one edit for a word of up to six letters,
// two up to ten, three beyond ("gitlab" is not a slip of "github"). "" when
// none is; ties go to the first.
std::string Nearest(std::string_view word, const std::vector<std::string>& candidates);

// "; did you mean `x`?" for Nearest's answer, "" when there is none.
std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace umwelt
