// umwelt/llm.h — chat models, behind one interface, with what every caller
// needs around them: bounded retries, a concurrency limit, token and cost
// accounting, and an on-disk cache so a rerun is reproducible and free.
//
// Providers (`--llm` or $UMWELT_LLM):
//   openai:<base-url>#<model>   any OpenAI-compatible /chat/completions server
//                               (vLLM, llama.cpp, Ollama, OpenAI); key from
//                               OPENAI_API_KEY when set
//   anthropic:<model>           Anthropic's Messages API; key from
//                               ANTHROPIC_API_KEY, base from ANTHROPIC_BASE_URL
//
// Text from sources reaches a model only inside the user message, quoted as
// data; prompts say so, and every answer is checked against the evidence
// after it returns (research.h), so an instruction planted in a thread
// changes nothing.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "umwelt/http.h"
#include "umwelt/status.h"

namespace umwelt {

struct ChatMessage {
  std::string role;  // system, user, assistant
  std::string content;
};

struct ChatRequest {
  std::vector<ChatMessage> messages;
  double temperature = 0;
  int max_tokens = 2000;
  bool json = false;  // ask for a JSON object where the server supports it
  std::string purpose;  // for the trace: "decompose", "hyde", "synthesize", ...
};

struct ChatResponse {
  std::string text;
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  bool cached = false;
};

struct LlmUsage {
  int calls = 0;          // requests answered (cache hits included)
  int cache_hits = 0;
  int retries = 0;
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  double cost_usd = 0;
  double seconds = 0;     // wall time spent waiting on the provider
};

struct LlmOptions {
  std::string spec;           // "openai:http://host/v1#model" or "anthropic:model"
  std::string api_key;        // else from the environment
  std::string base_url;       // anthropic: else ANTHROPIC_BASE_URL, else https://api.anthropic.com
  int max_retries = 4;
  double backoff_seconds = 1.0;
  long timeout_seconds = 120;
  int concurrency = 4;        // requests in flight at once
  std::string cache_dir;      // "" = $XDG_CACHE_HOME/umwelt/llm; "-" = no cache
  bool replay = false;        // a cache miss is an error, nothing is sent
  double usd_per_million_input = 0;   // prices for the cost figure (else $UMWELT_LLM_PRICES "in,out")
  double usd_per_million_output = 0;
  std::function<void(double seconds)> sleep;  // tests record instead of sleeping
};

class ChatModel {
 public:
  // Parses the spec and reads keys from the environment. Fails naming what is
  // wrong with the spec.
  static Result<std::unique_ptr<ChatModel>> Open(const LlmOptions& options);
  virtual ~ChatModel() = default;
  virtual const std::string& provider() const = 0;  // "openai" or "anthropic"
  virtual const std::string& model() const = 0;
  // Thread-safe; at most options.concurrency requests in flight.
  virtual Result<ChatResponse> Complete(const ChatRequest& request) = 0;
  virtual LlmUsage usage() const = 0;
};

// The completion in a provider's response body ("openai": chat completions,
// "anthropic": messages): its text and token counts, or an error saying what
// the body lacks.
Result<ChatResponse> ParseChatAnswer(std::string_view provider, std::string_view body);

// The first JSON object in a model's answer (bare, or fenced in ```json), or
// an error when there is none.
Result<std::string> ExtractJsonObject(std::string_view text);

}  // namespace umwelt
