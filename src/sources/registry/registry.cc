// The registry of sources: each knows how to sync a recorded source again
// from its cursor, and what its cursor says.
#include "umwelt/sources.h"

#include <nlohmann/json.hpp>

#include "umwelt/discord.h"
#include "umwelt/git.h"
#include "umwelt/github.h"
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
    o.token = c.github_token;
    github::SyncReport r;
    Status s = github::Sync(corpus, http, o, &r);
    *changed |= r.changed + r.deleted > 0;
    return s;
  }
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
    o.token = c.discord_token;
    discord::SyncReport r;
    Status s = discord::Sync(corpus, http, o, &r);
    *changed |= r.messages + r.deleted > 0;
    return s;
  }
};

class WandbSource final : public Source {
 public:
  std::string_view name() const override { return "wandb"; }
  Status Refresh(Corpus& corpus, HttpClient& http, const SyncState& state, const SourceCredentials& c,
                 bool* changed) const override {
    wandb::SyncOptions o;
    o.project = IdOf(state);
    o.api_key = c.wandb_api_key;
    wandb::SyncReport r;
    Status s = wandb::Sync(corpus, http, o, &r);
    *changed |= r.changed > 0;
    return s;
  }
};

const GithubSource kGithub;
const GitSource kGit;
const DiscordSource kDiscord;
const WandbSource kWandb;

}  // namespace

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

}  // namespace umwelt
