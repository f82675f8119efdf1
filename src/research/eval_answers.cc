// `umwelt eval answers`: ask each question of a reference-format file and
// score the report's citations and facts.
#include <filesystem>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "umwelt/json_read.h"
#include "umwelt/file.h"
#include "umwelt/publish.h"
#include "umwelt/research.h"
#include "umwelt/text.h"

namespace umwelt {
namespace {

using json = nlohmann::json;

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

std::set<std::string> Refs(const json& j) {
  std::set<std::string> out;
  if (!j.is_array()) return out;
  for (const auto& x : j) {
    if (!x.is_string()) continue;
    std::string s = x.get<std::string>();
    out.insert(s.empty() || s[0] == '#' ? s : "#" + s);
  }
  return out;
}

}  // namespace

Result<std::vector<AnswerScore>> EvalAnswers(const std::string& path, const AskOptions& base) {
  std::vector<std::string> files;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    for (const auto& e : std::filesystem::directory_iterator(path, ec)) {
      if (e.path().extension() == ".json") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
  } else {
    files.push_back(path);
  }
  if (files.empty()) return Status::NotFound(path + ": no question files (*.json)");
  UMWELT_ASSIGN_OR_RETURN(auto corpus, Corpus::Open(base.corpus_path, Corpus::Mode::kReadOnly));
  std::vector<AnswerScore> out;
  for (const auto& f : files) {
    UMWELT_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(f));
    json q = json::parse(text, nullptr, false);
    if (!q.is_object() || !q.contains("question") || !q["question"].is_string()) {
      return Status::Corrupt(f + ": not a question file (no \"question\")");
    }
    AnswerScore s;
    s.id = StrField(q, "id", std::filesystem::path(f).stem().string());
    s.answerable = BoolField(q, "answerable", true);
    const json& c = q.contains("citations") ? q["citations"] : json::object();
    auto must = Refs(ArrayField(c, "must_have"));
    auto nice = Refs(ArrayField(c, "nice_to_have"));
    auto forbidden = Refs(ArrayField(c, "forbidden"));
    if (q.contains("trap_checks") && q["trap_checks"].is_object()) {
      for (auto& [k, v] : q["trap_checks"].items()) {
        if (v.is_object()) {
          for (const auto& r : Refs(ArrayField(v, "forbid_cite"))) forbidden.insert(r);
        }
      }
    }
    std::vector<std::regex> facts;
    if (q.contains("facts") && q["facts"].is_object() && q["facts"].contains("must_have")) {
      for (const auto& fact : q["facts"]["must_have"]) {
        if (!fact.is_object() || !fact.contains("match") || !fact["match"].is_string()) continue;
        try {
          facts.emplace_back(fact["match"].get<std::string>(), std::regex::icase | std::regex::ECMAScript);
        } catch (const std::regex_error&) {
          facts.emplace_back(std::regex(std::regex_replace(fact["match"].get<std::string>(), std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)"),
                                        std::regex::icase));
        }
      }
    }
    s.must_have = static_cast<int>(must.size());
    s.facts = static_cast<int>(facts.size());
    AskOptions o = base;
    o.question = q["question"].get<std::string>();
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
