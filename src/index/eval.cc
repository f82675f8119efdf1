#include "umwelt/json_read.h"
#include "umwelt/eval.h"

#include "umwelt/file.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

namespace umwelt {
namespace {


// Records of a SMART-format file: ".I id" then ".X" fields.
std::vector<std::map<char, std::string>> Smart(const std::string& text) {
  std::vector<std::map<char, std::string>> out;
  std::istringstream in(text);
  std::string line;
  char field = 0;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.size() >= 2 && line[0] == '.' && std::isupper(static_cast<unsigned char>(line[1])) &&
        (line.size() == 2 || line[2] == ' ')) {
      field = line[1];
      if (field == 'I') {
        out.emplace_back();
        std::string id = line.substr(2);
        id.erase(0, id.find_first_not_of(' '));
        out.back()['I'] = id;
        field = 0;
      }
      continue;
    }
    if (field && !out.empty()) out.back()[field] += line + "\n";
  }
  return out;
}

// "#N" for each entry of a citation list: "#12", "12", "o/r#12" or 12; a
// commit by CommitCitation's form; a numberless thread by its ref.
std::set<std::string> ThreadNumbers(const nlohmann::json& list) {
  std::set<std::string> out;
  for (const auto& x : list) {
    std::string s = x.is_number_integer() ? std::to_string(x.get<int64_t>()) : x.is_string() ? x.get<std::string>() : "";
    if (s.starts_with("commit:")) {
      if (std::string c = CommitCitation(std::string_view(s).substr(7)); !c.empty()) out.insert(c);
      continue;
    }
    size_t hash = s.rfind('#');
    if (hash == std::string::npos && s.find(':') != std::string::npos && s.size() <= 200) {
      out.insert(s);  // a thread with no number, by its ref ("discord:GUILD/THREAD")
      continue;
    }
    std::string digits = hash == std::string::npos ? s : s.substr(hash + 1);
    if (digits.empty() || digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    int64_t n = std::strtoll(digits.c_str(), nullptr, 10);
    if (n > 0) out.insert("#" + std::to_string(n));
  }
  return out;
}

std::string StripZeros(const std::string& id) {
  size_t p = id.find_first_not_of('0');
  return p == std::string::npos ? "0" : id.substr(p);
}

}  // namespace

Result<TestCollection> LoadCranfield(const std::string& dir) {
  UMWELT_ASSIGN_OR_RETURN(std::string docs, ReadWholeFile(dir + "/cran.all.1400"));
  UMWELT_ASSIGN_OR_RETURN(std::string queries, ReadWholeFile(dir + "/cran.qry"));
  UMWELT_ASSIGN_OR_RETURN(std::string qrels, ReadWholeFile(dir + "/cranqrel"));
  return ParseCranfield(docs, queries, qrels, dir);
}

Result<TestCollection> ParseCranfield(const std::string& docs, const std::string& queries, const std::string& qrels,
                                      const std::string& dir) {
  TestCollection c;
  c.name = "cranfield";
  for (auto& r : Smart(docs)) c.docs.push_back({StripZeros(r['I']), r['T'], r['W']});
  int n = 0;
  for (auto& r : Smart(queries)) c.queries.push_back({std::to_string(++n), r['W']});  // qrels count in order
  std::istringstream in(qrels);
  std::string q, d;
  int rel;
  while (in >> q >> d >> rel) {
    if (rel >= 1 && rel <= 4) c.qrels[q][StripZeros(d)] = 5 - rel;
  }
  if (c.docs.size() != 1400 || c.queries.empty() || c.qrels.empty()) {
    return Status::Corrupt(dir + ": not the Cranfield collection (" + std::to_string(c.docs.size()) + " docs)");
  }
  return c;
}

Result<TestCollection> LoadCisi(const std::string& dir) {
  UMWELT_ASSIGN_OR_RETURN(std::string docs, ReadWholeFile(dir + "/CISI.ALL"));
  UMWELT_ASSIGN_OR_RETURN(std::string queries, ReadWholeFile(dir + "/CISI.QRY"));
  UMWELT_ASSIGN_OR_RETURN(std::string qrels, ReadWholeFile(dir + "/CISI.REL"));
  return ParseCisi(docs, queries, qrels, dir);
}

Result<TestCollection> ParseCisi(const std::string& docs, const std::string& queries, const std::string& qrels,
                                 const std::string& dir) {
  TestCollection c;
  c.name = "cisi";
  for (auto& r : Smart(docs)) c.docs.push_back({StripZeros(r['I']), r['T'], r['W']});
  std::istringstream in(qrels);
  std::string q, d, a, b;
  while (in >> q >> d >> a >> b) c.qrels[StripZeros(q)][StripZeros(d)] = 1;
  for (auto& r : Smart(queries)) {
    std::string id = StripZeros(r['I']);
    if (c.qrels.count(id)) c.queries.push_back({id, r['T'] + " " + r['W']});
  }
  if (c.docs.size() < 1000 || c.queries.empty()) return Status::Corrupt(dir + ": not the CISI collection");
  return c;
}

