// The `umwelt` command. Exit codes: 0 success, 1 failure, 2 usage error.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <functional>

#include "cli.h"
#include "umwelt/log.h"
#include "umwelt/redact.h"
#include "umwelt/text.h"

namespace {

int ExitCode(const umwelt::Status& s) {
  if (s.ok()) return 0;
  std::fprintf(stderr, "umwelt: error: %s\n", umwelt::TerminalSafe(umwelt::RedactSecrets(s.message())).c_str());
  return s.code() == umwelt::Code::kInvalidArgument ? 2 : 1;
}

}  // namespace

static int RunCli(int argc, char** argv) {
  using namespace umwelt;
  CLI::App app{"umwelt — a searchable, citable memory of an open-source project"};
  app.require_subcommand(1);
  app.footer("Exit codes: 0 success, 1 failure, 2 usage error.\n"
             "The corpus is --corpus, else $UMWELT_CORPUS, else " + cli::DefaultCorpusPath() + ".");
  std::string corpus = cli::DefaultCorpusPath();
  app.add_option("--corpus", corpus, "Corpus file (SQLite)");
  bool verbose = false, quiet = false;
  app.add_flag("-v,--verbose", verbose, "Log progress to stderr");
  app.add_flag("-q,--quiet", quiet, "Log only errors");

  auto* init = app.add_subcommand("init", "Create an empty corpus (or migrate an old one)");

  auto* import = app.add_subcommand("import", "Import saved records from files");
  import->require_subcommand(1);
  std::vector<std::string> import_paths;
  auto* import_gh = import->add_subcommand(
      "github", "Import GitHub API JSON (`gh api --paginate` output, JSON Lines, or recordings)");
  import_gh->add_option("paths", import_paths, "Files to import")->required()->check(CLI::ExistingFile);

  cli::DiscordArgs discord_args;
  auto* import_dc = import->add_subcommand(
      "discord", "Import DiscordChatExporter JSON exports or Discord API thread dumps");
  import_dc->add_option("paths", discord_args.paths, "Files to import")->required()->check(CLI::ExistingFile);
  import_dc->add_option("--repo", discord_args.repo, "OWNER/REPO that a bare #123 in a message refers to");

  cli::WandbArgs wandb_args;
  auto* import_wb = import->add_subcommand("wandb", "Import W&B runs saved as GraphQL output or run objects");
  import_wb->add_option("paths", wandb_args.paths, "Files to import")->required()->check(CLI::ExistingFile);
  import_wb->add_option("--project", wandb_args.project, "ENTITY/PROJECT of runs that do not name theirs");
  import_wb->add_option("--repo", wandb_args.repo, "OWNER/REPO that a bare #123 in notes refers to");

  auto* sync = app.add_subcommand("sync", "Fetch what changed since the last sync");
  sync->require_subcommand(1);
  cli::SyncGithubArgs sync_args;
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

  auto* sync_wb = sync->add_subcommand("wandb", "Sync the runs of ENTITY/PROJECT (WANDB_API_KEY)");
  sync_wb->add_option("project", wandb_args.project, "ENTITY/PROJECT")->required();
  sync_wb->add_option("--api-base", wandb_args.api_base, "API base URL")->default_val("https://api.wandb.ai");
  sync_wb->add_option("--repo", wandb_args.repo, "OWNER/REPO that a bare #123 in notes refers to");

  cli::SyncGitArgs git_args;
  auto* sync_git = sync->add_subcommand("git", "Mirror a local clone: commits, code on the default branch, active branches");
  sync_git->add_option("path", git_args.path, "A clone (working tree or bare)")->required()->check(CLI::ExistingDirectory);
  sync_git->add_option("--remote-url", git_args.remote_url, "The project's remote (default: origin): its forge's permalinks");
  sync_git->add_option("--forge", git_args.forge, "The remote's url shapes when its host does not say: github, gitlab, gitea or bitbucket")
      ->check(CLI::IsMember({"github", "gitlab", "gitea", "bitbucket"}));
  sync_git->add_option("--branch-days", git_args.branch_days, "Mirror branches with a commit this recent")
      ->default_val(30)->check(CLI::NonNegativeNumber);

  cli::FetchArgs fetch_args;
  auto* fetch = app.add_subcommand("fetch", "Fetch web pages and PDFs into the corpus");
  fetch->add_option("urls", fetch_args.urls, "http(s) urls")->required();
  fetch->add_flag("--allow-private", fetch_args.allow_private, "Also fetch loopback, private and link-local addresses");
  fetch->add_option("--max-mb", fetch_args.max_mb, "Largest response, in MB")->default_val(50)->check(CLI::Range(1, 4096));
  fetch->add_option("--timeout", fetch_args.timeout, "Seconds per request")->default_val(60)->check(CLI::Range(1, 3600));
  fetch->add_option("--repo", fetch_args.repo, "OWNER/REPO that a bare #123 on a page refers to");

  auto* search = app.add_subcommand("search", "Search: keyword, fused with vectors when the corpus has them");
  cli::SearchArgs sa;
  std::string source_list, kind_list;
  auto add_search_flags = [&](CLI::App* cmd) {
    cmd->add_option("-k", sa.search.k, "Hits to return")->default_val(50)->check(CLI::PositiveNumber);
    cmd->add_option("--source", source_list, "Only these sources (comma-separated)");
    cmd->add_option("--kind", kind_list, "Only these kinds (comma-separated)");
    cmd->add_option("--since", sa.search.since, "Only chunks dated on or after (ISO date)");
    cmd->add_option("--until", sa.search.until, "Only chunks dated on or before (ISO date)");
    cmd->add_option("--author", sa.search.author, "Only chunks by this author");
    cmd->add_flag("--fts-only", sa.fts_only, "Keyword leg only");
    cmd->add_flag("--vec-only", sa.vec_only, "Vector legs only");
    cmd->add_option("--vec-text", sa.vec_texts, "Hypothetical answer text for the vector leg (repeatable)");
    cmd->add_option("--embedder", sa.embedders, "SPACE=PROVIDER (repeatable; else $UMWELT_EMBEDDERS)");
    cmd->add_option("--vec-weight", sa.vec_weight, "Fusion weight of each vector leg (keyword: 1)")->default_val(0.5);
    cmd->add_flag("--json", sa.json, "Emit JSON");
  };
  search->add_option("query", sa.search.query, "What to look for")->required();
  add_search_flags(search);
  auto* multi = app.add_subcommand("search-multi", "Several queries at once, merged and de-duplicated");
  std::vector<std::string> multi_queries;
  int multi_total = 60;
  multi->add_option("queries", multi_queries, "The sub-queries")->required();
  multi->add_option("--total", multi_total, "Hits to return in all")->default_val(60)->check(CLI::PositiveNumber);
  add_search_flags(multi);

  auto* index = app.add_subcommand("index", "Embed new and changed chunks into the vector spaces");
  cli::IndexArgs ia;
  index->add_option("--embedder", ia.embedders, "SPACE=PROVIDER (default prose=builtin, or $UMWELT_EMBEDDERS)");
  index->add_flag("--retrain", ia.retrain, "Train the builtin model again (re-embeds its space)");
  index->add_option("--dim", ia.dim, "Builtin model dimension")->default_val(100)->check(CLI::Range(8, 1024));
  index->add_option("--epochs", ia.epochs, "Builtin training epochs")->default_val(5)->check(CLI::Range(1, 100));

  auto* show = app.add_subcommand("show", "Show a thread whole, by url or ref");
  cli::ShowArgs show_args;
  show->add_option("target", show_args.target, "A permalink or ref (owner/repo#123)")->required();
  show->add_option("--tail", show_args.tail, "Only the last N chunks (the close-out)")
      ->check(CLI::NonNegativeNumber);
  show->add_flag("--toc", show_args.toc, "One line per chunk");
  show->add_option("--around", show_args.around, "A chat message: messages either side (-1: the whole channel)")
      ->default_val(10)->check(CLI::Range(-1, 1000));
  show->add_flag("--json", show_args.json, "Emit JSON");

  auto* run_cmd = app.add_subcommand("run", "A W&B run's state, config and final numbers");
  std::string run_name;
  bool run_json = false;
  run_cmd->add_option("run", run_name, "ENTITY/PROJECT/RUN, or the run's url")->required();
  run_cmd->add_flag("--json", run_json, "Emit JSON");

  auto* ask = app.add_subcommand("ask", "Research a question over the corpus: a report where every claim cites a permalink");
  cli::AskArgs ask_args;
  ask->add_option("question", ask_args.question, "The question")->required();
  ask->add_option("--llm", ask_args.llm, "openai:<base-url>#<model> or anthropic:<model> (else $UMWELT_LLM; none: extractive)");
  ask->add_flag("--replay", ask_args.replay, "Answer only from the LLM cache; a miss is an error");
  ask->add_option("--embedder", ask_args.embedders, "SPACE=PROVIDER (repeatable; else $UMWELT_EMBEDDERS)");
  ask->add_option("--md", ask_args.md, "Write the Markdown here (default: stdout)");
  ask->add_option("--out,-o", ask_args.out, "Also publish the report as an HTML page here");
  ask->add_option("--trace", ask_args.trace, "Write the trace (facets, searches, evidence, LLM calls) as JSON here");
  ask->add_option("--facets", ask_args.facets, "Facets to research")->default_val(10)->check(CLI::Range(2, 20));
  ask->add_flag("--refresh", ask_args.refresh, "Sync every recorded source before asking");
  ask->add_flag("--fetch-linked", ask_args.fetch_linked, "Fetch the web pages the evidence links, and cite them");
  ask->add_flag("--allow-private", ask_args.allow_private, "--fetch-linked may fetch private addresses");

  auto* skills = app.add_subcommand("skills", "The research method as agent instructions (SKILL.md, AGENTS.md) and MCP client configuration");
  std::string skills_action, skills_dir = ".";
  skills->add_option("action", skills_action, "print or install")->required()->check(CLI::IsMember({"print", "install"}));
  skills->add_option("dir", skills_dir, "install: where to write SKILL.md, AGENTS.md and the MCP configuration (.mcp.json, .cursor/, .vscode/)")->default_val(".");

  auto* status = app.add_subcommand("status", "Counts, sync health and age of the corpus");
  bool status_json = false;
  status->add_flag("--json", status_json, "Emit JSON");

  auto* publish = app.add_subcommand("publish", "Render a cited Markdown report as a self-contained HTML page");
  cli::PublishArgs pub;
  publish->add_option("report", pub.input, "The Markdown report")->required()->check(CLI::ExistingFile);
  publish->add_option("--out,-o", pub.out, "The page to write (default: REPORT.html)");
  publish->add_option("--title", pub.title, "Title (else front matter, else the leading # heading)");
  publish->add_option("--author", pub.author, "Who posed the question");
  publish->add_option("--system", pub.system, "Who answered (default umwelt)");
  publish->add_option("--question", pub.question, "The question, shown in the prompt box");
  publish->add_option("--date", pub.date, "Publish date, YYYY-MM-DD (default today)");
  publish->add_flag("--check", pub.check_only, "Only check citations; write nothing");
  publish->add_flag("--strict", pub.strict, "Warnings fail too");
  publish->add_flag("--no-corpus", pub.no_corpus, "No corpus: no hover cards, corpus links are errors");
  publish->add_flag("--no-math", pub.no_math, "Leave $math$ as code");
  publish->add_flag("--gist", pub.gist, "Upload the page as a secret gist with `gh`");

  auto* eval = app.add_subcommand("eval", "Measure quality");
  eval->require_subcommand(1);
  auto* eval_retrieval = eval->add_subcommand("retrieval", "Ranking quality on a test collection, or citation recall on question files");
  cli::EvalArgs ea;
  eval_retrieval->add_option("--collection", ea.collection, "cranfield or cisi");
  eval_retrieval->add_option("--data", ea.data, "Folder holding cranfield/ and cisi/ (default ../shared/data)");
  eval_retrieval->add_option("--questions", ea.questions, "Question files (a folder or one file) instead of a collection");
  eval_retrieval->add_option("--embedder", ea.embedders, "SPACE=PROVIDER for --questions");
  eval_retrieval->add_option("--run", ea.run, "Also write the rankings in TREC run format");
  eval_retrieval->add_option("--work", ea.work, "Keep the evaluation corpus in this folder");
  eval_retrieval->add_option("--vec-weight", ea.vec_weight, "Fusion weight of the vector leg")->default_val(0.5);
  eval_retrieval->add_option("--epochs", ea.epochs, "Builtin training epochs")->default_val(10);
  eval_retrieval->add_flag("--json", ea.json, "Emit JSON");
  auto* eval_answers = eval->add_subcommand("answers", "Ask each question of reference-format files and score the reports");
  cli::AskArgs eval_ask;
  std::string answers_path;
  bool answers_json = false;
  eval_answers->add_option("--questions", answers_path, "Question files (a folder or one file)")->required();
  eval_answers->add_option("--llm", eval_ask.llm, "openai:<base-url>#<model> or anthropic:<model> (else $UMWELT_LLM)");
  eval_answers->add_flag("--replay", eval_ask.replay, "Answer only from the LLM cache");
  eval_answers->add_option("--embedder", eval_ask.embedders, "SPACE=PROVIDER (repeatable)");
  eval_answers->add_flag("--json", answers_json, "Emit JSON");

  auto* digest = app.add_subcommand("digest", "Summarize a week (or period) by workstream in three tiers; publish it as a site");
  cli::DigestArgs dg;
  auto digest_options = [&](CLI::App* cmd, cli::DigestArgs& a) {
    cmd->add_option("--week", a.week, "A day of the week to summarize, YYYY-MM-DD (default: the last complete week)");
    cmd->add_option("--weeks", a.weeks, "Summarize this many weeks, ending with --week")->default_val(1);
    cmd->add_option("--from", a.from, "Start of a custom period, YYYY-MM-DD");
    cmd->add_option("--to", a.to, "End of a custom period, YYYY-MM-DD (inclusive)");
    cmd->add_option("--llm", a.llm, "openai:<base-url>#<model> or anthropic:<model> (else $UMWELT_LLM; none: extractive)");
    cmd->add_flag("--replay", a.replay, "Write only from the LLM cache; a miss is an error");
    cmd->add_option("--project", a.project, "The name in titles (default: the main repository)");
    cmd->add_option("--epic-label", a.epic_labels, "Labels that mark epics (repeatable; default epic)");
    cmd->add_option("--member", a.members, "Logins counted as the project's own (repeatable)");
    cmd->add_option("--introductions", a.intro_channel, "The Discord channel of introductions (default introductions)")
        ->each([&a](const std::string&) { a.intro_channel_set = true; });
  };
  digest_options(digest, dg);
  digest->add_option("--tiers", dg.tiers, "Tiers to print: xs,s,m (all are written beside the page)")->default_val("xs,s,m");
  digest->add_option("--out,-o", dg.out, "The site folder")->default_val("summaries");
  digest->add_option("--site-url", dg.site_url, "Where the site is served (absolute links in the feed and corpus)");
  digest->add_flag("--no-store", dg.no_store, "Do not feed the sections back into the corpus");
  digest->add_option("--trace", dg.trace, "Write each section's evidence pack and landed list as JSON to this file");
  digest->add_option("--post", dg.post, "Post XS, then S and M, to a webhook: discord ($UMWELT_DISCORD_WEBHOOK) or slack ($UMWELT_SLACK_WEBHOOK)");

  auto* summaries = app.add_subcommand("summaries", "Stored weekly summaries: list, show PERIOD|latest, links PERIOD");
  std::string sum_action, sum_period;
  bool sum_json = false;
  summaries->add_option("action", sum_action, "list, show or links")->required()->check(CLI::IsMember({"list", "show", "links"}));
  summaries->add_option("period", sum_period, "YYYY-MM-DD_YYYY-MM-DD, a day in it, or latest");
  summaries->add_flag("--json", sum_json, "Emit JSON");

  auto* eval_digest = eval->add_subcommand("digest", "Check digests: links, coverage of notable events, tier rules; compare with reference tiers");
  cli::DigestArgs eval_dg;
  std::string eval_ref;
  bool eval_dg_json = false;
  digest_options(eval_digest, eval_dg);
  eval_digest->add_option("--reference", eval_ref, "A folder of reference weeks (xs.md, s.md, m.md) to compare shapes with");
  std::string eval_expect;
  eval_digest->add_option("--expect", eval_expect, "A JSON file of the PRs each week must show: {\"YYYY-MM-DD\": [\"#N\", ...]}");
  eval_digest->add_flag("--json", eval_dg_json, "Emit JSON");

  auto* serve = app.add_subcommand("serve", "Serve the corpus: JSON API, web UI, summaries, snapshot downloads, auth, scheduled syncs");
  cli::ServeArgs sv;
  serve->add_option("--bind", sv.bind, "Address to listen on")->default_val("127.0.0.1");
  serve->add_option("--port", sv.port, "Port")->default_val(8080)->check(CLI::Range(0, 65535));
  serve->add_option("--threads", sv.threads, "Connections at once (each holds a thread); more are refused")->default_val(512)->check(CLI::Range(4, 16384));
  serve->add_option("--max-per-client", sv.max_per_client, "Connections at once from one client address (behind a proxy: raise it)")->default_val(256)->check(CLI::Range(1, 16384));
  serve->add_option("--auth", sv.auth, "Auth file (JSON: org, allow, tokens, revoked, github_api)")->check(CLI::ExistingFile);
  serve->add_flag("--open-network", sv.open_network, "Serve a non-loopback address without auth");
  serve->add_option("--public-url", sv.public_url, "The origin users reach the server by (https://umwelt.example.org): its host is accepted in Host headers and Origin checks");
  serve->add_option("--summaries", sv.summaries, "The digest site folder to serve under /summaries/ (and write weekly)");
  serve->add_option("--reports", sv.reports, "A folder of published report pages to serve under /reports/");
  serve->add_option("--sync-every", sv.sync_every, "Sync the recorded sources this often (30m, 1h, 1d) and write each closed week's digest");
  serve->add_option("--llm", sv.llm, "Model for /api/ask and digests (else $UMWELT_LLM; none: extractive)");
  serve->add_option("--embedder", sv.embedders, "SPACE=PROVIDER (repeatable; else $UMWELT_EMBEDDERS)");

  auto* refresh = app.add_subcommand("refresh", "Download a served corpus snapshot: verified, resumable, swapped in atomically");
  std::string refresh_from;
  bool refresh_private = false;
  refresh->add_option("--from", refresh_from, "The server's base url ($UMWELT_TOKEN is sent as a bearer token)")->required();
  refresh->add_flag("--allow-private", refresh_private, "The server may be on a private or loopback address");

  // Verbs that register themselves set `run` when given.
  std::function<Status()> run;
  cli::AddMcp(app, corpus, &run);
  app.set_version_flag("--version", cli::VersionText(), "Print the version, the build's commit and SQLite's version");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);     // prints help or the usage error
    return code == 0 ? 0 : 2;   // documented: 2 for every usage error
  }
  SetLogLevel(quiet ? LogLevel::kError : verbose ? LogLevel::kInfo : LogLevel::kWarn);
  cli::GuardStdout();



  Status s;
  if (run) {
    s = run();
  } else if (*init) {
    s = cli::CmdInit(corpus);
  } else if (*import_gh) {
    s = cli::CmdImportGithub(corpus, import_paths);
  } else if (*sync_gh) {
    s = cli::CmdSyncGithub(corpus, sync_args);
  } else if (*import_dc) {
    s = cli::CmdImportDiscord(corpus, discord_args);
  } else if (*sync_dc) {
    s = cli::CmdSyncDiscord(corpus, discord_args);
  } else if (*import_wb) {
    s = cli::CmdImportWandb(corpus, wandb_args);
  } else if (*sync_wb) {
    s = cli::CmdSyncWandb(corpus, wandb_args);
  } else if (*run_cmd) {
    s = cli::CmdRun(corpus, run_name, run_json);
  } else if (*fetch) {
    s = cli::CmdFetch(corpus, fetch_args);
  } else if (*ask) {
    ask_args.quiet = quiet;
    s = cli::CmdAsk(corpus, ask_args);
  } else if (*skills) {
    s = cli::CmdSkills(skills_action, skills_dir, corpus);
  } else if (*sync_git) {
    s = cli::CmdSyncGit(corpus, git_args);
  } else if (*search || *multi) {
    sa.search.sources = SplitList(source_list);
    sa.search.kinds = SplitList(kind_list);
    if (sa.fts_only && sa.vec_only) {
      s = Status::Invalid("--fts-only and --vec-only exclude each other");
    } else if (*search) {
      s = cli::CmdSearch(corpus, sa);
    } else {
      s = cli::CmdSearchMulti(corpus, multi_queries, sa, multi_total);
    }
  } else if (*serve) {
    sv.quiet = quiet;
    s = cli::CmdServe(corpus, sv);
  } else if (*refresh) {
    s = cli::CmdRefresh(corpus, refresh_from, refresh_private);
  } else if (*digest) {
    dg.quiet = quiet;
    s = cli::CmdDigest(corpus, dg);
  } else if (*summaries) {
    s = cli::CmdSummaries(corpus, sum_action, sum_period, sum_json);
  } else if (*eval_digest) {
    s = cli::CmdEvalDigest(corpus, eval_dg, eval_ref, eval_expect, eval_dg_json);
  } else if (*eval_answers) {
    s = cli::CmdEvalAnswers(corpus, answers_path, eval_ask, answers_json);
  } else if (*eval_retrieval) {
    if (ea.collection.empty() == ea.questions.empty()) {
      s = Status::Invalid("eval retrieval needs exactly one of --collection and --questions");
    } else {
      s = cli::CmdEvalRetrieval(corpus, ea);
    }
  } else if (*index) {
    s = cli::CmdIndex(corpus, ia);
  } else if (*show) {
    s = cli::CmdShow(corpus, show_args);
  } else if (*status) {
    s = cli::CmdStatus(corpus, status_json);
  } else if (*publish) {
    s = cli::CmdPublish(corpus, pub);
  }
  return ExitCode(s);
}

// The last resort: an exception that escaped a verb (a bug: readers of
// outside input answer with a Status) ends the process with one line and
// exit code 1, never an abort.
int main(int argc, char** argv) {
  try {
    return RunCli(argc, argv);
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "umwelt: error: internal error: %s\n",
                 umwelt::TerminalSafe(umwelt::RedactSecrets(e.what())).c_str());
  } catch (...) {
    std::fflush(stdout);
    std::fprintf(stderr, "umwelt: error: internal error (an unknown exception)\n");
  }
  return 1;
}
