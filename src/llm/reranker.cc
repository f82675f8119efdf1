// A reranking client: POST {base}/rerank, answers in the Cohere/Jina/vLLM or
// the text-embeddings-inference shape, scores cached per (query, document).
#include <cmath>
#include <cstdlib>

#include <nlohmann/json.hpp>
#include <xxhash.h>

#include "umwelt/json_read.h"
#include "umwelt/log.h"
#include "umwelt/rerank.h"
#include "umwelt/text.h"

namespace umwelt {
namespace {

using json = nlohmann::json;

std::string CacheKey(const std::string& model, const std::string& query, const std::string& document) {
  char key[64];
  std::snprintf(key, sizeof key, "%016llx:%016llx:%016llx",
                static_cast<unsigned long long>(XXH3_64bits(model.data(), model.size())),
                static_cast<unsigned long long>(XXH3_64bits(query.data(), query.size())),
                static_cast<unsigned long long>(XXH3_64bits(document.data(), document.size())));
  return key;
}

// The scores of an answer, by index; fails naming what is missing.
Result<std::vector<double>> ParseScores(const std::string& body, size_t n, const std::string& url) {
  json j = ParseJson(body);
  const json* list = nullptr;
  if (j.is_array()) list = &j;  // text-embeddings-inference
  else if (const json* r = FieldOf(j, "results"); r && r->is_array()) list = r;  // Cohere, Jina, vLLM
  if (!list) return Status::Corrupt("POST " + url + ": the answer has no `results` list");
  std::vector<double> scores(n, std::nan(""));
  for (const auto& item : *list) {
    const json* index = FieldOf(item, "index");
    const json* score = FieldOf(item, "relevance_score");
    if (!score) score = FieldOf(item, "score");
    if (!index || !index->is_number_unsigned() || index->get<uint64_t>() >= n || !score || !score->is_number()) {
      return Status::Corrupt("POST " + url + ": a result without a valid `index` and score");
    }
    scores[index->get<size_t>()] = score->get<double>();
  }
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(scores[i])) {
      return Status::Corrupt("POST " + url + ": no score for document " + std::to_string(i) + " of " + std::to_string(n));
    }
  }
  return scores;
}

}  // namespace

Result<RerankOptions> ParseRerankSpec(std::string_view spec) {
  constexpr std::string_view kPrefix = "openai-compatible:";
  if (spec.substr(0, kPrefix.size()) != kPrefix) {
    return Status::Invalid("reranker `" + std::string(TruncateUtf8(spec, 80)) +
                           "`: want openai-compatible:<base-url>#<model>");
  }
  std::string_view rest = spec.substr(kPrefix.size());
  size_t hash = rest.rfind('#');
  if (hash == std::string_view::npos || hash + 1 == rest.size()) {
    return Status::Invalid("reranker `" + std::string(TruncateUtf8(spec, 80)) + "` names no model: openai-compatible:<base-url>#<model>");
  }
  RerankOptions o;
  o.base_url = std::string(rest.substr(0, hash));
  o.model = std::string(rest.substr(hash + 1));
  if (o.base_url.rfind("http://", 0) != 0 && o.base_url.rfind("https://", 0) != 0) {
    return Status::Invalid("reranker `" + std::string(TruncateUtf8(spec, 80)) + "`: the base url must be http(s)");
  }
  while (!o.base_url.empty() && o.base_url.back() == '/') o.base_url.pop_back();
  if (const char* key = std::getenv("OPENAI_API_KEY"); key && *key) o.api_key = key;
  return o;
}

Reranker::Reranker(RerankOptions options, std::unique_ptr<HttpClient> http)
    : o_(std::move(options)), http_(http ? std::move(http) : NewCurlHttpClient()) {
  if (!o_.api_key.empty()) AddLogSecret(o_.api_key);
}

int Reranker::requests() const {
  MutexLock lock(mu_);
  return requests_;
}

Result<std::vector<double>> Reranker::Score(const std::string& query, const std::vector<std::string>& documents) {
  std::vector<double> scores(documents.size());
  std::vector<std::string> keys(documents.size());
  std::vector<size_t> missing;
  {
    MutexLock lock(mu_);
    for (size_t i = 0; i < documents.size(); ++i) {
      keys[i] = CacheKey(o_.model, query, documents[i]);
      auto it = cache_.find(keys[i]);
      if (it == cache_.end()) {
        missing.push_back(i);
        continue;
      }
      scores[i] = it->second.first;
      order_.splice(order_.end(), order_, it->second.second);  // most recently used
    }
  }
  if (missing.empty()) return scores;
  std::vector<std::string> ask;
  for (size_t i : missing) ask.push_back(documents[i]);
  UMWELT_ASSIGN_OR_RETURN(auto fresh, Request(query, ask));
  MutexLock lock(mu_);
  for (size_t k = 0; k < missing.size(); ++k) {
    scores[missing[k]] = fresh[k];
    const std::string& key = keys[missing[k]];
    if (cache_.count(key)) continue;
    order_.push_back(key);
    cache_[key] = {fresh[k], std::prev(order_.end())};
    while (cache_.size() > o_.cache_entries && !order_.empty()) {
      cache_.erase(order_.front());
      order_.pop_front();
    }
  }
  return scores;
}

Result<std::vector<double>> Reranker::Request(const std::string& query, const std::vector<std::string>& documents) {
  const std::string url = o_.base_url + "/rerank";
  json docs = json::array();
  for (const auto& d : documents) {
    std::string t(TruncateUtf8(d, o_.max_chars));
    docs.push_back(t.empty() ? " " : SanitizeUtf8(t));
  }
  HttpRequest req;
  req.method = "POST";
  req.url = url;
  req.timeout_seconds = o_.timeout_seconds;
  req.headers = {{"Content-Type", "application/json"}, {"User-Agent", "umwelt"}};
  if (!o_.api_key.empty()) req.headers.emplace_back("Authorization", "Bearer " + o_.api_key);
  // "documents" for Cohere, Jina and vLLM; "texts" for text-embeddings-inference.
  req.body = json{{"model", o_.model}, {"query", SanitizeUtf8(query)}, {"documents", docs}, {"texts", docs}}.dump();
  RetryPolicy policy;
  policy.max_retries = o_.max_retries;
  policy.backoff_seconds = o_.backoff_seconds;
  policy.max_wait_seconds = 2;  // a search is waiting
  int attempts = 0;
  {
    MutexLock lock(mu_);
    ++requests_;
  }
  auto r = SendWithRetry(*http_, req, policy, &attempts);
  if (!r.ok()) return Status::Unavailable("POST " + url + ": " + r.status().message());
  if (r->status != 200) {
    return Status::Unavailable("POST " + url + ": HTTP " + std::to_string(r->status) + ": " +
                               std::string(TruncateUtf8(r->body, 200)));
  }
  return ParseScores(r->body, documents.size(), url);
}

}  // namespace umwelt
