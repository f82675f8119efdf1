// libFuzzer target: a chat provider's response body (OpenAI-compatible chat
// completions and Anthropic messages), then the JSON object a caller looks
// for in the completion's text.
#include <cstdint>
#include <string>

#include "harness.h"
#include "umwelt/llm.h"

UMWELT_FUZZ_JSON_MUTATOR()

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string body(reinterpret_cast<const char*>(data), size);
  for (const char* provider : {"openai", "anthropic"}) {
    auto r = umwelt::ParseChatAnswer(provider, body);
    if (r.ok()) (void)umwelt::ExtractJsonObject(r->text);
  }
  (void)umwelt::ExtractJsonObject(body);
  return 0;
}