RetrievalMetrics Evaluate(const std::map<std::string, std::vector<std::string>>& run,
                          const std::map<std::string, std::map<std::string, int>>& qrels) {
  RetrievalMetrics m;
  for (const auto& [q, judged] : qrels) {
    int relevant = 0;
    std::vector<int> gains;
    for (const auto& [d, g] : judged) {
      if (g > 0) ++relevant, gains.push_back(g);
    }
    if (relevant == 0) continue;
    auto it = run.find(q);
    static const std::vector<std::string> kEmpty;
    const auto& ranked = it == run.end() ? kEmpty : it->second;
    double dcg = 0, ap = 0;
    int hits = 0, hits100 = 0;
    for (size_t i = 0; i < ranked.size(); ++i) {
      auto j = judged.find(ranked[i]);
      int g = j == judged.end() ? 0 : j->second;
      if (g <= 0) continue;
      if (i < 10) dcg += (std::pow(2.0, g) - 1) / std::log2(static_cast<double>(i) + 2);
      ++hits;
      ap += static_cast<double>(hits) / static_cast<double>(i + 1);
      if (i < 100) ++hits100;
    }
    std::sort(gains.rbegin(), gains.rend());
    double idcg = 0;
    for (size_t i = 0; i < gains.size() && i < 10; ++i) idcg += (std::pow(2.0, gains[i]) - 1) / std::log2(static_cast<double>(i) + 2);
    m.ndcg10 += idcg > 0 ? dcg / idcg : 0;
    m.map += ap / relevant;
    m.recall100 += static_cast<double>(hits100) / relevant;
    ++m.queries;
  }
  if (m.queries > 0) {
    m.ndcg10 /= m.queries;
    m.map /= m.queries;
    m.recall100 /= m.queries;
  }
  return m;
}

std::string CommitCitation(std::string_view sha) {
  if (sha.size() < 7 || sha.size() > 64 || sha.find_first_not_of("0123456789abcdefABCDEF") != std::string_view::npos) {
    return "";
  }
  std::string out = "commit:";
  for (char c : sha.substr(0, 7)) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Result<std::vector<EvalQuestion>> LoadQuestions(const std::string& path) {
  std::vector<std::string> files;
  if (std::filesystem::is_directory(path)) {
    for (const auto& e : std::filesystem::directory_iterator(path)) {
      if (e.path().extension() == ".json") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
  } else {
    files.push_back(path);
  }
  std::vector<EvalQuestion> out;
  for (const auto& f : files) {
    UMWELT_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(f));
    UMWELT_ASSIGN_OR_RETURN(EvalQuestion q, ParseQuestion(text, f));
    out.push_back(std::move(q));
  }
  if (out.empty()) return Status::NotFound(path + ": no question files");
  return out;
}

Result<EvalQuestion> ParseQuestion(std::string_view text, const std::string& f) {
  auto j = ParseJson(text);
  if (!j.is_object() || !j.contains("question") || !j["question"].is_string()) {
    return Status::Corrupt(f + ": not a question file (needs a string `question`)");
  }
  EvalQuestion q;
  q.id = StrField(j, "id", std::filesystem::path(f).stem().string());
  q.question = j["question"].get<std::string>();
  q.answerable = BoolField(j, "answerable", true);
  const nlohmann::json* citations = FieldOf(j, "citations");
  const nlohmann::json none = nlohmann::json::object();
  const nlohmann::json& c = citations ? *citations : none;
  q.must_cite = ThreadNumbers(ArrayField(c, "must_have"));
  q.nice_cite = ThreadNumbers(ArrayField(c, "nice_to_have"));
  q.forbid_cite = ThreadNumbers(ArrayField(c, "forbidden"));
  if (const nlohmann::json* traps = FieldOf(j, "trap_checks"); traps && traps->is_object()) {
    for (const auto& [k, v] : traps->items()) q.forbid_cite.merge(ThreadNumbers(ArrayField(v, "forbid_cite")));
  }
  const nlohmann::json* facts = FieldOf(j, "facts");
  for (const auto& f : facts ? ArrayField(*facts, "must_have") : nlohmann::json::array()) {
    std::string match = StrField(f, "match");
    if (!match.empty()) q.facts.push_back(match);
  }
  return q;
}

std::string CitationOfThread(const std::string& ref) {
  size_t hash = ref.find('#');
  if (hash != std::string::npos) return ref.substr(hash);
  size_t commit = ref.rfind("/commit/");
  std::string sha = commit == std::string::npos ? "" : CommitCitation(std::string_view(ref).substr(commit + 8));
  return sha.empty() ? ref : sha;
}

double CitationRecall(const std::vector<std::string>& ranked, const std::set<std::string>& must_cite, size_t k) {
  if (must_cite.empty()) return 1.0;
  std::set<std::string> top(ranked.begin(), ranked.begin() + static_cast<long>(std::min(k, ranked.size())));
  size_t found = 0;
  for (const auto& n : must_cite) found += top.count(n);
  return static_cast<double>(found) / static_cast<double>(must_cite.size());
}

}  // namespace umwelt
