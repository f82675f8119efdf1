// `umwelt eval answers`: ask each question of a reference-format file and
// score the report's citations and facts.

#include <nlohmann/json.hpp>
#include <set>

#include "umwelt/pattern.h"
#include "umwelt/claims.h"
#include "umwelt/eval.h"
#include "umwelt/publish.h"
#include "umwelt/research.h"
#include "umwelt/text.h"

namespace umwelt {
namespace {

// What a url cites: "#N" of the issue or PR it is, or is in (a commit that
// landed a PR, a comment); for a thread with no number (a Discord thread),
// its whole ref ("discord:GUILD/THREAD"); and for a commit, also the commit
// as CommitCitation names it, so a question that asks for the commit itself
// is answered by citing it even where its subject's "(#N)" made it a PR's.
// Nothing for a url the corpus does not hold.
void AddCitationsOf(Corpus& corpus, const std::string& url, std::set<std::string>* out) {
  std::string ref = ThreadRefFromUrl(url), commit;
  if (ref.find('#') == std::string::npos) {
    auto c = corpus.ChunkByUrl(url);
    if (c.ok() && *c) {
      ref = (*c)->parent;
      if ((*c)->kind == "commit") commit = CitationOfThread((*c)->ref);  // ".../commit/SHA"
    }
  }
  if (std::string n = CitationOfThread(ref); !n.empty()) out->insert(n);
  if (commit.starts_with("commit:")) out->insert(commit);
}

// Every citation of every link in the report to a thread or into one.
std::set<std::string> CitedNumbers(Corpus& corpus, const std::string& md) {
  std::set<std::string> out;
  // A mirrored local repository's permalinks are git+file:// ones.
  static const Pattern link(R"(\]\(((?:https?|git\+file)://[^)\s]+)\))");
  link.ForEach(md, [&](const Groups& g) {
    AddCitationsOf(corpus, std::string(g[1]), &out);
    return true;
  });
  return out;
}

}  // namespace

Result<std::vector<AnswerScore>> EvalAnswers(const std::string& path, const AskOptions& base) {
  UMWELT_ASSIGN_OR_RETURN(std::vector<EvalQuestion> questions, LoadQuestions(path));
  UMWELT_ASSIGN_OR_RETURN(auto corpus, Corpus::Open(base.corpus_path, Corpus::Mode::kReadOnly));
  std::vector<AnswerScore> out;
  for (const auto& q : questions) {
    AnswerScore s;
    s.id = q.id;
    s.answerable = q.answerable;
    const auto& must = q.must_cite;
    const auto& nice = q.nice_cite;
    const auto& forbidden = q.forbid_cite;
    std::vector<std::unique_ptr<Pattern>> facts;
    for (const auto& match : q.facts) {
      auto re = Pattern::Valid(match, Pattern::kIgnoreCase, nullptr);
      // Not a regular expression RE2 reads: the text itself.
      facts.push_back(re ? std::move(re) : Pattern::Valid(Pattern::Quote(match), Pattern::kIgnoreCase, nullptr));
    }
    s.must_have = static_cast<int>(must.size());
    s.facts = static_cast<int>(facts.size());
    AskOptions o = base;
    o.question = q.question;
    auto r = Ask(o);
    if (!r.ok()) {
      s.error = r.status().message();
      out.push_back(s);
      continue;
    }
    auto cited = CitedNumbers(*corpus, r->markdown);
    nlohmann::json trace = nlohmann::json::parse(r->trace_json, nullptr, false);
    std::set<std::string> retrieved;
    if (trace.is_object() && trace["evidence"].is_array()) {
      for (const auto& e : trace["evidence"]) {
        if (e.is_object() && e["url"].is_string()) {
          AddCitationsOf(*corpus, e["url"].get<std::string>(), &retrieved);
        }
      }
    }
    for (const auto& n : must) s.must_have_retrieved += static_cast<int>(retrieved.count(n));
    s.junk = research::CountJunkQuotes(r->markdown);
    s.check_problems = static_cast<int>(CheckCitations(r->markdown, corpus.get()).size());
    for (const auto& n : cited) {
      s.must_have_cited += must.count(n);
      s.nice_to_have_cited += nice.count(n);
      s.forbidden_cited += forbidden.count(n);
    }
    for (const auto& p : CheckCitations(r->markdown, corpus.get())) {
      if (p.severity == CheckProblem::Severity::kError && !p.url.empty()) ++s.hallucinated;
    }
    for (const auto& re : facts) s.facts_found += re->Search(r->markdown) ? 1 : 0;
    s.abstained = !r->found;
    s.llm_calls = r->usage.calls;
    s.input_tokens = r->usage.input_tokens;
    s.output_tokens = r->usage.output_tokens;
    s.cost_usd = r->usage.cost_usd;
    s.seconds = r->seconds;
    out.push_back(s);
  }
  return out;
}

}  // namespace umwelt
