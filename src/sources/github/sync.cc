// Live, incremental sync of one repository over the REST API.
//
// The cursor (sync_state.cursor, JSON) holds, per repository-wide listing, the
// newest updated_at stored and the ETag of the request that starts from it, plus
// the thread numbers whose follow-ups (reviews, sub-issues, deleted-comment
// reconciliation) are still owed. Listings are read oldest-update first and
// each page commits together with the cursor it advances, so a sync killed at
// any point resumes from its last committed page without duplicates.
#include <chrono>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "store.h"
#include "umwelt/json_read.h"
#include "umwelt/github.h"
#include "umwelt/log.h"
#include "umwelt/text.h"

namespace umwelt::github {
namespace {

using json = nlohmann::json;

std::string Origin(const std::string& url) {
  size_t scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  size_t slash = url.find('/', scheme + 3);
  return url.substr(0, slash);
}

class Syncer {
 public:
  Syncer(Corpus& corpus, HttpClient& http, const SyncOptions& o, SyncReport* r)
      : corpus_(corpus), http_(http), o_(o), report_(r), source_("github:" + o.repo) {
    while (!o_.api_base.empty() && o_.api_base.back() == '/') o_.api_base.pop_back();
    if (!o_.sleep) {
      o_.sleep = SleepSeconds;
    }
  }

  Status Run() {
    if (o_.repo.find('/') == std::string::npos || o_.repo.front() == '/' || o_.repo.back() == '/') {
      return Status::Invalid("repository must be OWNER/NAME, got `" + o_.repo + "`");
    }
    UMWELT_ASSIGN_OR_RETURN(auto state, corpus_.GetSyncState(source_));
    if (state) {
      state_ = *state;
      cursor_ = ParseJson(state_.cursor.empty() ? "{}" : state_.cursor);
      if (!cursor_.is_object()) cursor_ = json::object();
    } else {
      state_.source = source_;
      cursor_ = json::object();
    }
    Status s = Listing("issues", "/issues?state=all&sort=updated&direction=asc&per_page=100");
    if (s.ok()) s = Listing("comments", "/issues/comments?sort=updated&direction=asc&per_page=100");
    if (s.ok()) s = Listing("review_comments", "/pulls/comments?sort=updated&direction=asc&per_page=100");
    if (s.ok()) s = FollowUps();
    if (!s.ok()) {
      RecordFailure(s);
      return s;
    }
    MarkSyncSuccess(&state_, NowEpoch());
    state_.cursor = cursor_.dump();
    report_->cursor = state_.cursor;
    UMWELT_ASSIGN_OR_RETURN(auto batch, corpus_.BeginWrite());
    UMWELT_RETURN_IF_ERROR(batch->PutSyncState(state_));
    return batch->Commit();
  }

 private:
  // The cursor in the corpus is the last committed one; it stays.
  void RecordFailure(const Status& s) { RecordSyncFailure(corpus_, source_, s.message(), NowEpoch()); }

  std::string RepoUrl(const std::string& tail) const { return o_.api_base + "/repos/" + o_.repo + tail; }

