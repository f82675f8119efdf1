// The W&B source: run nodes to chunks, file import, GraphQL sync.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#include <nlohmann/json.hpp>

#include "umwelt/json_read.h"
#include "umwelt/file.h"
#include "umwelt/log.h"
#include "umwelt/text.h"
#include "umwelt/wandb.h"

namespace umwelt::wandb {
namespace {

using json = nlohmann::json;

constexpr size_t kMaxSectionBytes = 12 * 1024;  // config or summary text per run
constexpr size_t kMaxFactsBytes = 1024 * 1024;   // a run's structured facts

const char* kRunsQuery = R"(query Runs($project: String!, $entity: String!, $cursor: String, $perPage: Int = 50, $order: String, $filters: JSONString) {
  project(name: $project, entityName: $entity) {
    runs(filters: $filters, after: $cursor, first: $perPage, order: $order) {
      edges {
        node { id name displayName state config summaryMetrics tags group notes createdAt updatedAt heartbeatAt
               user { username } project { name entity { name } } }
        cursor
      }
      pageInfo { endCursor hasNextPage }
    }
  }
})";

std::string Str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// A JSON-string field (config, summaryMetrics) or an object, as an object.
json ObjectField(const json& node, const char* key, const std::string& where, std::vector<std::string>* warnings) {
  auto it = node.find(key);
  if (it == node.end() || it->is_null()) return json::object();
  if (it->is_object()) return *it;
  if (!it->is_string()) return json::object();
  json j = ParseJson(QuoteNonFinite(it->get<std::string>()));
  if (!j.is_object()) {
    warnings->push_back(where + ": " + key + " is not a JSON object; left out");
    return json::object();
  }
  return j;
}

std::string FormatValue(const json& v) {
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (!std::isfinite(d)) return std::isnan(d) ? "NaN" : (d > 0 ? "Infinity" : "-Infinity");
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", d);
    return buf;
  }
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object() && v.contains("value") && v.size() <= 2) return FormatValue(v["value"]);  // config {"value", "desc"}
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  return s.size() > 200 ? std::string(TruncateUtf8(s, 200)) + "…" : s;
}

// "key value" pairs, flattened one level ("optimizer.lr 0.0003"), internal
// keys (leading "_") left out, at most kMaxSectionBytes.
std::string Pairs(const json& obj) {
  std::string out;
  auto add = [&](const std::string& key, const json& v) {
    if (out.size() > kMaxSectionBytes) return;
    out += (out.empty() ? "" : ", ") + key + " " + FormatValue(v);
  };
  for (auto& [k, v] : obj.items()) {
    if (!k.empty() && k[0] == '_') continue;
    const json& val = v.is_object() && v.contains("value") && v.size() <= 2 ? v["value"] : v;
    if (val.is_object() && val.size() <= 32) {
      for (auto& [k2, v2] : val.items()) {
        if (!k2.empty() && k2[0] != '_') add(k + "." + k2, v2);
      }
    } else {
      add(k, val);
    }
  }
  if (out.size() > kMaxSectionBytes) out = std::string(TruncateUtf8(out, kMaxSectionBytes)) + " … (truncated)";
  return out;
}

