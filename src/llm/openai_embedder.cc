// An OpenAI-compatible embeddings client: POST {base}/embeddings.
#include <chrono>
#include <cmath>
#include <thread>

#include <nlohmann/json.hpp>

#include "umwelt/json_read.h"
#include "umwelt/embed.h"
#include "umwelt/log.h"
#include "umwelt/text.h"

namespace umwelt {
namespace {

using json = nlohmann::json;

class OpenAiEmbedder final : public Embedder {
 public:
  OpenAiEmbedder(OpenAiEmbedderOptions o, std::unique_ptr<HttpClient> http)
      : o_(std::move(o)), http_(http ? std::move(http) : NewCurlHttpClient()) {
    while (!o_.base_url.empty() && o_.base_url.back() == '/') o_.base_url.pop_back();
    if (!o_.api_key.empty()) AddLogSecret(o_.api_key);
  }

  std::string model() const override { return o_.model; }
  int dim() const override { return dim_; }

  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts) override {
    std::vector<std::vector<float>> out;
    out.reserve(texts.size());
    for (size_t start = 0; start < texts.size(); start += static_cast<size_t>(o_.batch)) {
      size_t end = std::min(texts.size(), start + static_cast<size_t>(o_.batch));
      json input = json::array();
      for (size_t i = start; i < end; ++i) {
        std::string t(TruncateUtf8(texts[i], o_.max_chars));
        input.push_back(t.empty() ? " " : SanitizeUtf8(t));
      }
      UMWELT_ASSIGN_OR_RETURN(auto batch, Request(input, end - start));
      for (auto& v : batch) out.push_back(std::move(v));
    }
    return out;
  }

 private:
  std::string Url() const { return o_.base_url + "/embeddings"; }

  Result<std::vector<std::vector<float>>> Request(const json& input, size_t n) {
    HttpRequest req;
    req.method = "POST";
    req.url = Url();
    req.timeout_seconds = o_.timeout_seconds;
    req.headers = {{"Content-Type", "application/json"}, {"User-Agent", "umwelt"}};
    if (!o_.api_key.empty()) req.headers.emplace_back("Authorization", "Bearer " + o_.api_key);
    req.body = json{{"model", o_.model}, {"input", input}, {"encoding_format", "float"}}.dump();
    RetryPolicy policy;
    policy.max_retries = o_.max_retries;
    policy.backoff_seconds = o_.backoff_seconds;
    int attempts = 0;
    auto r = SendWithRetry(*http_, req, policy, &attempts);
    if (r.ok() && r->status == 200) return Parse(r->body, n);
    bool gave_up = !r.ok() || r->status == 429 || r->status == 529 || r->status >= 500;
    if (!gave_up) {
      return Status::Unavailable("POST " + Url() + ": HTTP " + std::to_string(r->status) + ": " +
                                 std::string(TruncateUtf8(r->body, 300)));
    }
    std::string why = r.ok() ? "HTTP " + std::to_string(r->status) : r.status().message();
    return Status::Unavailable("POST " + Url() + ": " + why + "; gave up after " + std::to_string(attempts) + " attempts");
  }

  Result<std::vector<std::vector<float>>> Parse(const std::string& body, size_t n) {
    auto j = ParseJson(body);
    if (!j.is_object() || !j.contains("data") || !j["data"].is_array()) {
      return Status::Corrupt("POST " + Url() + ": answer has no `data` array");
    }
    std::vector<std::vector<float>> out(n);
    size_t seen = 0;
    for (size_t k = 0; k < j["data"].size(); ++k) {
      const json& d = j["data"][k];
      size_t index = d.contains("index") && d["index"].is_number_unsigned() ? d["index"].get<size_t>() : k;
      if (index >= n || !d.contains("embedding") || !d["embedding"].is_array()) {
        return Status::Corrupt("POST " + Url() + ": malformed item " + std::to_string(k));
      }
      std::vector<float> v;
      v.reserve(d["embedding"].size());
      for (const auto& x : d["embedding"]) {
        if (!x.is_number()) return Status::Corrupt("POST " + Url() + ": a non-number in embedding " + std::to_string(k));
        v.push_back(x.get<float>());
      }
      if (dim_ == 0) dim_ = static_cast<int>(v.size());
      if (static_cast<int>(v.size()) != dim_) {
        return Status::Corrupt("POST " + Url() + ": model " + o_.model + " answered " + std::to_string(v.size()) +
                               "-d vectors after " + std::to_string(dim_) + "-d ones");
      }
      Normalize(&v);
      out[index] = std::move(v);
      ++seen;
    }
    if (seen != n) {
      return Status::Corrupt("POST " + Url() + ": asked for " + std::to_string(n) + " embeddings, got " +
                             std::to_string(seen));
    }
    return out;
  }

  OpenAiEmbedderOptions o_;
  std::unique_ptr<HttpClient> http_;
  int dim_ = 0;
};

}  // namespace

bool Normalize(std::vector<float>* v) {
  double sum = 0;
  for (float x : *v) sum += static_cast<double>(x) * x;
  if (!(sum > 0) || !std::isfinite(sum)) {
    std::fill(v->begin(), v->end(), 0.0f);
    return false;
  }
  float inv = static_cast<float>(1.0 / std::sqrt(sum));
  for (float& x : *v) x *= inv;
  return true;
}

std::unique_ptr<Embedder> NewOpenAiEmbedder(OpenAiEmbedderOptions o, std::unique_ptr<HttpClient> http) {
  return std::make_unique<OpenAiEmbedder>(std::move(o), std::move(http));
}

}  // namespace umwelt
