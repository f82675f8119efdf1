// `import github` and `sync github`.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "umwelt/discord.h"
#include "umwelt/git.h"
#include "umwelt/github.h"
#include "umwelt/log.h"
#include "umwelt/sources.h"
#include "umwelt/wandb.h"
#include "umwelt/web.h"

namespace umwelt::cli {
namespace {

// GITHUB_TOKEN, else what `gh auth token` prints, else "".
// A source's credential as its CredentialSpec says: the first environment
// variable set, else what its command prints ("" when neither).
std::string CredentialOf(const CredentialSpec& spec) {
  for (std::string_view var : spec.env) {
    if (const char* t = std::getenv(std::string(var).c_str()); t && *t) return t;
  }
  if (spec.command.empty()) return "";
  FILE* p = ::popen((std::string(spec.command) + " 2>/dev/null").c_str(), "r");
  if (!p) return "";
  char buf[512];
  std::string out;
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  ::pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r' || out.back() == ' ')) out.pop_back();
  return out;
}

std::string GithubToken() { return CredentialOf(SourceOf("github")->credential()); }

// A verb's summary line: on stdout when it succeeded; when it failed after
// doing some work, on stderr as what was done before the error (which
// follows); when it failed having done nothing, not at all.
__attribute__((format(printf, 3, 4))) void Summary(const Status& s, bool did_work, const char* fmt, ...) {
  if (!s.ok() && !did_work) return;
  FILE* out = s.ok() ? stdout : stderr;
  if (!s.ok()) std::fputs("umwelt: before the error: ", out);
  va_list args;
  va_start(args, fmt);
  std::vfprintf(out, fmt, args);
  va_end(args);
}

}  // namespace

Status CmdImportGithub(const std::string& path, const std::vector<std::string>& files) {
  UMWELT_ASSIGN_OR_RETURN(auto corpus, OpenCorpus(path, Corpus::Mode::kReadWrite));
  github::ImportReport report;
  Status s = github::ImportFiles(*corpus, files, &report);
  Summary(s, report.records > 0, "imported %d file(s): %lld records (%lld new or changed), %lld threads, %lld skipped\n",
              report.files, static_cast<long long>(report.records),
              static_cast<long long>(report.changed), static_cast<long long>(report.threads),
              static_cast<long long>(report.skipped));
  if (report.files > 0) UMWELT_RETURN_IF_ERROR(RefreshIndex(*corpus));
  return s;
}

Status CmdSyncGithub(const std::string& path, const SyncGithubArgs& args) {
  UMWELT_ASSIGN_OR_RETURN(auto corpus, OpenCorpus(path, Corpus::Mode::kReadWrite));
  auto http = NewCurlHttpClient();
  github::SyncOptions o;
  o.repo = args.repo;
  o.api_base = args.api_base;
  o.max_retries = args.max_retries;
  o.token = GithubToken();
  if (o.token.empty()) LogWarn("no GITHUB_TOKEN and no `gh auth token`: unauthenticated, 60 requests/hour");
  Progress progress("sync github");
  o.progress = [&](const std::string& what, int page) { progress.Update(page, 0, what + " pages"); };
  github::SyncReport report;
  Status s = github::Sync(*corpus, *http, o, &report);
  progress.Done();
  Summary(s, report.changed + report.deleted > 0, "sync github %s: %d requests (%d not modified, %d retried), %lld records changed, "
              "%lld deleted\n",
              args.repo.c_str(), report.requests, report.not_modified, report.retries,
              static_cast<long long>(report.changed), static_cast<long long>(report.deleted));
  if (report.changed > 0 || report.deleted > 0) UMWELT_RETURN_IF_ERROR(RefreshIndex(*corpus));
  return s;
}

Status CmdImportDiscord(const std::string& path, const DiscordArgs& args) {
  UMWELT_ASSIGN_OR_RETURN(auto corpus, OpenCorpus(path, Corpus::Mode::kReadWrite));
  discord::ImportOptions o;
  o.repo = args.repo;
  Progress progress("import discord");
  o.progress = [&](int64_t messages) { progress.Update(messages, 0, "messages"); };
  discord::ImportReport r;
  Status s = discord::ImportFiles(*corpus, args.paths, o, &r);
  progress.Done();
  Summary(s, r.messages > 0, "imported %d file(s): %lld messages (%lld new or changed) in %lld channels, %lld system messages "
              "skipped\n",
              r.files, static_cast<long long>(r.messages), static_cast<long long>(r.changed),
              static_cast<long long>(r.channels), static_cast<long long>(r.skipped));
  if (r.messages > 0) UMWELT_RETURN_IF_ERROR(RefreshIndex(*corpus));
  return s;
}

namespace {

// One incremental REST sync of the guild, with its summary line.
Status SyncDiscordOnce(Corpus& corpus, HttpClient& http, const discord::SyncOptions& base, const std::string& guild,
                       bool* changed) {
  discord::SyncOptions o = base;
  Progress progress("sync discord");
  o.progress = [&](const std::string& channel, int64_t n) { progress.Update(n, 0, "#" + channel + " messages"); };
  discord::SyncReport r;
  Status s = discord::Sync(corpus, http, o, &r);
  progress.Done();
  Summary(s, r.messages + r.deleted > 0, "sync discord %s: %d requests (%d retried), %d channels and threads, %lld messages new or changed, "
              "%lld deleted\n",
              guild.c_str(), r.requests, r.retries, r.channels, static_cast<long long>(r.messages),
              static_cast<long long>(r.deleted));
  *changed = r.messages > 0 || r.deleted > 0;
  return s;
}

// `sync discord GUILD --follow`: a thread keeps the gateway connection and
// queues its events; this one applies them in batches at most a second
// apart, re-indexes after each, and runs the REST sync when a gateway
// session begins (the first, and any after a session that could not be
// resumed), so nothing from before it is missed. Ends on SIGINT or SIGTERM,
// or when the gateway refuses the bot for good.
Status FollowDiscord(Corpus& corpus, HttpClient& http, const discord::SyncOptions& so, const DiscordArgs& args) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // the gateway's thread inherits it
  constexpr size_t kMaxQueued = 100000;  // beyond it events wait at the gateway (a resume replays them)
  std::mutex mu;
  std::condition_variable cv;
  std::deque<discord::GatewayEvent> queue;
  bool catch_up = false, ended = false;
  std::atomic<bool> stop{false};
  Status follow_status;
  discord::FollowOptions f;
  f.guild = so.guild;
  f.token = so.token;
  f.api_base = so.api_base;
  f.allow_loopback = IsLoopbackApi(so.api_base);
  f.stopping = [&stop] { return stop.load(); };
  f.on_event = [&](const discord::GatewayEvent& e) {
    std::lock_guard<std::mutex> lock(mu);
    if (queue.size() >= kMaxQueued) return Status::Exhausted("too many events waiting to be applied");
    queue.push_back(e);
    cv.notify_all();
    return Status::Ok();
  };
  f.on_new_session = [&] {
    std::lock_guard<std::mutex> lock(mu);
    catch_up = true;
    cv.notify_all();
  };
  f.log = [](const std::string& line) { std::fprintf(stderr, "sync discord: %s\n", line.c_str()); };
  discord::FollowReport report;
  std::thread gateway([&] {
    auto gateway_http = NewCurlHttpClient();
    Status s = discord::Follow(*gateway_http, f, &report);
    std::lock_guard<std::mutex> lock(mu);
    follow_status = s;
    ended = true;
    cv.notify_all();
  });
  std::fprintf(stderr, "sync discord %s: following the gateway (Ctrl-C stops)\n", args.guild.c_str());
  Status result;
  bool dirty = false, synced = false;
  const auto started = std::chrono::steady_clock::now();
  auto last_index = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  while (true) {
    struct timespec zero = {0, 0};
    if (sigtimedwait(&signals, nullptr, &zero) > 0) break;
    std::deque<discord::GatewayEvent> batch;
    bool sync_now = false;
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait_for(lock, std::chrono::milliseconds(200), [&] { return ended || catch_up || !queue.empty(); });
      if (ended) {
        result = follow_status;
        break;
      }
      // A gateway that does not answer does not keep the REST sync from
      // running: after 10 s it runs once without it.
      sync_now = catch_up || (!synced && std::chrono::steady_clock::now() - started > std::chrono::seconds(10));
      catch_up = false;
      // At most one batch a second: a burst is one index update.
      if (std::chrono::steady_clock::now() - last_index >= std::chrono::seconds(1)) batch.swap(queue);
    }
    if (sync_now) {
      synced = true;
      bool changed = false;
      Status s = SyncDiscordOnce(corpus, http, so, args.guild, &changed);
      if (!s.ok()) std::fprintf(stderr, "sync discord: the catch-up failed (the next session tries again): %s\n",
                                s.message().c_str());
      dirty = dirty || changed;
    }
    if (batch.empty() && !dirty) continue;
    std::map<std::string, int> by_type;
    int64_t changed = 0;
    for (const auto& e : batch) {
      int64_t n = 0;
      Status s = discord::ApplyEvent(corpus, e.body, so.guild, so.repo, &n);
      if (!s.ok()) {
        std::fprintf(stderr, "sync discord: event %lld (%s) not applied: %s\n", static_cast<long long>(e.seq),
                     e.type.c_str(), s.message().c_str());
        continue;
      }
      by_type[e.type]++;
      changed += n;
    }
    if (changed > 0 || dirty) {
      result = RefreshIndex(corpus);
      if (!result.ok()) break;
      dirty = false;
      last_index = std::chrono::steady_clock::now();
    }
    if (!by_type.empty()) {
      std::string kinds;
      for (const auto& [type, n] : by_type) kinds += (kinds.empty() ? "" : ", ") + type + " " + std::to_string(n);
      std::printf("sync discord %s: %zu event(s) applied (%s), %lld record(s) changed, searchable\n",
                  args.guild.c_str(), batch.size(), kinds.c_str(), static_cast<long long>(changed));
      std::fflush(stdout);
    }
  }
  stop = true;
  gateway.join();
  std::fprintf(stderr, "sync discord %s: stopped after %d connection(s), %d resume(s), %lld event(s)\n",
               args.guild.c_str(), report.connections, report.resumes, static_cast<long long>(report.events));
  return result;
}

}  // namespace