// The run's structured facts (threads.facts): what `/wandb/{project}/{run}/config`
// serves. Config values come out of W&B's {"value", "desc"} wrappers.
std::string RunFacts(const json& node, const std::string& name, const std::string& display, const std::string& project,
                     const std::string& state, const Chunk& c, const json& config, const json& summary) {
  json cfg = json::object();
  for (auto& [k, v] : config.items()) {
    if (k == "_wandb") continue;
    cfg[k] = v.is_object() && v.contains("value") && v.size() <= 2 ? v["value"] : v;
  }
  json tags = json::array();
  if (node.contains("tags") && node["tags"].is_array()) {
    for (const auto& t : node["tags"]) {
      if (t.is_string()) tags.push_back(t);
    }
  }
  size_t slash = project.find('/');
  json f = {{"name", name},
            {"display_name", display.empty() ? name : display},
            {"project", project.substr(slash + 1)},
            {"entity", project.substr(0, slash)},
            {"state", state},
            {"group", Str(node, "group")},
            {"tags", tags},
            {"notes", SanitizeUtf8(Str(node, "notes"))},
            {"created", c.date},
            {"updated", c.updated},
            {"url", c.url},
            {"config", cfg},
            {"summary", summary}};
  std::string out = f.dump(-1, ' ', false, json::error_handler_t::replace);
  if (out.size() > kMaxFactsBytes) {  // a run logging megabytes of config keeps its name and state
    f["config"] = json::object();
    f["summary"] = json::object();
    f["truncated"] = "config and summary exceeded " + std::to_string(kMaxFactsBytes / 1024) + " KiB";
    out = f.dump(-1, ' ', false, json::error_handler_t::replace);
  }
  return out;
}

Result<Run> RunFromNode(const json& node, const std::string& default_project, const std::string& repo,
                              std::vector<std::string>* warnings) {
  if (!node.is_object()) return Status::Corrupt("a run is not a JSON object");
  std::string name = Str(node, "name");
  if (name.empty()) return Status::Corrupt("a run has no name");
  std::string project = default_project;
  if (node.contains("project") && node["project"].is_object()) {
    const json& p = node["project"];
    std::string pn = Str(p, "name");
    std::string en = p.contains("entity") && p["entity"].is_object() ? Str(p["entity"], "name") : "";
    if (!pn.empty() && !en.empty()) project = en + "/" + pn;
  }
  if (project.empty() || project.find('/') == std::string::npos) {
    return Status::Invalid("run " + name + " does not say its project; pass --project ENTITY/PROJECT");
  }
  std::string where = "run " + project + "/" + name;
  json config = ObjectField(node, "config", where, warnings);
  json summary = ObjectField(node, "summaryMetrics", where, warnings);
  std::string display = Str(node, "displayName");
  std::string state = Str(node, "state");
  std::string group = Str(node, "group");
  std::string notes = SanitizeUtf8(Str(node, "notes"));
  std::string tags;
  if (node.contains("tags") && node["tags"].is_array()) {
    for (const auto& t : node["tags"]) {
      if (t.is_string()) tags += (tags.empty() ? "" : ", ") + t.get<std::string>();
    }
  }
  Run r;
  Chunk& c = r.chunk;
  c.source = "wandb";
  c.kind = "run";
  c.ref = "wandb:" + project + "/" + name;
  c.parent = c.ref;
  c.title = display.empty() ? name : display;
  c.author = node.contains("user") && node["user"].is_object() ? Str(node["user"], "username") : "";
  c.date = NormalizeIsoTime(Str(node, "createdAt"));
  c.updated = NormalizeIsoTime(Str(node, "updatedAt"));
  if (c.updated.empty()) c.updated = NormalizeIsoTime(Str(node, "heartbeatAt"));
  c.url = "https://wandb.ai/" + project + "/runs/" + name;
  c.text = "Run " + c.title + (display.empty() || display == name ? "" : " (" + name + ")") + ", " +
           (state.empty() ? "state unknown" : state);
  if (!group.empty()) c.text += ", group " + group;
  if (!tags.empty()) c.text += "\nTags: " + tags;
  if (!notes.empty()) c.text += "\nNotes: " + notes;
  std::string summary_text = Pairs(summary), config_text = Pairs(config);
  if (!summary_text.empty()) c.text += std::string(kSummaryLine) + summary_text;
  if (!config_text.empty()) c.text += "\nConfig: " + config_text;
  c.text = SanitizeUtf8(c.text);
  Thread& t = r.thread;
  t.ref = c.ref;
  t.source = "wandb";
  t.kind = "run";
  t.state = state;
  t.title = c.title;
  t.author = c.author;
  t.url = c.url;
  t.created = c.date;
  t.updated = c.updated;
  if (!tags.empty()) {
    for (const auto& x : node["tags"]) {
      if (x.is_string()) t.labels.push_back(x.get<std::string>());
    }
  }
  t.description = state + (group.empty() ? "" : " · group " + group);
  t.facts = RunFacts(node, name, display, project, state, c, config, summary);
  std::string link_text = notes;
  for (auto& [k, v] : config.items()) {
    const json& val = v.is_object() && v.contains("value") ? v["value"] : v;
    if (val.is_string()) link_text += "\n" + val.get<std::string>();
  }
  r.links = FindLinks(c.ref, link_text, repo, c.ref);
  return r;
}

