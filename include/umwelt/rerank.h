// umwelt/rerank.h — a reranking stage through a model server.
//
// `openai-compatible:<base-url>#<model>` (`search --rerank`, `serve
// --rerank`, $UMWELT_RERANK): POST <base-url>/rerank with {"model", "query",
// "documents", "texts"} — the shape text-embeddings-inference, vLLM, Jina
// and Cohere serve — and read either answer: {"results": [{"index",
// "relevance_score"}]} (Cohere, Jina, vLLM) or [{"index", "score"}] (TEI).
// Scores are cached by (query, document) for the life of the Reranker, so a
// repeated query costs no request. A server that is down, slow or wrong
// costs one note; the ranking it would have changed stands.
#pragma once

#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "umwelt/http.h"
#include "umwelt/status.h"
#include "umwelt/thread_annotations.h"

namespace umwelt {

struct RerankOptions {
  std::string base_url;  // ".../v1" or the server root; "/rerank" is appended
  std::string model;
  std::string api_key;       // Bearer token when set ($OPENAI_API_KEY); never logged
  long timeout_seconds = 10;  // a search waits at most this long (per attempt)
  int max_retries = 1;
  double backoff_seconds = 0.2;
  size_t max_chars = 2000;      // each document cut to this before sending
  size_t cache_entries = 50000;  // (query, document) scores kept
};

// Parses "openai-compatible:<base-url>#<model>"; names what is wrong.
Result<RerankOptions> ParseRerankSpec(std::string_view spec);

class Reranker {
 public:
  explicit Reranker(RerankOptions options, std::unique_ptr<HttpClient> http = nullptr);
  // One score per document, in order, higher is better.
  Result<std::vector<double>> Score(const std::string& query, const std::vector<std::string>& documents);
  const std::string& model() const { return o_.model; }
  // Requests sent (cache misses), for tests and the trace.
  int requests() const;

 private:
  Result<std::vector<double>> Request(const std::string& query, const std::vector<std::string>& documents);

  RerankOptions o_;
  std::unique_ptr<HttpClient> http_;
  mutable Mutex mu_;
  // Least recently used last: key -> (score, position in `order_`).
  std::list<std::string> order_ GUARDED_BY(mu_);
  std::unordered_map<std::string, std::pair<double, std::list<std::string>::iterator>> cache_ GUARDED_BY(mu_);
  int requests_ GUARDED_BY(mu_) = 0;
};

}  // namespace umwelt