Status CmdSyncDiscord(const std::string& path, const DiscordArgs& args) {
  UMWELT_ASSIGN_OR_RETURN(auto corpus, OpenCorpus(path, Corpus::Mode::kReadWrite));
  auto http = NewCurlHttpClient();
  discord::SyncOptions o;
  o.guild = args.guild;
  o.api_base = args.api_base;
  o.repo = args.repo;
  o.recheck_days = args.recheck_days;
  o.archived_days = args.archived_days;
  if (const char* t = std::getenv("DISCORD_TOKEN"); t) o.token = t;
  // Following syncs when the gateway's session begins.
  if (args.follow) return FollowDiscord(*corpus, *http, o, args);
  bool changed = false;
  Status s = SyncDiscordOnce(*corpus, *http, o, args.guild, &changed);
  if (changed) UMWELT_RETURN_IF_ERROR(RefreshIndex(*corpus));
  return s;
}

Status CmdImportWandb(const std::string& path, const WandbArgs& args) {
  UMWELT_ASSIGN_OR_RETURN(auto corpus, OpenCorpus(path, Corpus::Mode::kReadWrite));
  wandb::ImportReport r;
  Status s = wandb::ImportFiles(*corpus, args.paths, args.project, args.repo, &r);
  for (const auto& w : r.warnings) LogWarn(w);
  Summary(s, r.runs > 0, "imported %d file(s): %lld runs (%lld new or changed)\n", r.files, static_cast<long long>(r.runs),
              static_cast<long long>(r.changed));
  if (r.changed > 0) UMWELT_RETURN_IF_ERROR(RefreshIndex(*corpus));
  return s;
}