Status StoreRuns(Corpus& corpus, const std::vector<Run>& runs, int64_t* changed,
                 const std::function<Status(WriteBatch&)>& extra = nullptr) {
  UMWELT_ASSIGN_OR_RETURN(auto batch, corpus.BeginWrite());
  for (const auto& r : runs) {
    UMWELT_RETURN_IF_ERROR(batch->PutThread(r.thread));
    UMWELT_ASSIGN_OR_RETURN(bool ch, batch->PutRecord(SplitIntoParts(r.chunk)));
    if (ch) ++*changed;
    UMWELT_RETURN_IF_ERROR(batch->PutLinks(r.chunk.ref, r.links));
  }
  if (extra) UMWELT_RETURN_IF_ERROR(extra(*batch));
  return batch->Commit();
}

// The run nodes of one JSON document in any of the saved shapes.
void CollectNodes(const json& j, std::vector<json>* out) {
  if (j.is_array()) {
    for (const auto& e : j) CollectNodes(e, out);
  } else if (j.is_object()) {
    if (j.contains("data")) return CollectNodes(j["data"], out);
    if (j.contains("project") && j["project"].is_object() && j["project"].contains("runs")) {
      return CollectNodes(j["project"]["runs"], out);
    }
    if (j.contains("edges") && j["edges"].is_array()) {
      for (const auto& e : j["edges"]) {
        if (e.is_object() && e.contains("node")) out->push_back(e["node"]);
      }
      return;
    }
    if (j.contains("node") && j["node"].is_object()) return out->push_back(j["node"]);
    // A run object: a name and something only a run has (package.json has
    // a name too).
    static const char* const kRunFields[] = {"state",     "config",    "summaryMetrics", "summary",  "createdAt",
                                             "created_at", "displayName", "display_name", "heartbeatAt", "jobType",
                                             "sweep",     "runInfo",   "historyKeys"};
    if (j.contains("name") && std::any_of(std::begin(kRunFields), std::end(kRunFields),
                                          [&](const char* f) { return j.contains(f); })) {
      out->push_back(j);
    }
  }
}

}  // namespace

std::string QuoteNonFinite(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool in_string = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < s.size()) out += s[++i];
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
    } else if (s.compare(i, 3, "NaN") == 0) {
      out += "\"NaN\"";
      i += 2;
    } else if (s.compare(i, 8, "Infinity") == 0) {
      out += "\"Infinity\"";
      i += 7;
    } else if (s.compare(i, 9, "-Infinity") == 0) {
      out += "\"-Infinity\"";
      i += 8;
    } else {
      out += c;
    }
  }
  return out;
}

