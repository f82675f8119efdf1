// GitHub webhook deliveries -> the corpus changes they stand for. The
// payload's objects are the REST objects, so they go through the page parser
// `sync github` uses; this file only reads the envelope (event, action,
// repository) and says what a deletion removes.
#include <algorithm>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "records_internal.h"
#include "store.h"
#include "umwelt/json_read.h"
#include "umwelt/github.h"
#include "umwelt/http.h"
#include "umwelt/text.h"

namespace umwelt::github {
namespace {

using json = nlohmann::json;

const std::set<std::string, std::less<>>& MirroredEvents() {
  static const std::set<std::string, std::less<>> events = {
      "issues", "issue_comment", "pull_request", "pull_request_review", "pull_request_review_comment",
      "push",   "release",       "ping"};
  return events;
}

// owner/name as GitHub allows them: letters, digits, '.', '-', '_'.
bool ValidRepoName(std::string_view s) {
  size_t slash = s.find('/');
  if (slash == 0 || slash == std::string_view::npos || slash + 1 == s.size() || s.size() > 200) return false;
  if (s.find('/', slash + 1) != std::string_view::npos) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
           c == '_' || c == '/';
  });
}

Status Shape(const std::string& what) { return Status::Invalid("webhook payload: " + what); }

// `key` of the payload as an object, or an error naming it.
Result<const json*> ObjectOf(const json& payload, const char* key) {
  const json* v = FieldOf(payload, key);
  if (!v || v->is_null()) return Shape("`" + std::string(key) + "` is missing");
  if (!v->is_object()) return Shape("`" + std::string(key) + "` should be an object, got " + v->type_name());
  return v;
}

// Parses the payload's `key` object into `out`, which must gain a record
// (or a thread) from it: a webhook object the parser does not recognise is a
// payload of the wrong shape, not something to skip.
Status ParseObject(const json& payload, const char* key, Records* out) {
  UMWELT_ASSIGN_OR_RETURN(const json* obj, ObjectOf(payload, key));
  size_t records = out->records.size(), threads = out->threads.size();
  Status s = ParseValue(*obj, "", std::string("webhook payload `") + key + "`", out);
  if (!s.ok()) return Status::Invalid(s.message());
  if (out->records.size() == records && out->threads.size() == threads) {
    // A review with no text is the container of inline comments, which
    // arrive on their own (as a sync skips it).
    if (std::string_view(key) == "review" && StrField(*obj, "body").empty()) return Status::Ok();
    return Shape("`" + std::string(key) + "` is not a GitHub " + key + " object (no html_url, number or id to place it)");
  }
  return Status::Ok();
}

// The base ref of the record the payload's `key` object stands for.
Result<std::string> RecordRefOf(const json& payload, const char* key) {
  Records one;
  UMWELT_RETURN_IF_ERROR(ParseObject(payload, key, &one));
  if (one.records.empty() || one.records[0].empty()) return Shape("`" + std::string(key) + "` names no record");
  return BaseRef(one.records[0][0].ref);
}

// A release: a thread of its own ("owner/repo/releases/<id>") with its notes
// as the one record.
Status ParseRelease(const json& payload, const std::string& repo, const std::string& repo_url, Records* out,
                    std::string* ref) {
  UMWELT_ASSIGN_OR_RETURN(const json* r, ObjectOf(payload, "release"));
  int64_t id = IntField(*r, "id");
  std::string tag = StrField(*r, "tag_name");
  if (id <= 0) return Shape("`release.id` is missing or not a positive integer");
  if (tag.empty() || !FieldOf(*r, "tag_name")->is_string()) return Shape("`release.tag_name` is missing");
  for (const char* k : {"name", "body", "created_at", "published_at"}) {
    const json* v = FieldOf(*r, k);
    if (v && !v->is_null() && !v->is_string()) return Shape(std::string("`release.") + k + "` should be a string");
  }
  *ref = repo + "/releases/" + std::to_string(id);
  std::string name = SanitizeUtf8(StrField(*r, "name"));
  std::string url = repo_url + "/releases/tag/" + UrlEncode(tag);
  Thread th;
  th.ref = *ref;
  th.source = "github";
  th.kind = "release";
  th.title = name.empty() || name == tag ? SanitizeUtf8(tag) : name + " (" + SanitizeUtf8(tag) + ")";
  const json* author = FieldOf(*r, "author");
  th.author = author ? StrField(*author, "login") : "";
  th.url = url;
  th.created = NormalizeIsoTime(StrField(*r, "created_at"));
  std::string published = NormalizeIsoTime(StrField(*r, "published_at"));
  th.updated = published.empty() ? th.created : published;
  const json* draft = FieldOf(*r, "draft");
  const json* pre = FieldOf(*r, "prerelease");
  th.state = draft && draft->is_boolean() && draft->get<bool>() ? "draft"
             : pre && pre->is_boolean() && pre->get<bool>() ? "prerelease"
                                                            : "published";
  std::string body = StrField(*r, "body");
  if (body.size() > kMaxBodyBytes) body = std::string(TruncateUtf8(body, kMaxBodyBytes));
  th.description = SanitizeUtf8(std::string(TruncateUtf8(CollapseWhitespace(body), 157)));
  out->threads.push_back(th);
  Chunk c;
  c.source = "github";
  c.kind = "release";
  c.ref = *ref;
  c.parent = *ref;
  c.title = th.title;
  c.author = th.author;
  c.date = th.updated;
  c.url = url;
  c.text = SanitizeUtf8(body);
  c.updated = th.updated;
  out->records.push_back(SplitIntoParts(c));
  return Status::Ok();
}

