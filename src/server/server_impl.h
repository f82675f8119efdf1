// Internal to server/: the server's state and what its files share.
#pragma once

#include <httplib.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "auth.h"
#include "engine.h"
#include "umwelt/server.h"

namespace umwelt::server_internal {

using json = nlohmann::json;
namespace si = server_internal;

extern const char* const kCsp;      // the Content-Security-Policy of HTML pages
extern const char* const kAskJs;    // the ask page's script

// JSON with <, > and & written as \u escapes.
void SetJson(httplib::Response& res, const std::string& body);
std::string Random128();
// The sign-in session named by the request's cookie, or "".
std::string SessionId(const httplib::Request& req);
bool SafeName(const std::string& name);
std::string MimeOf(const std::string& name);
bool Truthy(const std::string& v);
int HttpStatusOf(const Status& s);

// --- ask jobs ----------------------------------------------------------------

struct Job {
  std::string id, question, state = "queued", error, markdown, html;
  std::thread worker;
  std::atomic<bool> finished{false};
  std::vector<json> events;
  std::vector<std::string> removed;
  double seconds = 0;
  std::mutex mu;
  std::condition_variable cv;
};

// --- the server ----------------------------------------------------------------

class ServerImpl final : public Server {
 public:
  explicit ServerImpl(const ServeOptions& o)
      : o_(o) {}
  ~ServerImpl() override {
    Stop();
    StopBackground();
  }

  Status Init();
  int port() const override { return port_; }
  Status Run() override;
  void Stop() override;
  Status SyncNow() override { return Round(); }

 private:
  void Routes();
  void ApiRoutes();       // routes_api.cc
  void SnapshotRoutes();  // routes_api.cc
  void UiRoutes();        // routes_ui.cc
  bool Gate(const httplib::Request& req, httplib::Response& res);
  std::string Identify(const httplib::Request& req, si::AuthVerdict* v);
  void Detail(httplib::Response& res, int status, const std::string& detail);
  void Html(httplib::Response& res, int status, const std::string& title, const std::string& body,
            const httplib::Request& req, const std::string& script = "");
  bool ValidParams(const httplib::Request& req, httplib::Response& res);
  Result<si::SearchRequest> ParseSearch(const httplib::Request& req);
  void ServeDir(const std::string& dir, const std::string& name, httplib::Response& res);
  Result<std::string> StatusJson();
  Result<json> SourceHealth(Corpus& corpus);
  Status EnsureSnapshot();
  std::shared_ptr<Job> FindJob(const std::string& id);
  void RunJob(std::shared_ptr<Job> job);
  Status Round();
  Status DigestClosedWeek();
  void SchedulerLoop();
  void StopBackground();

  ServeOptions o_;
  httplib::Server http_;
  int port_ = 0;
  std::unique_ptr<si::Auth> auth_;
  std::unique_ptr<si::Engine> engine_;
  std::atomic<bool> stopping_{false};

  std::mutex sessions_mu_;
  struct Session {
    std::string login;
    int64_t expires;
  };
  std::map<std::string, Session> sessions_;

  std::mutex jobs_mu_;
  std::map<std::string, std::shared_ptr<Job>> jobs_;
  std::deque<std::string> job_order_;  // ids, oldest first
  std::atomic<int> jobs_running_{0};

  std::mutex snapshot_mu_;
  std::string snapshot_path_, snapshot_key_, snapshot_sha_;
  int64_t snapshot_bytes_ = 0, snapshot_at_ = 0;

  std::mutex sched_mu_;
  std::condition_variable sched_cv_;
  std::thread scheduler_;
  struct SchedulerState {
    int64_t last_run = 0, last_ok = 0, error_since = 0;
    std::string last_error;
    int runs = 0;
    bool running = false;
  } sched_;
};


}  // namespace umwelt::server_internal