  // GET with GitHub's rules for retrying. Returns the final response (2xx or
  // 304); any other outcome is an error naming the url.
  Result<HttpResponse> Get(const std::string& url, const std::string& etag) {
    HttpRequest req;
    req.url = url;
    req.headers = {{"Accept", "application/vnd.github+json"},
                   {"X-GitHub-Api-Version", "2022-11-28"},
                   {"User-Agent", "umwelt"}};
    if (!o_.token.empty()) req.headers.emplace_back("Authorization", "Bearer " + o_.token);
    if (!etag.empty()) req.headers.emplace_back("If-None-Match", etag);
    RetryPolicy policy;
    policy.max_retries = o_.max_retries;
    policy.backoff_seconds = o_.backoff_seconds;
    policy.max_wait_seconds = o_.max_sleep_seconds;
    policy.sleep = o_.sleep;
    policy.retry_on = [this](const HttpResponse& r) {
      if (r.status >= 500) return true;
      if (r.status != 403 && r.status != 429) return false;
      if (!r.Header("retry-after").empty()) return true;  // a secondary rate limit
      if (r.Header("x-ratelimit-remaining") == "0") return ResetWait(r) <= o_.max_sleep_seconds;
      return r.status == 429;
    };
    policy.wait_of = [](const HttpResponse& r) { return Exhausted(r) ? ResetWait(r) : -1.0; };
    policy.on_retry = [&](const Result<HttpResponse>& last, double wait) {
      LogInfo("GET " + url + ": " + WhyRetried(last) + "; retrying in " + std::to_string(wait) + "s");
      report_->retries++;
    };
    int attempts = 0;
    auto r = SendWithRetry(http_, req, policy, &attempts);
    report_->requests += attempts;
    std::string gave_up = "; gave up after " + std::to_string(attempts) + " attempts";
    if (!r.ok()) return Status::Unavailable("GET " + url + ": " + r.status().message() + gave_up);
    const HttpResponse& resp = *r;
    if ((resp.status >= 200 && resp.status < 300) || resp.status == 304) {
      if (resp.status == 304) report_->not_modified++;
      return r;
    }
    if (Exhausted(resp) && ResetWait(resp) > o_.max_sleep_seconds) {
      return Status::Unavailable("GET " + url + ": " + WhyRetried(r) + "; not waiting " +
                                 std::to_string(static_cast<int64_t>(ResetWait(resp))) + "s");
    }
    if (resp.status >= 500 || resp.status == 429 || (resp.status == 403 && !resp.Header("retry-after").empty()) ||
        Exhausted(resp)) {
      return Status::Unavailable("GET " + url + ": " + WhyRetried(r) + gave_up);
    }
    std::string msg;
    auto body = json::parse(resp.body, nullptr, false);
    if (body.is_object() && body.contains("message") && body["message"].is_string()) {
      msg = ": " + body["message"].get<std::string>();
    }
    std::string hint = resp.status == 401 ? " (check GITHUB_TOKEN)" : "";
    return Status::Unavailable("GET " + url + ": HTTP " + std::to_string(resp.status) + msg + hint);
  }

  // GitHub's rules for waiting, as data for SendWithRetry: the primary rate
  // limit spent (wait for its reset), a secondary one (its Retry-After).
  static bool Exhausted(const HttpResponse& r) {
    return (r.status == 403 || r.status == 429) && r.Header("retry-after").empty() &&
           r.Header("x-ratelimit-remaining") == "0";
  }
  static double ResetWait(const HttpResponse& r) {
    double reset = std::atof(r.Header("x-ratelimit-reset").c_str());
    return std::max(1.0, reset - static_cast<double>(NowEpoch()) + 1);
  }
  static std::string WhyRetried(const Result<HttpResponse>& r) {
    if (!r.ok()) return r.status().message();
    if ((r->status == 403 || r->status == 429) && !r->Header("retry-after").empty()) {
      return "secondary rate limit (Retry-After " + r->Header("retry-after") + "s)";
    }
    if (Exhausted(*r)) {
      return "rate limit exhausted until " +
             FormatIsoTime(static_cast<int64_t>(std::atof(r->Header("x-ratelimit-reset").c_str())));
    }
    return "HTTP " + std::to_string(r->status);
  }

