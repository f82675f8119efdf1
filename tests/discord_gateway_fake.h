// A scripted Discord gateway on loopback, speaking the real protocol over a
// WebSocket it implements itself (RFC 6455: the upgrade, masked client
// frames, close codes), so the client under test meets its wire format and
// not a library's idea of it.
//
// One session at a time: IDENTIFY opens one (READY, then GUILD_CREATE with
// the guild's channels); every Dispatch() joins the session's log with the
// next sequence number and is sent at once when a client is connected, else
// kept; RESUME replays the log after the client's sequence number, then
// RESUMED. The test drops links, asks for reconnects, invalidates sessions,
// and stops acknowledging heartbeats. FakeDiscordRest is the REST side.
// Header-only and free of GoogleTest: freshness_bench drives them too.
#pragma once

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <openssl/sha.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "umwelt/http.h"

namespace umwelt::testing {

class FakeGateway {
 public:
  using json = nlohmann::json;

  FakeGateway(std::string token, std::string guild, json channels)
      : token_(std::move(token)), guild_(std::move(guild)), channels_(std::move(channels)) {
    listen_ = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(listen_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(listen_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(listen_, 8);
    socklen_t n = sizeof a;
    ::getsockname(listen_, reinterpret_cast<sockaddr*>(&a), &n);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~FakeGateway() {
    stop_ = true;
    ::shutdown(listen_, SHUT_RDWR);
    thread_.join();
    ::close(listen_);
  }

  std::string url() const { return "ws://127.0.0.1:" + std::to_string(port_); }

  // A message object as MESSAGE_CREATE carries it (and the REST API lists
  // it), in `channel` of guild `guild`, by ann.
  static json Message(const std::string& id, const std::string& guild, const std::string& channel,
                      const std::string& content) {
    return {{"id", id},
            {"type", 0},
            {"channel_id", channel},
            {"guild_id", guild},
            {"content", content},
            {"timestamp", "2026-11-20T10:00:00.000000+00:00"},
            {"edited_timestamp", nullptr},
            {"author", {{"id", "7"}, {"username", "ann"}, {"global_name", "Ann"}}},
            {"attachments", json::array()},
            {"embeds", json::array()},
            {"mentions", json::array()}};
  }

  // An event in the current session (sent now if a client is connected).
  void Dispatch(const std::string& t, json d) {
    std::lock_guard<std::mutex> lock(mu_);
    log_.push_back(json{{"op", 0}, {"t", t}, {"s", ++seq_}, {"d", std::move(d)}});
    if (conn_ >= 0 && live_) outbox_.push_back(log_.back().dump());
  }
  // Script for the connection now open (or the next one).
  void Drop() { Command(kDrop); }                   // the TCP link breaks, no close frame
  void AskReconnect() { Command(kReconnect); }      // op 7
  void InvalidateSession() { Command(kInvalid); }   // op 9 d=false: the session ends
  void CloseWith(int code) {
    std::lock_guard<std::mutex> lock(mu_);
    close_code_ = code;
    commands_.push_back(kClose);
  }
  void AckHeartbeats(bool on) { ack_ = on; }
  void RefuseToken(bool on) { refuse_ = on; }
  void set_heartbeat_ms(int ms) { heartbeat_ms_ = ms; }

  int connections() const { return connections_; }
  int identifies() const { return identifies_; }
  int resumes() const { return resumes_; }
  int heartbeats() const { return heartbeats_; }
  bool connected() const { return connected_; }
  // What the last IDENTIFY or RESUME carried, and the request line's path.
  json last_hello() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_hello_;
  }
  std::string last_path() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_path_;
  }

  // Waits until `pred` holds (true) or `seconds` pass (false).
  template <typename Pred>
  static bool WaitUntil(Pred pred, double seconds = 10) {
    auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<int>(seconds * 1000));
    while (!pred()) {
      if (std::chrono::steady_clock::now() > until) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
  }

 private:
  enum Cmd { kDrop, kReconnect, kInvalid, kClose };
  void Command(Cmd c) {
    std::lock_guard<std::mutex> lock(mu_);
    commands_.push_back(c);
  }

  void Serve() {
    while (!stop_) {
      pollfd p{listen_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      int fd = ::accept(listen_, nullptr, nullptr);
      if (fd < 0) continue;
      connections_++;
      Connection(fd);
      ::close(fd);
      {
        std::lock_guard<std::mutex> lock(mu_);
        conn_ = -1;
        live_ = false;
        outbox_.clear();
      }
      connected_ = false;
    }
  }

  // --- RFC 6455, the server side --------------------------------------------
  bool ReadExactly(int fd, std::string* out, size_t n) {
    while (out->size() < n) {
      pollfd p{fd, POLLIN, 0};
      int r = ::poll(&p, 1, 20);
      if (stop_) return false;
      if (r == 0) {
        if (!Pump(fd)) return false;  // between bytes: send what is due
        continue;
      }
      char buf[4096];
      ssize_t k = ::recv(fd, buf, std::min(sizeof buf, n - out->size()), 0);
      if (k <= 0) return false;
      out->append(buf, static_cast<size_t>(k));
    }
    return true;
  }
  static void SendFrame(int fd, int opcode, const std::string& payload) {
    std::string f;
    f.push_back(static_cast<char>(0x80 | opcode));
    if (payload.size() < 126) {
      f.push_back(static_cast<char>(payload.size()));
    } else if (payload.size() < 65536) {
      f.push_back(126);
      f.push_back(static_cast<char>(payload.size() >> 8));
      f.push_back(static_cast<char>(payload.size() & 0xff));
    } else {
      f.push_back(127);
      for (int i = 7; i >= 0; --i) f.push_back(static_cast<char>((payload.size() >> (8 * i)) & 0xff));
    }
    f += payload;
    (void)::send(fd, f.data(), f.size(), MSG_NOSIGNAL);
  }
  static void SendClose(int fd, int code) {
    std::string p;
    p.push_back(static_cast<char>(code >> 8));
    p.push_back(static_cast<char>(code & 0xff));
    SendFrame(fd, 8, p);
  }

  void Connection(int fd) {
    // The upgrade.
    std::string req;
    while (req.find("\r\n\r\n") == std::string::npos) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 5000) <= 0) return;
      char buf[1024];
      ssize_t k = ::recv(fd, buf, sizeof buf, 0);
      if (k <= 0 || req.size() > 16384) return;
      req.append(buf, static_cast<size_t>(k));
    }
    std::string key;
    std::string lower = req;
    for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    size_t at = lower.find("sec-websocket-key:");
    if (at == std::string::npos) return;
    at += 18;
    size_t end = req.find("\r\n", at);
    key = req.substr(at, end - at);
    while (!key.empty() && key.front() == ' ') key.erase(0, 1);
    std::string accept_src = key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    unsigned char digest[SHA_DIGEST_LENGTH];
    SHA1(reinterpret_cast<const unsigned char*>(accept_src.data()), accept_src.size(), digest);
    std::string response = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           "Sec-WebSocket-Accept: " +
                           Base64(std::string_view(reinterpret_cast<char*>(digest), sizeof digest)) + "\r\n\r\n";
    (void)::send(fd, response.data(), response.size(), MSG_NOSIGNAL);
    {
      std::lock_guard<std::mutex> lock(mu_);
      last_path_ = req.substr(req.find(' ') + 1, req.find(" HTTP/") - req.find(' ') - 1);
      conn_ = fd;
    }
    connected_ = true;
    SendFrame(fd, 1, json{{"op", 10}, {"d", {{"heartbeat_interval", heartbeat_ms_.load()}}}}.dump());
    std::string message;
    while (!stop_) {
      std::string head;
      if (!ReadExactly(fd, &head, 2)) return;
      int opcode = head[0] & 0x0f;
      bool fin = head[0] & 0x80;
      bool masked = head[1] & 0x80;
      uint64_t len = head[1] & 0x7f;
      if (!masked) return SendClose(fd, 1002);  // a client must mask
      std::string ext;
      if (len == 126 || len == 127) {
        if (!ReadExactly(fd, &ext, len == 126 ? 2 : 8)) return;
        len = 0;
        for (unsigned char ch : ext) len = (len << 8) | ch;
      }
      std::string mask, payload;
      if (!ReadExactly(fd, &mask, 4) || len > (1u << 20) || !ReadExactly(fd, &payload, len)) return;
      for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>(payload[i] ^ mask[i % 4]);
      if (opcode == 8) return;  // the client closed
      if (opcode == 9) {
        SendFrame(fd, 10, payload);
        continue;
      }
      if (opcode != 0 && opcode != 1) continue;
      message += payload;
      if (!fin) continue;
      if (!OnMessage(fd, message)) return;
      message.clear();
      if (!Pump(fd)) return;
    }
  }

