// libFuzzer target: a snapshot server's manifest.json, as `refresh` reads it.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "harness.h"
#include "umwelt/server.h"

UMWELT_FUZZ_JSON_MUTATOR()

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto m = umwelt::ParseManifest(text, "https://corpus.example/manifest.json");
  // What refresh relies on: a size it can compare and a digest it can match.
  if (m.ok() && (m->bytes < 0 || m->sha256.size() != 64)) std::abort();
  return 0;
}
