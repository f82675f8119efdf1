// Test-only: GitHub webhook deliveries shaped as GitHub documents them
// (the payload's issue, comment, pull_request, review and release objects
// are the REST objects), written for these tests, and signed as GitHub signs
// them (X-Hub-Signature-256: HMAC-SHA256 of the raw body).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "umwelt/file.h"

namespace umwelt::testing {

using json = nlohmann::json;

inline json HookUser(const std::string& login) {
  return {{"login", login}, {"id", 1000 + login.size()}, {"type", "User"}, {"site_admin", false}};
}

inline json HookRepository(const std::string& full = "acme/tinylm") {
  return {{"id", 4242},
          {"name", full.substr(full.find('/') + 1)},
          {"full_name", full},
          {"private", false},
          {"html_url", "https://github.com/" + full},
          {"url", "https://api.github.com/repos/" + full},
          {"default_branch", "main"},
          {"owner", HookUser(full.substr(0, full.find('/')))}};
}

inline json HookIssue(int number, const std::string& title, const std::string& body, const std::string& updated,
                      const std::string& repo = "acme/tinylm", bool pr = false) {
  json issue = {{"url", "https://api.github.com/repos/" + repo + "/issues/" + std::to_string(number)},
                {"repository_url", "https://api.github.com/repos/" + repo},
                {"html_url", "https://github.com/" + repo + (pr ? "/pull/" : "/issues/") + std::to_string(number)},
                {"id", 700000 + number},
                {"number", number},
                {"title", title},
                {"user", HookUser("mona")},
                {"labels", json::array({{{"id", 1}, {"name", "bug"}}})},
                {"state", "open"},
                {"locked", false},
                {"assignees", json::array()},
                {"comments", 0},
                {"created_at", "2026-11-30T09:00:00Z"},
                {"updated_at", updated},
                {"closed_at", nullptr},
                {"author_association", "MEMBER"},
                {"body", body}};
  if (pr) {
    issue["pull_request"] = {{"url", "https://api.github.com/repos/" + repo + "/pulls/" + std::to_string(number)},
                             {"html_url", "https://github.com/" + repo + "/pull/" + std::to_string(number)},
                             {"merged_at", nullptr}};
  }
  return issue;
}

inline json HookPull(int number, const std::string& title, const std::string& body, const std::string& updated,
                     const std::string& repo = "acme/tinylm") {
  return {{"url", "https://api.github.com/repos/" + repo + "/pulls/" + std::to_string(number)},
          {"id", 800000 + number},
          {"html_url", "https://github.com/" + repo + "/pull/" + std::to_string(number)},
          {"issue_url", "https://api.github.com/repos/" + repo + "/issues/" + std::to_string(number)},
          {"number", number},
          {"state", "open"},
          {"locked", false},
          {"title", title},
          {"user", HookUser("octo")},
          {"body", body},
          {"created_at", "2026-11-30T10:00:00Z"},
          {"updated_at", updated},
          {"closed_at", nullptr},
          {"merged_at", nullptr},
          {"draft", false},
          {"head", {{"ref", "fix-loader"}, {"sha", "1111111111111111111111111111111111111111"}}},
          {"base", {{"ref", "main"}, {"sha", "2222222222222222222222222222222222222222"}}},
          {"author_association", "CONTRIBUTOR"},
          {"merged", false},
          {"comments", 0},
          {"commits", 2},
          {"additions", 40},
          {"deletions", 3},
          {"changed_files", 2}};
}

inline json HookComment(int number, int64_t id, const std::string& body, const std::string& updated,
                        const std::string& repo = "acme/tinylm") {
  return {{"url", "https://api.github.com/repos/" + repo + "/issues/comments/" + std::to_string(id)},
          {"html_url", "https://github.com/" + repo + "/issues/" + std::to_string(number) + "#issuecomment-" +
                           std::to_string(id)},
          {"issue_url", "https://api.github.com/repos/" + repo + "/issues/" + std::to_string(number)},
          {"id", id},
          {"user", HookUser("hubot")},
          {"created_at", "2026-11-30T11:00:00Z"},
          {"updated_at", updated},
          {"author_association", "NONE"},
          {"body", body}};
}

inline json HookReview(int number, int64_t id, const std::string& state, const std::string& body,
                       const std::string& repo = "acme/tinylm") {
  return {{"id", id},
          {"user", HookUser("reviewer")},
          {"body", body},
          {"commit_id", "1111111111111111111111111111111111111111"},
          {"submitted_at", "2026-11-30T12:00:00Z"},
          {"state", state},
          {"html_url", "https://github.com/" + repo + "/pull/" + std::to_string(number) + "#pullrequestreview-" +
                           std::to_string(id)},
          {"pull_request_url", "https://api.github.com/repos/" + repo + "/pulls/" + std::to_string(number)},
          {"author_association", "MEMBER"}};
}

inline json HookReviewComment(int number, int64_t id, const std::string& body, const std::string& updated,
                              const std::string& repo = "acme/tinylm") {
  return {{"url", "https://api.github.com/repos/" + repo + "/pulls/comments/" + std::to_string(id)},
          {"pull_request_review_id", 5000},
          {"id", id},
          {"diff_hunk", "@@ -1,3 +1,4 @@\n def load():"},
          {"path", "src/loader.py"},
          {"line", 12},
          {"original_line", 12},
          {"user", HookUser("reviewer")},
          {"body", body},
          {"created_at", "2026-11-30T12:30:00Z"},
          {"updated_at", updated},
          {"html_url", "https://github.com/" + repo + "/pull/" + std::to_string(number) + "#discussion_r" +
                           std::to_string(id)},
          {"pull_request_url", "https://api.github.com/repos/" + repo + "/pulls/" + std::to_string(number)},
          {"author_association", "MEMBER"}};
}

inline json HookRelease(int64_t id, const std::string& tag, const std::string& name, const std::string& body) {
  return {{"url", "https://api.github.com/repos/acme/tinylm/releases/" + std::to_string(id)},
          {"html_url", "https://github.com/acme/tinylm/releases/tag/" + tag},
          {"id", id},
          {"tag_name", tag},
          {"target_commitish", "main"},
          {"name", name},
          {"draft", false},
          {"prerelease", false},
          {"author", HookUser("mona")},
          {"created_at", "2026-12-01T08:00:00Z"},
          {"published_at", "2026-12-01T08:05:00Z"},
          {"body", body}};
}

// A payload: {action, <key>: object, ..., repository, sender}.
inline std::string HookPayload(const std::string& action, const json& objects, const std::string& repo = "acme/tinylm") {
  json p = objects;
  if (!action.empty()) p["action"] = action;
  p["repository"] = HookRepository(repo);
  p["sender"] = HookUser("mona");
  return p.dump();
}

inline std::string HookSignature(const std::string& secret, const std::string& body) {
  return "sha256=" + HmacSha256Hex(secret, body);
}

}  // namespace umwelt::testing
