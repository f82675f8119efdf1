// Chat providers (OpenAI-compatible, Anthropic) with retries, a concurrency
// limit, accounting and an on-disk cache.
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>
#include <xxhash.h>

#include "umwelt/json_read.h"
#include "umwelt/file.h"
#include "umwelt/llm.h"
#include "umwelt/log.h"
#include "umwelt/text.h"

namespace umwelt {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string CacheDir(const LlmOptions& o) {
  if (!o.cache_dir.empty()) return o.cache_dir;
  std::string base = Env("XDG_CACHE_HOME");
  if (base.empty()) base = Env("HOME").empty() ? "/tmp" : Env("HOME") + "/.cache";
  return base + "/umwelt/llm";
}

class Semaphore {
 public:
  explicit Semaphore(int n) : n_(n < 1 ? 1 : n) {}
  void Acquire() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return n_ > 0; });
    --n_;
  }
  void Release() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++n_;
    }
    cv_.notify_one();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int n_;
};

class Model final : public ChatModel {
 public:
  Model(LlmOptions o, std::string provider, std::string base, std::string model, std::string key)
      : o_(std::move(o)), provider_(std::move(provider)), base_(std::move(base)), model_(std::move(model)),
        key_(std::move(key)), slots_(o_.concurrency) {
    if (!key_.empty()) AddLogSecret(key_);
    if (o_.usd_per_million_input == 0 && o_.usd_per_million_output == 0) {
      std::string prices = Env("UMWELT_LLM_PRICES");  // "in,out" dollars per million tokens
      size_t comma = prices.find(',');
      if (comma != std::string::npos) {
        o_.usd_per_million_input = std::atof(prices.substr(0, comma).c_str());
        o_.usd_per_million_output = std::atof(prices.substr(comma + 1).c_str());
      }
    }
  }