// The per-thread fetches the sync would queue for the payload's issue or
// pull request `obj` (Syncer::NoteIssue), that a delivery does not carry.
void NoteFollowUps(const json& obj, bool pull_request_object, WebhookChange* out) {
  int64_t number = IntField(obj, "number");
  if (number <= 0) return;
  const json* pr = pull_request_object ? &obj : FieldOf(obj, "pull_request");
  const json* merged_at = pr && pr->is_object() ? FieldOf(*pr, "merged_at") : nullptr;
  if (merged_at && merged_at->is_string()) out->follow_ups.push_back("pending_commits");
  const json* subs = FieldOf(obj, "sub_issues_summary");
  if (subs && subs->is_object() && IntField(*subs, "total") > 0) out->follow_ups.push_back("pending_sub_issues");
  if (!out->follow_ups.empty()) out->number = number;
}

}  // namespace

bool WebhookEventMirrored(std::string_view event) { return MirroredEvents().count(event) > 0; }

Result<WebhookChange> ParseWebhook(std::string_view event, std::string_view body) {
  WebhookChange out;
  out.event = std::string(event);
  if (!IsValidUtf8(body)) return Shape("the body is not UTF-8");
  json payload = ParseJson(body);
  if (payload.is_discarded()) {
    return Shape(JsonTooDeep(body) ? "JSON nested more than " + std::to_string(kMaxJsonDepth) + " deep"
                                   : "not JSON (truncated or malformed)");
  }
  if (!payload.is_object()) return Shape(std::string("should be a JSON object, got ") + payload.type_name());
  if (event == "ping") {
    out.ping = true;
    return out;
  }
  if (!WebhookEventMirrored(event)) return out;  // acknowledged, nothing to store
  UMWELT_ASSIGN_OR_RETURN(const json* repository, ObjectOf(payload, "repository"));
  const json* full = FieldOf(*repository, "full_name");
  if (!full || !full->is_string()) return Shape("`repository.full_name` is missing or not a string");
  out.repo = full->get<std::string>();
  if (!ValidRepoName(out.repo)) return Shape("`repository.full_name` is not owner/name");
  std::string repo_url = StrField(*repository, "html_url");
  std::string_view rest = repo_url;
  if (!rest.starts_with("https://") || (rest.remove_prefix(8), rest.find('/') == std::string_view::npos) ||
      rest.substr(rest.find('/') + 1) != out.repo) {
    repo_url = "https://github.com/" + out.repo;  // an html_url elsewhere does not re-point records
  }

  if (event == "push") {
    std::string ref = StrField(payload, "ref");
    if (ref.empty()) return Shape("`ref` is missing");
    if (ref.starts_with("refs/heads/")) out.pushed_branch = ref.substr(11);
    out.pushed_default = !out.pushed_branch.empty() && out.pushed_branch == StrField(*repository, "default_branch");
    return out;
  }
  const json* action = FieldOf(payload, "action");
  if (!action || !action->is_string()) return Shape("`action` is missing or not a string");
  out.action = action->get<std::string>();
  const bool deleted = out.action == "deleted";

  if (event == "release") {
    std::string ref;
    if (deleted) {
      Records unused;
      UMWELT_RETURN_IF_ERROR(ParseRelease(payload, out.repo, repo_url, &unused, &ref));
      out.deleted_thread = ref;
    } else {
      UMWELT_RETURN_IF_ERROR(ParseRelease(payload, out.repo, repo_url, &out.records, &ref));
    }
    out.thread = ref;
    return out;
  }
  if (event == "issues") {
    if (deleted || out.action == "transferred") {  // gone from this repository
      UMWELT_ASSIGN_OR_RETURN(out.deleted_thread, RecordRefOf(payload, "issue"));
      out.thread = out.deleted_thread;
      return out;
    }
    UMWELT_RETURN_IF_ERROR(ParseObject(payload, "issue", &out.records));
  } else if (event == "issue_comment" || event == "pull_request_review_comment") {
    // The thread (as it is now), then the comment: stored, or removed.
    UMWELT_RETURN_IF_ERROR(ParseObject(payload, event == "issue_comment" ? "issue" : "pull_request", &out.records));
    if (deleted) {
      UMWELT_ASSIGN_OR_RETURN(std::string ref, RecordRefOf(payload, "comment"));
      out.deleted_records.push_back(ref);
    } else {
      UMWELT_RETURN_IF_ERROR(ParseObject(payload, "comment", &out.records));
    }
  } else if (event == "pull_request") {
    UMWELT_RETURN_IF_ERROR(ParseObject(payload, "pull_request", &out.records));
  } else if (event == "pull_request_review") {
    UMWELT_RETURN_IF_ERROR(ParseObject(payload, "pull_request", &out.records));
    UMWELT_RETURN_IF_ERROR(ParseObject(payload, "review", &out.records));
  }
  // Every record must belong to the repository the delivery is for: a
  // payload cannot write into another repository's threads.
  auto own = [&](const std::string& ref) { return ref.rfind(out.repo + "#", 0) == 0; };
  for (const auto& t : out.records.threads) {
    if (!own(t.ref)) return Shape("`" + t.ref + "` is not in " + out.repo);
  }
  for (const auto& parts : out.records.records) {
    if (!parts.empty() && !own(parts[0].ref)) return Shape("`" + parts[0].ref + "` is not in " + out.repo);
  }
  for (const auto& ref : out.deleted_records) {
    if (!own(ref)) return Shape("`" + ref + "` is not in " + out.repo);
  }
  if (!deleted) {
    const char* key = event == "issues" || event == "issue_comment" ? "issue" : "pull_request";
    if (const json* obj = FieldOf(payload, key); obj && obj->is_object()) {
      NoteFollowUps(*obj, std::string_view(key) == "pull_request", &out);
    }
  }
  if (!out.records.threads.empty()) out.thread = out.records.threads[0].ref;
  else if (!out.records.records.empty()) out.thread = out.records.records[0][0].parent;
  return out;
}

