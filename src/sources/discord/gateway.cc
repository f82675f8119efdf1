// The Discord gateway: the protocol (GatewaySession) and one connection at a
// time over libwebsockets (Follow).
#include "gateway.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <thread>

#include "messages.h"
#include "websocket_module.h"
#include "umwelt/address.h"
#include "umwelt/dynlib.h"
#include "umwelt/json_read.h"
#include "umwelt/log.h"
#include "umwelt/text.h"

namespace umwelt::discord {
namespace {

using json = nlohmann::json;

enum Op { kDispatch = 0, kHeartbeat = 1, kIdentify = 2, kResume = 6, kReconnect = 7, kInvalidSession = 9, kHello = 10,
          kHeartbeatAck = 11 };

// A close that keeps the session resumable (1000 and 1001 would end it).
constexpr int kCloseResumable = 4000;

bool IsLoopbackHost(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

// The numeric address to connect to for `g`: its host resolved here, so the
// connection goes where was checked. A host that is, or resolves to, a
// private address is refused (a gateway URL comes from the API or a READY)
// unless `allow_private` (a loopback API base: tests).
Result<std::string> CheckedAddress(const GatewayUrl& g, bool allow_private) {
  UMWELT_ASSIGN_OR_RETURN(std::vector<std::string> addresses, ResolveHost(g.host));
  if (!allow_private) {
    for (const auto& a : addresses) {
      if (IsPrivateAddress(a)) {
        return Status::Invalid("gateway host " + std::string(TruncateUtf8(g.host, 200)) + " is or resolves to " + a +
                               ", a private, loopback or link-local address; refused");
      }
    }
  }
  return addresses.front();
}

// The dispatches a corpus keeps, and those that only describe channels.
bool Kept(const std::string& t) {
  return t == "MESSAGE_CREATE" || t == "MESSAGE_UPDATE" || t == "MESSAGE_DELETE" || t == "MESSAGE_DELETE_BULK" ||
         t == "THREAD_CREATE" || t == "THREAD_UPDATE" || t == "THREAD_DELETE" || t == "CHANNEL_CREATE" ||
         t == "CHANNEL_UPDATE" || t == "CHANNEL_DELETE";
}

// The fields of a channel object a message's chunk reads.
json ChannelFields(const json& c, const std::string& guild) {
  json out = json::object();
  for (const char* k : {"id", "guild_id", "name", "type", "parent_id", "topic"}) {
    if (auto it = c.find(k); it != c.end() && (it->is_string() || it->is_number_integer())) out[k] = *it;
  }
  if (!out.contains("guild_id")) out["guild_id"] = guild;
  return out;
}

}  // namespace

Result<GatewayUrl> ParseGatewayUrl(const std::string& url, bool allow_loopback) {
  GatewayUrl g;
  std::string rest;
  if (url.rfind("wss://", 0) == 0) {
    rest = url.substr(6);
  } else if (url.rfind("ws://", 0) == 0) {
    g.tls = false;
    g.port = 80;
    rest = url.substr(5);
  } else {
    return Status::Invalid("gateway URL `" + std::string(TruncateUtf8(url, 200)) + "` is not wss://");
  }
  size_t slash = rest.find_first_of("/?");
  std::string authority = rest.substr(0, slash);
  g.path = slash == std::string::npos ? "/" : rest.substr(slash);
  if (g.path[0] == '?') g.path = "/" + g.path;
  if (authority.size() >= 2 && authority[0] == '[') {  // [::1]:port
    size_t close = authority.find(']');
    if (close == std::string::npos) return Status::Invalid("gateway URL has a bad host: " + url);
    g.host = authority.substr(1, close - 1);
    authority = authority.substr(close + 1);
    if (!authority.empty() && authority[0] != ':') return Status::Invalid("gateway URL has a bad host: " + url);
    authority = authority.empty() ? "" : authority.substr(1);
    if (!authority.empty()) authority = "x:" + authority;
  }
  if (size_t colon = authority.rfind(':'); colon != std::string::npos) {
    std::string port = authority.substr(colon + 1);
    if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
        std::stoi(port) == 0 || std::stoi(port) > 65535) {
      return Status::Invalid("gateway URL has a bad port: " + std::string(TruncateUtf8(url, 200)));
    }
    g.port = std::stoi(port);
    if (g.host.empty()) g.host = authority.substr(0, colon);
  } else if (g.host.empty()) {
    g.host = authority;
  }
  if (g.host.empty() || g.host.find_first_of("@ \t\r\n") != std::string::npos) {
    return Status::Invalid("gateway URL has a bad host: " + std::string(TruncateUtf8(url, 200)));
  }
  if (!g.tls && !(allow_loopback && IsLoopbackHost(g.host))) {
    return Status::Invalid("gateway URL `" + std::string(TruncateUtf8(url, 200)) +
                           "` is not wss:// (the token is never sent in clear)");
  }
  g.path += g.path.find('?') == std::string::npos ? "?v=10&encoding=json" : "&v=10&encoding=json";
  return g;
}

// --- the protocol -----------------------------------------------------------------

GatewaySession::GatewaySession(std::string token, std::string guild, int intents, uint64_t seed)
    : token_(std::move(token)), guild_(std::move(guild)), intents_(intents), rng_(seed) {}

void GatewaySession::Connected(int64_t now_ms) {
  connected_ms_ = now_ms;
  interval_ms_ = next_beat_ms_ = 0;
  hello_ = awaiting_ack_ = resuming_ = false;
  reconnect_delay_ = 0;
}

std::string GatewaySession::Heartbeat() const {
  return json{{"op", kHeartbeat}, {"d", seq_ > 0 ? json(seq_) : json(nullptr)}}.dump();
}

void GatewaySession::Forget() {
  session_id_.clear();
  resume_url_.clear();
  seq_ = 0;
}

void GatewaySession::Handled(int64_t seq) { seq_ = std::max(seq_, seq); }

void GatewaySession::Remember(const json& channel) {
  std::string id = StrField(channel, "id");
  if (id.empty() || id.size() > 24) return;
  if (channels_.size() >= 100000 && !channels_.count(id)) channels_.clear();  // a bound, not a cache policy
  channels_[id] = ChannelFields(channel, guild_);
}

GatewaySession::Step GatewaySession::OnFrame(std::string_view frame, int64_t now_ms) {
  Step step;
  json j = ParseJson(frame);
  if (!j.is_object() || !j.contains("op") || !j["op"].is_number_integer()) {
    step.close = true;
    step.why = "the gateway sent a frame that is not a gateway payload";
    return step;
  }
  const json null;
  const json& d = j.contains("d") ? j["d"] : null;
  switch (j["op"].get<int64_t>()) {
    case kHello: {
      int64_t interval = d.is_object() ? IntField(d, "heartbeat_interval") : 0;
      if (interval < 100 || interval > 600000) {
        step.close = true;
        step.why = "HELLO without a usable heartbeat_interval";
        return step;
      }
      hello_ = true;
      interval_ms_ = interval;
      // The first beat at a random point of the first interval (Discord's
      // advice: a thousand bots reconnecting do not beat in step).
      next_beat_ms_ = now_ms + static_cast<int64_t>(std::uniform_real_distribution<double>(0, 1)(rng_) * interval);
      json hello;
      if (can_resume()) {
        resuming_ = true;
        hello = {{"op", kResume}, {"d", {{"token", token_}, {"session_id", session_id_}, {"seq", seq_}}}};
      } else {
        hello = {{"op", kIdentify},
                 {"d",
                  {{"token", token_},
                   {"intents", intents_},
                   {"properties", {{"os", "linux"}, {"browser", "umwelt"}, {"device", "umwelt"}}}}}};
      }
      step.send.push_back(hello.dump());
      return step;
    }
    case kHeartbeat:  // the server asks for one now
      step.send.push_back(Heartbeat());
      return step;
    case kHeartbeatAck:
      awaiting_ack_ = false;
      return step;
    case kReconnect:
      step.close = true;
      step.why = "the gateway asked for a reconnect";
      return step;
    case kInvalidSession: {
      bool resumable = d.is_boolean() && d.get<bool>();
      if (!resumable) Forget();
      step.close = true;
      step.why = resumable ? "the gateway invalidated the connection (resumable)" : "the session is no longer valid";
      // Discord asks for 1–5 s before the next identify.
      reconnect_delay_ = resumable ? 0 : std::uniform_real_distribution<double>(1, 5)(rng_);
      return step;
    }
    case kDispatch:
      return Dispatch(j);
    default:  // an op this client does not know: ignored, as the protocol allows
      return step;
  }
}

GatewaySession::Step GatewaySession::Dispatch(const json& j) {
  Step step;
  std::string t = StrField(j, "t");
  int64_t s = j.contains("s") && j["s"].is_number_integer() ? j["s"].get<int64_t>() : 0;
  const json null;
  const json& d = j.contains("d") ? j["d"] : null;
  if (t == "READY") {
    std::string id = d.is_object() ? StrField(d, "session_id") : "";
    std::string url = d.is_object() ? StrField(d, "resume_gateway_url") : "";
    if (id.empty() || id.size() > 128 || url.size() > 2048) {
      step.close = true;
      step.why = "READY without a session id";
      return step;
    }
    session_id_ = id;
    resume_url_ = url;
    seq_ = 0;
    step.new_session = true;
  } else if (t == "RESUMED") {
    step.resumed = true;
  }
  if (!d.is_object()) {
    if (s > 0) Handled(s);
    return step;
  }
  // Channels as the gateway describes them.
  if (t == "GUILD_CREATE" && StrField(d, "id") == guild_) {
    for (const char* list : {"channels", "threads"}) {
      for (const auto& c : ArrayField(d, list)) {
        if (c.is_object()) Remember(c);
      }
    }
  } else if (t == "THREAD_LIST_SYNC" && StrField(d, "guild_id") == guild_) {
    for (const auto& c : ArrayField(d, "threads")) {
      if (c.is_object()) Remember(c);
    }
  }
  if (!Kept(t) || StrField(d, "guild_id") != guild_) {
    if (s > 0) Handled(s);
    return step;
  }
  const bool about_channel = t.rfind("THREAD_", 0) == 0 || t.rfind("CHANNEL_", 0) == 0;
  std::string channel_id = about_channel ? StrField(d, "id") : StrField(d, "channel_id");
  if (about_channel && t.find("DELETE") == std::string::npos) Remember(d);
  json body = {{"t", t}, {"d", d}};
  if (auto it = channels_.find(channel_id); it != channels_.end()) body["channel"] = it->second;
  if (about_channel && t.find("DELETE") != std::string::npos) channels_.erase(channel_id);
  GatewayEvent e;
  e.session = session_id_;
  e.seq = s;
  e.type = t;
  e.channel = channel_id.empty() ? "" : ChannelRef(guild_, channel_id);
  e.body = body.dump();
  step.events.push_back(std::move(e));
  return step;
}

GatewaySession::Step GatewaySession::OnTick(int64_t now_ms) {
  Step step;
  if (!hello_) {
    if (now_ms - connected_ms_ > kHelloTimeoutMs) {
      step.close = true;
      step.why = "no HELLO from the gateway";
    }
    return step;
  }
  if (now_ms < next_beat_ms_) return step;
  if (awaiting_ack_) {  // the last beat was never acknowledged: a dead link
    step.close = true;
    step.why = "the gateway did not acknowledge a heartbeat";
    return step;
  }
  step.send.push_back(Heartbeat());
  awaiting_ack_ = true;
  next_beat_ms_ = now_ms + interval_ms_;
  return step;
}

GatewaySession::Next GatewaySession::AfterClose(int code, std::string* fatal) {
  switch (code) {
    case 4004: *fatal = "the gateway refused the bot token (close 4004)"; return Next::kStop;
    case 4010: *fatal = "the gateway refused the shard (close 4010)"; return Next::kStop;
    case 4011: *fatal = "the gateway requires sharding for this bot (close 4011)"; return Next::kStop;
    case 4012: *fatal = "the gateway refused API version 10 (close 4012)"; return Next::kStop;
    case 4013: *fatal = "the gateway refused the intents (close 4013)"; return Next::kStop;
    case 4014:
      *fatal = "the bot is not allowed the intents it needs (close 4014): enable the Message Content intent for it in "
               "Discord's developer portal";
      return Next::kStop;
    case 4007:  // a resume with a bad sequence number
    case 4009:  // the session timed out
      Forget();
      break;
    default: break;
  }
  return can_resume() ? Next::kResume : Next::kIdentify;
}

// --- the transport -----------------------------------------------------------------

namespace {

int64_t SteadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// One connection: the session's steps turned into frames to send, events
// kept, and a close.
struct Link {
  GatewaySession* session = nullptr;
  const FollowOptions* o = nullptr;
  FollowReport* report = nullptr;
  std::deque<std::string> out;
  std::string sending;  // the frame the module is writing
  int close_with = 0;
  std::string error;    // why this side closed
  bool ready = false;   // READY or RESUMED came