Result<std::vector<Run>> ParseRunFile(std::string_view text, const std::string& path, const std::string& project,
                                      const std::string& repo, std::vector<std::string>* warnings) {
  std::vector<json> nodes;
  json doc = ParseJson(QuoteNonFinite(text));
  if (!doc.is_discarded()) {
    CollectNodes(doc, &nodes);
  } else {  // JSON Lines
    size_t start = 0;
    int line = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      ++line;
      std::string_view l(text.data() + start, end - start);
      start = end + 1;
      if (CollapseWhitespace(l).empty()) continue;
      json j = ParseJson(QuoteNonFinite(l));
      if (j.is_discarded()) return Status::Corrupt(path + ": line " + std::to_string(line) + " is not JSON");
      CollectNodes(j, &nodes);
    }
  }
  if (nodes.empty()) return Status::Corrupt(path + ": no W&B runs found (expected GraphQL output or run objects)");
  std::vector<Run> runs;
  for (size_t i = 0; i < nodes.size(); ++i) {
    auto r = RunFromNode(nodes[i], project, repo, warnings);
    if (!r.ok()) return Status::Error(r.status().code(), path + ": run " + std::to_string(i + 1) + ": " + r.status().message());
    runs.push_back(std::move(r).value());
  }
  return runs;
}

Result<RunsPage> ParseRunsPage(std::string_view text, const std::string& project, const std::string& repo,
                               std::vector<std::string>* warnings) {
  json body = ParseJson(QuoteNonFinite(text));
  if (!body.is_object()) return Status::Corrupt("the response is not JSON");
  const json errors = ArrayField(body, "errors");
  if (!errors.empty()) return Status::Unavailable("GraphQL error: " + StrField(errors[0], "message"));
  const json* data = FieldOf(body, "data");
  const json* p = data ? FieldOf(*data, "project") : nullptr;
  if (p && p->is_null()) return Status::NotFound("project " + project + " does not exist or the key cannot see it");
  const json* runs = p ? FieldOf(*p, "runs") : nullptr;
  if (!runs || !runs->is_object()) return Status::Corrupt("the response has no runs");
  std::vector<json> nodes;
  CollectNodes(*runs, &nodes);
  RunsPage page;
  for (const auto& n : nodes) {
    auto r = RunFromNode(n, project, repo, warnings);
    if (!r.ok()) {
      warnings->push_back(project + ": " + r.status().message() + "; skipped");
      continue;
    }
    page.runs.push_back(std::move(r).value());
  }
  const json* info = FieldOf(*runs, "pageInfo");
  page.more = info && BoolField(*info, "hasNextPage");
  page.end_cursor = info ? StrField(*info, "endCursor") : "";
  return page;
}

Status ImportFiles(Corpus& corpus, const std::vector<std::string>& paths, const std::string& project,
                   const std::string& repo, ImportReport* report) {
  return ImportEachFile(paths, [&](const std::string& path) -> Status {
    UMWELT_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
    UMWELT_ASSIGN_OR_RETURN(std::vector<Run> runs, ParseRunFile(text, path, project, repo, &report->warnings));
    UMWELT_RETURN_IF_ERROR(StoreRuns(corpus, runs, &report->changed).WithContext(path));
    report->files++;
    report->runs += static_cast<int64_t>(runs.size());
    return Status::Ok();
  });
}

