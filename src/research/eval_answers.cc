// `umwelt eval answers`: ask each question of a reference-format file and
// score the report's citations and facts.
#include <regex>
#include <set>

#include "umwelt/eval.h"
#include "umwelt/publish.h"
#include "umwelt/research.h"
#include "umwelt/text.h"

namespace umwelt {
namespace {

// "#N" for every GitHub issue or PR link in the report.
std::set<std::string> CitedNumbers(const std::string& md) {
  std::set<std::string> out;
  static const std::regex link(R"(\]\((https?://[^)\s]+)\))");
  for (std::sregex_iterator it(md.begin(), md.end(), link), end; it != end; ++it) {
    std::string ref = ThreadRefFromUrl((*it)[1].str());
    size_t hash = ref.find('#');
    if (hash != std::string::npos) out.insert(ref.substr(hash));
  }
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
    std::vector<std::regex> facts;
    for (const auto& match : q.facts) {
      try {
        facts.emplace_back(match, std::regex::icase | std::regex::ECMAScript);
      } catch (const std::regex_error&) {  // not a regular expression: the text itself
        facts.emplace_back(std::regex_replace(match, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)"), std::regex::icase);
      }
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
    auto cited = CitedNumbers(r->markdown);
    for (const auto& n : cited) {
      s.must_have_cited += must.count(n);
      s.nice_to_have_cited += nice.count(n);
      s.forbidden_cited += forbidden.count(n);
    }
    for (const auto& p : CheckCitations(r->markdown, corpus.get())) {
      if (p.severity == CheckProblem::Severity::kError && !p.url.empty()) ++s.hallucinated;
    }
    for (const auto& re : facts) s.facts_found += std::regex_search(r->markdown, re) ? 1 : 0;
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
