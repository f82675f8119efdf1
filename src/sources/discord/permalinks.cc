// Discord's permalinks: https://discord.com/channels/GUILD/CHANNEL[/MESSAGE]
// names the thread discord:GUILD/CHANNEL.
#include "../registry/permalinks_internal.h"

namespace umwelt::permalinks_internal {

namespace {
bool IsChannelUrl(const UrlParts& parts) { return parts.path.size() >= 3 && parts.path[0] == "channels"; }
}  // namespace

PermalinkScheme Discord() {
  return {"discord",
          {"discord.com", "discordapp.com"},
          [](std::string_view, const UrlParts& parts) -> std::optional<std::string> {
            if (!IsChannelUrl(parts)) return std::nullopt;
            return "discord:" + std::string(parts.path[1]) + "/" + std::string(parts.path[2]);
          },
          IsChannelUrl};
}

}  // namespace umwelt::permalinks_internal
