// Test-only: the servers the server tests run, in-process on loopback.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "example_project.h"
#include "test_util.h"
#include "umwelt/file.h"
#include "umwelt/server.h"
#include "umwelt/text.h"

namespace umwelt::testing {

using json = nlohmann::json;

// A raw connection to the server from `source` (any 127.0.0.0/8 address).
inline int Connect(int port, const char* source = "127.0.0.1") {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in from{};
  from.sin_family = AF_INET;
  ::inet_pton(AF_INET, source, &from.sin_addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0) {
    ::close(fd);
    return -1;
  }
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

inline bool SendAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// What the server sends until it closes or `seconds` pass.
inline std::string ReadAll(int fd, double seconds) {
  std::string out;
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  char buf[4096];
  while (std::chrono::steady_clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

// A plain GET from `source`, answered within `seconds`: the status line.
inline std::string Probe(int port, const char* source, double seconds = 2) {
  int fd = Connect(port, source);
  if (fd < 0) return "no connection";
  SendAll(fd, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  std::string r = ReadAll(fd, seconds);
  ::close(fd);
  return r.substr(0, r.find("\r\n"));
}

// The example project's corpus, served in-process on a free loopback port.
class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.File("c.db");
    auto c = Corpus::Open(path_, Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok());
    testing::ImportExampleProject(**c, true);
  }
  void TearDown() override { StopServer(); }

  void StartServer(ServeOptions o = {}) {
    o.corpus_path = path_;
    o.port = 0;
    o.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(log_mu_);
      log_.push_back(line);
    };
    auto s = Server::Start(o);
    ASSERT_TRUE(s.ok()) << s.status().message();
    server_ = std::move(*s);
    thread_ = std::thread([this] { (void)server_->Run(); });
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
    client_->set_read_timeout(30, 0);
  }
  void StopServer() {
    if (server_) server_->Stop();
    if (thread_.joinable()) thread_.join();
    server_.reset();
  }
  // Posts a question to /api/ask and waits for its job to end (its event
  // stream closes); the job's JSON.
  json AskAndWait(const std::string& question) {
    auto r = client_->Post("/api/ask", json{{"question", question}}.dump(), "application/json");
    EXPECT_TRUE(r && r->status == 202) << (r ? r->body : "no response");
    if (!r || r->status != 202) return json();
    std::string id = Json(r)["id"];
    EXPECT_TRUE(client_->Get("/api/jobs/" + id + "/events"));
    return Json(client_->Get("/api/jobs/" + id));
  }
  json Json(const httplib::Result& r) {
    EXPECT_TRUE(r) << "no response";
    if (!r) return json();
    EXPECT_EQ(r->get_header_value("Content-Type"), "application/json") << r->body;
    return json::parse(r->body, nullptr, false);
  }
  std::string Log() {
    std::lock_guard<std::mutex> lock(log_mu_);
    std::string all;
    for (const auto& l : log_) all += l + "\n";
    return all;
  }

  testing::TempDir dir_;
  std::string path_;
  std::unique_ptr<Server> server_;
  std::thread thread_;
  std::unique_ptr<httplib::Client> client_;
  std::mutex log_mu_;
  std::vector<std::string> log_;
};

// A scripted GitHub that knows four tokens.
class AuthTest : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    github_.server().Get("/user", [this](const httplib::Request& req, httplib::Response& res) {
      std::string auth = req.get_header_value("Authorization");
      std::string login = auth == "Bearer tok-alice" ? "alice" : auth == "Bearer tok-bob" ? "bob"
                          : auth == "Bearer tok-carol" ? "carol" : "";
      if (login.empty() && unknown_delay_ms_ > 0) {  // a slow, failing GitHub
        ++unknown_calls_;
        std::this_thread::sleep_for(std::chrono::milliseconds(unknown_delay_ms_.load()));
        res.status = 502;
        return;
      }
      if (login.empty()) {
        res.status = 401;
        res.set_content("{\"message\":\"Bad credentials\"}", "application/json");
        return;
      }
      res.set_content(json{{"login", login}}.dump(), "application/json");
    });
    github_.server().Get(R"(/orgs/acme/members/(\w+))", [](const httplib::Request& req, httplib::Response& res) {
      res.status = req.matches[1] == "bob" ? 204 : 404;
    });
    auth_file_ = dir_.File("auth.json");
    WriteAuth({});
  }
  void WriteAuth(const std::vector<std::string>& revoked) {
    json a = {{"github_api", github_.base()},
              {"org", "acme"},
              {"allow", {"alice"}},
              {"cache_seconds", 600},
              {"help", "ask in #infra"},
              {"tokens", {{{"sha256", Sha256Hex("static-ok")}, {"login", "ci"}, {"expires", "2099-01-01T00:00:00Z"}},
                          {{"sha256", Sha256Hex("static-old")}, {"login", "old"}, {"expires", "2020-01-01T00:00:00Z"}}}},
              {"revoked", revoked}};
    std::string tmp = auth_file_ + ".tmp";
    testing::WriteFile(tmp, a.dump());
    std::filesystem::rename(tmp, auth_file_);
  }
  httplib::Result Get(const std::string& path, const std::string& auth) {
    httplib::Headers h;
    if (!auth.empty()) h.emplace("Authorization", auth);
    return client_->Get(path, h);
  }
  testing::TestServer github_;
  std::string auth_file_;
  std::atomic<int> unknown_delay_ms_{0};  // > 0: unknown tokens get a 502 after this long
  std::atomic<int> unknown_calls_{0};
};


}  // namespace umwelt::testing