  void Take(GatewaySession::Step step) {
    for (auto& f : step.send) out.push_back(std::move(f));
    if (step.new_session) {
      ready = true;
      report->identifies++;
      if (o->on_new_session) o->on_new_session();
    }
    if (step.resumed) {
      ready = true;
      report->resumes++;
    }
    for (const auto& e : step.events) {
      if (close_with) break;
      Status s = o->on_event ? o->on_event(e) : Status::Ok();
      if (!s.ok()) {  // not kept: the session resumes from the last event that was
        close_with = kCloseResumable;
        error = "event " + std::to_string(e.seq) + " (" + e.type + ") was not kept: " + s.message();
        break;
      }
      session->Handled(e.seq);
      report->events++;
    }
    if (step.close && !close_with) {
      close_with = kCloseResumable;
      error = step.why;
    }
  }
};

const UmweltWsHandlers kHandlers = {
    nullptr,
    [](void* ctx) { static_cast<Link*>(ctx)->session->Connected(SteadyMs()); },
    [](void* ctx, const char* data, size_t size) {
      auto* l = static_cast<Link*>(ctx);
      // Once closing, nothing more is read: a later event handled would
      // move the sequence number past one that was not kept.
      if (l->close_with) return;
      l->Take(l->session->OnFrame(std::string_view(data, size), SteadyMs()));
    },
    [](void* ctx) {
      auto* l = static_cast<Link*>(ctx);
      l->Take(l->session->OnTick(SteadyMs()));
    },
    [](void* ctx, const char** data, size_t* size) -> int {
      auto* l = static_cast<Link*>(ctx);
      if (l->out.empty()) return 0;
      l->sending = std::move(l->out.front());
      l->out.pop_front();
      *data = l->sending.data();
      *size = l->sending.size();
      return 1;
    },
    [](void* ctx) -> int {
      auto* l = static_cast<Link*>(ctx);
      if (!l->close_with && l->o->stopping && l->o->stopping()) {
        l->close_with = kCloseResumable;
        l->error = "stopped";
      }
      return l->close_with;
    },
};

// The gateway's URL, asked of the API.
Result<std::string> GatewayAddress(HttpClient& http, const FollowOptions& o) {
  if (!o.gateway_url.empty()) return o.gateway_url;
  HttpRequest req;
  req.url = o.api_base + "/gateway/bot";
  req.headers = {{"Authorization", "Bot " + o.token}, {"User-Agent", "DiscordBot (umwelt, 0.1)"}};
  req.timeout_seconds = 30;
  req.max_body_bytes = 1 << 20;
  auto resp = http.Send(req);
  if (!resp.ok()) return Status::Unavailable("GET /gateway/bot: " + resp.status().message());
  if (resp->status == 401) return Status::Denied("the bot token was rejected (HTTP 401 from /gateway/bot)");
  if (resp->status != 200) return Status::Unavailable("GET /gateway/bot: HTTP " + std::to_string(resp->status));
  json j = ParseJson(resp->body);
  std::string url = j.is_object() ? StrField(j, "url") : "";
  if (url.empty()) return Status::Corrupt("GET /gateway/bot: no url in the answer");
  return url;
}

}  // namespace

Status Follow(HttpClient& http, const FollowOptions& o, FollowReport* report) {
  if (o.token.empty()) return Status::Invalid("sync discord --follow: no bot token (set DISCORD_TOKEN)");
  if (o.guild.empty() || o.guild.size() > 24 || o.guild.find_first_not_of("0123456789") != std::string::npos) {
    return Status::Invalid("sync discord --follow: `" + o.guild + "` is not a guild id (a number)");
  }
  AddLogSecret(o.token);
  auto log = [&o](const std::string& line) {
    if (o.log) o.log(line);
  };
  auto stopping = [&o] { return o.stopping && o.stopping(); };
  // Waits, waking for stopping() every 100 ms.
  auto wait = [&](double seconds) {
    if (seconds <= 0) return;
    auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
    while (!stopping() && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  };
  static const auto run = LoadModuleFunction<decltype(&umwelt_ws_run)>("umwelt-websocket", "umwelt_ws_run",
                                                                        "following the Discord gateway");
  if (!run.ok()) return run.status();
  GatewaySession session(o.token, o.guild, o.intents);
  std::string base_url;
  double backoff = o.backoff_seconds;
  auto last_attempt = std::chrono::steady_clock::time_point{};
  while (!stopping()) {
    // Connections start at least backoff_seconds apart, even when each
    // one got as far as READY: a gateway that accepts and drops at once
    // does not spend the bot's daily identifies in a tight loop.
    wait(o.backoff_seconds - std::chrono::duration<double>(std::chrono::steady_clock::now() - last_attempt).count());
    if (stopping()) break;
    last_attempt = std::chrono::steady_clock::now();
    if (base_url.empty()) {
      auto url = GatewayAddress(http, o);
      if (!url.ok()) {
        if (url.status().code() == Code::kPermissionDenied) return url.status();
        log("gateway: " + url.status().message() + "; retrying in " + std::to_string(static_cast<int>(backoff)) + " s");
        wait(backoff);
        backoff = std::min(backoff * 2, o.max_backoff_seconds);
        continue;
      }
      base_url = *url;
    }
    const bool resuming = session.can_resume() && !session.resume_url().empty();
    auto parsed = ParseGatewayUrl(resuming ? session.resume_url() : base_url, o.allow_loopback);
    Result<std::string> address = parsed.ok() ? CheckedAddress(*parsed, o.allow_loopback) : parsed.status();
    if (!address.ok() && address.status().code() == Code::kInvalidArgument && resuming) {
      // A resume URL not to be trusted: the session resumes at the gateway's own.
      log("gateway: READY's resume_gateway_url: " + address.status().message());
      parsed = ParseGatewayUrl(base_url, o.allow_loopback);
      address = parsed.ok() ? CheckedAddress(*parsed, o.allow_loopback) : parsed.status();
    }
    if (!address.ok()) {  // refused, or the name does not resolve now (retried)
      if (address.status().code() != Code::kUnavailable) return address.status();
      log("gateway: " + address.status().message() + "; retrying in " + std::to_string(static_cast<int>(backoff)) +
          " s");
      wait(backoff);
      backoff = std::min(backoff * 2, o.max_backoff_seconds);
      continue;
    }
    const GatewayUrl& target = *parsed;
    Link link;
    link.session = &session;
    link.o = &o;
    link.report = report;
    UmweltWsHandlers handlers = kHandlers;
    handlers.ctx = &link;
    char why[256] = {0};
    report->connections++;
    int code = (*run)(target.host.c_str(), address->c_str(), target.port, target.path.c_str(), target.tls ? 1 : 0,
                      o.max_frame_bytes, &handlers, why, sizeof why);
    if (link.error.empty()) link.error = why;
    if (stopping()) break;
    std::string fatal;
    GatewaySession::Next next = session.AfterClose(code, &fatal);
    if (next == GatewaySession::Next::kStop) return Status::Denied("sync discord --follow: " + fatal);
    double delay = session.reconnect_delay_seconds();
    if (link.ready) {
      backoff = o.backoff_seconds;
    } else if (delay == 0) {  // nothing came of this connection: back off
      delay = backoff;
      backoff = std::min(backoff * 2, o.max_backoff_seconds);
    }
    log("gateway: " + link.error + "; " + (next == GatewaySession::Next::kResume ? "resuming" : "identifying again") +
        (delay > 0 ? " in " + std::to_string(static_cast<int>(delay * 1000)) + " ms" : ""));
    if (!link.ready && !resuming) base_url.clear();  // ask for the address again
    wait(delay);
  }
  return Status::Ok();
}

}  // namespace umwelt::discord