  // Walks one repository-wide listing from its cursor, committing page by page.
  Status Listing(const std::string& name, const std::string& tail) {
    json& cur = cursor_[name];
    if (!cur.is_object()) cur = json::object();
    std::string since = StrField(cur, "since");
    std::string url = RepoUrl(tail) + (since.empty() ? "" : "&since=" + UrlEncode(since));
    std::string first_url = url;
    std::string etag = StrField(cur, "url") == url ? StrField(cur, "etag") : "";
    int page = 0;
    while (!url.empty()) {
      UMWELT_ASSIGN_OR_RETURN(HttpResponse resp, Get(url, page == 0 ? etag : ""));
      if (resp.status == 304) return Status::Ok();  // nothing new since last time
      ++page;
      if (o_.progress) o_.progress(name, page);
      Records records;
      UMWELT_RETURN_IF_ERROR(ParsePage(resp.body, "/repos/" + o_.repo + tail, "GET " + url, &records));
      auto doc = json::parse(resp.body, nullptr, false);
      std::string newest = since;
      if (doc.is_array()) {
        for (const auto& item : doc) {
          if (!item.is_object()) continue;
          std::string updated = StrField(item, "updated_at");
          if (updated > newest) newest = updated;
          if (name == "issues") NoteIssue(item);
        }
      }
      std::string next = FindLinkRel(resp.Header("link"), "next");
      if (!next.empty() && Origin(next) != Origin(o_.api_base)) {
        return Status::Unavailable("GET " + url + ": next page points off the API host: " + next);
      }
      json saved = cur;
      cur["since"] = newest;
      if (next.empty() && page == 1) {
        // A single-page answer: its ETag lets the identical next request cost nothing.
        cur["url"] = first_url;
        cur["etag"] = resp.Header("etag");
      } else if (next.empty()) {
        cur.erase("etag");
      }
      StoreCounts counts;
      std::string cursor_text = cursor_.dump();
      Status s = StoreRecords(corpus_, records, &counts, [&](WriteBatch& b) {
        SyncState st = state_;
        st.cursor = cursor_text;
        return b.PutSyncState(st);
      });
      if (!s.ok()) {
        cur = saved;
        return s;
      }
      state_.cursor = cursor_text;
      report_->changed += counts.changed;
      for (auto& w : records.warnings) LogWarn(w);
      url = next;
    }
    return Status::Ok();
  }

  void NoteIssue(const json& item) {
    if (!item.contains("number") || !item["number"].is_number_integer()) return;
    int64_t n = item["number"].get<int64_t>();
    bool is_pr = item.contains("pull_request") && !item["pull_request"].is_null();
    if (is_pr && o_.fetch_reviews) AddPending("pending_reviews", n);
    // A merged PR's commits join its thread (a rebase merge leaves no trace
    // in the history, only the API knows them).
    if (is_pr && o_.fetch_pr_commits && item["pull_request"].is_object() &&
        item["pull_request"].contains("merged_at") && item["pull_request"]["merged_at"].is_string()) {
      AddPending("pending_commits", n);
    }
    if (o_.fetch_sub_issues && item.contains("sub_issues_summary") &&
        item["sub_issues_summary"].is_object() &&
        IntField(item["sub_issues_summary"], "total") > 0) {
      AddPending("pending_sub_issues", n);
    }
    if (item.contains("comments") && item["comments"].is_number_integer()) {
      // Reconcile only when the corpus may hold comments deleted upstream.
      pending_counts_[n] = item["comments"].get<int64_t>();
      AddPending("pending_reconcile", n);
    }
  }

  void AddPending(const char* key, int64_t n) {
    json& list = cursor_[key];
    if (!list.is_array()) list = json::array();
    for (const auto& e : list) {
      if (e == n) return;
    }
    list.push_back(n);
  }

  // Fetches every page of a per-thread listing.
  Status FetchAll(const std::string& tail, Records* records) {
    std::string url = RepoUrl(tail);
    while (!url.empty()) {
      UMWELT_ASSIGN_OR_RETURN(HttpResponse resp, Get(url, ""));
      UMWELT_RETURN_IF_ERROR(ParsePage(resp.body, "/repos/" + o_.repo + tail, "GET " + url, records));
      std::string next = FindLinkRel(resp.Header("link"), "next");
      if (!next.empty() && Origin(next) != Origin(o_.api_base)) {
        return Status::Unavailable("GET " + url + ": next page points off the API host: " + next);
      }
      url = next;
    }
    return Status::Ok();
  }

  // The commit refs ("O/R/commit/<sha>") of a pull request, every page
  // (GitHub lists up to 250).
  Status FetchCommits(const std::string& tail, std::vector<std::string>* refs) {
    std::string url = RepoUrl(tail);
    while (!url.empty()) {
      UMWELT_ASSIGN_OR_RETURN(HttpResponse resp, Get(url, ""));
      json page = json::parse(resp.body, nullptr, false);
      if (!page.is_array()) return Status::Corrupt("GET " + url + ": expected a list of commits");
      for (const auto& c : page) {
        if (!c.is_object() || !c.contains("sha") || !c["sha"].is_string()) continue;
        std::string sha = c["sha"].get<std::string>();
        if (sha.size() == 40 && sha.find_first_not_of("0123456789abcdef") == std::string::npos) {
          refs->push_back(o_.repo + "/commit/" + sha);
        }
      }
      std::string next = FindLinkRel(resp.Header("link"), "next");
      if (!next.empty() && Origin(next) != Origin(o_.api_base)) {
        return Status::Unavailable("GET " + url + ": next page points off the API host: " + next);
      }
      url = next;
    }
    return Status::Ok();
  }