  // Sends what is due and runs the script; false: this connection ends.
  bool Pump(int fd) {
    std::deque<std::string> out;
    std::deque<Cmd> cmds;
    int code = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      out.swap(outbox_);
      cmds.swap(commands_);
      code = close_code_;
    }
    for (const auto& f : out) SendFrame(fd, 1, f);
    for (Cmd c : cmds) {
      switch (c) {
        case kDrop: return false;
        case kReconnect: SendFrame(fd, 1, R"({"op":7,"d":null})"); break;
        case kInvalid: {
          std::lock_guard<std::mutex> lock(mu_);
          session_.clear();
          live_ = false;
          SendFrame(fd, 1, R"({"op":9,"d":false})");
          break;
        }
        case kClose: SendClose(fd, code); return false;
      }
    }
    return true;
  }

  bool OnMessage(int fd, const std::string& text) {
    json j = json::parse(text, nullptr, false);
    if (!j.is_object() || !j.contains("op")) {
      SendClose(fd, 4002);
      return false;
    }
    int op = j["op"].get<int>();
    if (op == 1) {
      heartbeats_++;
      if (ack_) SendFrame(fd, 1, R"({"op":11})");
      return true;
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (op == 2) {
      last_hello_ = j;
      if (refuse_ || j["d"]["token"] != token_) {
        SendClose(fd, 4004);
        return false;
      }
      identifies_++;
      session_ = "session" + std::to_string(identifies_.load());
      log_.clear();
      seq_ = 0;
      live_ = true;
      log_.push_back(json{{"op", 0},
                          {"t", "READY"},
                          {"s", ++seq_},
                          {"d", {{"session_id", session_}, {"resume_gateway_url", url()}, {"v", 10}}}});
      log_.push_back(json{{"op", 0},
                          {"t", "GUILD_CREATE"},
                          {"s", ++seq_},
                          {"d", {{"id", guild_}, {"channels", channels_}, {"threads", json::array()}}}});
      for (const auto& f : log_) outbox_.push_back(f.dump());
      return true;
    }
    if (op == 6) {
      last_hello_ = j;
      const json& d = j["d"];
      if (session_.empty() || d["session_id"] != session_) {
        SendFrame(fd, 1, R"({"op":9,"d":false})");
        return true;
      }
      resumes_++;
      int64_t after = d["seq"].get<int64_t>();
      for (const auto& f : log_) {
        if (f["s"].get<int64_t>() > after) outbox_.push_back(f.dump());
      }
      outbox_.push_back(json{{"op", 0}, {"t", "RESUMED"}, {"s", ++seq_}, {"d", json::object()}}.dump());
      log_.push_back(json::parse(outbox_.back()));
      live_ = true;
      return true;
    }
    SendClose(fd, 4001);
    return false;
  }

  std::string token_, guild_;
  json channels_;
  int listen_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::atomic<bool> stop_{false}, ack_{true}, refuse_{false}, connected_{false};
  std::atomic<int> heartbeat_ms_{200}, connections_{0}, identifies_{0}, resumes_{0}, heartbeats_{0};
  std::mutex mu_;
  int conn_ = -1;
  bool live_ = false;  // events go out as they come
  std::string session_;
  int64_t seq_ = 0;
  std::vector<json> log_;
  std::deque<std::string> outbox_;
  std::deque<Cmd> commands_;
  int close_code_ = 0;
  json last_hello_;
  std::string last_path_;
};

