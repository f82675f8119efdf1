// Latent semantic analysis for the builtin vector space: the truncated SVD of
// a document-term matrix weighted log(1 + tf) · idf (Deerwester et al. 1990),
// computed by a randomized range finder with power iterations (Halko,
// Martinsson and Tropp 2011). A term's vector is its row of the right singular
// vectors; a text is the log(1 + tf) · idf weighted sum of its terms' vectors,
// which is where the document itself lands in the latent space ("folding
// in"). Internal to umwelt_index (builtin_embedder.cc).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "umwelt/status.h"

namespace umwelt::lsa {

struct Model {
  int dim = 0;
  std::vector<std::string> terms;  // sorted
  std::vector<float> idf;          // per term
  std::vector<float> vectors;      // terms.size() × dim, row-major
};

struct TrainOptions {
  int dim = 100;
  int min_df = 2;            // a term in fewer documents has no vector
  size_t max_terms = 200000; // the most widespread terms kept
  int power_iterations = 3;
  uint64_t seed = 20261202;
};

// Collects documents (their index terms), then trains.
class Trainer {
 public:
  void Add(const std::vector<std::string>& terms);
  size_t documents() const { return docs_.size(); }
  // The model; Invalid when there are no terms at all. When no term is in
  // min_df documents, every term is kept. A corpus whose matrix has rank
  // below dim gets zero components past its rank.
  Result<Model> Train(const TrainOptions& o) const;

 private:
  std::unordered_map<std::string, uint32_t> ids_;
  std::vector<std::string> terms_;
  std::vector<uint32_t> df_;
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> docs_;  // (term, count)
};

// Whether `word` (a lower-case token) is an English function word: "the",
// "why", "should". They say what a query asks, not what it is about, and one
// that a corpus seldom writes (a question word) would otherwise weigh as much
// as its rarest term.
bool IsStopWord(std::string_view word);

// A term's weight within a text, before its idf: log(1 + tf). The same in
// training and in embedding, or texts would not land where their documents did.
float LogTf(uint32_t count);

// A text's distinct terms with log(1 + tf), as training weighs a document;
// times the term's idf, the weight its vector is summed with.
std::vector<std::pair<std::string_view, float>> LogTermFrequencies(const std::vector<std::string>& terms);

}  // namespace umwelt::lsa