  Status FollowUps() {
    for (const char* key : {"pending_reviews", "pending_sub_issues", "pending_reconcile", "pending_commits"}) {
      if (!cursor_.contains(key)) continue;
      std::vector<int64_t> numbers;
      for (const auto& e : cursor_[key]) {
        if (e.is_number_integer()) numbers.push_back(e.get<int64_t>());
      }
      for (int64_t n : numbers) {
        UMWELT_RETURN_IF_ERROR(FollowUp(key, n));
        json& list = cursor_[key];
        for (auto it = list.begin(); it != list.end(); ++it) {
          if (*it == n) {
            list.erase(it);
            break;
          }
        }
      }
      cursor_.erase(key);
    }
    return Status::Ok();
  }

  Status FollowUp(const std::string& key, int64_t n) {
    std::string num = std::to_string(n);
    std::string thread = o_.repo + "#" + num;
    Records records;
    std::vector<std::string> stale;
    std::vector<std::string> landed;  // commit refs of a merged PR
    if (key == "pending_commits") {
      UMWELT_RETURN_IF_ERROR(FetchCommits("/pulls/" + num + "/commits?per_page=100", &landed));
    } else if (key == "pending_reviews") {
      UMWELT_RETURN_IF_ERROR(FetchAll("/pulls/" + num + "/reviews?per_page=100", &records));
    } else if (key == "pending_sub_issues") {
      UMWELT_RETURN_IF_ERROR(FetchAll("/issues/" + num + "/sub_issues?per_page=100", &records));
    } else {
      // Deleted comments leave no trace in the listings: compare counts, and
      // re-list the thread's comments only when the corpus holds too many.
      auto it = pending_counts_.find(n);
      UMWELT_ASSIGN_OR_RETURN(auto stored, corpus_.RecordRefs(thread, "comment"));
      if (it != pending_counts_.end() && static_cast<int64_t>(stored.size()) <= it->second) {
        return Status::Ok();
      }
      UMWELT_RETURN_IF_ERROR(FetchAll("/issues/" + num + "/comments?per_page=100", &records));
      std::set<std::string> live;
      for (const auto& parts : records.records) {
        if (!parts.empty()) live.insert(BaseRef(parts[0].ref));
      }
      for (const auto& ref : stored) {
        if (!live.count(ref)) stale.push_back(ref);
      }
    }
    StoreCounts counts;
    json next_cursor = cursor_;
    auto& list = next_cursor[key];
    for (auto it = list.begin(); it != list.end(); ++it) {
      if (*it == n) {
        list.erase(it);
        break;
      }
    }
    std::string cursor_text = next_cursor.dump();
    UMWELT_RETURN_IF_ERROR(StoreRecords(corpus_, records, &counts, [&](WriteBatch& b) {
      for (const auto& ref : stale) UMWELT_RETURN_IF_ERROR(b.DeleteRecord(ref));
      for (const auto& ref : landed) {
        UMWELT_RETURN_IF_ERROR(b.AddLink({ref, thread, "pr-commit"}));  // for a later git sync
        UMWELT_RETURN_IF_ERROR(b.JoinThread(ref, thread));               // a commit already mirrored
      }
      SyncState st = state_;
      st.cursor = cursor_text;
      return b.PutSyncState(st);
    }));
    report_->changed += counts.changed;
    report_->deleted += static_cast<int64_t>(stale.size());
    return Status::Ok();
  }

  Corpus& corpus_;
  HttpClient& http_;
  SyncOptions o_;
  SyncReport* report_;
  std::string source_;
  SyncState state_;
  json cursor_;
  std::map<int64_t, int64_t> pending_counts_;
};

}  // namespace

Status Sync(Corpus& corpus, HttpClient& http, const SyncOptions& options, SyncReport* report) {
  if (!options.token.empty()) AddLogSecret(options.token);
  Syncer s(corpus, http, options, report);
  return s.Run();
}

}  // namespace umwelt::github