Status Sync(Corpus& corpus, HttpClient& http, const SyncOptions& o, SyncReport* report) {
  size_t slash = o.project.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == o.project.size() ||
      o.project.find('/', slash + 1) != std::string::npos) {
    return Status::Invalid("sync wandb: `" + o.project + "` is not ENTITY/PROJECT");
  }
  if (o.api_key.empty()) return Status::Invalid("sync wandb: no API key (set WANDB_API_KEY)");
  AddLogSecret(o.api_key);
  std::string key = "wandb:" + o.project;
  UMWELT_ASSIGN_OR_RETURN(auto state, corpus.GetSyncState(key));
  std::string since = state ? state->cursor : "";
  std::string newest = since;
  json filters = json::object();
  if (!since.empty()) filters["updated_at"] = {{"$gt", since}};
  std::string page_cursor;
  std::vector<std::string> warnings;
  auto record_error = [&](const Status& s) {
    RecordSyncFailure(corpus, key, s.message(), NowEpoch());
    return s;
  };
  auto sleep = [&](double s) {
    if (o.sleep) o.sleep(s);
    else SleepSeconds(s);
  };
  while (true) {
    json vars = {{"entity", o.project.substr(0, slash)},
                 {"project", o.project.substr(slash + 1)},
                 {"perPage", o.per_page},
                 {"order", "+updated_at"},
                 {"filters", filters.dump()}};
    if (!page_cursor.empty()) vars["cursor"] = page_cursor;
    HttpRequest req;
    req.method = "POST";
    req.url = o.api_base + "/graphql";
    req.headers = {{"Content-Type", "application/json"},
                   {"Authorization", "Basic " + Base64("api:" + o.api_key)},
                   {"User-Agent", "umwelt/0.1"}};
    req.body = json{{"query", kRunsQuery}, {"variables", vars}}.dump();
    RetryPolicy policy;
    policy.max_retries = o.max_retries;
    policy.backoff_seconds = o.backoff_seconds;
    policy.max_wait_seconds = 600;
    policy.sleep = sleep;
    policy.on_retry = [&](const Result<HttpResponse>&, double) { report->retries++; };
    int attempts = 0;
    Result<HttpResponse> resp = SendWithRetry(http, req, policy, &attempts);
    report->requests += attempts;
    if (!resp.ok()) return record_error(Status::Unavailable("sync wandb " + o.project + ": " + resp.status().message()));
    if (resp->status == 401 || resp->status == 403) {
      return record_error(Status::Unavailable("sync wandb " + o.project + ": the API key was refused (HTTP " +
                                              std::to_string(resp->status) + ")"));
    }
    if (resp->status != 200) {
      return record_error(Status::Unavailable("sync wandb " + o.project + ": HTTP " + std::to_string(resp->status)));
    }
    auto page = ParseRunsPage(resp->body, o.project, o.repo, &warnings);
    if (!page.ok()) {
      std::string why = page.status().message();
      return record_error(Status::Error(page.status().code(), "sync wandb " + o.project + ": " + why));
    }
    for (const auto& r : page->runs) newest = std::max(newest, r.chunk.updated);
    report->runs += static_cast<int64_t>(page->runs.size());
    bool more = page->more;
    Status s = StoreRuns(corpus, page->runs, &report->changed, [&](WriteBatch& b) {
      SyncState st = state ? *state : SyncState{};
      st.source = key;
      st.cursor = newest;
      if (!more) MarkSyncSuccess(&st, NowEpoch());
      return b.PutSyncState(st);
    });
    if (!s.ok()) return s;
    if (!more) break;
    page_cursor = page->end_cursor;
    if (page_cursor.empty()) break;
  }
  for (const auto& w : warnings) LogWarn(w);
  return Status::Ok();
}

Result<std::optional<std::string>> RunConfigJson(Corpus& corpus, const std::string& project, const std::string& run) {
  if (project.empty() || run.empty() || run.find('/') != std::string::npos) return std::optional<std::string>();
  std::vector<Thread> found;
  if (project.find('/') != std::string::npos) {
    UMWELT_ASSIGN_OR_RETURN(auto t, corpus.GetThread("wandb:" + project + "/" + run));
    if (t) found.push_back(std::move(*t));
  } else {
    UMWELT_ASSIGN_OR_RETURN(found, corpus.ThreadsWithRefSuffix("wandb", "/" + project + "/" + run, 2));
  }
  if (found.empty()) return std::optional<std::string>();
  const Thread& t = found.front();
  json f = json::parse(t.facts, nullptr, false);
  if (!f.is_object()) {  // stored before umwelt kept runs' facts
    f = {{"name", run}, {"project", project}, {"state", t.state}, {"url", t.url},
         {"config", json::object()}, {"summary", json::object()},
         {"note", "this run was stored without its config; sync or import its W&B project again to fill it in"}};
  }
  if (found.size() > 1) f["note"] = "more than one entity has a project " + project + " with this run; give ENTITY/PROJECT";
  return std::optional<std::string>(f.dump(-1, ' ', false, json::error_handler_t::replace));
}

}  // namespace umwelt::wandb
