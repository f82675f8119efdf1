// A fake GitHub REST API on loopback for sync tests: repository-wide issue,
// comment and review-comment listings with `since`, sort/direction, per_page
// and Link-header pagination, ETags with 304s, per-thread reviews, comments and
// sub-issues, and scripted faults (status codes, rate limits, dropped
// connections, latency).
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "test_util.h"

namespace umwelt::testing {

class GithubFake {
 public:
  using json = nlohmann::json;

  struct Fault {
    std::string path_prefix;   // matches the request path
    int status = 0;            // 0: drop the connection mid-body
    std::map<std::string, std::string> headers;
    std::string body = "{\"message\":\"scripted fault\"}";
  };

  explicit GithubFake(std::string repo = "o/r") : repo_(std::move(repo)) {
    auto& s = server_.server();
    s.Get(R"(/repos/([^/]+)/([^/]+)/issues)", [this](const auto& req, auto& res) {
      Listing(req, res, [&] { return Values(issues_); });
    });
    s.Get(R"(/repos/([^/]+)/([^/]+)/issues/comments)", [this](const auto& req, auto& res) {
      Listing(req, res, [&] { return Values(comments_); });
    });
    s.Get(R"(/repos/([^/]+)/([^/]+)/pulls/comments)", [this](const auto& req, auto& res) {
      Listing(req, res, [&] { return Values(review_comments_); });
    });
    s.Get(R"(/repos/([^/]+)/([^/]+)/issues/(\d+)/comments)", [this](const auto& req, auto& res) {
      int n = std::stoi(req.matches[3]);
      Listing(req, res, [&] {
        json out = json::array();
        for (auto& [id, c] : comments_) {
          if (c["issue_url"].template get<std::string>().ends_with("/issues/" + std::to_string(n))) out.push_back(c);
        }
        return out;
      });
    });
    s.Get(R"(/repos/([^/]+)/([^/]+)/pulls/(\d+)/reviews)", [this](const auto& req, auto& res) {
      int n = std::stoi(req.matches[3]);
      Listing(req, res, [&] { return reviews_.count(n) ? reviews_[n] : json::array(); });
    });
    s.Get(R"(/repos/([^/]+)/([^/]+)/pulls/(\d+)/commits)", [this](const auto& req, auto& res) {
      int n = std::stoi(req.matches[3]);
      Listing(req, res, [&] { return pr_commits_.count(n) ? pr_commits_[n] : json::array(); });
    });
    s.Get(R"(/repos/([^/]+)/([^/]+)/issues/(\d+)/sub_issues)", [this](const auto& req, auto& res) {
      int n = std::stoi(req.matches[3]);
      Listing(req, res, [&] {
        json out = json::array();
        for (int child : sub_issues_[n]) out.push_back(issues_[child]);
        return out;
      });
    });
  }

  std::string base() const { return server_.base(); }
  TestServer& server() { return server_; }

