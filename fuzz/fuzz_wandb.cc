// libFuzzer target: W&B run files (any saved shape: GraphQL output, arrays,
// JSON Lines) and GraphQL pages of the runs query, as `import wandb` and
// `sync wandb` read them.
#include <cstdint>
#include <string>

#include "harness.h"
#include "umwelt/wandb.h"

UMWELT_FUZZ_JSON_MUTATOR()

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> warnings;
  (void)umwelt::wandb::ParseRunFile(text, "fuzz.json", "", "o/r", &warnings);
  (void)umwelt::wandb::ParseRunFile(text, "fuzz.json", "e/p", "o/r", &warnings);
  (void)umwelt::wandb::ParseRunsPage(text, "e/p", "o/r", &warnings);
  return 0;
}