Status CmdSyncWandb(const std::string& path, const WandbArgs& args) {
  UMWELT_ASSIGN_OR_RETURN(auto corpus, OpenCorpus(path, Corpus::Mode::kReadWrite));
  auto http = NewCurlHttpClient();
  wandb::SyncOptions o;
  o.project = args.project;
  o.api_base = args.api_base;
  o.repo = args.repo;
  if (const char* k = std::getenv("WANDB_API_KEY"); k) o.api_key = k;
  wandb::SyncReport r;
  Status s = wandb::Sync(*corpus, *http, o, &r);
  Summary(s, r.changed > 0, "sync wandb %s: %d requests (%d retried), %lld runs updated since the last sync (%lld new or changed)\n",
              args.project.c_str(), r.requests, r.retries, static_cast<long long>(r.runs),
              static_cast<long long>(r.changed));
  if (r.changed > 0) UMWELT_RETURN_IF_ERROR(RefreshIndex(*corpus));
  return s;
}

Status CmdFetch(const std::string& path, const FetchArgs& args) {
  UMWELT_ASSIGN_OR_RETURN(auto corpus, OpenCorpus(path, Corpus::Mode::kReadWrite));
  auto http = NewCurlHttpClient();
  web::FetchOptions o;
  o.allow_private = args.allow_private;
  o.max_bytes = static_cast<size_t>(args.max_mb) << 20;
  o.timeout_seconds = args.timeout;
  o.repo = args.repo;
  web::FetchReport r;
  Status s = web::Fetch(*corpus, *http, args.urls, o, &r);
  Summary(s, r.pages > 0, "fetched %d of %zu url(s): %lld sections\n", r.pages, args.urls.size(),
              static_cast<long long>(r.sections));
  if (r.pages > 0) UMWELT_RETURN_IF_ERROR(RefreshIndex(*corpus));
  return s;
}