  // Data, stamped with `updated` (ISO).
  void PutIssue(int n, const std::string& body, const std::string& updated, bool pr = false,
                int sub_issue_total = 0) {
    std::lock_guard<std::mutex> lock(mu_);
    json j = {{"number", n}, {"title", "Thread " + std::to_string(n)}, {"body", body}, {"state", "open"},
              {"user", {{"login", "alice"}}}, {"created_at", "2024-01-01T00:00:00Z"}, {"updated_at", updated},
              {"html_url", "https://github.com/" + repo_ + (pr ? "/pull/" : "/issues/") + std::to_string(n)},
              {"comments", CommentCount(n)},
              {"sub_issues_summary", {{"total", sub_issue_total}, {"completed", 0}}}};
    if (pr) j["pull_request"] = {{"merged_at", nullptr}};
    issues_[n] = j;
  }
  // Marks PR `n` merged, landed by these commits (as GET /pulls/N/commits lists them).
  void MergePr(int n, const std::vector<std::string>& shas, const std::string& updated) {
    std::lock_guard<std::mutex> lock(mu_);
    issues_[n]["pull_request"] = {{"merged_at", updated}};
    issues_[n]["updated_at"] = updated;
    json list = json::array();
    for (const auto& sha : shas) list.push_back({{"sha", sha}, {"commit", {{"message", "a commit"}}}});
    pr_commits_[n] = list;
  }
  void PutComment(int issue, int64_t id, const std::string& body, const std::string& updated) {
    std::lock_guard<std::mutex> lock(mu_);
    comments_[id] = {{"id", id}, {"body", body}, {"user", {{"login", "carol"}}},
                     {"created_at", "2024-01-02T00:00:00Z"}, {"updated_at", updated},
                     {"issue_url", "https://api.github.com/repos/" + repo_ + "/issues/" + std::to_string(issue)},
                     {"html_url", "https://github.com/" + repo_ + "/issues/" + std::to_string(issue) +
                                      "#issuecomment-" + std::to_string(id)}};
    RefreshCount(issue, updated);
  }
  void DeleteComment(int issue, int64_t id, const std::string& updated) {
    std::lock_guard<std::mutex> lock(mu_);
    comments_.erase(id);
    RefreshCount(issue, updated);
  }
  void PutReview(int pr, int64_t id, const std::string& body) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!reviews_.count(pr)) reviews_[pr] = json::array();
    reviews_[pr].push_back({{"id", id}, {"user", {{"login", "dan"}}}, {"body", body}, {"state", "APPROVED"},
                            {"submitted_at", "2024-01-03T00:00:00Z"},
                            {"html_url", "https://github.com/" + repo_ + "/pull/" + std::to_string(pr) +
                                             "#pullrequestreview-" + std::to_string(id)}});
  }
  void PutReviewComment(int pr, int64_t id, const std::string& body, const std::string& updated) {
    std::lock_guard<std::mutex> lock(mu_);
    review_comments_[id] = {{"id", id}, {"pull_request_review_id", 1}, {"diff_hunk", "@@"}, {"path", "a.py"},
                            {"body", body}, {"user", {{"login", "dan"}}}, {"created_at", updated},
                            {"updated_at", updated},
                            {"html_url", "https://github.com/" + repo_ + "/pull/" + std::to_string(pr) +
                                             "#discussion_r" + std::to_string(id)}};
  }
  void AddSubIssue(int parent, int child) {
    std::lock_guard<std::mutex> lock(mu_);
    sub_issues_[parent].push_back(child);
  }
  void AddFault(Fault f) {
    std::lock_guard<std::mutex> lock(mu_);
    faults_.push_back(std::move(f));
  }
  void set_latency_ms(int ms) { latency_ms_ = ms; }
  void set_per_page_cap(int n) { per_page_cap_ = n; }

 private:
  int CommentCount(int issue) {
    int n = 0;
    for (auto& [id, c] : comments_) {
      if (c["issue_url"].get<std::string>().ends_with("/issues/" + std::to_string(issue))) ++n;
    }
    return n;
  }
  void RefreshCount(int issue, const std::string& updated) {
    if (!issues_.count(issue)) return;
    issues_[issue]["comments"] = CommentCount(issue);
    issues_[issue]["updated_at"] = updated;
  }
  template <typename M>
  static json Values(const M& m) {
    json out = json::array();
    for (auto& [k, v] : m) out.push_back(v);
    return out;
  }

  void Listing(const httplib::Request& req, httplib::Response& res, const std::function<json()>& all) {
    if (latency_ms_ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(latency_ms_));
    std::unique_lock<std::mutex> lock(mu_);
    for (auto it = faults_.begin(); it != faults_.end(); ++it) {
      if (req.path.rfind(it->path_prefix, 0) != 0) continue;
      Fault f = *it;
      faults_.erase(it);
      lock.unlock();
      if (f.status == 0) {
        // Promise a long body, send a little, then hang up.
        res.set_content_provider(100000, "application/json", [](size_t, size_t, httplib::DataSink& sink) {
          sink.write("[{\"trunc", 8);
          return false;
        });
        return;
      }
      res.status = f.status;
      for (auto& [k, v] : f.headers) res.set_header(k, v);
      res.set_content(f.body, "application/json");
      return;
    }
    json items = all();
    std::string since = req.has_param("since") ? req.get_param_value("since") : "";
    json filtered = json::array();
    for (auto& i : items) {
      std::string updated = i.value("updated_at", i.value("submitted_at", ""));
      if (since.empty() || updated >= since) filtered.push_back(i);
    }
    std::stable_sort(filtered.begin(), filtered.end(), [](const json& a, const json& b) {
      return a.value("updated_at", "") < b.value("updated_at", "");
    });
    int per_page = req.has_param("per_page") ? std::stoi(req.get_param_value("per_page")) : 30;
    per_page = std::min(per_page, per_page_cap_);
    int page = req.has_param("page") ? std::stoi(req.get_param_value("page")) : 1;
    json out = json::array();
    for (size_t i = (page - 1) * per_page; i < filtered.size() && out.size() < static_cast<size_t>(per_page); ++i) {
      out.push_back(filtered[i]);
    }
    if (static_cast<size_t>(page * per_page) < filtered.size()) {
      std::string next = base() + req.path + "?";
      for (auto& [k, v] : req.params) {
        if (k != "page") next += k + "=" + httplib::detail::encode_query_param(v) + "&";
      }
      next += "page=" + std::to_string(page + 1);
      res.set_header("Link", "<" + next + ">; rel=\"next\"");
    }
    std::string body = out.dump();
    std::string etag = "\"" + std::to_string(std::hash<std::string>{}(body)) + "\"";
    res.set_header("ETag", etag);
    if (req.get_header_value("If-None-Match") == etag) {
      res.status = 304;
      return;
    }
    res.set_content(body, "application/json");
  }

  std::string repo_;
  TestServer server_;
  std::mutex mu_;
  std::map<int, json> issues_;
  std::map<int64_t, json> comments_;
  std::map<int64_t, json> review_comments_;
  std::map<int, json> reviews_;
  std::map<int, json> pr_commits_;
  std::map<int, std::vector<int>> sub_issues_;
  std::deque<Fault> faults_;
  std::atomic<int> latency_ms_{0};
  int per_page_cap_ = 100;
};

}  // namespace umwelt::testing
