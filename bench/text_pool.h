// Real text for benchmark corpora: sentences and paragraphs read from
// ../shared/data (commit messages, the Cranfield and CISI abstracts, Discord
// messages, weekly summaries).
#pragma once

#include <string>
#include <vector>

namespace umwelt::bench {

struct TextPool {
  std::vector<std::string> sentences;
  std::vector<std::string> paragraphs;
};

// Reads every text source under `data_dir`. Fails (returns an empty pool)
// when none is readable.
TextPool LoadTextPool(const std::string& data_dir);

}  // namespace umwelt::bench
