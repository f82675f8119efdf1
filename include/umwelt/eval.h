// umwelt/eval.h — retrieval evaluation: TREC-style test collections
// (Cranfield, CISI) and question files in the reference system's format.
#pragma once

#include <map>
#include <string>
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

struct RetrievalMetrics {
  double ndcg10 = 0, map = 0, recall100 = 0;
  int queries = 0;
};
// Means over the judged queries of `run` (query -> ranked doc ids).
RetrievalMetrics Evaluate(const std::map<std::string, std::vector<std::string>>& run,
                          const std::map<std::string, std::map<std::string, int>>& qrels);

// A question in the reference format: text and must-have citations ("#123").
struct EvalQuestion {
  std::string id, question;
  std::vector<int64_t> must_have;
  bool answerable = true;
};
Result<std::vector<EvalQuestion>> LoadQuestions(const std::string& dir_or_file);
// Recall of must-have thread numbers among the first `k` thread numbers.
double CitationRecall(const std::vector<int64_t>& ranked_threads, const std::vector<int64_t>& must_have, size_t k);

}  // namespace umwelt