// The REST side a follower needs: /gateway/bot pointing at `gateway`, the
// guild's channels (no threads), and the messages AddMessage put in, for the
// catch-up a new session runs. Paths under /api, token `token`.
class FakeDiscordRest {
 public:
  using json = nlohmann::json;
  FakeDiscordRest(const std::string& token, const std::string& guild, const json& channels, const FakeGateway& gateway)
      : gateway_url_(gateway.url()) {
    auto authorized = [this, token](const httplib::Request& req, httplib::Response& res) {
      ++requests_;
      if (req.get_header_value("Authorization") == "Bot " + token) return true;
      res.status = 401;
      return false;
    };
    server_.Get("/api/gateway/bot", [this, authorized](const httplib::Request& req, httplib::Response& res) {
      if (!authorized(req, res)) return;
      res.set_content(json{{"url", gateway_url_}, {"shards", 1}}.dump(), "application/json");
    });
    server_.Get("/api/guilds/" + guild + "/channels",
                [channels, authorized](const httplib::Request& req, httplib::Response& res) {
                  if (!authorized(req, res)) return;
                  res.set_content(channels.dump(), "application/json");
                });
    server_.Get("/api/guilds/" + guild + "/threads/active", [authorized](const httplib::Request& req, httplib::Response& res) {
      if (!authorized(req, res)) return;
      res.set_content(R"({"threads": []})", "application/json");
    });
    server_.Get(R"(/api/channels/(\d+)/threads/archived/public)",
                [authorized](const httplib::Request& req, httplib::Response& res) {
                  if (!authorized(req, res)) return;
                  res.set_content(R"({"threads": [], "has_more": false})", "application/json");
                });
    server_.Get(R"(/api/channels/(\d+)/messages)", [this, authorized](const httplib::Request& req, httplib::Response& res) {
      if (!authorized(req, res)) return;
      std::lock_guard<std::mutex> lock(mu_);
      uint64_t after = std::stoull(req.get_param_value("after"));
      json page = json::array();
      for (const auto& [id, m] : messages_[req.matches[1]]) {
        if (id > after && page.size() < 100) page.push_back(m);
      }
      std::reverse(page.begin(), page.end());  // newest first, as Discord answers
      res.set_content(page.dump(), "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeDiscordRest() {
    server_.stop();
    thread_.join();
  }
  void AddMessage(const std::string& channel, uint64_t id, const json& m) {
    std::lock_guard<std::mutex> lock(mu_);
    messages_[channel][id] = m;
  }
  std::string base() const { return "http://127.0.0.1:" + std::to_string(port_) + "/api"; }
  int requests() const { return requests_; }

 private:
  std::string gateway_url_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::atomic<int> requests_{0};
  std::mutex mu_;
  std::map<std::string, std::map<uint64_t, json>> messages_;
};

}  // namespace umwelt::testing
