// umwelt/research.h — `umwelt ask`: research a question over the corpus and
// write a report in which every claim cites a permalink from the evidence.
//
// The pipeline: freshness (never syncs), orient (top keyword hits, weekly
// summaries, the project's own vocabulary), decompose into facets named after
// subsystems, fan out (hybrid search per facet, HyDE texts on the vector leg,
// concurrently; a code lane with main and branches apart), expand the best
// hits' threads to their end (close-outs win; superseded numbers are marked),
// gather evidence, synthesize Markdown (with an LLM, or extractively without
// one, and said so), verify failing closed (every cited url is evidence,
// every number in a cited sentence appears in what it cites; failures are
// removed and listed), and a provenance footer.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "umwelt/llm.h"
#include "umwelt/params.h"
#include "umwelt/publish.h"
#include "umwelt/status.h"
#include "umwelt/vector.h"

namespace umwelt {

class Searcher;

struct AskOptions {
  std::string corpus_path;            // each search opens its own read-only connection
  std::string question;
  ChatModel* llm = nullptr;           // null: extractive
  std::vector<SpaceConfig> embedders; // as for search
  // The indexes to search (a server's, shared with its searches); null: Ask
  // opens its own from corpus_path and embedders, once for every facet.
  Searcher* searcher = nullptr;
  int facets = 10;                    // asked of the LLM (8-12); extractive uses up to this many
  int k = 50;                         // hits per facet search
  int expand = 20;                    // threads read whole per facet
  int max_evidence = 80;              // chunks handed to synthesis
  int64_t now = 0;                    // epoch seconds; 0 = the clock
  // --fetch-linked: fetches web urls into the corpus (the caller's web
  // source); the evidence's linked pages then become evidence themselves.
  std::function<Status(const std::vector<std::string>& urls)> fetch_linked;
  int max_linked = 10;
  std::function<void(const std::string& stage, const std::string& detail)> progress;
};

// The longest question asked (background belongs in its first lines).
inline constexpr size_t kMaxQuestionBytes = 4000;
// ask's parameters every front door shares (umwelt/params.h): the question.
const ParamTable<AskOptions>& AskParams();

struct Evidence {
  std::string id;                     // "E12": how the prompt and the trace name it
  std::string url, ref, thread, source, kind, title, author, date, text;
  std::string thread_state;           // open, closed, merged, ... ("" unknown)
  std::string lane;                   // "", "main" or "branch" (code)
  std::string facet;                  // the facet that found it first
  std::string superseded_by;          // url of a later statement in the same thread
  bool closeout = false;              // the last word of a closed thread
  bool near = false;                  // a vector leg ranked it among the closest to the question's own words
  int reactions = 0;                  // reactions it drew, where its source keeps them
  double score = 0;
};

struct Facet {
  std::string name, query;
  std::vector<std::string> hyde, sources;
  bool code = false;
  int hits = 0;
  double ms = 0;
  bool from_record = false;  // planned without a model from a record's title (`name` is its aspect)
};

struct AskResult {
  std::string markdown;               // the verified report, with front matter and provenance
  bool extractive = true;
  bool found = false;                 // false: the corpus holds nothing on the question
  std::vector<Facet> facets;
  std::vector<Evidence> evidence;
  std::vector<std::string> removed;   // claims the verify step took out, and why
  std::vector<std::string> notes;     // freshness, skipped spaces, fallbacks
  LlmUsage usage;
  double seconds = 0;
  std::string trace_json;             // facets, searches, evidence, removals, LLM usage, timings
};

Result<AskResult> Ask(const AskOptions& options);

// Ask, then publish the report as a page: what the CLI's `ask --out`, the
// server's /api/ask jobs and MCP's ask share. A page that fails the citation
// check is an error (Corrupt) naming the first problem; `problems` holds them
// all when it passes with warnings.
struct PublishedAnswer {
  AskResult report;
  std::string html;
  std::vector<CheckProblem> problems;
};
Result<PublishedAnswer> AskAndPublish(const AskOptions& options);

// `umwelt eval answers`: each question of a file in the reference format
// (question, answerable, citations.must_have / nice_to_have / forbidden as
// "#N", facts.must_have[].match regexes, trap_checks.*.forbid_cite) asked and
// scored.
struct AnswerScore {
  std::string id;
  bool answerable = true;
  int must_have = 0, must_have_cited = 0;
  int must_have_retrieved = 0;  // must-haves among the evidence retrieval gathered
  int junk = 0;                 // quoted lines that are not statements (commands, file lists, …)
  int check_problems = 0;       // `publish --check --strict` errors and warnings
  int nice_to_have_cited = 0;
  int forbidden_cited = 0;
  int hallucinated = 0;    // links the corpus cannot resolve (must be zero)
  int facts = 0, facts_found = 0;
  bool abstained = false;  // said the corpus does not answer it
  int llm_calls = 0;
  int64_t input_tokens = 0, output_tokens = 0;
  double cost_usd = 0, seconds = 0;
  std::string error;       // the question could not be asked
};
// `base` supplies the corpus, the model and the search settings; its
// question is replaced by each file's.
Result<std::vector<AnswerScore>> EvalAnswers(const std::string& questions_path, const AskOptions& base);

// The method as agent instructions: SKILL.md (for agent hosts that read
// skills) and AGENTS.md (portable).
std::string SkillMarkdown();
std::string AgentsMarkdown();

}  // namespace umwelt
