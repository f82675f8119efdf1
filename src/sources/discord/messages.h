// Internal to sources/discord: one message, in either JSON dialect
// (DiscordChatExporter's camelCase or the API's snake_case), as a chunk.
#pragma once

#include <nlohmann/json.hpp>

#include "umwelt/discord.h"

namespace umwelt::discord {

struct Channel {
  std::string guild_id, id, name;
  std::string kind = "channel";  // channel, thread, forum
  std::string parent_id;         // a thread's channel
  std::string topic;
};

std::string ChannelRef(const std::string& guild, const std::string& channel);
std::string MessageUrl(const std::string& guild, const std::string& channel, const std::string& message);

// The chunk of `m` in `channel`, with the links its text makes. False for a
// message with nothing to read (a join, a pin notice, an empty system line).
bool MessageToChunk(const nlohmann::json& m, const Channel& channel, const std::string& repo, Chunk* chunk,
                    std::vector<Link>* links);

// A channel or thread object as the API returns it (snake_case).
Channel ApiChannel(const nlohmann::json& c);

// The thread row of a channel or thread.
Thread ChannelThread(const Channel& c);

// The snowflake id of the first possible message at `epoch_seconds`.
uint64_t SnowflakeAt(int64_t epoch_seconds);

}  // namespace umwelt::discord
