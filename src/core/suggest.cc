#include "umwelt/suggest.h"

#include <algorithm>
#include <cctype>

namespace umwelt {
namespace {

// Optimal string alignment distance over lower-cased bytes; stops early
// once every cell of a row passes `cap`.
size_t Distance(std::string_view a, std::string_view b, size_t cap) {
  auto low = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  const size_t n = a.size(), m = b.size();
  if ((n > m ? n - m : m - n) > cap) return cap + 1;
  std::vector<size_t> prev2(m + 1), prev(m + 1), cur(m + 1);
  for (size_t j = 0; j <= m; ++j) prev[j] = j;
  for (size_t i = 1; i <= n; ++i) {
    cur[0] = i;
    size_t best = cur[0];
    for (size_t j = 1; j <= m; ++j) {
      size_t cost = low(a[i - 1]) == low(b[j - 1]) ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && low(a[i - 1]) == low(b[j - 2]) && low(a[i - 2]) == low(b[j - 1])) {
        cur[j] = std::min(cur[j], prev2[j - 2] + 1);
      }
      best = std::min(best, cur[j]);
    }
    if (best > cap) return cap + 1;
    prev2.swap(prev);
    prev.swap(cur);
  }
  return prev[m];
}

}  // namespace

std::string Nearest(std::string_view word, const std::vector<std::string>& candidates) {
  if (word.empty() || word.size() > 64) return "";
  const size_t cap = word.size() <= 6 ? 1 : word.size() <= 10 ? 2 : 3;
  std::string best;
  size_t best_d = cap + 1;
  for (const auto& c : candidates) {
    size_t d = Distance(word, c, cap);
    if (d < best_d && d > 0) best_d = d, best = c;
  }
  return best;
}

std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates) {
  std::string n = Nearest(word, candidates);
  return n.empty() ? "" : "; did you mean `" + n + "`?";
}

}  // namespace umwelt