  const std::string& provider() const override { return provider_; }
  const std::string& model() const override { return model_; }
  LlmUsage usage() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return usage_;
  }

  Result<ChatResponse> Complete(const ChatRequest& req) override {
    json key = {{"provider", provider_}, {"base", base_}, {"model", model_}, {"temperature", req.temperature},
                {"max_tokens", req.max_tokens}, {"json", req.json}, {"messages", json::array()}};
    for (const auto& m : req.messages) key["messages"].push_back({m.role, m.content});
    std::string key_text = key.dump(-1, ' ', false, json::error_handler_t::replace);
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(XXH3_64bits(key_text.data(), key_text.size())));
    std::string cache_path = o_.cache_dir == "-" ? "" : CacheDir(o_) + "/" + hex + ".json";
    if (!cache_path.empty()) {
      auto hit = ReadWholeFile(cache_path);
      if (hit.ok()) {
        json j = ParseJson(*hit);
        if (j.is_object() && StrField(j, "key") == key_text) {
          ChatResponse r{StrField(j, "text"), IntField(j, "input_tokens"), IntField(j, "output_tokens"),
                         true};
          std::lock_guard<std::mutex> lock(mu_);
          usage_.calls++;
          usage_.cache_hits++;
          return r;
        }
      }
    }
    if (o_.replay) {
      return Status::NotFound("llm --replay: no cached answer for this " + (req.purpose.empty() ? "request" : req.purpose) +
                              " request (key " + hex + ")");
    }
    slots_.Acquire();
    auto t = Clock::now();
    Result<ChatResponse> r = Send(req);
    double secs = std::chrono::duration<double>(Clock::now() - t).count();
    slots_.Release();
    if (!r.ok()) return r;
    {
      std::lock_guard<std::mutex> lock(mu_);
      usage_.calls++;
      usage_.input_tokens += r->input_tokens;
      usage_.output_tokens += r->output_tokens;
      usage_.seconds += secs;
      usage_.cost_usd += r->input_tokens * o_.usd_per_million_input / 1e6 + r->output_tokens * o_.usd_per_million_output / 1e6;
    }
    if (!cache_path.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(CacheDir(o_), ec);
      json j = {{"key", key_text}, {"text", r->text}, {"input_tokens", r->input_tokens}, {"output_tokens", r->output_tokens}};
      (void)WriteFileAtomic(cache_path, j.dump(-1, ' ', false, json::error_handler_t::replace));  // a cache: best effort
    }
    return r;
  }

 private:
  Result<ChatResponse> Send(const ChatRequest& req) {
    HttpRequest http;
    http.method = "POST";
    http.timeout_seconds = o_.timeout_seconds;
    http.max_body_bytes = 32u << 20;
    json body;
    if (provider_ == "openai") {
      http.url = base_ + "/chat/completions";
      if (!key_.empty()) http.headers.push_back({"Authorization", "Bearer " + key_});
      body = {{"model", model_}, {"temperature", req.temperature}, {"max_tokens", req.max_tokens},
              {"messages", json::array()}};
      for (const auto& m : req.messages) body["messages"].push_back({{"role", m.role}, {"content", m.content}});
      if (req.json) body["response_format"] = {{"type", "json_object"}};
    } else {
      http.url = base_ + "/v1/messages";
      http.headers.push_back({"x-api-key", key_});
      http.headers.push_back({"anthropic-version", "2023-06-01"});
      body = {{"model", model_}, {"temperature", req.temperature}, {"max_tokens", req.max_tokens},
              {"messages", json::array()}};
      std::string system;
      for (const auto& m : req.messages) {
        if (m.role == "system") system += (system.empty() ? "" : "\n\n") + m.content;
        else body["messages"].push_back({{"role", m.role}, {"content", m.content}});
      }
      if (req.json) system += (system.empty() ? "" : "\n\n") + std::string("Answer with one JSON object and nothing else.");
      if (!system.empty()) body["system"] = system;
    }
    http.headers.push_back({"Content-Type", "application/json"});
    http.body = body.dump(-1, ' ', false, json::error_handler_t::replace);
    // A client from the pool (one per request in flight; they keep their
    // connections alive and close them with the model).
    std::unique_ptr<HttpClient> client;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!pool_.empty()) {
        client = std::move(pool_.back());
        pool_.pop_back();
      }
    }
    if (!client) client = NewCurlHttpClient();
    struct Return {
      Model* m;
      std::unique_ptr<HttpClient>& c;
      ~Return() {
        std::lock_guard<std::mutex> lock(m->mu_);
        m->pool_.push_back(std::move(c));
      }
    } give_back{this, client};
    std::string what = provider_ + ":" + model_;
    RetryPolicy policy;
    policy.max_retries = o_.max_retries;
    policy.backoff_seconds = o_.backoff_seconds;
    policy.sleep = o_.sleep;
    policy.on_retry = [this](const Result<HttpResponse>&, double) {
      std::lock_guard<std::mutex> lock(mu_);
      usage_.retries++;
    };
    auto transient = [](int status) { return status == 429 || status == 529 || status >= 500; };
    policy.retry_on = [&](const HttpResponse& r) {  // a truncated or malformed answer is retried too
      return transient(r.status) || (r.status == 200 && !ParseChatAnswer(provider_, r.body).ok());
    };
    int attempts = 0;
    auto resp = SendWithRetry(*client, http, policy, &attempts);
    if (!resp.ok()) {
      return Status::Unavailable("llm " + what + ": " + resp.status().message() + " after " + std::to_string(attempts) +
                                 " attempts");
    }
    if (resp->status == 200) {
      auto parsed = ParseChatAnswer(provider_, resp->body);
      if (parsed.ok()) return parsed;
      return Status::Unavailable("llm " + what + ": " + parsed.status().message() + " after " +
                                 std::to_string(attempts) + " attempts");
    }
    std::string why = "HTTP " + std::to_string(resp->status);
    if (transient(resp->status)) {
      return Status::Unavailable("llm " + what + ": " + why + " after " + std::to_string(attempts) + " attempts");
    }
    std::string detail;
    json e = json::parse(resp->body, nullptr, false);
    if (e.is_object() && e.contains("error")) {
      detail = e["error"].is_object() ? StrField(e["error"], "message") : e["error"].dump();
    }
    return Status::Unavailable("llm " + what + ": " + why + (detail.empty() ? "" : ": " + detail));
  }

  LlmOptions o_;
  std::string provider_, base_, model_, key_;
  Semaphore slots_;
  mutable std::mutex mu_;
  LlmUsage usage_;
  std::vector<std::unique_ptr<HttpClient>> pool_;
};

}  // namespace