Status RefreshSources(const std::string& path) {
  UMWELT_ASSIGN_OR_RETURN(auto corpus, OpenCorpus(path, Corpus::Mode::kReadWrite));
  auto http = NewCurlHttpClient();
  SourceCredentials credentials;
  for (const Source* source : AllSources()) credentials.Set(source->name(), CredentialOf(source->credential()));
  bool changed = false;
  UMWELT_RETURN_IF_ERROR(RefreshRecordedSources(
      *corpus, *http, credentials, [](const std::string& line) { std::fprintf(stderr, "refresh: %s\n", line.c_str()); },
      &changed));
  if (changed) UMWELT_RETURN_IF_ERROR(RefreshIndex(*corpus));
  return Status::Ok();
}

Status RefreshSource(const std::string& path, const std::string& recorded, bool* changed) {
  *changed = false;
  const Source* source = SourceOf(recorded);
  if (!source) return Status::NotFound("no source syncs `" + recorded + "`");
  UMWELT_ASSIGN_OR_RETURN(auto corpus, OpenCorpus(path, Corpus::Mode::kReadWrite));
  UMWELT_ASSIGN_OR_RETURN(auto state, corpus->GetSyncState(recorded));
  if (!state) return Status::NotFound("this corpus does not record `" + recorded + "`");
  auto http = NewCurlHttpClient();
  SourceCredentials credentials;
  credentials.Set(source->name(), CredentialOf(source->credential()));
  return source->Refresh(*corpus, *http, *state, credentials, changed);
}

