// The registry of sources: each knows how to sync a recorded source again
// from its cursor, and what its cursor says.
#include "umwelt/sources.h"

#include <nlohmann/json.hpp>

#include "umwelt/discord.h"
#include "umwelt/git.h"
#include "umwelt/github.h"
#include "umwelt/redact.h"
#include "umwelt/text.h"
#include "umwelt/wandb.h"

namespace umwelt {
namespace {

// "github:acme/tinylm" -> "acme/tinylm".
std::string IdOf(const SyncState& s) {
  size_t colon = s.source.find(':');
  return colon == std::string::npos ? "" : s.source.substr(colon + 1);
}

class GithubSource final : public Source {
 public:
  std::string_view name() const override { return "github"; }
  Status Refresh(Corpus& corpus, HttpClient& http, const SyncState& state, const SourceCredentials& c,
                 bool* changed) const override {
    github::SyncOptions o;
    o.repo = IdOf(state);
    o.token = c.Get(name());
    github::SyncReport r;
    Status s = github::Sync(corpus, http, o, &r);
    *changed |= r.changed + r.deleted > 0;
    return s;
  }
  CredentialSpec credential() const override { return {{"GITHUB_TOKEN", "GH_TOKEN"}, "gh auth token"}; }
};

class GitSource final : public Source {
 public:
  std::string_view name() const override { return "git"; }
  Status Refresh(Corpus& corpus, HttpClient&, const SyncState& state, const SourceCredentials&,
                 bool* changed) const override {
    git::Cursor cursor;
    if (!git::ParseCursor(state.cursor, &cursor) || cursor.path.empty()) {
      return Status::Invalid("no recorded path (sync it once with `umwelt sync git PATH`)");
    }
    git::SyncOptions o;
    o.path = cursor.path;
    git::SyncReport r;
    Status s = git::Sync(corpus, o, &r);
    *changed |= r.commits + r.commits_removed + r.files + r.branches > 0;
    return s;
  }
  std::string DescribeCursor(std::string_view text) const override {
    git::Cursor cursor;
    return git::ParseCursor(text, &cursor) ? git::DescribeSkips(cursor) : "";
  }
  std::string CursorFactsJson(std::string_view text) const override {
    git::Cursor cursor;
    if (!git::ParseCursor(text, &cursor)) return "";
    return nlohmann::json{{"skipped", cursor.skipped}, {"shallow", cursor.shallow}}.dump();
  }
};

class DiscordSource final : public Source {
 public:
  std::string_view name() const override { return "discord"; }
  Status Refresh(Corpus& corpus, HttpClient& http, const SyncState& state, const SourceCredentials& c,
                 bool* changed) const override {
    discord::SyncOptions o;
    o.guild = IdOf(state);
    o.token = c.Get(name());
    discord::SyncReport r;
    Status s = discord::Sync(corpus, http, o, &r);
    *changed |= r.messages + r.deleted > 0;
    return s;
  }
  CredentialSpec credential() const override { return {{"DISCORD_TOKEN"}, ""}; }
};

class WandbSource final : public Source {
 public:
  std::string_view name() const override { return "wandb"; }
  Status Refresh(Corpus& corpus, HttpClient& http, const SyncState& state, const SourceCredentials& c,
                 bool* changed) const override {
    wandb::SyncOptions o;
    o.project = IdOf(state);
    o.api_key = c.Get(name());
    wandb::SyncReport r;
    Status s = wandb::Sync(corpus, http, o, &r);
    *changed |= r.changed > 0;
    return s;
  }
  CredentialSpec credential() const override { return {{"WANDB_API_KEY"}, ""}; }
};

const GithubSource kGithub;
const GitSource kGit;
const DiscordSource kDiscord;
const WandbSource kWandb;

}  // namespace

const std::string& SourceCredentials::Get(std::string_view source) const {
  static const std::string kNone;
  auto it = by_source_.find(source);
  return it == by_source_.end() ? kNone : it->second;
}

std::vector<const Source*> AllSources() { return {&kGithub, &kGit, &kDiscord, &kWandb}; }

const Source* SourceOf(std::string_view recorded) {
  std::string_view name = recorded.substr(0, recorded.find(':'));
  for (const Source* s : AllSources()) {
    if (s->name() == name) return s;
  }
  return nullptr;
}

Status RefreshRecordedSources(Corpus& corpus, HttpClient& http, const SourceCredentials& credentials,
                              const std::function<void(const std::string&)>& log, bool* changed) {
  UMWELT_ASSIGN_OR_RETURN(std::vector<SyncState> states, corpus.SyncStates());
  for (const auto& st : states) {
    const Source* source = SourceOf(st.source);
    if (!source) continue;  // recorded by a newer umwelt, or not a syncable source
    Status s = source->Refresh(corpus, http, st, credentials, changed);
    if (log) log(st.source + ": " + (s.ok() ? std::string("ok") : s.message()));
  }
  return Status::Ok();
}

nlohmann::json SourceHealthValue(const SyncState& state, int64_t now) {
  nlohmann::json h = {{"source", state.source}, {"last_success", state.last_success}};
  if (auto t = ParseIsoTime(state.last_success)) h["age_seconds"] = now - *t;
  h["last_error"] = StripLocalPaths(RedactSecrets(state.last_error));
  h["error_since"] = state.error_since;
  h["ok"] = state.last_error.empty();
  if (const Source* source = SourceOf(state.source)) {
    auto facts = nlohmann::json::parse(source->CursorFactsJson(state.cursor), nullptr, false);
    if (facts.is_object()) h.update(facts);
  }
  return h;
}

nlohmann::json CorpusStatusValue(const CorpusStats& stats, int64_t now) {
  nlohmann::json counts = nlohmann::json::array();
  for (const auto& c : stats.counts) counts.push_back({{"source", c.source}, {"kind", c.kind}, {"chunks", c.chunks}});
  nlohmann::json sources = nlohmann::json::array();
  for (const auto& st : stats.sync) sources.push_back(SourceHealthValue(st, now));
  nlohmann::json spaces = stats.spaces_json.empty() ? nlohmann::json::object()
                                                     : nlohmann::json::parse(stats.spaces_json, nullptr, false);
  return {{"chunks", stats.total_chunks},
          {"threads", stats.threads},
          {"links", stats.links},
          {"built_at", stats.built_at},
          {"schema_version", stats.schema_version},
          {"counts", std::move(counts)},
          {"sources", std::move(sources)},
          {"spaces", spaces.is_object() ? spaces : nlohmann::json::object()}};
}

}  // namespace umwelt