Result<std::unique_ptr<ChatModel>> ChatModel::Open(const LlmOptions& o) {
  const std::string& spec = o.spec;
  if (spec.rfind("openai:", 0) == 0) {
    std::string rest = spec.substr(7);
    size_t hash = rest.rfind('#');
    if (hash == std::string::npos || hash == 0 || hash + 1 == rest.size()) {
      return Status::Invalid("--llm `" + spec + "`: expected openai:<base-url>#<model>");
    }
    std::string base = rest.substr(0, hash), model = rest.substr(hash + 1);
    if (base.rfind("http://", 0) != 0 && base.rfind("https://", 0) != 0) {
      return Status::Invalid("--llm `" + spec + "`: the base url must be http(s)");
    }
    while (!base.empty() && base.back() == '/') base.pop_back();
    std::string key = o.api_key.empty() ? Env("OPENAI_API_KEY") : o.api_key;
    return std::unique_ptr<ChatModel>(new Model(o, "openai", base, model, key));
  }
  if (spec.rfind("anthropic:", 0) == 0) {
    std::string model = spec.substr(10);
    if (model.empty()) return Status::Invalid("--llm `" + spec + "`: expected anthropic:<model>");
    std::string key = o.api_key.empty() ? Env("ANTHROPIC_API_KEY") : o.api_key;
    if (key.empty() && !o.replay) return Status::Invalid("--llm " + spec + ": ANTHROPIC_API_KEY is not set");
    std::string base = !o.base_url.empty() ? o.base_url : Env("ANTHROPIC_BASE_URL");
    if (base.empty()) base = "https://api.anthropic.com";
    while (!base.empty() && base.back() == '/') base.pop_back();
    return std::unique_ptr<ChatModel>(new Model(o, "anthropic", base, model, key));
  }
  return Status::Invalid("--llm `" + spec + "`: expected openai:<base-url>#<model> or anthropic:<model>");
}

Result<ChatResponse> ParseChatAnswer(std::string_view provider, std::string_view body) {
  json j = ParseJson(body);
  if (!j.is_object()) return Status::Corrupt("the answer is not JSON (truncated?)");
  ChatResponse r;
  if (provider == "openai") {
    const json& choices = j.contains("choices") ? j["choices"] : json();
    const json* message = choices.is_array() && !choices.empty() && choices[0].is_object() && choices[0].contains("message")
                              ? &choices[0]["message"]
                              : nullptr;
    if (!message || !message->is_object() || !message->contains("content") || !(*message)["content"].is_string()) {
      return Status::Corrupt("the answer has no choices[0].message.content");
    }
    r.text = (*message)["content"].get<std::string>();
    if (j.contains("usage") && j["usage"].is_object()) {
      r.input_tokens = IntField(j["usage"], "prompt_tokens");
      r.output_tokens = IntField(j["usage"], "completion_tokens");
    }
  } else {
    if (!j.contains("content") || !j["content"].is_array()) return Status::Corrupt("the answer has no content blocks");
    for (const auto& b : j["content"]) {
      if (b.is_object() && StrField(b, "type") == "text" && b.contains("text") && b["text"].is_string()) {
        r.text += b["text"].get<std::string>();
      }
    }
    if (j.contains("usage") && j["usage"].is_object()) {
      r.input_tokens = IntField(j["usage"], "input_tokens");
      r.output_tokens = IntField(j["usage"], "output_tokens");
    }
  }
  return r;
}

Result<std::string> ExtractJsonObject(std::string_view text) {
  // The first balanced {...} whose text parses.
  for (size_t start = text.find('{'); start != std::string_view::npos; start = text.find('{', start + 1)) {
    size_t end = JsonValueEnd(text, start);
    if (end == std::string_view::npos) continue;  // an unclosed brace; a later one may close
    std::string candidate(text.substr(start, end - start));
    if (json::accept(candidate)) return candidate;
  }
  return Status::Corrupt("the model's answer holds no JSON object");
}

}  // namespace umwelt