Status ApplyWebhook(Corpus& corpus, const WebhookChange& change, int64_t* changed) {
  *changed = 0;
  std::vector<std::string> doomed = change.deleted_records;
  if (!change.deleted_thread.empty()) {
    UMWELT_ASSIGN_OR_RETURN(auto chunks, corpus.ThreadChunks(change.deleted_thread));
    for (const auto& c : chunks) doomed.push_back(BaseRef(c.ref));
    doomed.push_back(change.deleted_thread);
  }
  // The follow-ups join the sync's own lists, in the same transaction.
  std::optional<SyncState> state;
  if (!change.follow_ups.empty()) {
    UMWELT_ASSIGN_OR_RETURN(state, corpus.GetSyncState("github:" + change.repo));
    if (state) {
      json cursor = ParseJson(state->cursor.empty() ? "{}" : state->cursor);
      if (!cursor.is_object()) cursor = json::object();
      for (const auto& key : change.follow_ups) {
        json& list = cursor[key];
        if (!list.is_array()) list = json::array();
        if (std::find(list.begin(), list.end(), json(change.number)) == list.end()) list.push_back(change.number);
      }
      state->cursor = cursor.dump();
    }
  }
  StoreCounts counts;
  int64_t deleted = 0;
  UMWELT_RETURN_IF_ERROR(StoreRecords(corpus, change.records, &counts, [&](WriteBatch& batch) {
    if (state) UMWELT_RETURN_IF_ERROR(batch.PutSyncState(*state));
    for (const auto& ref : doomed) {
      UMWELT_RETURN_IF_ERROR(batch.DeleteRecord(ref));
      ++deleted;
    }
    if (!change.deleted_thread.empty()) UMWELT_RETURN_IF_ERROR(batch.DeleteThread(change.deleted_thread));
    return Status::Ok();
  }));
  *changed = counts.changed + counts.threads + deleted;
  return Status::Ok();
}

}  // namespace umwelt::github
