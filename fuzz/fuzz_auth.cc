// libFuzzer target: the server's auth file (`serve --auth FILE`).
#include <cstdint>
#include <string>

#include "harness.h"
#include "server/auth.h"

UMWELT_FUZZ_JSON_MUTATOR()

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  (void)umwelt::server_internal::Auth::ParseConfig(text, "auth.json");
  return 0;
}
