// umwelt/embed.h — embedders: text to vectors, behind one interface.
//
// Every embedder names its model; a vector space in the corpus records the
// model that built it (meta.spaces), and a query with any other model is
// refused, never mixed.
//
// Providers:
//   builtin                       fastText word vectors trained on the corpus
//                                 itself (see vector.h), SIF-weighted; no network
//   openai:<base-url>#<model>     any OpenAI-compatible /v1/embeddings server;
//                                 key from OPENAI_API_KEY when set
//
// Embed() may be called from one thread at a time per object.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "umwelt/http.h"
#include "umwelt/status.h"

namespace umwelt {

class Embedder {
 public:
  virtual ~Embedder() = default;
  // The model id recorded in meta.spaces ("BAAI/bge-small-en-v1.5",
  // "builtin:fasttext-1a2b3c4d").
  virtual std::string model() const = 0;
  // Vector length, or 0 before the first Embed() when the server decides.
  virtual int dim() const = 0;
  // One unit-length vector per text, in order.
  virtual Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts) = 0;
};

struct OpenAiEmbedderOptions {
  std::string base_url;  // ".../v1"
  std::string model;
  std::string api_key;   // sent as a Bearer token when set; never logged
  int batch = 64;        // texts per request
  int max_retries = 4;
  double backoff_seconds = 0.5;
  long timeout_seconds = 60;
  size_t max_chars = 8000;  // a longer text is cut before sending
};
std::unique_ptr<Embedder> NewOpenAiEmbedder(OpenAiEmbedderOptions options,
                                            std::unique_ptr<HttpClient> http = nullptr);

// Scales `v` to unit length; a zero or non-finite vector becomes all zeros
// and the function returns false.
bool Normalize(std::vector<float>* v);

}  // namespace umwelt