Status CmdSyncGit(const std::string& path, const SyncGitArgs& args) {
  UMWELT_ASSIGN_OR_RETURN(auto corpus, OpenCorpus(path, Corpus::Mode::kReadWrite));
  git::SyncOptions o;
  o.path = args.path;
  o.remote_url = args.remote_url;
  o.forge = args.forge;
  o.branch_days = args.branch_days;
  Progress progress("sync git");
  o.progress = [&](const std::string& what, int64_t done, int64_t total) { progress.Update(done, total, what); };
  git::SyncReport r;
  Status s = git::Sync(*corpus, o, &r);
  progress.Done();
  const bool git_work = r.commits + r.commits_removed + r.files + r.branches > 0;
  Summary(s, git_work, "sync git %s%s: %lld commits (%lld pull requests landed, %lld removed by a force-push), %lld files as "
              "%lld windows (%lld skipped), %lld active branches as %lld windows\n",
              r.repo.c_str(), r.full ? " (whole history)" : "", static_cast<long long>(r.commits),
              static_cast<long long>(r.pull_requests), static_cast<long long>(r.commits_removed),
              static_cast<long long>(r.files),
              static_cast<long long>(r.windows), static_cast<long long>(r.skipped_files),
              static_cast<long long>(r.branches), static_cast<long long>(r.branch_windows));
  std::string why;
  auto reason = [&](int64_t n, const char* what) {
    if (n > 0) why += (why.empty() ? "" : ", ") + std::to_string(n) + " " + what;
  };
  // Every reason, with its count.
  reason(r.binary, "binary");
  reason(r.vendored, "vendored, lock or minified");
  reason(r.too_large, "too large");
  reason(r.generated, "generated");
  reason(r.not_files, "symbolic links or other non-files");
  reason(r.missing_objects, "not in this clone (partial or damaged; tried again next sync)");
  reason(r.lfs_pointers, "Git LFS pointers");
  reason(r.submodules, "submodules");
  if (!why.empty()) Summary(s, git_work, "  skipped files: %s\n", why.c_str());
  if (r.shallow) Summary(s, git_work, "  a shallow clone: the history starts at its grafted commits\n");
  if (r.commits + r.commits_removed + r.files + r.branches > 0) UMWELT_RETURN_IF_ERROR(RefreshIndex(*corpus));
  return s;
}

