// Internal to sources/discord: the gateway protocol as a state machine that
// owns no socket — frames in, frames and events out — so the transport
// (gateway.cc, libwebsockets) stays small and the protocol can be driven by a
// test or a fuzzer frame by frame.
//
// The protocol (Discord's gateway, v10, JSON, no compression): the server
// opens with HELLO {heartbeat_interval}; the client IDENTIFYs (or RESUMEs a
// session it had), heartbeats with the last sequence number it handled, and
// treats a heartbeat without an ACK before the next one as a dead link.
// DISPATCH (op 0) carries events with a sequence number; RECONNECT (7) asks
// for a resume; INVALID_SESSION (9) says whether the session can be resumed.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "umwelt/discord.h"

namespace umwelt::discord {

// A gateway URL taken apart for the transport: wss://host[:port]/path?query.
struct GatewayUrl {
  bool tls = true;
  std::string host;
  int port = 443;
  std::string path;  // with "?v=10&encoding=json"
};
// Invalid for anything but wss://, or ws:// to a loopback host when
// `allow_loopback` (a test's gateway): the token is never sent in clear.
Result<GatewayUrl> ParseGatewayUrl(const std::string& url, bool allow_loopback);

class GatewaySession {
 public:
  // What the transport does after a frame or a tick.
  struct Step {
    std::vector<std::string> send;     // frames to send, in order
    std::vector<GatewayEvent> events;  // dispatches to hand on, then Handled()
    bool close = false;                // end this connection (then AfterClose)
    std::string why;                   // why it closes, for the log
    bool new_session = false;          // READY: a session that resumed nothing
    bool resumed = false;              // RESUMED
  };
  // After a connection ended.
  enum class Next { kResume, kIdentify, kStop };

  GatewaySession(std::string token, std::string guild, int intents, uint64_t seed = std::random_device()());

  // A connection opened at `now_ms`: nothing is sent before HELLO.
  void Connected(int64_t now_ms);
  Step OnFrame(std::string_view frame, int64_t now_ms);
  // Heartbeats due, a HELLO that never came, an ACK that never came.
  Step OnTick(int64_t now_ms);
  // The event with sequence `seq` was kept; the next heartbeat and resume
  // name it.
  void Handled(int64_t seq);
  // The connection ended with the close code the server sent (0: none, the
  // link broke). kStop puts the reason in *fatal.
  Next AfterClose(int code, std::string* fatal);

  bool can_resume() const { return !session_id_.empty(); }
  const std::string& resume_url() const { return resume_url_; }
  const std::string& session_id() const { return session_id_; }
  int64_t seq() const { return seq_; }
  // How long to wait before the next connection: 0 after a RECONNECT,
  // 1–5 s after a session that cannot be resumed (Discord asks for it).
  double reconnect_delay_seconds() const { return reconnect_delay_; }

  // No HELLO this long after connecting: the link is dead.
  static constexpr int64_t kHelloTimeoutMs = 20000;

 private:
  std::string Heartbeat() const;
  void Forget();  // the session: the next connection identifies
  void Remember(const nlohmann::json& channel);
  Step Dispatch(const nlohmann::json& frame);

  std::string token_, guild_;
  int intents_;
  std::mt19937_64 rng_;
  std::string session_id_, resume_url_;
  int64_t seq_ = 0;  // the last event handled
  // Per connection.
  int64_t connected_ms_ = 0, interval_ms_ = 0, next_beat_ms_ = 0;
  bool hello_ = false, awaiting_ack_ = false, resuming_ = false;
  double reconnect_delay_ = 0;
  // The guild's channels and threads as the gateway described them (id ->
  // {id, guild_id, name, type, parent_id, topic}): a message event carries
  // only its channel's id.
  std::map<std::string, nlohmann::json> channels_;
};

}  // namespace umwelt::discord
