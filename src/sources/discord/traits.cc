// Discord's records to the rest of umwelt (umwelt/source_traits.h): messages
// in channels, threads and forums ("discord:<guild>/<channel>").
#include "../registry/traits_internal.h"
#include "umwelt/discord.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace umwelt {
namespace discord {

int ReactionCount(std::string_view text) {
  size_t at = text.rfind(kReactionsLine);
  if (at == std::string_view::npos) return 0;
  std::string_view line = text.substr(at + kReactionsLine.size());
  line = line.substr(0, line.find('\n'));
  // Each entry is "<emoji name> <count>"; a name may hold spaces, never the
  // ", " that separates entries.
  int64_t n = 0;
  while (!line.empty()) {
    size_t comma = line.find(", ");
    std::string_view entry = line.substr(0, comma);
    line = comma == std::string_view::npos ? std::string_view() : line.substr(comma + 2);
    size_t space = entry.rfind(' ');
    if (space == std::string_view::npos) continue;
    std::string_view digits = entry.substr(space + 1);
    if (digits.empty() || digits.size() > 9 ||
        !std::all_of(digits.begin(), digits.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
      continue;
    }
    n += std::stoll(std::string(digits));
  }
  return static_cast<int>(std::min<int64_t>(n, 1000000000));
}

}  // namespace discord

namespace traits_internal {

SourceTraits Discord() {
  return {.name = "discord",
          .label = "Discord",
          .ref_prefix = "discord:",
          .kinds = {{"message", Role::kMessage, "Discord", "Discord message", "Discord messages"},
                    {"channel", Role::kChannel},
                    {"thread", Role::kChannel},
                    {"forum", Role::kChannel}},
          .reactions = &discord::ReactionCount};
}

}  // namespace traits_internal
}  // namespace umwelt