void AddIngestVerbs(const VerbContext& v) {
  struct Args {
    std::vector<std::string> import_paths;
    DiscordArgs discord_args;
    WandbArgs wandb_args;
    SyncGithubArgs sync_args;
    SyncGitArgs git_args;
    FetchArgs fetch_args;
  };
  auto args = std::make_shared<Args>();
  std::vector<std::string>& import_paths = args->import_paths;
  DiscordArgs& discord_args = args->discord_args;
  WandbArgs& wandb_args = args->wandb_args;
  SyncGithubArgs& sync_args = args->sync_args;
  SyncGitArgs& git_args = args->git_args;
  FetchArgs& fetch_args = args->fetch_args;
  auto* import = v.app.add_subcommand("import", "Import saved records from files");
  import->require_subcommand(1);
  auto* import_gh = import->add_subcommand(
      "github", "Import GitHub API JSON (`gh api --paginate` output, JSON Lines, or recordings)");
  import_gh->add_option("paths", import_paths, "Files to import")->required()->check(CLI::ExistingFile);

  auto* import_dc = import->add_subcommand(
      "discord", "Import DiscordChatExporter JSON exports or Discord API thread dumps");
  import_dc->add_option("paths", discord_args.paths, "Files to import")->required()->check(CLI::ExistingFile);
  import_dc->add_option("--repo", discord_args.repo, "OWNER/REPO that a bare #123 in a message refers to");

  auto* import_wb = import->add_subcommand("wandb", "Import W&B runs saved as GraphQL output or run objects");
  import_wb->add_option("paths", wandb_args.paths, "Files to import")->required()->check(CLI::ExistingFile);
  import_wb->add_option("--project", wandb_args.project, "ENTITY/PROJECT of runs that do not name theirs");
  import_wb->add_option("--repo", wandb_args.repo, "OWNER/REPO that a bare #123 in notes refers to");

  auto* sync = v.app.add_subcommand("sync", "Fetch what changed since the last sync");
  sync->require_subcommand(1);
  auto* sync_gh = sync->add_subcommand("github", "Sync OWNER/REPO from the GitHub API (GITHUB_TOKEN, else `gh auth token`)");
  sync_gh->add_option("repo", sync_args.repo, "OWNER/REPO")->required();
  sync_gh->add_option("--api-base", sync_args.api_base, "API base URL (GitHub Enterprise)")
      ->default_val("https://api.github.com");
  sync_gh->add_option("--max-retries", sync_args.max_retries, "Retries per request")->default_val(5);

  auto* sync_dc = sync->add_subcommand("discord", "Sync a guild with a bot token (DISCORD_TOKEN)");
  sync_dc->add_option("guild", discord_args.guild, "Guild (server) id")->required();
  sync_dc->add_option("--api-base", discord_args.api_base, "API base URL")->default_val("https://discord.com/api/v10");
  sync_dc->add_option("--repo", discord_args.repo, "OWNER/REPO that a bare #123 in a message refers to");
  sync_dc->add_option("--recheck-days", discord_args.recheck_days, "Re-read this many days for edits and deletions")
      ->default_val(3)->check(CLI::Range(0, 365));
  sync_dc->add_option("--archived-days", discord_args.archived_days, "Re-list threads archived this recently")
      ->default_val(30)->check(CLI::Range(0, 3650));
  sync_dc->add_flag("--follow", discord_args.follow,
                    "Then keep the gateway connection: messages, edits and deletions applied as they happen (until Ctrl-C)");

  auto* sync_wb = sync->add_subcommand("wandb", "Sync the runs of ENTITY/PROJECT (WANDB_API_KEY)");
  sync_wb->add_option("project", wandb_args.project, "ENTITY/PROJECT")->required();
  sync_wb->add_option("--api-base", wandb_args.api_base, "API base URL")->default_val("https://api.wandb.ai");
  sync_wb->add_option("--repo", wandb_args.repo, "OWNER/REPO that a bare #123 in notes refers to");

  auto* sync_git = sync->add_subcommand("git", "Mirror a local clone: commits, code on the default branch, active branches");
  sync_git->add_option("path", git_args.path, "A clone (working tree or bare)")->required()->check(CLI::ExistingDirectory);
  sync_git->add_option("--remote-url", git_args.remote_url, "The project's remote (default: origin): its forge's permalinks");
  sync_git->add_option("--forge", git_args.forge, "The remote's url shapes when its host does not say: github, gitlab, gitea or bitbucket")
      ->check(CLI::IsMember({"github", "gitlab", "gitea", "bitbucket"}));
  sync_git->add_option("--branch-days", git_args.branch_days, "Mirror branches with a commit this recent")
      ->default_val(30)->check(CLI::NonNegativeNumber);

  auto* fetch = v.app.add_subcommand("fetch", "Fetch web pages and PDFs into the corpus");
  fetch->add_option("urls", fetch_args.urls, "http(s) urls")->required();
  fetch->add_flag("--allow-private", fetch_args.allow_private, "Also fetch loopback, private and link-local addresses");
  fetch->add_option("--max-mb", fetch_args.max_mb, "Largest response, in MB")->default_val(50)->check(CLI::Range(1, 4096));
  fetch->add_option("--timeout", fetch_args.timeout, "Seconds per request")->default_val(60)->check(CLI::Range(1, 3600));
  fetch->add_option("--repo", fetch_args.repo, "OWNER/REPO that a bare #123 on a page refers to");
  import_gh->callback([v, args] {
    *v.run = [v, args]() -> Status {
      return CmdImportGithub(v.corpus, args->import_paths);
    };
  });
  import_dc->callback([v, args] {
    *v.run = [v, args]() -> Status {
      return CmdImportDiscord(v.corpus, args->discord_args);
    };
  });
  import_wb->callback([v, args] {
    *v.run = [v, args]() -> Status {
      return CmdImportWandb(v.corpus, args->wandb_args);
    };
  });
  sync_gh->callback([v, args] {
    *v.run = [v, args]() -> Status {
      return CmdSyncGithub(v.corpus, args->sync_args);
    };
  });
  sync_dc->callback([v, args] {
    *v.run = [v, args]() -> Status {
      return CmdSyncDiscord(v.corpus, args->discord_args);
    };
  });
  sync_wb->callback([v, args] {
    *v.run = [v, args]() -> Status {
      return CmdSyncWandb(v.corpus, args->wandb_args);
    };
  });
  sync_git->callback([v, args] {
    *v.run = [v, args]() -> Status {
      return CmdSyncGit(v.corpus, args->git_args);
    };
  });
  fetch->callback([v, args] {
    *v.run = [v, args]() -> Status {
      return CmdFetch(v.corpus, args->fetch_args);
    };
  });
}

}  // namespace umwelt::cli
