// The words of a question as the research pipeline reads them, shared by
// evidence.cc and keys.cc (not a public contract).
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace umwelt::research {

// Whether a word has a name in code's hump: a small letter, then a capital
// ("getCString", "XIScrollClass").
bool HasHump(std::string_view w);
// The small words no key or subject is made of ("the", "when", "using").
const std::set<std::string>& StopWords();
// The words of a text as names are written: letters, digits and '_', with
// '-' and '.' inside ("v5p", "Olmo-2", "qwen2.5"), case kept.
std::vector<std::string> NameWords(std::string_view text);
// `words` one space apart: {"shared", "memory"} is "shared memory".
std::string SpaceJoined(const std::vector<std::string>& words);

}  // namespace umwelt::research
