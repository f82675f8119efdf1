// `serve` and `refresh`.
#include <malloc.h>

#include <cstdio>
#include <cstdlib>

#include <memory>

#include <sys/stat.h>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "umwelt/file.h"
#include "umwelt/llm.h"
#include "umwelt/redact.h"
#include "umwelt/server.h"
#include "umwelt/text.h"

namespace umwelt::cli {

Result<int64_t> ParseDuration(const std::string& s) {
  if (s.empty()) return int64_t{0};
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  std::string unit = end ? end : "";
  int64_t mult = unit == "s" || unit.empty() ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : unit == "d" ? 86400 : -1;
  if (end == s.c_str() || mult < 0 || !(v > 0)) {
    return Status::Invalid("not a duration: " + s + " (a number with s, m, h or d: 30m, 1h)");
  }
  int64_t seconds = static_cast<int64_t>(v * mult);
  if (seconds < 10) return Status::Invalid("--sync-every must be at least 10s");
  return seconds;
}

// A secret kept in a file: its one line, without the newline. The file must
// be the owner's alone: a secret others can read is no secret.
Result<std::string> ReadSecretFile(const std::string& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return Status::NotFound(file + ": cannot read the webhook secret");
  if (st.st_mode & (S_IRWXG | S_IRWXO)) {
    return Status::Invalid(file + ": the webhook secret is readable by others (chmod 600 it)");
  }
  if (st.st_size > 4096) return Status::Invalid(file + ": a webhook secret is one line, not " + std::to_string(st.st_size) + " bytes");
  UMWELT_ASSIGN_OR_RETURN(std::string secret, ReadWholeFile(file));
  while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r' || secret.back() == ' ')) secret.pop_back();
  if (secret.empty()) return Status::Invalid(file + ": the webhook secret is empty");
  if (secret.find_first_of("\n\r") != std::string::npos) return Status::Invalid(file + ": the webhook secret is more than one line");
  return secret;
}

Status CmdServe(const std::string& path, const ServeArgs& a) {
  ServeOptions o;
  o.corpus_path = path;
  o.bind = a.bind;
  o.port = a.port;
  o.threads = a.threads;
  o.max_connections_per_client = a.max_per_client;
  o.auth_file = a.auth;
  o.open_network = a.open_network;
  o.public_url = a.public_url;
  o.summaries_dir = a.summaries;
  o.reports_dir = a.reports;
  o.embedders = a.embedders;
  if (o.embedders.empty()) {
    if (const char* env = std::getenv("UMWELT_EMBEDDERS"); env && *env) o.embedders.push_back(env);
  }
  o.rerank = a.rerank;
  if (const char* env = std::getenv("UMWELT_RERANK"); o.rerank.empty() && env) o.rerank = env;
  UMWELT_ASSIGN_OR_RETURN(o.sync_every_seconds, ParseDuration(a.sync_every));
  if (o.sync_every_seconds > 0) o.sync = [path] { return RefreshSources(path); };
  o.sync_source = [path](const std::string& recorded, bool* changed) { return RefreshSource(path, recorded, changed); };
  if (!a.github_webhook_secret_file.empty()) {
    UMWELT_ASSIGN_OR_RETURN(o.github_webhook_secret, ReadSecretFile(a.github_webhook_secret_file));
    AddSecret(o.github_webhook_secret);  // never in a log line or an error
  }
  if (!a.discord_follow.empty()) {
    o.discord_follow = a.discord_follow;
    o.discord_api_base = a.discord_api_base;
    o.discord_allow_loopback = IsLoopbackApi(a.discord_api_base);
    if (const char* t = std::getenv("DISCORD_TOKEN"); t) o.discord_token = t;
    AddSecret(o.discord_token);
  }
  UMWELT_ASSIGN_OR_RETURN(std::unique_ptr<ChatModel> llm, OpenModel(a.llm, false));
  o.llm = llm.get();
  o.version = kVersion;
  if (!a.quiet) {
    o.log = [](const std::string& line) {
      std::string t = FormatIsoTime(NowEpoch());
      std::fprintf(stderr, "%s %s\n", t.c_str(), line.c_str());
    };
  }
  // Searches on many threads free what they built into per-thread arenas;
  // glibc handed each freed top back to the system (madvise, then page
  // faults on the next search): 6 % of a served search. Keep up to 16 MiB.
  mallopt(M_TRIM_THRESHOLD, 16 << 20);
  return Serve(o);
}

Status CmdRefresh(const std::string& path, const std::string& from, bool allow_private, int64_t max_bytes) {
  const char* token = std::getenv("UMWELT_TOKEN");
  RefreshLimits limits;
  limits.max_bytes = max_bytes;
  UMWELT_ASSIGN_OR_RETURN(RefreshReport r, RefreshFrom(from, path, token ? token : "", allow_private, limits));
  if (!r.updated) {
    std::printf("%s is up to date (sha256 %s)\n", path.c_str(), r.sha256.substr(0, 12).c_str());
  } else {
    std::printf("%s refreshed from %s: %lld bytes%s, sha256 %s verified\n", path.c_str(), from.c_str(),
                static_cast<long long>(r.bytes),
                r.resumed_from > 0 ? (", resumed at byte " + std::to_string(r.resumed_from)).c_str() : "",
                r.sha256.substr(0, 12).c_str());
  }
  return Status::Ok();
}

void AddServeVerbs(const VerbContext& v) {
  struct Args {
    ServeArgs sv;
    std::string refresh_from;
    bool refresh_private = false;
    int64_t refresh_max_bytes = RefreshLimits().max_bytes;
  };
  auto args = std::make_shared<Args>();
  ServeArgs& sv = args->sv;
  std::string& refresh_from = args->refresh_from;
  bool& refresh_private = args->refresh_private;
  auto* serve = v.app.add_subcommand("serve", "Serve the corpus: JSON API, web UI, summaries, snapshot downloads, auth, scheduled syncs");
  serve->add_option("--bind", sv.bind, "Address to listen on")->default_val("127.0.0.1");
  serve->add_option("--port", sv.port, "Port")->default_val(8080)->check(CLI::Range(0, 65535));
  serve->add_option("--threads", sv.threads, "Connections at once (each holds a thread); more are refused")->default_val(512)->check(CLI::Range(4, 16384));
  serve->add_option("--max-per-client", sv.max_per_client, "Connections at once from one client address or IPv6 /64 (behind a proxy: raise it)")->default_val(64)->check(CLI::Range(1, 16384));
  serve->add_option("--auth", sv.auth, "Auth file (JSON: org, allow, tokens, revoked, github_api)")->check(CLI::ExistingFile);
  serve->add_flag("--open-network", sv.open_network, "Serve a non-loopback address without auth");
  serve->add_option("--public-url", sv.public_url, "The origin users reach the server by (https://umwelt.example.org): its host is accepted in Host headers and Origin checks");
  serve->add_option("--summaries", sv.summaries, "The digest site folder to serve under /summaries/ (and write weekly)");
  serve->add_option("--reports", sv.reports, "A folder of published report pages to serve under /reports/");
  serve->add_option("--sync-every", sv.sync_every, "Sync the recorded sources this often (30m, 1h, 1d) and write each closed week's digest");
  serve->add_option("--llm", sv.llm, "Model for /api/ask and digests (else $UMWELT_LLM; none: extractive)");
  serve->add_option("--embedder", sv.embedders, "SPACE=PROVIDER (repeatable; else $UMWELT_EMBEDDERS)");
  serve->add_option("--github-webhook-secret-file", sv.github_webhook_secret_file,
                    "Accept GitHub webhook deliveries at POST /hooks/github, signed with the secret in this file (mode 600)")
      ->check(CLI::ExistingFile);
  serve->add_option("--discord-follow", sv.discord_follow,
                    "Follow this Discord guild's gateway (DISCORD_TOKEN): messages searchable as they are posted");
  serve->add_option("--discord-api-base", sv.discord_api_base, "Discord API base URL")
      ->default_val("https://discord.com/api/v10");
  serve->add_option("--rerank", sv.rerank, "Rerank searches' top hits: openai-compatible:<base-url>#<model> (else $UMWELT_RERANK)");
  auto* refresh = v.app.add_subcommand("refresh", "Download a served corpus snapshot: verified, resumable, swapped in atomically");
  refresh->add_option("--from", refresh_from, "The server's base url ($UMWELT_TOKEN is sent as a bearer token)")->required();
  refresh->add_flag("--allow-private", refresh_private, "The server may be on a private or loopback address");
  refresh->add_option("--max-bytes", args->refresh_max_bytes, "Refuse a snapshot larger than this (bytes, or 500MB, 40GB)")
      ->transform(CLI::AsSizeValue(false))
      ->default_str("32GB");
  serve->callback([v, args] {
    *v.run = [v, args]() -> Status {
      args->sv.quiet = v.quiet;
      return CmdServe(v.corpus, args->sv);
    };
  });
  refresh->callback([v, args] {
    *v.run = [v, args]() -> Status {
      return CmdRefresh(v.corpus, args->refresh_from, args->refresh_private, args->refresh_max_bytes);
    };
  });
}

}  // namespace umwelt::cli
