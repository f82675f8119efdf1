// umwelt/eval.h — retrieval evaluation: TREC-style test collections
// (Cranfield, CISI) and question files in the reference system's format.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "umwelt/status.h"

namespace umwelt {

struct TestCollection {
  struct Doc {
    std::string id, title, text;
  };
  struct Query {
    std::string id, text;
  };
  std::string name;
  std::vector<Doc> docs;
  std::vector<Query> queries;
  std::map<std::string, std::map<std::string, int>> qrels;  // query -> doc -> gain (> 0 relevant)
};

// Cranfield 1400 (cran.all.1400, cran.qry, cranqrel in `dir`). Its qrels
// number queries 1..225 in file order; relevance codes 1..4 become gains
// 4..1 and the unexplained code -1 is not relevant.
Result<TestCollection> LoadCranfield(const std::string& dir);
// CISI (CISI.ALL, CISI.QRY, CISI.REL in `dir`): binary relevance; queries
// without judgements are left out.
Result<TestCollection> LoadCisi(const std::string& dir);
// The same from the three files' text; `dir` names them in errors.
Result<TestCollection> ParseCranfield(const std::string& docs, const std::string& queries, const std::string& qrels,
                                      const std::string& dir);
Result<TestCollection> ParseCisi(const std::string& docs, const std::string& queries, const std::string& qrels,
                                 const std::string& dir);

struct RetrievalMetrics {
  double ndcg10 = 0, map = 0, recall100 = 0;
  int queries = 0;
};
// Means over the judged queries of `run` (query -> ranked doc ids).
RetrievalMetrics Evaluate(const std::map<std::string, std::vector<std::string>>& run,
                          const std::map<std::string, std::map<std::string, int>>& qrels);

// A question in the reference format: its text, the threads a good answer
// cites ("#123"; must-have, nice-to-have, and forbidden ones, trap checks'
// forbid_cite included), and facts it states (regular expressions). A
// project without pull requests names a commit instead: "commit:SHA" (7 to
// 64 hex digits).
struct EvalQuestion {
  std::string id, question;
  std::set<std::string> must_cite, nice_cite, forbid_cite;  // "#N", a ref, or CommitCitation's form
  std::vector<std::string> facts;
  bool answerable = true;
};
// How a citation list names the commit `sha` (any case, 7 to 64 hex digits: SHA-1 or SHA-256):
// "commit:" and its first 7 digits, lower case; "" when `sha` is no sha.
std::string CommitCitation(std::string_view sha);
Result<std::vector<EvalQuestion>> LoadQuestions(const std::string& dir_or_file);
// One question file's JSON; `where` names it in errors and gives the id when
// the file has none.
Result<EvalQuestion> ParseQuestion(std::string_view text, const std::string& where);
// How a citation list names the thread whose ref is `ref`: "#N" for an issue
// or PR ("o/r#12"), CommitCitation's form for a commit of no PR
// (".../commit/SHA"), else the ref itself (a Discord thread's).
std::string CitationOfThread(const std::string& ref);
// Recall of the must-have citations among the first `k` of `ranked` (each
// as CitationOfThread names it); 1 when there are none.
double CitationRecall(const std::vector<std::string>& ranked, const std::set<std::string>& must_cite, size_t k);

}  // namespace umwelt
