// Internal to cli/: the verbs. Each returns a Status; main() maps it to an
// exit code (0 ok, 1 failure, 2 usage) and prints the error, in one place.
#pragma once

#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "umwelt/corpus.h"
#include "umwelt/llm.h"
#include "umwelt/search.h"
#include "umwelt/searcher.h"
#include "umwelt/status.h"

namespace CLI {
class App;
}  // namespace CLI

namespace umwelt::cli {

// Progress of a step that can take more than a second, on stderr: on a
// terminal one line redrawn with the count, the rate and the time left (a
// bar when the total is known); elsewhere a plain line every 5 s; nothing
// with --quiet. Done() (or the destructor) clears the terminal line.
class Progress {
 public:
  explicit Progress(std::string what);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  void Update(int64_t done, int64_t total = 0, const std::string& detail = "");
  void Done();

 private:
  std::string what_;
  bool tty_, quiet_, drawn_ = false, done_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

// From here on every byte written to stdout passes TerminalSafe (umwelt/text.h):
// text from the corpus never reaches a terminal as an escape sequence.
void GuardStdout();
// The corpus path when --corpus and $UMWELT_CORPUS give none: the per-user
// data dir ($XDG_DATA_HOME/umwelt/corpus.db, else ~/.local/share/umwelt/).
std::string DefaultCorpusPath();

Result<std::unique_ptr<Corpus>> OpenCorpus(const std::string& path, Corpus::Mode mode);

// The chat model of `--llm` (else $UMWELT_LLM), or null when neither names
// one; `replay` without a model is a usage error.
Result<std::unique_ptr<ChatModel>> OpenModel(const std::string& flag, bool replay);

Status CmdInit(const std::string& corpus);
Status CmdImportGithub(const std::string& corpus, const std::vector<std::string>& paths);
struct SyncGithubArgs {
  std::string repo;
  std::string api_base;
  int max_retries = 5;
};
Status CmdSyncGithub(const std::string& corpus, const SyncGithubArgs& args);
struct SyncGitArgs {
  std::string path;
  std::string remote_url;
  std::string forge;
  int branch_days = 30;
};
struct DiscordArgs {
  std::vector<std::string> paths;  // import
  std::string guild;               // sync
  std::string api_base;
  std::string repo;
  int recheck_days = 3;
  int archived_days = 30;
  bool follow = false;             // sync, then keep the gateway connection
};
Status CmdImportDiscord(const std::string& corpus, const DiscordArgs& args);
Status CmdSyncDiscord(const std::string& corpus, const DiscordArgs& args);
struct WandbArgs {
  std::vector<std::string> paths;  // import
  std::string project;             // ENTITY/PROJECT
  std::string api_base;
  std::string repo;
};
Status CmdImportWandb(const std::string& corpus, const WandbArgs& args);
Status CmdSyncWandb(const std::string& corpus, const WandbArgs& args);
// `run ENTITY/PROJECT/RUN`: a run's state, config and final numbers.
Status CmdRun(const std::string& corpus, const std::string& run, bool json);
struct FetchArgs {
  std::vector<std::string> urls;
  bool allow_private = false;
  int max_mb = 50;
  int timeout = 60;
  std::string repo;
};
Status CmdFetch(const std::string& corpus, const FetchArgs& args);
struct AskArgs {
  std::string question;
  std::string llm;                 // else $UMWELT_LLM; "" = extractive
  bool replay = false;
  std::vector<std::string> embedders;
  std::string md, out, trace;      // files to write ("" = Markdown to stdout)
  int facets = 10;
  bool quiet = false;
  bool refresh = false;        // sync every recorded source first
  bool fetch_linked = false;   // fetch the web pages the evidence links
  bool allow_private = false;  // ... even on private addresses (tests)
};
// Syncs every source recorded in sync_state (GitHub, git, Discord, W&B),
// reporting each on stderr; a failing source is reported and skipped.
Status RefreshSources(const std::string& corpus);
// Syncs one recorded source ("git:owner/repo") from its cursor, as the
// scheduler's round does for all; *changed when anything stored changed.
Status RefreshSource(const std::string& corpus, const std::string& recorded, bool* changed);
Status CmdAsk(const std::string& corpus, const AskArgs& args);
Status CmdEvalAnswers(const std::string& corpus, const std::string& questions, const AskArgs& args, bool json);
// `skills print|install [DIR]`: the research method as agent instructions;
// install writes SKILL.md, AGENTS.md and the
// MCP configuration of Claude Code, Cursor and VS Code (merged into files
// that exist) for `corpus`.
Status CmdSkills(const std::string& action, const std::string& dir, const std::string& corpus);
Status CmdSyncGit(const std::string& corpus, const SyncGitArgs& args);
// The flags of `search` and `search-multi`: the library's SearchRequest, and
// how to print and which embedders to load.
struct SearchArgs : SearchRequest {
  bool json = false;
  std::vector<std::string> embedders;
  std::string rerank;  // openai-compatible:<base-url>#<model>; else $UMWELT_RERANK
};
Status CmdSearch(const std::string& corpus, const SearchArgs& args);
Status CmdSearchMulti(const std::string& corpus, const std::vector<std::string>& queries, const SearchArgs& args,
                      int total);
struct IndexArgs {
  std::vector<std::string> embedders;
  bool retrain = false;
  std::string builtin = "lsa";  // the builtin model's kind: lsa or fasttext
  int dim = 100;
  int epochs = 5;
};
Status CmdIndex(const std::string& corpus, const IndexArgs& args);
struct EvalArgs {
  std::string collection;  // cranfield, cisi
  std::string data;        // the folder holding cranfield/ and cisi/
  std::string questions;   // question files instead of a collection
  std::vector<std::string> embedders;
  std::string run;         // TREC run file to write
  std::string work;        // keep the evaluation corpus here
  double vec_weight = kDefaultVectorWeight;
  int epochs = 10;
  int dim = 100;
  std::string builtin = "lsa";
  bool json = false;
  std::string half = "all";  // all, tune (odd-numbered queries), held-out (even-numbered)
  std::string bm25;          // keyword tuning (ParseKeywordTuning)
  bool keyword_only = false; // FTS5 and keyword only: no vector space to train
  std::string fusion = "scores";
  std::string group;         // "thread": question recall over threads
};
Status CmdEvalRetrieval(const std::string& corpus, const EvalArgs& args);
struct ShowArgs : ShowRequest {  // the parameters (ShowParams), and the CLI's own
  bool json = false;
};
Status CmdShow(const std::string& corpus, const ShowArgs& args);
struct DigestArgs {
  // What to summarize (DigestParams), by parameter name, as given.
  std::shared_ptr<std::map<std::string, std::vector<std::string>>> texts =
      std::make_shared<std::map<std::string, std::vector<std::string>>>();
  std::string out = "summaries";
  std::string llm;                   // else $UMWELT_LLM; "" = extractive
  bool replay = false;
  std::string site_url;
  bool no_store = false;
  std::string post;                  // discord or slack
  bool quiet = false;
  std::string trace;                 // write the evidence packs here (JSON)
};
Status CmdDigest(const std::string& corpus, const DigestArgs& args);
// Writes `text` to `path` (replacing it), or fails naming the path.
Status WriteText(const std::string& path, const std::string& text);
struct ServeArgs {
  std::string bind = "127.0.0.1";
  int port = 8080;
  int threads = 512;
  int max_per_client = 64;
  std::string auth;
  bool open_network = false;
  std::string public_url;
  std::string summaries, reports;
  std::string sync_every;
  std::string llm;
  std::string rerank;
  std::vector<std::string> embedders;
  std::string github_webhook_secret_file;
  std::string discord_follow;  // guild id
  std::string discord_api_base;
  bool quiet = false;
};
Result<int64_t> ParseDuration(const std::string& s);
Status CmdServe(const std::string& corpus, const ServeArgs& args);
struct McpArgs {
  std::string llm;
  bool extractive = false;
  std::vector<std::string> embedders;
};
Status CmdMcp(const std::string& corpus, const McpArgs& args);
// What a verb's registration needs: the app to add its subcommand to, the
// corpus path and the global -q flag (both read when the verb runs), and
// where to leave the verb's run when it is the one given.
struct VerbContext {
  CLI::App& app;
  const std::string& corpus;
  const bool& quiet;
  std::function<Status()>* run;
};
// Each cmd_<verb>.cc registers its own subcommands, flags and help.
void AddInitVerb(const VerbContext& v);                      // init
void AddIngestVerbs(const VerbContext& v);                   // import …, sync …, fetch
void AddSearchVerbs(const VerbContext& v);                   // search, search-multi, index
void AddShowVerb(const VerbContext& v);                      // show
void AddRunVerb(const VerbContext& v);                       // run
void AddAskVerbs(const VerbContext& v, CLI::App& eval);      // ask, skills, eval answers
void AddStatusVerb(const VerbContext& v);                    // status
void AddPublishVerb(const VerbContext& v);                   // publish
void AddEvalRetrievalVerb(const VerbContext& v, CLI::App& eval);  // eval retrieval
void AddDigestVerbs(const VerbContext& v, CLI::App& eval);   // digest, summaries, eval digest
void AddServeVerbs(const VerbContext& v);                    // serve, refresh
void AddMcp(const VerbContext& v);                           // mcp
// "0.1.0"; `umwelt --version` prints it with the build's commit and SQLite's version.
extern const char* const kVersion;
std::string VersionText();
// `refresh --from URL`: the served snapshot, verified and swapped in.
Status CmdRefresh(const std::string& corpus, const std::string& from, bool allow_private, int64_t max_bytes);
// `summaries list|show|links [PERIOD]`.
Status CmdSummaries(const std::string& corpus, const std::string& action, const std::string& period, bool json);
// `eval digest`: the checks on each period's digest, and the reference tiers' shape.
Status CmdEvalDigest(const std::string& path, const DigestArgs& a, const std::string& reference,
                     const std::string& expect, bool as_json);
Status CmdStatus(const std::string& corpus, bool json);
struct PublishArgs {
  std::string input;
  std::string out;
  std::string title, author, system, question, date;
  bool check_only = false;
  bool strict = false;
  bool no_corpus = false;
  bool no_math = false;
  bool gist = false;
  bool allow_remote = false;
};
Status CmdPublish(const std::string& corpus, const PublishArgs& args);

// After a write: rebuilds the keyword index so the next search starts warm,
// and a builtin space whose model file is missing (trained again, embedded).
Status RefreshIndex(Corpus& corpus);
// Whether an API base URL is http(s) on a loopback address: a test's
// server, whose gateway may then be ws:// on loopback too.
bool IsLoopbackApi(const std::string& base);
// A search's notes on stderr; one about a missing side file only the first
// time this corpus gives it.
void PrintNotes(const std::string& corpus_path, const std::vector<std::string>& notes);

}  // namespace umwelt::cli
